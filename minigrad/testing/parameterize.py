"""Chainer's test-class decorators: ``product``, ``parameterize`` and ``inject_backend_tests``.

They let a test module written for ``chainer.testing`` run after changing its
imports. ``parameterize`` makes one copy of a test class per dict of
attributes, as Chainer does; pytest collects the copies. On a
``FunctionTestCase`` or ``LinkTestCase`` a ``dtype`` entry also narrows the
copy's ``dtypes`` to that one, so each copy runs its own dtype only.
``inject_backend_tests`` is accepted and changes nothing: those test cases
already run on NumPy and, where a GPU is present, on CuPy.
"""

from __future__ import annotations

import itertools
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy

from minigrad.dtypes import get_dtype
from minigrad.testing.function_test_case import FunctionTestCase
from minigrad.testing.link_test_case import LinkTestCase

__all__ = ["product", "parameterize", "inject_backend_tests"]

T = TypeVar("T", bound=type)
_TEST_CASES = (FunctionTestCase, LinkTestCase)  # the classes that run every backend and take ``dtypes``


def product(parameter: Mapping[str, Sequence[Any]] | Sequence[Sequence[Mapping[str, Any]]]) -> list[dict[str, Any]]:
    """Every combination of the values, as a list of dicts (Chainer's ``testing.product``).

    ``parameter`` is a dict of lists (one value from each list), or a list of
    lists of dicts (one dict from each list, merged). As in Chainer, a dict's
    keys are taken in sorted order (the last one varies fastest), and a key
    ``"a,b"`` sets two attributes from each pair of values.

    Example:
        >>> from minigrad.testing import product
        >>> product({"shape": [(3,), (2, 2)], "dtype": ["float32"]})
        [{'dtype': 'float32', 'shape': (3,)}, {'dtype': 'float32', 'shape': (2, 2)}]
        >>> product({"a,b": [(1, 2), (3, 4)]})
        [{'a': 1, 'b': 2}, {'a': 3, 'b': 4}]
        >>> product([[{"a": 1}, {"a": 2}], [{"b": 0}]])
        [{'a': 1, 'b': 0}, {'a': 2, 'b': 0}]
    """
    if isinstance(parameter, Mapping):
        for key, values in parameter.items():
            if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
                raise TypeError(f"product: the values of {key!r} must be a list or a tuple, got "
                                f"{type(values).__name__}")
        return product([_values_to_dicts(names, values) for names, values in sorted(parameter.items())])
    if isinstance(parameter, Sequence) and all(isinstance(group, Sequence) for group in parameter):
        combined = []
        for dicts in itertools.product(*parameter):
            merged: dict[str, Any] = {}
            for d in dicts:
                merged.update(d)
            combined.append(merged)
        return combined
    raise TypeError(f"product: expected a dict of lists or a list of lists of dicts, got {type(parameter).__name__}")


def _values_to_dicts(names: str, values: Sequence[Any]) -> list[dict[str, Any]]:
    """``("a,b", [(1, 2), ...])`` -> ``[{"a": 1, "b": 2}, ...]``; a single name takes each value whole."""
    keys = names.split(",")
    if len(keys) == 1:
        return [{names: value} for value in values]
    dicts = []
    for value in values:
        if not isinstance(value, Sequence) or len(value) != len(keys):
            raise TypeError(f"product: each value of {names!r} must be a sequence of {len(keys)}, got {value!r}")
        dicts.append(dict(zip(keys, value)))
    return dicts


def parameterize(*params: Mapping[str, Any]) -> Callable[[T], T]:
    """Class decorator: one copy of the test class per dict, its entries set as class attributes.

    The copies are named as Chainer names them, ``TestFoo_param_0_{dtype=float32, shape=(3,)}`` (the
    keys sorted, each value by its ``__name__`` or ``repr``, shortened to 100 characters), and
    put in the class's module for pytest to collect; the decorated class itself
    is no longer collected.

    Example:
        >>> from minigrad.testing import parameterize, product
        >>> @parameterize(*product({"n": [1, 2]}))
        ... class TestDouble:
        ...     def test_double(self):
        ...         assert self.n * 2 == self.n + self.n
        >>> [(copy.__name__, copy.n) for copy in TestDouble.__subclasses__()]
        [('TestDouble_param_0_{n=1}', 1), ('TestDouble_param_1_{n=2}', 2)]

    Stacked, each copy of the inner decorator is copied again (and makes way), so every combination runs:
    ``TestFoo_param_0_{shape=(3,)}_param_1_{dtype=float32}``.
    """
    for i, param in enumerate(params):
        if not isinstance(param, Mapping):
            raise TypeError(f"parameterize: argument {i} must be a dict of attributes, got {type(param).__name__}")

    def decorate(cls: T) -> T:
        module = sys.modules[cls.__module__]
        # stacked under another parameterize: copy each of its copies, which make way (as Chainer's do)
        bases = vars(cls).get("_parameterized_copies") or [cls]
        copies = []
        for base in bases:
            if base is not cls:
                base.__test__ = False  # type: ignore[attr-defined]
                if getattr(module, base.__name__, None) is base:
                    delattr(module, base.__name__)
            for i, param in enumerate(params):
                entries = ", ".join(f"{k}={_short(v)}" for k, v in sorted(param.items()))
                name = f"{base.__name__}_param_{i}_{{{entries}}}"
                # a function value stays a plain function on the instance (self.f(x), not a method), as in Chainer
                values = {k: staticmethod(v) if isinstance(v, types.FunctionType) else v for k, v in param.items()}
                attributes = dict(values, __test__=True, __qualname__=name, __module__=cls.__module__)
                if "dtype" in param and issubclass(cls, _TEST_CASES):
                    attributes["dtypes"] = (get_dtype(param["dtype"]).name,)  # (mixed16: its float16 storage)
                copies.append(type(cls)(name, (base,), attributes))
                setattr(module, name, copies[-1])
        cls._parameterized_copies = copies  # type: ignore[attr-defined]
        cls.__test__ = False  # type: ignore[attr-defined]  # the copies carry the tests
        return cls

    return decorate


def _short(value: Any, limit: int = 100) -> str:
    """A parameter value as Chainer writes it in a class name: ``__name__`` if it has one, else ``repr``."""
    name = getattr(value, "__name__", None)
    text = name if isinstance(name, str) else repr(value)
    if len(text) <= limit:
        return text
    head = (limit - 3) // 2
    return text[:head] + "..." + text[len(text) - (limit - 3 - head):]


def inject_backend_tests(method_names: Sequence[str] | None, params: Any) -> Callable[[T], T]:
    """Chainer's backend decorator, accepted for ``FunctionTestCase`` and ``LinkTestCase`` classes.

    It changes nothing: those already run every test on NumPy and, where a GPU
    is present, on CuPy (``--minigrad-backend`` picks one). On any other class
    it is a ``TypeError``, since its tests would ask for a ``backend_config``
    argument that minigrad does not provide.

    Example:
        >>> from minigrad.testing import FunctionTestCase, inject_backend_tests
        >>> @inject_backend_tests(None, [{}, {"use_cuda": True}])
        ... class TestSomething(FunctionTestCase):
        ...     pass
        >>> TestSomething.__name__
        'TestSomething'
    """

    def decorate(cls: T) -> T:
        if not (isinstance(cls, type) and issubclass(cls, _TEST_CASES)):
            raise TypeError(
                f"inject_backend_tests: {getattr(cls, '__name__', cls)!r} is not a FunctionTestCase or LinkTestCase; "
                "minigrad has no backend_config: parametrize such a test over the xp fixture instead")
        return cls

    return decorate
