"""Chainer's test-class decorators: ``product``, ``parameterize`` and ``inject_backend_tests``.

They let a test module written for ``chainer.testing`` run after changing its
imports. ``parameterize`` makes one copy of a test class per dict of
attributes, as Chainer does; pytest collects the copies. On a
``FunctionTestCase`` or ``LinkTestCase`` a ``dtype`` entry also narrows the
copy's ``dtypes`` to that one, so each copy runs its own dtype only.
``inject_backend_tests`` runs each test method that takes a ``backend_config``
on every configuration minigrad has (FunctionTestCase's and LinkTestCase's own
tests already run on NumPy and, where a GPU is present, on CuPy).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import sys
import types
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from minigrad.backend import cupy_or_none
from minigrad.dtypes import get_dtype
from minigrad.testing.backend_config import BackendConfig, supported
from minigrad.testing.function_test_case import FunctionTestCase
from minigrad.testing.link_test_case import LinkTestCase
from minigrad.testing.skipping import skip

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
    """Chainer's backend decorator: each test method that takes ``backend_config`` runs on every configuration.

    A method (of ``method_names``, or any ``test*`` method when ``None``; inherited ones too) whose signature
    has a ``backend_config`` argument is run once per configuration in ``params`` that minigrad has, each
    given its :class:`~minigrad.testing.BackendConfig`: the NumPy ones always, the CuPy ones
    (``use_cuda=True``) where CuPy and a GPU are present; ChainerX and iDeep configurations are left out.
    A ``FunctionTestCase``'s or ``LinkTestCase``'s own tests take no ``backend_config``: they already run on
    NumPy and, where a GPU is present, on CuPy, and are left as they are.

    Example:
        >>> from minigrad.testing import inject_backend_tests
        >>> seen = []
        >>> @inject_backend_tests(None, [{}, {"use_ideep": "always"}, {"use_cuda": True}])
        ... class TestSomething:
        ...     def test_it(self, backend_config):
        ...         seen.append(backend_config.backend)
        >>> TestSomething().test_it(); seen[0]   # (and "cupy" too where a GPU is present)
        'numpy'
    """
    for i, param in enumerate(params):
        if not isinstance(param, Mapping):
            raise TypeError(f"inject_backend_tests: configuration {i} must be a dict, got {type(param).__name__}")
    configs = [dict(param) for param in params if supported(param)]

    def decorate(cls: T) -> T:
        for name in dir(cls):
            method = getattr(cls, name)
            if not (name.startswith("test") and inspect.isfunction(method)):
                continue
            if method_names is not None and name not in method_names:
                continue
            if "backend_config" in inspect.signature(method).parameters:
                setattr(cls, name, _on_each_backend(method, configs))
        return cls

    return decorate


def _on_each_backend(method: Callable[..., Any], configs: list[dict[str, Any]]) -> Callable[..., Any]:
    """``method`` run once per available configuration, without the ``backend_config`` argument."""

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        available = [c for c in configs if not c.get("use_cuda") or cupy_or_none() is not None]
        if not available:
            skip("no configuration of this test runs here (its CuPy ones need CuPy and a GPU)")
        for config in available:
            method(self, BackendConfig(config), *args, **kwargs)

    parameters = [p for p in inspect.signature(method).parameters.values() if p.name != "backend_config"]
    run.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]  # (pytest asks no fixture)
    return run
