"""split_axis: cut an array into pieces along one axis; the gradient concatenates them back."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.function_node import FunctionNode
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input, constant, require_flag
from minigrad.variable import Variable

__all__ = ["SplitAxis", "split_axis"]


class SplitAxis(FunctionNode):
    def __init__(self, indices: tuple[int, ...], axis: int) -> None:
        self.indices = indices
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        bounds = (0,) + self.indices + (x.shape[self.axis],)
        lead = (slice(None),) * self.axis
        pieces = tuple(x[lead + (slice(start, stop),)] for start, stop in zip(bounds[:-1], bounds[1:]))
        self.out_shapes = tuple(y.shape for y in pieces)
        return pieces

    def backward(self, indexes, grad_outputs):
        # An output whose gradient never arrived contributes zeros.
        like = next(gy for gy in grad_outputs if gy is not None)
        gys = tuple(gy if gy is not None else _zeros(like, shape) for gy, shape in zip(grad_outputs, self.out_shapes))
        return F.Concat(self.axis).apply(gys)


def _zeros(like: Variable, shape: tuple[int, ...]) -> Variable:
    return constant(like.xp.zeros(shape, dtype=like.dtype))


def split_axis(x: Any, indices_or_sections: int | Sequence[int], axis: int,
               force_tuple: bool = True) -> tuple[Variable, ...] | Variable:
    """Split ``x`` along ``axis`` into equal sections or at the given indices, like ``numpy.split``.

    Args:
        x: the array to split.
        indices_or_sections: an int ``n`` (``x.shape[axis]`` must divide into ``n``
            equal pieces) or a sorted sequence of split positions in
            ``[0, x.shape[axis]]``.
        axis: the axis to split along.
        force_tuple: return a tuple even when there is a single piece (otherwise
            that piece alone).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> a, b = F.split_axis(np.arange(6.0).reshape(2, 3), [1], axis=1)
        >>> a.shape, b.shape
        ((2, 1), (2, 2))
        >>> [y.shape for y in F.split_axis(np.zeros((4, 2)), 2, axis=0)]
        [(2, 2), (2, 2)]
    """
    x = as_input("split_axis", x)
    force_tuple = require_flag("split_axis", force_tuple, "force_tuple")
    axis = axis_in("split_axis", axis, x.shape)
    size = x.shape[axis]
    if isinstance(indices_or_sections, (int, numpy.integer)) and not isinstance(indices_or_sections, bool):
        sections = int(indices_or_sections)
        if sections <= 0 or size % sections:
            raise ValueError(f"split_axis: indices_or_sections={sections} sections do not divide axis {axis} "
                             f"of length {size} (input shape {x.shape}) equally")
        step = size // sections
        indices = tuple(range(step, size, step)) if step else (0,) * (sections - 1)
    else:
        indices = _split_indices(indices_or_sections, size, axis, x.shape)
    ys = SplitAxis(indices, axis).apply((x,))
    return ys if force_tuple or len(ys) != 1 else ys[0]


def _split_indices(value: Any, size: int, axis: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    if hasattr(value, "tolist") and getattr(value, "ndim", 1) == 1 and (value.dtype.kind in "iu" or value.size == 0):
        value = value.tolist()  # (an empty array splits nothing, whatever its dtype: numpy.array([]) is float64)
    if not isinstance(value, Sequence) or any(
            isinstance(i, bool) or not isinstance(i, (int, numpy.integer)) for i in value):
        raise TypeError(f"split_axis: indices_or_sections must be an int or a sequence of ints, got {value!r}")
    indices = tuple(int(i) for i in value)
    if any(not 0 <= i <= size for i in indices):
        raise ValueError(f"split_axis: indices_or_sections={indices} has an index outside [0, {size}] "
                         f"for axis {axis} of the input of shape {shape}")
    if any(a > b for a, b in zip(indices[:-1], indices[1:])):
        raise ValueError(f"split_axis: indices_or_sections={indices} must be sorted")
    return indices
