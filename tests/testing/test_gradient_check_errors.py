"""Bad arguments and broken test set-ups give clear errors, never a wrong verdict."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

X = np.linspace(-1, 1, 6).reshape(2, 3)
GY = np.linspace(0.5, -0.5, 6).reshape(2, 3)


@pytest.mark.parametrize("eps", [0, -1e-3, float("nan"), float("inf")])
def test_eps_must_be_positive(eps):
    with pytest.raises(ValueError, match="check_backward: eps must be a positive"):
        check_backward(F.exp, X, GY, eps=eps)


@pytest.mark.parametrize("dtype", [np.int32, "bool", "complex128"])
def test_dtype_must_be_float(dtype):
    with pytest.raises(TypeError, match="dtype must be a floating-point dtype"):
        check_backward(F.exp, X, GY, dtype=dtype)


@pytest.mark.parametrize("check", ["backward", "double"])
@pytest.mark.parametrize("keyword, value, error", [
    ("seed", "a", TypeError), ("seed", 1.5, TypeError), ("seed", True, TypeError), ("seed", -1, ValueError),
    ("atol", "1e-3", TypeError), ("rtol", [1e-3], TypeError), ("nondet_tol", "0", TypeError),
])
def test_seed_and_tolerances_are_refused_by_name(check, keyword, value, error):
    # a string seed used to end in NumPy's "invalid literal for int()", a negative one in "expected
    # non-negative integer", a string atol in "'>=' not supported": none of them named the argument
    x = np.ones(3)
    with pytest.raises(error, match=rf"check_{'backward' if check == 'backward' else 'double_backward'}: "
                                    rf"{keyword} must be"):
        if check == "backward":
            check_backward(F.tanh, x, x, **{keyword: value})
        else:
            check_double_backward(F.tanh, x, x, x, **{keyword: value})


def test_numpy_integer_seeds_and_tolerances_are_taken():
    x = np.ones(3)
    report = check_backward(F.tanh, x, x, seed=np.int64(3), atol=np.float32(1e-3), rtol=np.float64(1e-3))
    assert report.passed and report.seed == 3


def test_no_grads_length():
    with pytest.raises(ValueError, match="no_grads has 1 entries but there are 2 inputs"):
        check_backward(F.add, (X, X), GY, no_grads=(False,))
    with pytest.raises(ValueError, match="no_grads has 3 entries but there are 2 inputs"):
        check_double_backward(F.add, (X, X), GY, (X, X), no_grads=(False, False, True))


def test_no_grads_false_for_an_integer_input():
    with pytest.raises(ValueError, match=r"x_data\[1\] has dtype int32.*no_grads entry must be True"):
        check_backward(lambda a, t: F.select_item(a, t), (X, np.array([0, 1], np.int32)), np.ones(2),
                       no_grads=(False, False))


def test_y_grad_none_needs_a_scalar_output():
    with pytest.raises(ValueError, match=r"y_grad=None is only for scalar outputs.*shape \(2, 3\)"):
        check_backward(F.exp, X, None)
    with pytest.raises(ValueError, match=r"y_grad=None is only for scalar outputs"):
        check_double_backward(F.exp, X, None, GY)


def test_y_grad_shape_and_dtype():
    with pytest.raises(ValueError, match=r"y_grad\[0\] has shape \(3, 2\) and dtype float64, but output 0 has "
                                         r"shape \(2, 3\)"):
        check_backward(F.exp, X, GY.reshape(3, 2))
    with pytest.raises(ValueError, match=r"dtype float32, but output 0 has shape \(2, 3\) and dtype float64"):
        check_backward(F.exp, X, GY.astype(np.float32))
    with pytest.raises(ValueError, match=r"returned 2 output\(s\) but y_grad has 1 entries"):
        check_backward(lambda v: F.split_axis(v, [1], axis=1), X, (GY,))
    with pytest.raises(TypeError, match=r"y_grad\[0\] must be an array or None, got list"):
        check_backward(F.exp, X, ([1.0] * 6,))


def test_func_must_return_variables():
    with pytest.raises(TypeError, match="func must return a Variable or a tuple of Variables; output 0 is ndarray"):
        check_backward(lambda v: np.exp(v.array), X, GY)
    with pytest.raises(TypeError, match="output 1 is float"):
        check_backward(lambda v: (F.exp(v), 1.0), X, (GY, None))


def test_inputs_must_be_arrays():
    with pytest.raises(TypeError, match=r"x_data\[0\] must be a NumPy or CuPy array, got list"):
        check_backward(F.exp, [[1.0, 2.0]], GY)
    with pytest.raises(TypeError, match=r"params\[0\] must be a Variable"):
        check_backward(F.exp, X, GY, params=(X,))
    with pytest.raises(ValueError, match=r"x_data\[0\] contains NaN or Inf"):
        check_backward(F.exp, np.array([1.0, np.nan]), np.ones(2))


def test_double_backward_gradient_counts():
    with pytest.raises(ValueError, match=r"x_grad_grad has 1 entries; expected one per checked float input \(2\)"):
        check_double_backward(F.add, (X, X), GY, (X,))
    W = mg.Parameter(X.copy())
    with pytest.raises(ValueError, match="params_grad_grad has 0 entries for 1 params"):
        check_double_backward(lambda v: v * W, X, GY, (X,), params=(W,))


# --- guards -------------------------------------------------------------------------------

def test_nondeterministic_func():
    rng = np.random.default_rng(0)  # func draws a new factor on every call
    with pytest.raises(RuntimeError, match="func is not deterministic: output 0 differs between two calls"):
        check_backward(lambda v: v * rng.uniform(), X, GY)


class InPlaceForward(mg.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        x *= 2  # writes into its input
        return x.copy(),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2,


class InPlaceBackward(mg.FunctionNode):
    def forward(self, inputs):
        return inputs[0] * 2,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        gy.array[...] *= 2  # writes into the output gradient it was given
        return gy,


def test_func_modifying_its_input():
    with pytest.raises(RuntimeError, match=r"func modified its input x_data\[0\].*changed"):
        check_backward(lambda v: InPlaceForward().apply((v,))[0], X, GY)


def test_backward_modifying_the_output_gradient():
    with pytest.raises(RuntimeError, match=r"backward modified the output gradient it was given \(y_grad\[0\]\)"):
        check_backward(lambda v: InPlaceBackward().apply((v,))[0], X, GY)


def test_guards_leave_the_callers_arrays_alone():
    x, gy = X.copy(), GY.copy()
    with pytest.raises(RuntimeError):
        check_backward(lambda v: InPlaceForward().apply((v,))[0], x, gy)
    with pytest.raises(RuntimeError):
        check_backward(lambda v: InPlaceBackward().apply((v,))[0], x, gy)
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(gy, GY)


# --- a list or tuple of numbers where an array is expected: a clear error, never a silent split -----------

LIST_OF_NUMBERS = "is a {} of numbers: one array, or one array per number\\? minigrad does not guess"


@pytest.mark.parametrize("container", [list, tuple])
@pytest.mark.parametrize("argument", ["x_data", "y_grad"])
def test_check_backward_refuses_a_list_of_numbers(container, argument):
    numbers = container([0.1, 0.2])
    args = {"x_data": (numbers, np.ones(2)), "y_grad": (np.array([0.1, 0.2]), numbers)}[argument]
    with pytest.raises(TypeError, match=f"check_backward: {argument} " + LIST_OF_NUMBERS.format(container.__name__)):
        check_backward(F.tanh, *args, seed=0)


@pytest.mark.parametrize("argument", ["x_data", "y_grad", "x_grad_grad"])
def test_check_double_backward_refuses_a_list_of_numbers(argument):
    x = np.array([0.1, 0.2])
    args = {"x_data": ([0.1, 0.2], x, x), "y_grad": (x, [1.0, 1.0], x), "x_grad_grad": (x, x, [1.0, 1.0])}[argument]
    with pytest.raises(TypeError, match=f"check_double_backward: {argument} " + LIST_OF_NUMBERS.format("list")):
        check_double_backward(F.tanh, *args, seed=0)


def test_a_tuple_or_list_of_arrays_is_one_input_per_array_as_in_chainer():
    a, b = np.array([0.1, 0.2]), np.array([0.3, -0.4])
    for inputs in ((a, b), [a, b]):
        assert check_backward(F.add, inputs, np.ones(2), seed=0).passed
        assert check_double_backward(F.mul, inputs, np.ones(2), list(inputs), seed=0).passed


def test_one_array_of_params_grad_grad_is_one_entry():
    p = mg.Parameter(np.array([0.5, -0.5]))
    report = check_double_backward(lambda x: x * p, np.array([0.1, 0.2]), np.ones(2), np.ones(2), params=(p,),
                                   params_grad_grad=np.array([1.0, -1.0]), seed=0)  # was iterated over elements
    assert report.passed


# --- input_names in check_double_backward, as in check_backward ---------------------------------------------

class _RawArraySoftplus(mg.FunctionNode):
    """Right first derivative, computed on raw arrays: the second order has no graph."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return np.logaddexp(0, inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * mg.Variable(1 / (1 + np.exp(-x.array))),


def test_check_double_backward_names_the_inputs_with_input_names():
    def scaled(x, s):
        return _RawArraySoftplus().apply((x,))[0] * s

    x, s = np.array([0.1, -0.3]), np.array([2.0, 3.0])
    with pytest.raises(AssertionError) as info:
        check_double_backward(scaled, (x, s), np.ones(2), (x, s), input_names=("x", "scale"), seed=0)
    first = str(info.value).splitlines()[0]
    own_report = str(info.value).split("\nlocalisation")[0]  # the node checked alone has its own input names
    assert "derivative for x (seed=0)" in first and "x_data" not in own_report
    with pytest.raises(ValueError, match="check_double_backward: input_names has 1 entries for 2 inputs"):
        check_double_backward(scaled, (x, s), np.ones(2), (x, s), input_names=("x",))
