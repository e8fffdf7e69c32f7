"""The row maker of one-input elementwise ops (``minigrad.functions._elementwise``): what a row keeps, how its
params are given, the dtype it returns, and its errors. The ops written as rows are checked op by op through
their specs (``python -m minigrad check``); here, rows made for the test, against NumPy and numerical gradients."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.functions._elementwise import UnaryElementwise, elementwise
from minigrad.testing import check_backward, check_double_backward

Cube = elementwise("Cube", lambda xp, x: x * x * x, lambda gy, x, y: gy * 3.0 * x * x)
Scaled = elementwise("Scaled", lambda xp, x, a, b: x * a + b, lambda gy, x, y, a, b: gy * a, uses="",
                     params=("a", "b"), defaults={"b": 0.0})


def test_a_row_computes_its_forward_and_a_gradient_that_matches_numerical_differences():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, (3, 4))
    np.testing.assert_array_equal(Cube().apply((mg.Variable(x),))[0].array, x * x * x)
    gy, ggx = rng.standard_normal((2, 3, 4))
    check_backward(lambda v: Cube().apply((v,))[0], x, gy)
    check_double_backward(lambda v: Cube().apply((v,))[0], x, gy, ggx)


def test_a_wrong_backward_in_a_row_is_caught_by_the_gradient_check():
    wrong = elementwise("WrongCube", lambda xp, x: x * x * x, lambda gy, x, y: gy * 2.0 * x * x)
    x = np.random.default_rng(1).uniform(0.5, 2, (3,))
    with pytest.raises(AssertionError):
        check_backward(lambda v: wrong().apply((v,))[0], x, np.ones(3))


@pytest.mark.parametrize("uses, kept", [("", (False, False)), ("x", (True, False)), ("y", (False, True)),
                                        ("xy", (True, True))])
def test_the_backward_gets_what_the_row_uses_and_none_for_the_rest(uses, kept):
    seen = []

    def backward(gy, x, y):
        seen.append((x is not None, y is not None))
        return gy

    Row = elementwise("Row", lambda xp, x: x + 1, backward, uses=uses)
    x = mg.Variable(np.ones(2))
    F.sum(Row().apply((x,))[0]).backward()
    assert seen == [kept]
    np.testing.assert_array_equal(x.grad, np.ones(2))


def test_params_are_given_by_position_or_name_and_defaults_fill_the_rest():
    assert Scaled(2.0).params == (2.0, 0.0)
    assert Scaled(2.0, 1.0).params == (2.0, 1.0)
    node = Scaled(b=1.0, a=3.0)
    assert (node.a, node.b, node.params) == (3.0, 1.0, (3.0, 1.0))
    assert (F.LeakyReLU(slope=0.1).slope, F.MulConstant(2.0).c, F.ELU(1.5).params) == (0.1, 2.0, (1.5, 1.0))
    np.testing.assert_array_equal(Scaled(2.0, 1.0).apply((mg.Variable(np.ones(2)),))[0].array, [3.0, 3.0])


@pytest.mark.parametrize("make, message", [
    (lambda: Scaled(), r"Scaled is missing the argument\(s\) \('a',\)"),
    (lambda: Scaled(1.0, 2.0, 3.0), r"Scaled takes 2 argument\(s\) \('a', 'b'\), got 3"),
    (lambda: Scaled(1.0, a=2.0), "Scaled got an unexpected or repeated argument 'a'"),
    (lambda: F.MulConstant(), r"MulConstant.__init__\(\) missing 1 required positional argument: 'c'"),
    (lambda: F.MulConstant(1.0, d=2.0), r"MulConstant.__init__\(\) got an unexpected keyword argument 'd'"),
])
def test_wrong_params_are_a_type_error_naming_the_node(make, message):
    with pytest.raises(TypeError, match=message):
        make()


@pytest.mark.parametrize("kwargs, message", [
    ({"uses": "z"}, r"elementwise: uses must be one of \('', 'x', 'y', 'xy'\), got 'z'"),
    ({"params": ("c",), "defaults": {"d": 1}}, r"elementwise: Bad's defaults name no param: \['d'\]"),
])
def test_a_malformed_row_is_a_value_error(kwargs, message):
    row = {"forward": lambda xp, x, *params: x, "backward": lambda gy, x, y, *params: gy, **kwargs}
    with pytest.raises(ValueError, match=message):
        elementwise("Bad", **row)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("shape", [(), (2,)])
def test_a_python_float_param_keeps_the_input_dtype_even_0_dim_on_numpy_1(dtype, shape):
    # NumPy 1 computes a 0-dim float32 * 0.1 in float64; a row casts back there
    x = mg.Variable(np.full(shape, 0.5, dtype))
    for y in (x * 0.1, 0.1 / x, x ** 1.5, 2.0 ** x, x - 0.1, 0.1 - x, x / 3.0, Scaled(0.1, 0.2).apply((x,))[0]):
        assert y.dtype == dtype and y.shape == shape


def test_a_row_is_a_named_class_of_its_module_and_pickles_by_name():
    assert issubclass(Cube, UnaryElementwise) and (Cube.__module__, Cube.__qualname__) == (__name__, "Cube")
    assert pickle.loads(pickle.dumps(F.MulConstant)) is F.MulConstant
    assert type(mg.Variable(np.ones(1)) * 2.0).__name__ == "Variable"
    assert type((mg.Variable(np.ones(1)) * 2.0).creator) is F.MulConstant


def test_a_ufunc_row_gets_its_params_after_x():
    Hypot = elementwise("Hypot", "hypot", lambda gy, x, y, c: gy * x / y, uses="xy", params=("c",))
    Shift = elementwise("Shift", "add", lambda gy, x, y, c: gy, uses="", params=("c",))
    x = mg.Variable(np.array([3.0, -5.0]))
    np.testing.assert_allclose(Hypot(4.0).apply((x,))[0].array, [5.0, np.hypot(-5.0, 4.0)])
    np.testing.assert_array_equal(Shift(0.5).apply((x,))[0].array, [3.5, -4.5])
