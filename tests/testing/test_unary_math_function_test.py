"""unary_math_function_unittest: Chainer's decorator for unary math tests, on FunctionTestCase."""

import unittest

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import FunctionTestCase, unary_math_function_unittest


def positive(shape, dtype):
    return tuple(np.random.uniform(lo, 1, shape).astype(dtype) for lo in (0.5, -1, -1))


@unary_math_function_unittest(F.sin)
class TestSin(unittest.TestCase):  # collected by pytest: six parameterized FunctionTestCases
    pass


@unary_math_function_unittest(F.sqrt, make_data=positive, backward_options={"eps": 1e-3})
class TestSqrt(unittest.TestCase):
    pass


def copies(cls):
    return {c.__name__: c for c in cls.__subclasses__()}


def test_the_copies_are_chainers_parameterization():
    names = sorted(copies(TestSin))
    assert names[0] == "TestSin_param_0_{dtype=float16, shape=(3, 2)}" and len(names) == 6
    case = copies(TestSin)["TestSin_param_5_{dtype=float64, shape=()}"]
    assert issubclass(case, FunctionTestCase) and not issubclass(case, unittest.TestCase)
    assert case.dtypes == ("float64",) and case.shape == ()


def test_chainers_tolerances_and_the_overrides_reach_the_checks():
    case = copies(TestSqrt)["TestSqrt_param_0_{dtype=float16, shape=(3, 2)}"]()
    case.dtype = np.dtype(np.float16)
    case.setUp()
    assert case.check_backward_options == {"eps": 1e-3, "atol": 2 ** -4, "rtol": 2 ** -4, "dtype": np.float64}
    assert case.check_forward_options["atol"] == np.finfo(np.float16).eps
    assert case.x.min() >= 0.5 and case.x.dtype == np.float16  # make_data was used


def test_label_is_the_node_class_name():
    case = copies(TestSin)["TestSin_param_2_{dtype=float32, shape=(3, 2)}"]()
    case.test_label()


class WrongSin(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return np.sin(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * F.sin(x),  # should be cos


def wrong_sin(x):
    return WrongSin().apply((x,))[0]


def test_a_wrong_gradient_fails_and_a_wrong_reference_fails():
    @unary_math_function_unittest(wrong_sin, func_expected=np.sin)
    class TestWrongSin(unittest.TestCase):
        pass

    case = copies(TestWrongSin)["TestWrongSin_param_4_{dtype=float64, shape=(3, 2)}"]()
    with pytest.raises(Exception, match="backward"):
        case.run_case("numpy", "float64")

    @unary_math_function_unittest(F.sin, func_expected=np.cos)
    class TestSinAgainstCos(unittest.TestCase):
        pass

    case = copies(TestSinAgainstCos)["TestSinAgainstCos_param_4_{dtype=float64, shape=(3, 2)}"]()
    with pytest.raises(AssertionError, match="output 0 of forward differs from the reference"):
        case.run_case("numpy", "float64")


def test_bad_arguments():
    with pytest.raises(ValueError, match="NumPy has no function 'wrong_sin'; pass func_expected"):
        unary_math_function_unittest(wrong_sin)
    with pytest.raises(ValueError, match="label_expected is given"):
        unary_math_function_unittest(wrong_sin, func_expected=np.sin, label_expected="sin")
    with pytest.warns(DeprecationWarning, match="is_linear"):
        unary_math_function_unittest(F.sin, is_linear=False)
