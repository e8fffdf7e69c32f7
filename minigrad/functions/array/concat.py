"""concat: join arrays along an existing axis; the gradient is split back at the seams."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Concat", "concat"]


class Concat(FunctionNode):
    def __init__(self, axis: int) -> None:
        self.axis = axis

    def forward(self, inputs):
        sizes = [x.shape[self.axis] for x in inputs]
        self.seams = tuple(int(sum(sizes[: i + 1])) for i in range(len(sizes) - 1))
        return get_array_module(*inputs).concatenate(inputs, axis=self.axis),

    def backward(self, indexes, grad_outputs):
        gxs = F.SplitAxis(self.seams, self.axis).apply(grad_outputs)
        return tuple(gxs[i] for i in indexes)


def as_inputs(op: str, xs: Any, argname: str = "xs") -> tuple[Variable, ...]:
    """A non-empty list/tuple of Variables or arrays of one dtype -> a tuple of Variables."""
    if isinstance(xs, Variable) or hasattr(xs, "shape") or not isinstance(xs, Sequence) or isinstance(xs, str):
        raise TypeError(f"{op}: {argname} must be a list or tuple of arrays/Variables, got {type(xs).__name__}")
    if not xs:
        raise ValueError(f"{op}: {argname} is empty; it needs at least one array")
    variables = tuple(as_input(op, x, f"{argname}[{i}]") for i, x in enumerate(xs))
    dtypes = {x.dtype for x in variables}
    if len(dtypes) > 1:
        listed = ", ".join(str(x.dtype) for x in variables)
        raise TypeError(f"{op}: every array in {argname} must have the same dtype, got {listed}")
    return variables


def concat(xs: Sequence[Any], axis: int = 1) -> Variable:
    """Concatenate ``xs`` along ``axis``; all other axes must match (``numpy.concatenate``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.concat((np.zeros((2, 1)), np.ones((2, 2)))).array
        array([[0., 1., 1.],
               [0., 1., 1.]])
    """
    xs = as_inputs("concat", xs)
    return join("concat", xs, axis_in("concat", axis, xs[0].shape))


def join(op: str, xs: tuple[Variable, ...], axis: int) -> Variable:
    """Concatenate ``xs`` along ``axis`` after checking that all other axes match."""
    first = xs[0]
    for i, x in enumerate(xs[1:], 1):
        if x.ndim != first.ndim or any(a != b for k, (a, b) in enumerate(zip(x.shape, first.shape)) if k != axis):
            shapes = ", ".join(str(v.shape) for v in xs)
            raise ValueError(f"{op}: xs[{i}] has shape {x.shape}, which does not match xs[0] of shape "
                             f"{first.shape} except along axis {axis} (shapes {shapes})")
    return Concat(axis).apply(xs)[0]
