"""Exact checks where no step is needed: the adjoint identity for inputs a function is linear in (issue 25)."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import GradientCheckError, OpSpec, check_backward, check_double_backward


def uniform(shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).uniform(-1, 1, shape).astype(dtype)


class SumRows(mg.FunctionNode):
    """x.sum(axis=1) of a (3, 4) array; ``factor`` scales its gradient (1.0: right)."""

    def __init__(self, factor=1.0):
        self.factor = factor

    def forward(self, inputs):
        return inputs[0].sum(axis=1),

    def backward(self, indexes, grad_outputs):
        return F.broadcast_to(F.reshape(grad_outputs[0], (3, 1)), (3, 4)) * self.factor,


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("seed", range(3))
def test_a_linear_input_is_checked_with_one_call_per_direction(dtype, seed):
    x, gy = uniform((3, 4), seed, dtype), uniform((3,), seed + 1, dtype)
    report = check_backward(lambda v: SumRows().apply((v,))[0], x, gy, linear_in=(0,), seed=seed)
    assert report.passed and report.sensitivity[0].exact
    # two backprop passes (and a reference one below float64), then one call per direction, no step
    assert report.evaluations == (2 if dtype == np.float64 else 3) + 2
    with pytest.raises(GradientCheckError, match="adjoint identity"):
        check_backward(lambda v: SumRows(1.001).apply((v,))[0], x, gy, linear_in=(0,), seed=seed)


def test_the_adjoint_check_works_in_float16_as_the_numerical_dtype():
    x, gy = uniform((3, 4), 0, np.float16), uniform((3,), 1, np.float16)
    assert check_backward(lambda v: SumRows().apply((v,))[0], x, gy, linear_in=(0,), dtype=np.float16,
                          seed=0).passed
    with pytest.raises(GradientCheckError):
        check_backward(lambda v: SumRows(1.2).apply((v,))[0], x, gy, linear_in=(0,), dtype=np.float16, seed=0)


def test_bilinear_and_affine_ops_in_each_argument():
    x, W, b = uniform((3, 4)), uniform((2, 4), 1), uniform((2,), 2)
    gy = uniform((3, 2), 3)
    assert check_backward(F.linear, (x, W, b), gy, linear_in=(0, 1, 2), seed=0).passed
    assert check_double_backward(F.linear, (x, W, b), gy, (x, W, b), linear_in=(0, 1, 2), seed=0).passed


def test_a_wrong_declaration_is_a_failure_not_a_pass():
    x, gy = uniform((3, 4)) + 2.0, uniform((3, 4), 1)
    with pytest.raises(GradientCheckError):  # tanh is not linear: the identity does not hold
        check_backward(F.tanh, x, gy, linear_in=(0,), seed=0)


@pytest.mark.parametrize("bad", [(2,), ("0",), (True,), 1.5])
def test_bad_linear_in_is_refused(bad):
    with pytest.raises(ValueError, match="linear_in"):
        check_backward(F.tanh, uniform((3,)), uniform((3,), 1), linear_in=bad)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_bad_directions_are_refused(bad):
    with pytest.raises(ValueError, match="directions"):
        check_backward(F.tanh, uniform((3,)), uniform((3,), 1), directions=bad)


def test_op_spec_declares_linear_inputs():
    spec = OpSpec("sum_rows", lambda v: F.sum(v, axis=1), lambda rng, dt: (uniform((3, 4), 0, dt),), linear_in=[0])
    assert spec.linear_in == (0,)
    with pytest.raises(TypeError, match="linear_in"):
        OpSpec("sum_rows", F.sum, lambda rng, dt: (uniform((3, 4), 0, dt),), linear_in=0)
