"""A test written for ``chainer.testing`` runs after changing its imports.

``TestReLU`` below is written the way Chainer's own function tests are
(``parameterize`` over ``product``, ``inject_backend_tests``, tolerances set in
``setUp``, inputs drawn with ``numpy.random``); only the imports differ.
"""

from __future__ import annotations

import inspect
import unittest

import numpy
import pytest

import minigrad.functions as F
from minigrad import backend, testing
from minigrad.testing import cupy_sim


@testing.parameterize(*testing.product({
    'shape': [(3, 2), ()],
    'dtype': [numpy.float16, numpy.float32, numpy.float64],
}))
@testing.inject_backend_tests(None, [{}, {'use_cuda': True}])
class TestReLU(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == numpy.float16:
            self.check_backward_options = {'atol': 5e-3, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-3, 'rtol': 5e-2}

    def generate_inputs(self):
        x = numpy.random.uniform(-1, 1, self.shape).astype(self.dtype)
        x[(-0.1 < x) & (x < 0.1)] = 0.5
        return x,

    def forward(self, inputs, device):
        x, = inputs
        return F.relu(x),

    def forward_expected(self, inputs):
        x, = inputs
        expected = x.copy()
        expected[expected < 0] = 0
        return expected,


COPIES = {name: cls for name, cls in globals().items() if name.startswith("TestReLU_param_")}


def test_parameterize_makes_one_collected_copy_per_combination_with_its_dtype_only():
    assert TestReLU.__test__ is False
    found = {(cls.shape, numpy.dtype(cls.dtype).name, cls.dtypes, cls.__test__) for cls in COPIES.values()}
    assert found == {(shape, dtype, (dtype,), True) for shape in ((3, 2), ())
                     for dtype in ("float16", "float32", "float64")}
    # Chainer's names and order: the keys sorted, the last varying fastest
    assert "TestReLU_param_0_{dtype=float16, shape=(3, 2)}" in COPIES
    assert "TestReLU_param_1_{dtype=float16, shape=()}" in COPIES


def test_each_copy_is_parametrized_over_its_own_dtype_only():
    class Metafunc:  # what pytest hands to the class's pytest_generate_tests hook
        fixturenames = ("xp_backend", "dtype")

        def parametrize(self, name, values):
            self.parametrized = (name, list(values))

    for cls in COPIES.values():
        metafunc = Metafunc()
        cls().pytest_generate_tests(metafunc)
        assert metafunc.parametrized == ("dtype", [numpy.dtype(cls.dtype).name])


def test_set_up_runs_with_the_dtype_set_and_before_test_last_before_each_check():
    calls = []

    class TestRecorded(testing.FunctionTestCase):
        def setUp(self):
            calls.append(("setUp", self.dtype.name))

        def setup_case(self):
            calls.append(("setup_case", self.dtype.name))

        def before_test(self, test_name):
            calls.append((test_name, self.dtype.name))

        def generate_inputs(self):
            return (self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype),)

        def forward(self, inputs, device):
            return F.tanh(inputs[0])

        def forward_expected(self, inputs):
            return numpy.tanh(inputs[0])

    TestRecorded().run_case("numpy", "float32")
    names = ("test_forward", "test_backward", "test_double_backward", "test_deterministic", "test_views", "test_jvp",
             "test_vjp_linearity", "test_hvp_symmetry")
    assert calls == [call for name in names for call in (("setUp", "float32"), ("setup_case", "float32"),
                                                         (name, "float32"))]


def test_a_skip_raised_by_before_test_skips_that_check_only():
    class TestNoDouble(testing.FunctionTestCase):
        def before_test(self, test_name):
            if test_name == "test_double_backward":
                raise unittest.SkipTest("no double backward here")

        def generate_inputs(self):
            return (self.rng.uniform(-1, 1, (2,)).astype(self.dtype),)

        def forward(self, inputs, device):
            return F.exp(inputs[0])

        def forward_expected(self, inputs):
            return numpy.exp(inputs[0])

    case = TestNoDouble()
    case.test_forward("numpy", "float64")
    case.test_backward("numpy", "float64")
    with pytest.raises(unittest.SkipTest, match="no double backward"):
        case.test_double_backward("numpy", "float64")


def test_inject_backend_tests_runs_a_backend_config_method_on_each_available_backend():
    import minigrad as mg

    seen = []

    class Base:
        def test_inherited(self, backend_config, extra=1):
            with backend_config:
                x = backend_config.get_array((numpy.ones(2), None))
                seen.append((backend_config.backend, type(x[0]).__module__.split(".")[0], x[1], mg.config.use_cudnn,
                             extra))

        def test_without(self):
            seen.append("untouched")

    @testing.inject_backend_tests(["test_inherited"], [{}, {"use_ideep": "always"}, {"use_chainerx": True},
                                                        {"use_cuda": True, "use_cudnn": "always"}])
    class TestPlain(Base):
        pass

    with backend.using_cupy(None):  # CuPy absent (also under --minigrad-backend=cupy-sim)
        TestPlain().test_inherited()  # (pytest asks for no backend_config fixture: it is not in the signature)
    assert seen == [("numpy", "numpy", None, "never", 1)]  # iDeep and ChainerX left out, CuPy absent
    assert "backend_config" not in inspect.signature(TestPlain.test_inherited).parameters
    with cupy_sim.install():
        seen.clear()
        TestPlain().test_inherited(extra=2)
        assert seen == [("numpy", "numpy", None, "never", 2), ("cupy", "cupy", None, "always", 2)]  # (the simulator)
    with pytest.raises(TypeError, match="inject_backend_tests: configuration 0 must be a dict, got list"):
        testing.inject_backend_tests(None, [["use_cuda"]])


def test_only_cupy_configurations_skip_without_a_gpu():
    @testing.inject_backend_tests(None, [{"use_cuda": True}])
    class TestGpuOnly:
        def test_it(self, backend_config):
            raise AssertionError("must not run")

    with backend.using_cupy(None), pytest.raises(unittest.SkipTest, match="need CuPy and a GPU"):
        TestGpuOnly().test_it()


def test_function_test_case_gives_chainers_backend_config_and_a_device_that_sends():
    class TestSendsItsInputs(testing.FunctionTestCase):
        dtypes = ("float64",)
        skip_deterministic_test = skip_views_test = True

        def generate_inputs(self):
            return numpy.ones(3),

        def forward(self, inputs, device):
            assert device == "numpy" and isinstance(device, str) and self.backend_config.xp is numpy
            ones = device.send_array(numpy.ones(3))  # Chainer's decorrelated batch normalization tests do
            assert type(ones) is numpy.ndarray
            return F.relu(inputs[0] + device.send(ones)),  # Chainer's tests send constants this way

        def forward_expected(self, inputs):
            return inputs[0] + 1,

    assert TestSendsItsInputs().run_case("numpy", "float64") == ["forward", "backward", "double_backward", "jvp",
                                                                 "vjp_linearity", "hvp_symmetry"]


def test_product_of_lists_of_dicts_merges_one_dict_from_each():
    assert testing.product([[{"a": 1}, {"a": 2}], [{"b": 3}, {"b": 4, "c": 5}]]) == [
        {"a": 1, "b": 3}, {"a": 1, "b": 4, "c": 5}, {"a": 2, "b": 3}, {"a": 2, "b": 4, "c": 5}]


@pytest.mark.parametrize("bad, message", [
    ({"name": "abc"}, "the values of 'name' must be a list or a tuple, got str"),
    ({"n": 3}, "the values of 'n' must be a list or a tuple, got int"),
    (42, "expected a dict of lists or a list of lists of dicts, got int"),
])
def test_product_refuses_what_is_not_a_list_of_choices(bad, message):
    with pytest.raises(TypeError, match=message):
        testing.product(bad)


def test_parameterize_refuses_what_is_not_a_dict():
    with pytest.raises(TypeError, match="parameterize: argument 0 must be a dict of attributes, got list"):
        testing.parameterize([("shape", (3,))])


def test_product_orders_like_chainer_and_splits_comma_keys():
    # Chainer 7.8.1: keys sorted, the last varying fastest; "a,b" zips pairs
    assert testing.product({"shape": [(1,), (2,)], "dtype": ["f", "d"]}) == [
        {"dtype": "f", "shape": (1,)}, {"dtype": "f", "shape": (2,)},
        {"dtype": "d", "shape": (1,)}, {"dtype": "d", "shape": (2,)}]
    assert testing.product({"a,b": [(1, 2), (3, 4)], "c": [0]}) == [{"a": 1, "b": 2, "c": 0},
                                                                     {"a": 3, "b": 4, "c": 0}]
    with pytest.raises(TypeError, match="product: each value of 'a,b' must be a sequence of 2"):
        testing.product({"a,b": [1]})


def test_long_parameter_values_are_shortened_in_the_name_as_chainer_does():
    @testing.parameterize({"text": "x" * 150, "f": numpy.sum})
    class TestLong:
        def test_nothing(self):
            pass

    name, = [c.__name__ for c in TestLong.__subclasses__()]
    assert name == "TestLong_param_0_{f=sum, text='" + "x" * 47 + "..." + "x" * 48 + "'}"  # Chainer's exact name


@testing.parameterize({"kind": "a"}, {"kind": "b"})
@testing.parameterize(*testing.product({"n": [1, 2]}))
class TestStacked(unittest.TestCase):  # as Chainer's optimizer tests stack them

    def test_sees_both(self):
        assert self.kind in ("a", "b") and self.n in (1, 2)


def test_stacked_parameterize_runs_every_combination_under_chainers_names():
    names = sorted(name for name, value in globals().items() if name.startswith("TestStacked_param_")
                   and getattr(value, "__test__", False))
    assert names == [f"TestStacked_param_{i}_{{n={n}}}_param_{j}_{{kind='{k}'}}"
                     for i, n in enumerate((1, 2)) for j, k in enumerate("ab")]
    for name in names:  # each carries both parameters
        globals()[name]("test_sees_both").test_sees_both()
    assert "TestStacked_param_0_{n=1}" not in globals()  # the inner copies made way


@testing.parameterize({"check": lambda key: key == "yy"})
class TestFunctionValue(unittest.TestCase):

    def test_a_function_value_is_called_without_self(self):
        assert self.check("yy") and not self.check("x")


def test_a_mixed16_parameter_narrows_a_test_case_to_float16():
    import minigrad as mg

    @testing.parameterize({"dtype": mg.mixed16})
    class TestMixed(testing.FunctionTestCase):
        pass

    copy, = TestMixed.__subclasses__()
    assert copy.dtypes == ("float16",) and copy.dtype is mg.mixed16


class TestUpdatesItsOptions(testing.FunctionTestCase):  # as Chainer's tests do in setUp
    dtypes = ("float64",)

    def setUp(self):
        self.check_backward_options.update({"atol": 5e-4, "rtol": 5e-4})
        self.scale = 2.0

    def generate_inputs(self):
        return numpy.random.uniform(-1, 1, (3,)),

    def forward(self, inputs, device):
        return inputs[0] * self.scale,

    def forward_expected(self, inputs):
        return inputs[0] * self.scale,

    def test_its_own_method_gets_set_up_too(self):  # pytest calls setup_method, which calls setUp
        assert self.scale == 2.0 and self.check_backward_options["atol"] == 5e-4


def test_set_up_updates_never_reach_the_shared_option_dicts():
    TestUpdatesItsOptions().run_case("numpy", "float64")
    assert testing.FunctionTestCase.check_backward_options == {}
    assert TestUpdatesItsOptions.check_backward_options == {}


class ChoosesItsInputDtypes(testing.FunctionTestCase):  # as Chainer's matmul tests do (x1_dtype, x2_dtype)
    skip_backward_test = skip_double_backward_test = skip_deterministic_test = skip_views_test = True
    x1_dtype, x2_dtype = numpy.float16, numpy.float32

    def generate_inputs(self):
        return (numpy.ones((2, 3), self.x1_dtype), numpy.ones((3, 2), self.x2_dtype))

    def forward(self, inputs, device):
        return F.matmul(F.cast(inputs[0], inputs[1].dtype), inputs[1]),

    def forward_expected(self, inputs):
        return numpy.full((2, 2), 3.0, numpy.float32),


def test_outputs_are_held_to_the_inputs_dtype_whatever_the_case_dtype():
    for dtype in ("float16", "float32", "float64"):  # the promoted input dtype (float32) in every run
        assert ChoosesItsInputDtypes().run_case("numpy", dtype) == ["forward"]

    class Upcasts(ChoosesItsInputDtypes):
        x2_dtype = numpy.float16

        def forward(self, inputs, device):
            return F.matmul(F.cast(inputs[0], numpy.float32), F.cast(inputs[1], numpy.float32)),

    with pytest.raises(AssertionError, match="output 0 has dtype float32 for float16 inputs"):
        Upcasts().run_case("numpy", "float32")


class SkipsInSetUp(testing.FunctionTestCase):  # as Chainer's r2_score and accuracy tests do
    dtypes = ("float64",)

    def setUp(self):
        self.skip_backward_test = True
        self.skip_double_backward_test = True

    def generate_inputs(self):
        return numpy.ones(3),

    def forward(self, inputs, device):
        return F.identity(mg_constant(inputs[0])),  # no gradient reaches the input: the backward check would fail

    def forward_expected(self, inputs):
        return inputs[0],


def mg_constant(x):
    import minigrad as mg
    return mg.Variable(x.array, requires_grad=False)


def test_skip_flags_set_in_set_up_are_honoured():
    assert SkipsInSetUp().run_case("numpy", "float64") == ["forward", "deterministic", "views"]
    with pytest.raises(BaseException, match="skip_backward_test is set"):
        SkipsInSetUp().test_backward("numpy", "float64")
