"""Testing tools: gradient checks, array comparison, FunctionTestCase, the op registry and sweep.

Import cost stays off ``import minigrad``: this package is imported only by
tests and by ``python -m minigrad check``.

Example:
    >>> import numpy as np, minigrad.functions as F
    >>> from minigrad.testing import check_backward
    >>> x = np.random.default_rng(0).uniform(-1, 1, (2, 3))
    >>> check_backward(F.tanh, x, np.ones((2, 3)), seed=1).passed
    True
"""

from minigrad.testing.assertions import assert_allclose  # noqa: F401
from minigrad.testing.backend_config import BackendConfig  # noqa: F401
from minigrad.testing.function_test_case import FunctionTestCase  # noqa: F401
from minigrad.testing.gradient_check import (  # noqa: F401
    GradientCheckError,
    GradientCheckReport,
    NondifferentiableError,
    check_backward,
    check_double_backward,
    numerical_grad,
)
from minigrad.testing.graph_check import GraphCheckError, GraphCheckReport, check_graph  # noqa: F401
from minigrad.testing.graph_recording import record_graph  # noqa: F401
from minigrad.testing.link_initializers_test_case import InitializerArgument, LinkInitializersTestCase  # noqa: F401
from minigrad.testing.link_test_case import LinkTestCase  # noqa: F401
from minigrad.testing.parameterize import inject_backend_tests, parameterize, product  # noqa: F401
from minigrad.testing.pytest_integration import op_tests  # noqa: F401
from minigrad.testing.registry import OpSpec, Registry, SpecLoadError, load_specs, register  # noqa: F401
from minigrad.testing.sweep import CaseResult, run_case  # noqa: F401
from minigrad.testing.unary_math_function_test import unary_math_function_unittest  # noqa: F401

__all__ = ["assert_allclose", "check_backward", "check_double_backward", "numerical_grad",
           "NondifferentiableError", "GradientCheckError", "GradientCheckReport", "FunctionTestCase", "LinkTestCase",
           "OpSpec", "Registry", "register", "load_specs", "SpecLoadError", "run_case", "CaseResult", "op_tests",
           "product", "parameterize", "inject_backend_tests", "check_graph", "record_graph", "GraphCheckReport",
           "GraphCheckError", "unary_math_function_unittest", "BackendConfig", "LinkInitializersTestCase",
           "InitializerArgument"]
