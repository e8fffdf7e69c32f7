"""A test written for ``chainer.testing`` runs after changing its imports.

``TestReLU`` below is written the way Chainer's own function tests are
(``parameterize`` over ``product``, ``inject_backend_tests``, tolerances set in
``setUp``, inputs drawn with ``numpy.random``); only the imports differ.
"""

from __future__ import annotations

import unittest

import numpy
import pytest

import minigrad.functions as F
from minigrad import testing


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


def test_inject_backend_tests_refuses_a_class_that_would_need_a_backend_config():
    class TestPlain:
        def test_something(self, backend_config):
            pass

    with pytest.raises(TypeError, match="inject_backend_tests: 'TestPlain' is not a FunctionTestCase"):
        testing.inject_backend_tests(None, [{}])(TestPlain)


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
