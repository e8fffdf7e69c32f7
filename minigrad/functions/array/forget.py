"""forget: call a function without keeping its graph; backward calls it again to rebuild the graph.

Memory is traded for time: ``Forget.forward`` runs ``func`` in no-backprop
mode, so only the inputs stay alive. ``Forget.backward`` needs the
vector-Jacobian product of ``func`` at those inputs, and computes it with
``forget`` itself, applied to the function ``(xs, gys) -> grad(func(xs), xs, gys)``:
that function rebuilds ``func``'s graph, differentiates it and drops it, and
since it is again wrapped in ``forget`` its own gradient (second order, and
any order after) is computed the same way.

``func`` may use Variables it does not take as inputs (a link's parameters):
the first-order backward, like Chainer's, backpropagates the recomputed graph
to every leaf, so they receive their gradients too (also under ``grad()``,
as in Chainer; higher orders differentiate with respect to the inputs only). Every recomputation runs
with ``config.in_recomputing`` set, so that a link can skip its state updates
(``BatchNormalization``'s running statistics) the second time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from minigrad.configuration import config, force_backprop_mode, no_backprop_mode, using_config
from minigrad.function_node import FunctionNode, backward, grad
from minigrad.functions.checks import as_input, constant
from minigrad.variable import Variable

__all__ = ["Forget", "forget"]


def _call(outputs: Any) -> tuple[Variable, ...]:
    """What ``func`` returned, as a tuple of Variables."""
    if isinstance(outputs, Variable):
        return (outputs,)
    if not isinstance(outputs, tuple) or not outputs:
        raise TypeError(f"forget: func must return a Variable or a non-empty tuple of Variables, "
                        f"got {type(outputs).__name__}")
    for i, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise TypeError(f"forget: output {i} of func is a {type(y).__name__}, not a Variable")
    return outputs


def _leaf(array: Any) -> Variable:
    """A fresh graph root holding ``array``: what ``func`` is called on."""
    return Variable(array, requires_grad=array.dtype.kind == "f")


class Forget(FunctionNode):
    def __init__(self, func: Callable[..., Any], order: int = 1) -> None:
        self.func = func
        self.order = order  # 1: the user's func; 2: its vector-Jacobian product; ...

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        with no_backprop_mode():
            outputs = _call(self.func(*(_leaf(x) for x in inputs)))
        self.output_specs = [(y.xp, y.shape, y.dtype) for y in outputs]  # y.xp: func may change devices
        # an output that is an input array itself (func = identity) is copied, so it is never an alias
        return tuple(y.array.copy() if any(y.array is x for x in inputs) else y.array for y in outputs)

    def backward(self, indexes, grad_outputs):
        xs = self.get_retained_inputs()
        gys = tuple(gy if gy is not None else constant(xp.zeros(shape, dtype))
                    for gy, (xp, shape, dtype) in zip(grad_outputs, self.output_specs))
        product = _VectorJacobianProduct(self.func, len(xs), tuple(indexes), to_every_leaf=self.order == 1)
        return Forget(product, self.order + 1).apply(xs + gys)


class _VectorJacobianProduct:
    """``(*xs, *gys) -> gradients of dot(func(*xs), gys)`` w.r.t. ``xs[targets]``, a function ``Forget`` can wrap."""

    def __init__(self, func: Callable[..., Any], n_inputs: int, targets: tuple[int, ...],
                 to_every_leaf: bool) -> None:
        self.func = func
        self.n_inputs = n_inputs
        self.targets = targets
        self.to_every_leaf = to_every_leaf

    def __call__(self, *args: Variable) -> tuple[Variable, ...]:
        xs, gys = args[:self.n_inputs], args[self.n_inputs:]
        differentiable = config.enable_backprop  # True when this product is being differentiated itself
        with force_backprop_mode(), using_config("in_recomputing", True):
            outputs = _call(self.func(*xs))
        wanted = [xs[i] for i in self.targets]
        pairs = [(y, gy) for y, gy in zip(outputs, gys) if y.requires_grad]
        if pairs and self.to_every_leaf and not differentiable:
            # the first-order pass: as in Chainer, the parameters func closes over get their gradients too
            backward([y for y, _ in pairs], [gy for _, gy in pairs])
            gxs = [x.grad_var for x in wanted]
        elif pairs:
            gxs = grad([y for y, _ in pairs], wanted, [gy for _, gy in pairs],
                       enable_double_backprop=differentiable)
        else:
            gxs = [None] * len(wanted)
        return tuple(gx if gx is not None else constant(x.xp.zeros(x.shape, x.dtype)) for gx, x in zip(gxs, wanted))


def forget(func: Callable[..., Any], *xs: Any) -> Variable | tuple[Variable, ...]:
    """``func(*xs)``, computed without keeping the intermediate results; backward calls ``func`` again.

    On the forward pass ``func`` runs with graph recording off, so only the
    inputs stay in memory, not the intermediate Variables of ``func``. On the
    backward pass ``func`` is called again on the same input values to rebuild
    its graph and differentiate it. The values and gradients are those of the
    plain call ``func(*xs)``; the cost is a second forward computation.

    ``func`` must give the same result every time it is called on the same
    inputs: a random function such as ``F.dropout`` draws a different mask when
    recomputed, and its gradient is then wrong.

    Unlike Chainer's, minigrad's ``forget`` supports double backprop: the
    gradient is itself computed through ``forget``, so every order works.

    Args:
        func: a callable taking ``len(xs)`` Variables and returning a Variable
            or a tuple of Variables.
        *xs: the inputs, Variables or arrays.

    Returns:
        A Variable, or a tuple of Variables when ``func`` returns a tuple of
        two or more (a 1-tuple gives its Variable, as in Chainer).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.array([1.0, 2.0]))
        >>> y = mg.Variable(np.array([3.0, 4.0]))
        >>> z = F.forget(lambda a, b: (a + b) * a, x, y)
        >>> z.array
        array([ 4., 12.])
        >>> F.sum(z).backward()
        >>> x.grad, y.grad
        (array([5., 8.]), array([1., 2.]))
    """
    if not callable(func):
        raise TypeError(f"forget: func must be callable, got {type(func).__name__}")
    if not xs:
        raise ValueError("forget: give at least one input after func")
    inputs = tuple(as_input("forget", x, f"xs[{i}]") for i, x in enumerate(xs))
    outputs = Forget(func).apply(inputs)
    return outputs[0] if len(outputs) == 1 else outputs
