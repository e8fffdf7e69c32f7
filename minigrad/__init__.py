"""minigrad: a small, readable define-by-run autograd for NumPy and CuPy.

Example:
    >>> import numpy as np, minigrad as mg, minigrad.functions as F
    >>> x = mg.Variable(np.array([1.0, 2.0, 3.0]))
    >>> y = F.sum(x * x * x)
    >>> y.backward(enable_double_backprop=True)
    >>> x.grad
    array([ 3., 12., 27.])
"""

from minigrad import (
    backend,  # noqa: F401
    functional,  # noqa: F401  (vjp, jvp, jacobian, hessian, hvp, value_and_grad, elementwise_grad)
    functions,  # noqa: F401,E402  (installs Variable's operators)
    initializers,  # noqa: F401
    links,  # noqa: F401
    optimizer_hooks,  # noqa: F401  (Chainer's chainer.optimizer_hooks)
    optimizers,  # noqa: F401
    serializers,  # noqa: F401
)
from minigrad.configuration import (  # noqa: F401
    config,
    force_backprop_mode,
    global_config,
    no_backprop_mode,
    using_config,
)
from minigrad.debug_mode import is_debug, set_debug  # noqa: F401
from minigrad.device import get_array_types, get_device, using_device  # noqa: F401
from minigrad.dtypes import get_dtype, mixed16  # noqa: F401
from minigrad.function_node import FunctionNode, backward, grad  # noqa: F401
from minigrad.link import Chain, ChainList, Link, Sequential  # noqa: F401
from minigrad.optimizers import Optimizer, UpdateRule  # noqa: F401  (chainer.Optimizer, chainer.UpdateRule)
from minigrad.variable import Parameter, Variable, as_array, as_variable  # noqa: F401

__version__ = "0.1.0"

# Chainer's switch for its warnings about experimental features; minigrad has none, so it changes nothing
disable_experimental_feature_warning = False

__all__ = [
    "Variable", "Parameter", "FunctionNode", "grad", "backward", "as_variable", "as_array",
    "get_device", "using_device", "get_array_types", "optimizer_hooks", "get_dtype", "mixed16", "is_debug", "set_debug",
    "config", "global_config", "using_config", "no_backprop_mode", "force_backprop_mode",
    "backend", "functions", "functional", "__version__",
    "Link", "Chain", "ChainList", "Sequential", "Optimizer", "UpdateRule",
    "initializers", "links", "optimizers", "serializers",
]
