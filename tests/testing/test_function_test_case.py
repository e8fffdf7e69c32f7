"""FunctionTestCase: the generated tests run per backend x dtype and catch what they should."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import FunctionTestCase, GradientCheckError, NondifferentiableError


class TestTanhCase(FunctionTestCase):
    """A real user of the class: pytest collects test_forward/backward/double_backward x backend x dtype."""

    def generate_inputs(self):
        return (self.rng.uniform(-1, 1, (3, 4)).astype(self.dtype),)

    def forward(self, inputs, device):
        return F.tanh(inputs[0])

    def forward_expected(self, inputs):
        return np.tanh(inputs[0].astype(np.float64)).astype(self.dtype)


class TestLinearWithLabelsCase(FunctionTestCase):
    """Two float inputs, an integer input, a scalar loss, per-dtype options."""

    dtypes = ("float32", "float64")
    check_forward_options = {"float32": {"atol": 1e-5, "rtol": 1e-5}, "float64": {"atol": 1e-12, "rtol": 1e-12}}

    def generate_inputs(self):
        x = self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype)
        W = self.rng.uniform(-1, 1, (5, 3)).astype(self.dtype)
        t = self.rng.integers(0, 5, 4).astype(np.int32)
        return x, W, t

    def forward(self, inputs, device):
        x, W, t = inputs
        return F.softmax_cross_entropy(F.linear(x, W), t)

    def forward_expected(self, inputs):
        x, W, t = (a.astype(np.float64) if a.dtype.kind == "f" else a for a in inputs)
        z = x @ W.T
        z -= z.max(axis=1, keepdims=True)
        log_p = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        return np.asarray(-log_p[np.arange(len(t)), t].mean(), dtype=self.dtype)


def test_generated_tests_are_collected(request):
    items = [item for item in request.session.items if getattr(item, "cls", None) is TestTanhCase]
    if not items:
        pytest.skip("run together with TestTanhCase to see its generated tests")
    collected = {(item.originalname, item.callspec.params["xp_backend"], item.callspec.params["dtype"])
                 for item in items}
    selected = request.config.getoption("--minigrad-backend")
    backends = ("numpy", "cupy") if selected == "all" else ("cupy",) if selected == "cupy-sim" else (selected,)
    kinds = ("forward", "backward", "double_backward", "deterministic", "views", "jvp", "vjp_linearity",
             "hvp_symmetry")
    assert collected == {(f"test_{kind}", backend, dtype) for kind in kinds
                         for backend in backends for dtype in ("float16", "float32", "float64")}


# --- failures it must report ------------------------------------------------------------------

class Square(FunctionTestCase):
    def generate_inputs(self):
        return (self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype),)

    def forward(self, inputs, device):
        return inputs[0] * inputs[0]

    def forward_expected(self, inputs):
        return inputs[0] * inputs[0]


class WrongExpected(Square):
    def forward_expected(self, inputs):
        return inputs[0] * inputs[0] + 1e-3


class ModifiesInput(Square):
    def forward(self, inputs, device):
        inputs[0].array[0, 0] = 5
        return inputs[0] * 1.0


class BadSquareNode(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * x * 2.02,


class WrongBackward(Square):
    def forward(self, inputs, device):
        return BadSquareNode().apply(inputs)[0]


class GraphCutNode(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return mg.Variable(grad_outputs[0].array * 2 * x.array),


class GraphCut(Square):
    def forward(self, inputs, device):
        return GraphCutNode().apply(inputs)[0]


EVERY_TEST = ["forward", "backward", "double_backward", "deterministic", "views", "jvp", "vjp_linearity",
              "hvp_symmetry"]
FIRST_ORDER = ["forward", "backward", "deterministic", "views", "vjp_linearity"]  # under skip_double_backward_test


def test_passing_case_runs_every_check():
    assert Square().run_case("numpy", "float16") == EVERY_TEST


def test_wrong_forward_is_reported():
    with pytest.raises(AssertionError, match="WrongExpected: output 0 of forward differs from the reference"):
        WrongExpected().run_case("numpy", "float64")


def test_forward_modifying_its_input_is_reported():
    with pytest.raises(AssertionError, match="forward modified its input 0"):
        ModifiesInput().run_case("numpy", "float32")


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_wrong_backward_is_reported(dtype):
    case = WrongBackward()
    with pytest.raises(GradientCheckError):
        case.run_case("numpy", dtype)


def test_graph_cut_fails_only_the_double_backward():
    case = GraphCut()
    case.skip_double_backward_test = True
    assert case.run_case("numpy", "float64") == FIRST_ORDER  # no second order: jvp and hvp_symmetry skip too
    with pytest.raises(GradientCheckError, match="no graph was recorded"):
        GraphCut().run_case("numpy", "float64")


def test_skips_and_setup_case():
    seen = []

    class Tuned(Square):
        skip_forward_test = True

        def setup_case(self):
            seen.append(self.dtype.name)
            self.check_backward_options = {"rtol": 1e-3} if self.dtype == np.float16 else {}
    assert Tuned().run_case("numpy", "float16") == EVERY_TEST[1:]
    assert seen == ["float16"] * 7  # once per check that runs


def test_per_dtype_options_reach_the_checker():
    class Loose(WrongBackward):  # 1 % wrong, accepted by a 2 % tolerance given for float64 only
        check_backward_options = {"float64": {"atol": 0.0, "rtol": 2e-2}}
        skip_double_backward_test = True
    assert Loose().run_case("numpy", "float64") == FIRST_ORDER
    with pytest.raises(GradientCheckError):
        Loose().run_case("numpy", "float32")


class Kinky(FunctionTestCase):
    """abs whose first draw puts an element on the kink; dodge_nondifferentiable redraws."""

    calls = 0

    def generate_inputs(self):
        x = self.rng.uniform(0.2, 1, 5) * self.rng.choice([-1, 1], 5)
        Kinky.calls += 1
        if Kinky.calls == 1:
            x[2] = 0.0
        return (x.astype(self.dtype),)

    def forward(self, inputs, device):
        return F.absolute(inputs[0])

    def forward_expected(self, inputs):
        return np.abs(inputs[0])


def test_dodge_nondifferentiable_draws_new_inputs():
    Kinky.calls = 0
    case = Kinky()
    case.skip_forward_test = case.skip_double_backward_test = True
    case.dodge_nondifferentiable = True
    assert case.run_case("numpy", "float64") == FIRST_ORDER[1:]
    assert Kinky.calls >= 2
    Kinky.calls = 0
    strict = Kinky()
    strict.skip_forward_test = strict.skip_double_backward_test = True
    strict.check_backward_options = {"detect_nondifferentiable": True}
    with pytest.raises(NondifferentiableError, match=r"x_data\[0\] element \(2,\)"):
        strict.run_case("numpy", "float64")


def test_dodge_together_with_detect_nondifferentiable_in_the_options():
    # both at once used to pass detect_nondifferentiable twice (TypeError)
    Kinky.calls = 0
    case = Kinky()
    case.skip_forward_test = case.skip_double_backward_test = True
    case.dodge_nondifferentiable = True
    case.check_backward_options = {"detect_nondifferentiable": True}
    assert case.run_case("numpy", "float64") == FIRST_ORDER[1:]
    assert Kinky.calls >= 2  # the first draw hit the kink and was redrawn


class ArgmaxAndSum(FunctionTestCase):
    """A float output and an integer one: the integer output gets no gradient (None)."""

    skip_double_backward_test = True

    def generate_inputs(self):
        return (self.rng.permutation(12).reshape(3, 4).astype(self.dtype) / 12,)

    def forward(self, inputs, device):
        return F.sum(inputs[0] * inputs[0], axis=1), F.argmax(inputs[0], axis=1)

    def forward_expected(self, inputs):
        return (inputs[0] ** 2).sum(axis=1), inputs[0].argmax(axis=1)


def test_integer_outputs_get_no_gradient():
    assert ArgmaxAndSum().run_case("numpy", "float64") == FIRST_ORDER


def test_cupy_is_skipped_without_a_gpu():
    from minigrad import backend

    if backend.is_cupy_available():
        pytest.skip("a GPU is present")
    with pytest.raises(pytest.skip.Exception, match="CuPy"):
        Square().run_case("cupy", "float32")


def test_bad_backend_and_dtype():
    with pytest.raises(ValueError, match="backend must be 'numpy' or 'cupy'"):
        Square().run_case("tpu", "float32")
    with pytest.raises(ValueError, match="dtypes must be float dtypes"):
        Square().run_case("numpy", "int32")


class LayoutBlind(FunctionTestCase):
    """Flattens in memory order, reshapes in C order: right for contiguous inputs only."""

    skip_double_backward_test = True

    class Node(mg.FunctionNode):
        def forward(self, inputs):
            x, = inputs
            return (np.reshape(x, (-1,), order="A") * 2).reshape(x.shape),

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 2,

    def generate_inputs(self):
        return (self.rng.uniform(-1, 1, (3, 4)).astype(self.dtype),)

    def forward(self, inputs, device):
        return self.Node().apply(inputs)[0]

    def forward_expected(self, inputs):
        return 2 * inputs[0]


def test_views_and_deterministic_run_through_the_case_runner():
    case = LayoutBlind()
    case.skip_views_test = True
    assert case.run_case("numpy", "float64") == ["forward", "backward", "deterministic", "vjp_linearity"]
    with pytest.raises(AssertionError, match="LayoutBlind: transposed views as inputs"):
        LayoutBlind().run_case("numpy", "float64")


class _MixedLinear(FunctionTestCase):
    """Chainer's linear tests: a float16 x beside a float32 W, the output in x's dtype (``promote`` returns the
    promoted float32 instead: wrong, as Chainer's test would say)."""

    promote = False
    dtypes = ("float32",)

    def generate_inputs(self):
        return (self.rng.uniform(-1, 1, (3, 4)).astype(np.float16), self.rng.uniform(-1, 1, (2, 4)).astype(np.float32))

    def forward(self, inputs, device):
        x, W = inputs
        y = F.linear(x, W)
        return (F.cast(y, np.float32) if self.promote else y),

    def forward_expected(self, inputs):
        x, W = inputs
        return (x.astype(np.float32) @ W.T).astype(x.dtype),


def test_mixed_input_dtypes_expect_the_dtype_forward_expected_gives():
    _MixedLinear().test_forward("numpy", "float32")
    wrong = type("Promoting", (_MixedLinear,), {"promote": True})()
    with pytest.raises(AssertionError, match="output 0 has dtype float32 for float32 inputs, declared float16"):
        wrong.test_forward("numpy", "float32")
