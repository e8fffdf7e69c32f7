"""tensordot: sum of products over paired axes of two arrays, like ``numpy.tensordot``.

Its gradients are tensordots again: ``ga`` contracts ``gy`` with ``b`` over
``b``'s free axes, ``gb`` contracts ``a`` with ``gy`` over ``a``'s free axes;
a transpose puts the result's axes back in the input's order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, normalize_axis
from minigrad.variable import Variable

__all__ = ["TensorDot", "tensordot"]


class TensorDot(FunctionNode):
    def __init__(self, a_axes: tuple[int, ...], b_axes: tuple[int, ...]) -> None:
        self.a_axes = a_axes  # a_axes[k] is summed against b_axes[k]
        self.b_axes = b_axes

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        return get_array_module(a, b).tensordot(a, b, axes=(self.a_axes, self.b_axes)),

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        gy, = grad_outputs
        a_free = [i for i in range(a.ndim) if i not in self.a_axes]
        b_free = [j for j in range(b.ndim) if j not in self.b_axes]
        grads = []
        for i in indexes:
            if i == 0:  # axes of g: a's free axes, then b's summed axes in b's order
                g = TensorDot(tuple(range(len(a_free), gy.ndim)), tuple(b_free)).apply((gy, b))[0]
                grads.append(_reorder(g, a_free, self.a_axes, self.b_axes))
            else:  # axes of g: a's summed axes in a's order, then b's free axes
                g = TensorDot(tuple(a_free), tuple(range(len(a_free)))).apply((a, gy))[0]
                grads.append(_reorder(g, b_free, self.b_axes, self.a_axes, free_first=False))
        return tuple(grads)


def _reorder(g: Variable, free: list[int], summed: tuple[int, ...], partners: tuple[int, ...],
             free_first: bool = True) -> Variable:
    """Transpose a gradient whose axes are (free..., partner axes sorted) into the input's axis order."""
    ranked = sorted(partners)
    offset_free, offset_summed = (0, len(free)) if free_first else (len(summed), 0)
    source = [
        offset_free + free.index(axis) if axis in free else offset_summed + ranked.index(partners[summed.index(axis)])
        for axis in range(len(free) + len(summed))
    ]
    return F.transpose(g, tuple(source)) if source != sorted(source) else g


def _pairing(axes: Any, a: Variable, b: Variable) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if isinstance(axes, (int, numpy.integer)) and not isinstance(axes, bool):
        if not 0 <= axes <= min(a.ndim, b.ndim):
            raise ValueError(
                f"tensordot: axes={axes} must be in [0, {min(a.ndim, b.ndim)}] for shapes {a.shape} and {b.shape}"
            )
        return tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    if not isinstance(axes, Sequence) or isinstance(axes, str) or len(axes) != 2:
        raise TypeError(f"tensordot: axes must be an int or a pair of axis sequences, got {axes!r}")
    pair = []
    for k, (part, x) in enumerate(zip(axes, (a, b))):
        part = (part,) if isinstance(part, (int, numpy.integer)) else part
        if not isinstance(part, Sequence) or isinstance(part, str):
            raise TypeError(f"tensordot: axes[{k}] must be an int or a sequence of ints, got {part!r}")
        normalized = tuple(normalize_axis("tensordot", axis, x.ndim, f"axes[{k}]") for axis in part)
        if len(set(normalized)) != len(normalized):
            raise ValueError(f"tensordot: axes[{k}]={tuple(part)} repeats an axis")
        pair.append(normalized)
    if len(pair[0]) != len(pair[1]):
        raise ValueError(f"tensordot: axes[0]={pair[0]} and axes[1]={pair[1]} must have the same length")
    return pair[0], pair[1]


def tensordot(a: Any, b: Any, axes: int | Sequence[Any] = 2) -> Variable:
    """Sum of products of ``a`` and ``b`` over paired axes, like ``numpy.tensordot``.

    Args:
        a, b: the operands.
        axes: an int ``N`` (the last ``N`` axes of ``a`` with the first ``N`` of
            ``b``, in order), or a pair ``(a_axes, b_axes)`` of equally long
            sequences (``a_axes[k]`` is summed against ``b_axes[k]``).

    Returns:
        The free axes of ``a`` followed by the free axes of ``b``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.tensordot(np.ones((2, 3, 4)), np.ones((4, 3)), axes=([1, 2], [1, 0])).array
        array([12., 12.])
    """
    a, b = as_input("tensordot", a, "a"), as_input("tensordot", b, "b")
    a_axes, b_axes = _pairing(axes, a, b)
    for i, j in zip(a_axes, b_axes):
        if a.shape[i] != b.shape[j]:
            raise ValueError(
                f"tensordot: shape mismatch: a.shape={a.shape} axis {i} has length {a.shape[i]} but "
                f"b.shape={b.shape} axis {j} has length {b.shape[j]}"
            )
    if a.dtype != b.dtype:  # promote like NumPy, through Cast nodes so the gradients keep each input's dtype
        dtype = numpy.result_type(a.dtype, b.dtype)
        a, b = F.cast(a, dtype), F.cast(b, dtype)
    return TensorDot(a_axes, b_axes).apply((a, b))[0]
