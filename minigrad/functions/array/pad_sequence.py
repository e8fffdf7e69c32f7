"""pad_sequence: arrays of different lengths to one batch, each padded at its end (pad + stack)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.array.concat import as_inputs
from minigrad.variable import Variable

__all__ = ["pad_sequence"]


def pad_sequence(xs: Sequence[Any], length: int | None = None, padding: Any = 0) -> Variable:
    """Stack arrays of shapes ``(L_i, ...)`` into one ``(len(xs), length, ...)`` batch, padding each at its end.

    Row ``i`` of the result holds ``xs[i]`` in its first ``L_i`` positions and
    ``padding`` after them; the gradient of each ``xs[i]`` is the matching slice
    of the batch's gradient (the padding gets none).

    Args:
        xs: a non-empty list or tuple of arrays/Variables of one dtype, at least
            1-D, whose shapes agree after the first axis.
        length: the padded length; ``None`` (the default) is the longest ``L_i``.
            It may not be shorter than any ``L_i``.
        padding: the fill value, a real number (e.g. ``-1`` for padded word ids).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.pad_sequence([np.array([1, 2, 3]), np.array([4])], padding=-1).array
        array([[ 1,  2,  3],
               [ 4, -1, -1]])
        >>> F.pad_sequence([np.ones((1, 2)), np.zeros((2, 2))], length=3).shape
        (2, 3, 2)
    """
    xs = as_inputs("pad_sequence", xs)
    shapes = [x.shape for x in xs]
    for i, x in enumerate(xs):
        if x.ndim == 0:
            raise ValueError(f"pad_sequence: xs[{i}] must have at least 1 dimension, got shape {x.shape}")
        if x.shape[1:] != xs[0].shape[1:]:
            raise ValueError(f"pad_sequence: xs[{i}] has shape {x.shape} but xs[0] has shape {xs[0].shape}; "
                             "the shapes must agree after the first axis")
    longest = max(shape[0] for shape in shapes)
    if length is None:
        length = longest
    elif isinstance(length, (bool, numpy.bool_)) or not isinstance(length, (int, numpy.integer)):
        raise TypeError(f"pad_sequence: length must be an int or None, got {type(length).__name__}")
    elif length < longest:
        too_long = [i for i, shape in enumerate(shapes) if shape[0] > length]
        raise ValueError(f"pad_sequence: length={length} is shorter than xs[{too_long[0]}] (shape "
                         f"{shapes[too_long[0]]}); the lengths are {[shape[0] for shape in shapes]}")
    if isinstance(padding, (bool, numpy.bool_)) or not isinstance(padding, (int, float, numpy.integer,
                                                                             numpy.floating)):
        raise TypeError(f"pad_sequence: padding must be a real number, got {type(padding).__name__}")
    _check_padding_fits(padding, xs[0].dtype)
    rest = ((0, 0),) * (xs[0].ndim - 1)
    return F.stack([F.pad(x, ((0, int(length) - x.shape[0]),) + rest, "constant", constant_values=padding)
                  for x in xs])


def _check_padding_fits(padding: Any, dtype: numpy.dtype) -> None:
    """An integer batch takes only an integer padding within its range (Chainer wraps -1 to 255 in uint8)."""
    if dtype.kind not in "iu":
        return
    info = numpy.iinfo(dtype)
    if not (numpy.isfinite(padding) and float(padding).is_integer() and info.min <= padding <= info.max):
        wrapped = f" (Chainer wraps -1 around to {info.max}: pass {info.max} for that)" if padding < 0 else ""
        raise ValueError(f"pad_sequence: padding={padding!r} does not fit the inputs' dtype {dtype}: it must be "
                         f"an integer in [{info.min}, {info.max}]{wrapped}")
