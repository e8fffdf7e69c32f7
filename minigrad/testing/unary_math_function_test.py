"""Chainer's ``testing.unary_math_function_unittest``: a class decorator that tests one unary math function.

Built on :class:`~minigrad.testing.FunctionTestCase`: the decorated class
becomes a FunctionTestCase (a plain ``unittest.TestCase`` body such as
``pass`` is kept) parameterized, as in Chainer, over ``shape`` ((3, 2) and
()) and ``dtype`` (float16, float32, float64). Each copy runs FunctionTestCase's
tests (forward against ``func_expected``, backward, double backward, and the
deterministic and views checks) on every backend, with Chainer's tolerances per
dtype, and ``test_label`` when the function's node class is known.

Differences from Chainer's decorator: tests are pytest items with
FunctionTestCase's names (``test_forward[numpy-float32]`` for Chainer's
``test_forward_cpu``); the expected label is the node's class name by default
(minigrad's labels are class names: ``Sin``, where Chainer says ``sin``); and
``func`` is a function, since minigrad has no old-style ``chainer.Function``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy

from minigrad.testing.function_test_case import FunctionTestCase
from minigrad.testing.parameterize import parameterize, product
from minigrad.testing.skipping import skip

__all__ = ["unary_math_function_unittest"]

_SHAPES = [(3, 2), ()]
_DTYPES = [numpy.float16, numpy.float32, numpy.float64]
_SKIPPED_ATTRIBUTES = {"__dict__", "__weakref__", "__module__", "__qualname__", "__doc__"}


def _default_data(shape: tuple[int, ...], dtype: Any) -> tuple[Any, Any, Any]:
    """x, gy and ggx uniform in [-1, 1] (NumPy's global generator, which FunctionTestCase seeds per case)."""
    return tuple(numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False) for _ in range(3))


def _tolerances(dtype: numpy.dtype) -> tuple[dict[str, Any], dict[str, Any]]:
    """Chainer's forward and gradient-check options for ``dtype``."""
    if dtype == numpy.float16:
        eps = float(numpy.finfo(numpy.float16).eps)
        return {"atol": eps, "rtol": eps}, {"eps": 2.0 ** -4, "atol": 2.0 ** -4, "rtol": 2.0 ** -4,
                                            "dtype": numpy.float64}
    return {"atol": 1e-4, "rtol": 1e-4}, {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-4}


def _node_class(func: Callable[..., Any]) -> type | None:
    """The FunctionNode class named like ``func`` (``sin`` -> ``Sin``) in minigrad.functions, if there is one."""
    from minigrad import functions

    return getattr(functions, getattr(func, "__name__", "").capitalize(), None)


def unary_math_function_unittest(
    func: Callable[..., Any],
    func_expected: Callable[..., Any] | None = None,
    label_expected: str | None = None,
    make_data: Callable[[tuple[int, ...], Any], tuple[Any, Any, Any]] | None = None,
    is_linear: bool | None = None,
    forward_options: dict[str, Any] | None = None,
    backward_options: dict[str, Any] | None = None,
    double_backward_options: dict[str, Any] | None = None,
) -> Callable[[type], type]:
    """Class decorator: test the unary elementwise function ``func`` forward, backward and at second order.

    Args:
        func: the function under test (one Variable in, one out, same dtype).
        func_expected: the NumPy reference, called as ``func_expected(x, dtype=x.dtype)``; by default the
            NumPy function of the same name.
        label_expected: the label of ``func``'s node; by default its class name.
        make_data: ``make_data(shape, dtype) -> (x, gy, ggx)``; by default uniform in [-1, 1].
        is_linear: deprecated (as in Chainer): square the output for the double-backward check.
        forward_options, backward_options, double_backward_options: override Chainer's per-dtype
            tolerances (``assert_allclose`` / ``check_backward`` / ``check_double_backward`` keywords).

    Example:
        >>> import unittest, numpy as np, minigrad.functions as F
        >>> from minigrad.testing import unary_math_function_unittest
        >>> @unary_math_function_unittest(F.sin)
        ... class TestSin(unittest.TestCase):
        ...     pass
        >>> copies = TestSin.__subclasses__()
        >>> len(copies), copies[0].__name__
        (6, 'TestSin_param_0_{dtype=float16, shape=(3, 2)}')
        >>> copies[3]().run_case("numpy", "float32")
        ['forward', 'backward', 'double_backward', 'deterministic', 'views', 'jvp', 'vjp_linearity', 'hvp_symmetry']
    """
    name = getattr(func, "__name__", None)
    if not callable(func) or not name:
        raise TypeError(f"unary_math_function_unittest: func must be a named function, got {func!r}")
    if func_expected is None:
        func_expected = getattr(numpy, name, None)
        if func_expected is None:
            raise ValueError(f"unary_math_function_unittest: NumPy has no function {name!r}; pass func_expected")
    node_class = _node_class(func)
    if label_expected is not None and node_class is None:
        raise ValueError(f"unary_math_function_unittest: label_expected is given, but minigrad.functions has no "
                         f"node class {name.capitalize()!r} for {name!r}")
    if is_linear is not None:
        warnings.warn("is_linear option is deprecated", DeprecationWarning, stacklevel=2)
    data = make_data or _default_data
    reference = func_expected

    def forward(self: Any, inputs: tuple[Any, ...], device: str) -> Any:
        y = func(inputs[0])
        squared = is_linear and getattr(self, "test_name", None) == "test_double_backward"
        return y * y if squared else y  # (a linear function's second derivative is 0: square it, as Chainer did)

    def decorate(klass: type) -> type:
        body = {k: v for k, v in vars(klass).items() if k not in _SKIPPED_ATTRIBUTES}
        skip_reason = body.pop("__unittest_skip_why__", "skipped") if body.pop("__unittest_skip__", False) else None
        body.pop("setUp", None)  # (the decorator's set-up replaces it, as in Chainer)

        def setUp(self: Any) -> None:  # noqa: N802  (Chainer's name)
            if skip_reason is not None:
                skip(skip_reason)
            self.x, self.gy, self.ggx = data(self.shape, self.dtype)
            forward, gradients = _tolerances(numpy.dtype(self.dtype))
            self.check_forward_options = {**forward, **(forward_options or {})}
            self.check_backward_options = {**gradients, **(backward_options or {})}
            self.check_double_backward_options = {**gradients, **(double_backward_options or {})}

        def test_label(self: Any) -> None:
            expected = node_class.__name__ if label_expected is None else label_expected
            assert node_class().label == expected, f"label {node_class().label!r} != {expected!r}"

        body.update(
            setUp=setUp,
            generate_inputs=lambda self: (self.x,),
            forward=forward,
            forward_expected=lambda self, inputs: numpy.asarray(reference(inputs[0], dtype=inputs[0].dtype)),
            generate_grad_outputs=lambda self, template: (self.gy,),
            generate_grad_grad_inputs=lambda self, template: (self.ggx,),
        )
        if node_class is not None:
            body["test_label"] = test_label
        case = type(klass.__name__, (FunctionTestCase,), dict(body, __module__=klass.__module__,
                                                             __qualname__=klass.__qualname__))
        return parameterize(*product({"shape": _SHAPES, "dtype": _DTYPES}))(case)

    return decorate
