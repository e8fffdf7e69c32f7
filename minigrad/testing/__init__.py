"""Testing tools: gradient checks, array comparison, the op registry and sweep.

Import cost stays off ``import minigrad``: this package is imported only by
tests and by ``python -m minigrad check``.
"""

from minigrad.testing.assertions import assert_allclose  # noqa: F401
from minigrad.testing.gradient_check import (  # noqa: F401
    NondifferentiableError,
    check_backward,
    check_double_backward,
    numerical_grad,
)
from minigrad.testing.link_test_case import LinkTestCase  # noqa: F401

__all__ = ["assert_allclose", "check_backward", "check_double_backward", "numerical_grad",
           "NondifferentiableError", "LinkTestCase"]
