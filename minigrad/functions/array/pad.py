"""pad: widen an array with a constant, its edge values or its reflection.

Every mode is linear in ``x``, so the gradient is the adjoint map, ``PadGrad``:
constant -> cut out the middle; edge -> the padding's gradient piles onto the
edge rows; reflect -> it piles onto the mirrored rows. ``PadGrad``'s own
gradient is ``Pad`` again (with zeros for the constant).
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Pad", "PadGrad", "pad"]

_MODES = ("constant", "edge", "reflect")


class Pad(FunctionNode):
    def __init__(self, pad_width: tuple[tuple[int, int], ...], mode: str, constant_values: Any = 0) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.constant_values = constant_values

    def forward(self, inputs):
        x, = inputs
        self.in_shape = x.shape
        xp = backend.get_array_module(x)
        if not self.pad_width:  # a 0-dim input has no axis to pad (NumPy's pad refuses the empty widths)
            return x.copy(),
        if self.mode == "constant":
            return xp.pad(x, self.pad_width, mode="constant", constant_values=self.constant_values),
        return xp.pad(x, self.pad_width, mode=self.mode),

    def backward(self, indexes, grad_outputs):
        return PadGrad(self.pad_width, self.mode, self.in_shape).apply(grad_outputs)


class PadGrad(FunctionNode):
    """The adjoint of ``Pad``: fold the gradient of the padded array back onto ``x``'s shape."""

    def __init__(self, pad_width: tuple[tuple[int, int], ...], mode: str, shape: tuple[int, ...]) -> None:
        self.pad_width = pad_width
        self.mode = mode
        self.shape = shape

    def forward(self, inputs):
        g, = inputs
        if self.mode == "constant":
            middle = tuple(slice(before, before + n) for (before, _), n in zip(self.pad_width, self.shape))
            return g[middle].copy(),
        for axis, ((before, after), n) in enumerate(zip(self.pad_width, self.shape)):
            if before or after:
                g = _fold(g, axis, _source_index(self.mode, n, before, after), n)
        return g,

    def backward(self, indexes, grad_outputs):
        return Pad(self.pad_width, self.mode, 0).apply(grad_outputs)


def _source_index(mode: str, n: int, before: int, after: int) -> numpy.ndarray:
    """For each position of the padded axis, the position of ``x`` it copies."""
    position = numpy.arange(-before, n + after)
    if mode == "edge" or n == 1:
        return numpy.clip(position, 0, n - 1)
    period = 2 * (n - 1)  # reflect (without repeating the edge) is periodic with this period
    position = position % period
    return numpy.where(position < n, position, period - position)


def _fold(g: Any, axis: int, source: numpy.ndarray, n: int) -> Any:
    """Sum the slices of ``g`` along ``axis`` into the positions ``source`` says they came from."""
    xp = backend.get_array_module(g)
    out = xp.zeros(g.shape[:axis] + (n,) + g.shape[axis + 1:], dtype=g.dtype)
    backend.scatter_add(out, (slice(None),) * axis + (xp.asarray(source),), g)
    return out


def _per_side(x: Variable, value: Any, argname: str, kinds: str, what: str) -> tuple[tuple[Any, Any], ...]:
    """``n``, ``(before, after)`` or one pair per axis -> one (before, after) pair per axis, as numpy.pad reads it."""
    if isinstance(value, Variable):
        raise TypeError(f"pad: {argname} must be {what}, a (before, after) pair or one pair per axis, "
                        "not a Variable (no gradient flows into it)")
    try:
        array = numpy.asarray(backend.to_cpu(value) if backend.get_array_module(value) is not numpy else value)
    except ValueError:  # ragged
        array = numpy.asarray(None)
    if array.dtype.kind not in kinds or array.ndim > 2:
        raise TypeError(f"pad: {argname} must be {what}, a (before, after) pair or one pair per axis, "
                        f"got {value!r}")
    try:
        array = numpy.broadcast_to(array, (x.ndim, 2))
    except ValueError:
        raise ValueError(f"pad: {argname} {value!r} does not fit an input of shape {x.shape}; "
                         f"give {what}, a (before, after) pair or {x.ndim} pairs") from None
    return tuple((b.item(), a.item()) for b, a in array)


def _pad_width(x: Variable, pad_width: Any) -> tuple[tuple[int, int], ...]:
    widths = _per_side(x, pad_width, "pad_width", "iu", "an int")
    if any(b < 0 or a < 0 for b, a in widths):
        raise ValueError(f"pad: pad_width {pad_width!r} has a negative width (input shape {x.shape})")
    return widths


def pad(x: Any, pad_width: Any, mode: str, **keywords: Any) -> Variable:
    """Pad ``x`` like ``numpy.pad`` in mode ``"constant"``, ``"edge"`` or ``"reflect"``.

    Args:
        x: the input array.
        pad_width: ``n``, ``(before, after)`` or one ``(before, after)`` pair per axis.
        mode: ``"constant"`` (fill with ``constant_values``, default 0),
            ``"edge"`` (repeat the edge values) or ``"reflect"`` (mirror the
            array without repeating the edge; widths may exceed the axis length).
        **keywords: ``constant_values`` for the constant mode: a real number,
            a ``(before, after)`` pair or one pair per axis, as in ``numpy.pad``
            (where the paddings of two axes meet, the later axis's value wins).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([1.0, 2.0, 3.0])
        >>> F.pad(x, 2, "constant").array
        array([0., 0., 1., 2., 3., 0., 0.])
        >>> F.pad(x, (1, 2), "edge").array
        array([1., 1., 2., 3., 3., 3.])
        >>> F.pad(x, 2, "reflect").array
        array([3., 2., 1., 2., 3., 2., 1.])
        >>> F.pad(x, 1, "constant", constant_values=(-1.0, 9.0)).array
        array([-1.,  1.,  2.,  3.,  9.])
    """
    x = as_input("pad", x)
    if mode not in _MODES:
        raise ValueError(f"pad: unknown mode {mode!r}; minigrad supports {', '.join(_MODES)}")
    allowed = {"constant_values"} if mode == "constant" else set()
    unknown = sorted(set(keywords) - allowed)
    if unknown:
        raise TypeError(f"pad: mode {mode!r} takes no keyword argument {', '.join(unknown)}")
    widths = _pad_width(x, pad_width)
    for axis, ((before, after), n) in enumerate(zip(widths, x.shape)):
        if mode != "constant" and n == 0 and (before or after):
            raise ValueError(f"pad: mode {mode!r} cannot pad axis {axis} of length 0 (input shape {x.shape})")
    constant_values = keywords.get("constant_values", 0)
    if mode == "constant":
        constant_values = _per_side(x, constant_values, "constant_values", "biuf", "a real number")
    return Pad(widths, mode, constant_values).apply((x,))[0]
