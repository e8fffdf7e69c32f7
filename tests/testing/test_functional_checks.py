"""The battery's jvp, vjp_linearity and hvp_symmetry checks: each catches a deliberately broken op and passes a
correct one, through the same case runner as ``python -m minigrad check``."""

from __future__ import annotations

import json

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.__main__ import main
from minigrad.testing import OpSpec, run_case
from minigrad.testing.functional_checks import RUNNERS, SECOND_ORDER
from minigrad.testing.registry import CHECKS, SECOND_ORDER_CHECKS

DTYPES = ("float16", "float32", "float64")
NEW_CHECKS = ("jvp", "vjp_linearity", "hvp_symmetry")


def one_input(rng, dtype):
    return (rng.uniform(0.5, 1.5, (2, 3)).astype(dtype),)


def two_inputs(rng, dtype):
    return rng.uniform(0.5, 1.5, (2, 3)).astype(dtype), rng.uniform(0.5, 1.5, (2, 3)).astype(dtype)


class Square(mg.FunctionNode):
    """x², correct."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x * grad_outputs[0],


class MaskingSquare(Square):
    """x² whose backward masks with its output gradient (a ReLU mask on the wrong operand)."""

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = grad_outputs[0]
        return 2 * x * gy * (gy.array > 0).astype(gy.dtype),


class BranchingSquare(Square):
    """x² whose backward branches on its output gradient (scaling large ones down, a clipping by norm)."""

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = grad_outputs[0]
        largest = float(abs(gy.array).max())
        return 2 * x * (gy if largest <= 1 else gy / largest),


class IgnoringSquare(Square):
    """x² whose backward ignores its output gradient (as if it were always ones)."""

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x,


class ProductGradient(mg.FunctionNode):
    """``g * a``: the gradient of ``a * b`` for ``b``, with its own backward (``wrong_a`` scales the part for ``a``)."""

    def __init__(self, wrong_a=1.0):
        self.wrong_a = wrong_a

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        g, a = self.get_retained_inputs()
        ggb = grad_outputs[0]
        return ggb * a, ggb * g * self.wrong_a


class Product(mg.FunctionNode):
    """``a * b``; with ``wrong_a`` its double backward is lopsided: d(∂L/∂b)/da is scaled, d(∂L/∂a)/db is not."""

    def __init__(self, wrong_a=1.0):
        self.wrong_a = wrong_a

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        g = grad_outputs[0]
        return g * b, ProductGradient(self.wrong_a).apply((g, a))[0]


class CubeGradient(mg.FunctionNode):
    """``c·x²·g``, the gradient of x³ for ``c = 3``; ``c_g`` is the factor its backward uses for ``g``'s part."""

    def __init__(self, c, c_g):
        self.c, self.c_g = c, c_g

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, g = inputs
        return (self.c * x * x * g).astype(x.dtype),

    def backward(self, indexes, grad_outputs):
        x, g = self.get_retained_inputs()
        ggx = grad_outputs[0]
        return 2 * self.c * x * g * ggx, self.c_g * x * x * ggx


class Cube(mg.FunctionNode):
    """x³ through ``CubeGradient(c, c_g)``: correct for (3, 3)."""

    def __init__(self, c=3.0, c_g=3.0):
        self.c, self.c_g = c, c_g

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 3,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return CubeGradient(self.c, self.c_g).apply((x, grad_outputs[0]))[0],


def spec_of(name, node_factory, inputs=one_input, **options):
    return OpSpec(name, lambda *xs: node_factory().apply(xs)[0], inputs, **options)


def statuses(spec, check, seeds=(0, 1, 2)):
    return {(dtype, seed): run_case(spec, dtype, "numpy", check, seed=seed).status
            for dtype in DTYPES for seed in seeds}


def test_the_checks_are_in_the_battery_and_the_second_order_ones_are_declared():
    assert set(NEW_CHECKS) <= set(CHECKS) and set(RUNNERS) == set(NEW_CHECKS)
    assert SECOND_ORDER == {"jvp", "hvp_symmetry"} and SECOND_ORDER < SECOND_ORDER_CHECKS


@pytest.mark.parametrize("check", NEW_CHECKS)
def test_correct_ops_pass(check):
    for spec in (spec_of("square", Square), spec_of("cube", Cube), spec_of("product", Product, two_inputs)):
        assert set(statuses(spec, check).values()) == {"pass"}, (spec.name, statuses(spec, check))


@pytest.mark.parametrize("node", [MaskingSquare, BranchingSquare, IgnoringSquare])
def test_vjp_linearity_catches_a_backward_nonlinear_in_its_output_gradient(node):
    results = {key: run_case(spec_of(node.__name__, node), key[0], "numpy", "vjp_linearity", seed=key[1])
               for key in [(dtype, seed) for dtype in DTYPES for seed in (0, 1, 2)]}
    assert {r.status for r in results.values()} == {"fail"}
    assert "not linear in the output gradients" in results["float64", 0].message


def test_hvp_symmetry_catches_an_asymmetric_cross_block_and_only_it():
    lopsided = spec_of("product[lopsided]", lambda: Product(wrong_a=2.0), two_inputs)
    caught = statuses(lopsided, "hvp_symmetry")
    # float16's tolerance (256 eps of the Cauchy-Schwarz bound, ~25 %) is too coarse for this factor-2 error
    assert {status for (dtype, _), status in caught.items() if dtype != "float16"} == {"fail"}
    message = run_case(lopsided, "float64", "numpy", "hvp_symmetry").message
    assert "not symmetric in the block of inputs [0] x [1] (a cross block)" in message
    # first order is right, and so is the double backward's part in the output gradient
    for check in ("backward", "vjp_linearity", "jvp"):
        assert run_case(lopsided, "float64", "numpy", check).status == "pass", check


def test_jvp_catches_a_double_backward_wrong_in_the_output_gradient():
    # right at first order and in its Hessian; wrong in d(gx)/d(gy), the only part forward mode uses
    wrong_in_gy = spec_of("cube[wrong in gy]", lambda: Cube(c=3.0, c_g=2.0))
    assert set(statuses(wrong_in_gy, "jvp").values()) == {"fail"}
    assert "double backward of some op in f is missing or wrong" in run_case(wrong_in_gy, "float64", "numpy",
                                                                            "jvp").message
    for check in ("backward", "vjp_linearity", "hvp_symmetry"):
        assert run_case(wrong_in_gy, "float64", "numpy", check).status == "pass", check


def test_jvp_compares_with_central_differences():
    # consistently wrong (first and second order agree with each other, not with x³): only the numerical part sees it
    consistent = spec_of("cube[consistently wrong]", lambda: Cube(c=2.0, c_g=2.0))
    results = {dtype: run_case(consistent, dtype, "numpy", "jvp") for dtype in DTYPES}
    assert {r.status for r in results.values()} == {"fail"}
    assert "differs from central differences" in results["float32"].message


def test_margins_are_reported_and_small_for_correct_ops():
    for check in NEW_CHECKS:
        result = run_case(spec_of("cube", Cube), "float64", "numpy", check)
        assert result.status == "pass" and 0 <= result.margin < 0.1, (check, result.margin)


def test_second_order_false_skips_the_second_order_checks_and_order_1_leaves_them_out(tmp_path):
    first_order_only = spec_of("square[first order]", Square, second_order=False, expected_failures={
        "double": "declared"})
    assert run_case(first_order_only, "float64", "numpy", "jvp").status == "skip"
    assert run_case(first_order_only, "float64", "numpy", "hvp_symmetry").status == "skip"
    assert run_case(first_order_only, "float64", "numpy", "vjp_linearity").status == "pass"
    out = tmp_path / "r.json"
    assert main(["check", "--ops", "tanh", "--dtype", "float64", "--order", "1", "--quiet", "--json", str(out)]) == 0
    checks = {r["check"] for r in json.loads(out.read_text())["results"]}
    assert checks == set(CHECKS) - SECOND_ORDER_CHECKS - {"refuses"}  # (refuses: tanh's bad cases, not tanh)


def test_expected_failure_marks_accept_the_new_checks():
    spec = spec_of("square[masked]", MaskingSquare, expected_failures={"vjp_linearity": "masks its gradient"})
    assert run_case(spec, "float64", "numpy", "vjp_linearity").status == "xfail"
    assert OpSpec("x", F.tanh, one_input, expected_failures={"float16-jvp": "why"}).expected_failure(
        "float16", "numpy", "jvp") == "why"


def test_non_differentiable_ops_skip_them():
    sign = OpSpec("sign", F.sign, one_input, np.sign, differentiable=False)
    assert {run_case(sign, "float64", "numpy", check).status for check in NEW_CHECKS} == {"skip"}


def test_hvp_symmetry_rounds_at_the_least_precise_input_dtype():
    """A float16 W beside float64 x (Chainer's mixed dtypes) is computed in float64 but rounds W's products at
    float16: the tolerance follows the least precise input (at float64's it failed by 7.6e6 x the tolerance;
    the lopsided op above shows an asymmetric cross block is still caught)."""
    def inputs(rng, dt):
        return rng.uniform(-1, 1, (3, 4)).astype(dt), rng.uniform(-1, 1, (2, 4)).astype(np.float16)

    spec = OpSpec("linear[W float16]", F.linear, inputs, lambda x, W: x @ W.T)
    assert run_case(spec, "float64", "numpy", "hvp_symmetry").status == "pass"


class SkewedSquare(Square):
    """x² whose backward is nonlinear in its output gradient by 1e-4 relative: a kernel only that accurate."""

    skew = 1e-4

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy = grad_outputs[0]
        return 2 * x * gy * (1 + self.skew * mg.Variable((gy.array > 0).astype(gy.dtype))),


class MixedProduct(mg.FunctionNode):
    """``x * w`` for a float16 ``x`` beside a ``w`` of the case's dtype (the output is float16); ``masking`` makes
    its backward mask with the output gradient."""

    def __init__(self, masking=False):
        self.masking = masking

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        return (x * w).astype(x.dtype),

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy = grad_outputs[0]
        if self.masking:
            gy = gy * mg.Variable((gy.array > 0).astype(gy.dtype))
        return F.cast(gy * F.cast(w, gy.dtype), x.dtype), F.cast(gy * x, w.dtype)


def float16_and(rng, dtype):
    return rng.uniform(0.5, 1.5, (2, 3)).astype(np.float16), rng.uniform(0.5, 1.5, (2, 3)).astype(dtype)


def drawn_output_gradients(rng, outputs):  # as a FunctionTestCase draws them: a·u + b·w rounds in float16
    return tuple(rng.uniform(-1, 1, y.shape).astype(y.dtype) for y in outputs)


def test_vjp_linearity_rounds_at_the_least_precise_input_or_output():
    """Chainer's linear with a float16 x beside a float32 W: W's gradient comes from float16 output gradients, so
    it is linear in them to float16's precision only (held to float32's, all 72 of Chainer's cases failed)."""
    def linear_inputs(rng, dt):
        return rng.uniform(-1, 1, (3, 4)).astype(np.float16), rng.uniform(-1, 1, (2, 4)).astype(dt)

    linear = OpSpec("linear[x float16]", F.linear, linear_inputs, lambda x, W: x @ W.T,
                    grad_outputs=drawn_output_gradients)
    right = spec_of("mixed product", MixedProduct, float16_and, grad_outputs=drawn_output_gradients)
    masking = spec_of("mixed product[masking]", lambda: MixedProduct(masking=True), float16_and,
                      grad_outputs=drawn_output_gradients)
    for dtype in ("float32", "float64"):
        for seed in (0, 1, 2):
            assert run_case(linear, dtype, "numpy", "vjp_linearity", seed=seed).status == "pass"
            assert run_case(right, dtype, "numpy", "vjp_linearity", seed=seed).status == "pass"
            assert run_case(masking, dtype, "numpy", "vjp_linearity", seed=seed).status == "fail"


def test_vjp_linearity_holds_an_op_to_the_accuracy_it_declares():
    """An ill-conditioned op (a whitening, Chainer's decorrelated batch normalization with fewer samples than
    channels) declares its gradients accurate to some rtol only: its backward is linear to that much."""
    undeclared = spec_of("skewed square", SkewedSquare)
    declared = spec_of("skewed square[rtol 1e-3]", SkewedSquare, check_backward_options={"float64": {"rtol": 1e-3}})
    too_tight = spec_of("skewed square[rtol 1e-6]", SkewedSquare, check_backward_options={"rtol": 1e-6})
    masking = spec_of("masking square[rtol 1e-2]", MaskingSquare, check_backward_options={"rtol": 1e-2})
    for seed in (0, 1, 2):
        assert run_case(undeclared, "float64", "numpy", "vjp_linearity", seed=seed).status == "fail"
        assert run_case(declared, "float64", "numpy", "vjp_linearity", seed=seed).status == "pass"
        assert run_case(too_tight, "float64", "numpy", "vjp_linearity", seed=seed).status == "fail"
        assert run_case(masking, "float64", "numpy", "vjp_linearity", seed=seed).status == "fail"


def test_hvp_symmetry_holds_an_op_to_the_second_order_accuracy_it_declares():
    slightly = spec_of("product[lopsided by 1e-4]", lambda: Product(wrong_a=1 + 1e-4), two_inputs)
    declared = spec_of("product[lopsided by 1e-4, rtol 1e-3]", lambda: Product(wrong_a=1 + 1e-4), two_inputs,
                       check_double_backward_options={"rtol": 1e-3})
    factor_two = spec_of("product[lopsided, rtol 1e-2]", lambda: Product(wrong_a=2.0), two_inputs,
                         check_double_backward_options={np.float64: {"rtol": 1e-2}})
    assert run_case(slightly, "float64", "numpy", "hvp_symmetry").status == "fail"
    assert run_case(declared, "float64", "numpy", "hvp_symmetry").status == "pass"
    assert run_case(factor_two, "float64", "numpy", "hvp_symmetry").status == "fail"
