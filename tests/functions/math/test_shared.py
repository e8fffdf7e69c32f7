"""The unary elementwise skeleton: argument checks, dtype preservation, no input mutation."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

UNARY = ["exp", "log", "log1p", "expm1", "log2", "log10", "sqrt", "rsqrt", "square",
         "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh"]


@pytest.mark.parametrize("name", UNARY)
def test_integer_input_is_a_type_error_naming_the_op(name):
    with pytest.raises(TypeError, match=rf"^{name}: x must have a floating-point dtype, got int64"):
        getattr(F, name)(np.arange(3))


@pytest.mark.parametrize("name", UNARY)
def test_list_input_is_a_type_error_naming_the_op(name):
    with pytest.raises(TypeError, match=rf"^{name}: x must be a numpy.ndarray"):
        getattr(F, name)([0.5, 0.25])


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.float16, np.float32])
def test_dtype_is_kept_and_gradient_has_it_too(name, dtype):
    x = mg.Variable(np.array([0.25, 0.5], dtype=dtype))
    y = getattr(F, name)(x)
    assert y.dtype == dtype
    F.sum(y).backward()
    assert x.grad.dtype == dtype


@pytest.mark.parametrize("name", UNARY)
def test_matches_numpy_on_its_domain(name):
    x = np.linspace(0.05, 0.95, 7)
    expected = {"rsqrt": 1 / np.sqrt(x)}.get(name)
    expected = getattr(np, name)(x) if expected is None else expected
    np.testing.assert_allclose(getattr(F, name)(x).array, expected, rtol=1e-15)


def test_nodes_are_named_classes_of_their_module():
    y = F.sin(mg.Variable(np.ones(1)))
    assert type(y.creator) is F.Sin
    assert (F.Sin.__module__, F.Sin.__qualname__) == ("minigrad.functions.math.trigonometric", "Sin")
    assert isinstance(y.creator, mg.FunctionNode)
