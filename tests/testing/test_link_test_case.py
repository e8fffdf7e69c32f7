"""LinkTestCase catches wrong gradients w.r.t. a parameter and wrong forwards, and passes a right link."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.functions.checks import constant
from minigrad.testing import LinkTestCase


class ScaledMatmul(mg.FunctionNode):
    """y = x @ W.T with an optional deliberate bug in one gradient (a teaching fixture)."""

    def __init__(self, bug=None):
        self.bug = bug

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs
        return x @ W.T,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        gx = F.matmul(gy, W)
        gW = F.matmul(gy, x, transa=True)
        if self.bug == "W":
            gW = gW * 1.01
        if self.bug == "W-second-order":  # the right value, but its own derivative w.r.t. x is wrong
            x_const = constant(x.array)
            gW = F.matmul(gy, x + x * x - x * x_const, transa=True)
        return tuple({0: gx, 1: gW}[i] for i in indexes)


class Layer(mg.Link):
    def __init__(self, W, bug=None, forward_bug=False):
        super().__init__()
        self.bug, self.forward_bug = bug, forward_bug
        with self.init_scope():
            self.W = mg.Parameter(W)

    def forward(self, x):
        y, = ScaledMatmul(self.bug).apply((x, self.W))
        return y * 1.001 if self.forward_bug else y


class Case(LinkTestCase):
    bug = None
    forward_bug = False

    def generate_params(self):
        return self.rng.uniform(-1, 1, (2, 3)),

    def create_link(self, initializers):
        return Layer(initializers[0], self.bug, self.forward_bug)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        return inputs[0] @ link.W.array.astype(np.float64).T,


class TestRightLink(Case):
    pass


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wrong_parameter_gradient_is_caught(dtype):
    case = type("WrongW", (Case,), {"bug": "W"})()
    case.test_forward("numpy", dtype)
    with pytest.raises(AssertionError):
        case.test_backward("numpy", dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_wrong_second_order_parameter_gradient_is_caught(dtype):
    case = type("WrongW2", (Case,), {"bug": "W-second-order"})()
    case.test_backward("numpy", dtype)  # first order is right
    with pytest.raises(AssertionError):
        case.test_double_backward("numpy", dtype)


def test_wrong_forward_is_caught():
    case = type("WrongForward", (Case,), {"forward_bug": True})()
    with pytest.raises(AssertionError, match="not close"):
        case.test_forward("numpy", np.float64)


def test_misconfigured_cases_are_explained():
    case = type("NoInputs", (LinkTestCase,), {"create_link": lambda self, i: Layer(np.ones((2, 3)))})()
    with pytest.raises(NotImplementedError, match="must define generate_inputs"):
        case.test_backward("numpy", np.float64)
    wrong_dtype = type("WrongDtype", (Case,), {"generate_inputs": lambda self: (np.ones((4, 3)),),
                                               "dtypes": (np.float32, np.float64)})()
    with pytest.raises(TypeError, match=r"input 0 has dtype float64; generate float inputs in self.dtype \(float32\)"):
        wrong_dtype.test_forward("numpy", np.float32)
    bad_name = type("BadName", (Case,), {"param_names": ("V",)})()
    with pytest.raises(KeyError, match=r"param_names lists 'V', but the link's parameters are \['/W'\]"):
        bad_name.test_backward("numpy", np.float64)


def test_dtypes_attribute_selects_the_parametrization():
    class Metafunc:
        fixturenames = ("xp_backend", "dtype")

        def parametrize(self, name, values):
            self.seen = (name, values)

    metafunc = Metafunc()
    type("Only64", (Case,), {"dtypes": (np.float64,)})().pytest_generate_tests(metafunc)
    assert metafunc.seen == ("dtype", ["float64"])
    TestRightLink().pytest_generate_tests(metafunc)
    assert metafunc.seen[1] == ["float16", "float32", "float64"]


class TestChainerStyleLink(LinkTestCase):  # set up the way Chainer's link tests are
    dtypes = (np.float64,)

    def setUp(self):
        self.in_size, self.out_size = 3, 2
        self.check_backward_options.update({"atol": 1e-4, "rtol": 1e-3})
        self.seen = getattr(self, "seen", []) + ["setUp"]

    def before_test(self, test_name):
        self.seen.append(test_name)
        assert self.backend_config.backend in ("numpy", "cupy") and self.check_backward_options["atol"] == 1e-4

    def create_link(self, initializers):
        return mg.links.Linear(self.in_size, self.out_size)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, self.in_size)).astype(self.dtype),

    def forward(self, link, inputs, device):  # Chainer's signature: the device too
        x, = inputs
        return link(x + device.send(np.zeros_like(x.array))),

    def forward_expected(self, link, inputs):
        x, = inputs
        return x @ link.W.array.T + link.b.array,

    def test_its_own_method_gets_set_up_too(self):
        assert self.seen == ["setUp"] and self.in_size == 3


def test_chainer_hooks_run_in_order_and_options_stay_per_test():
    case = TestChainerStyleLink()
    case.test_backward(np, np.float64)
    assert case.seen == ["setUp", "test_backward"]
    assert LinkTestCase.check_backward_options == {} and TestChainerStyleLink.check_backward_options == {}


def test_a_skip_flag_set_in_set_up_is_honoured():
    class SkipsInSetUp(TestChainerStyleLink):
        def setUp(self):
            super().setUp()
            self.skip_double_backward_test = True

    with pytest.raises(BaseException, match="skip_double_backward_test is set"):
        SkipsInSetUp().test_double_backward(np, np.float64)


def test_a_class_choosing_no_dtypes_runs_in_its_inputs_dtype_only():
    """Chainer's LinkTestCase runs a test once, in whatever dtype its generate_inputs makes (its deconvolution
    placeholder tests make float32): without ``dtypes``, the other dtypes skip, saying why."""
    float32_only = type("Float32Only", (Case,), {
        "generate_inputs": lambda self: (self.rng.uniform(-1, 1, (4, 3)).astype(np.float32),)})()
    float32_only.test_forward("numpy", np.float32)
    float32_only.test_backward("numpy", np.float32)
    with pytest.raises(pytest.skip.Exception, match="makes float32 inputs whatever self.dtype is"):
        float32_only.test_forward("numpy", np.float64)
