"""resize_images: bilinear or nearest-neighbour resampling of (n, c, h, w) images, Chainer v7's sampling rules.

The resampling is linear in ``x`` and separable: each output row (then each
output column) is a weighted sum of at most two input rows (columns) at fixed
positions. So it is two gathers and a weighted sum per spatial axis, all
verified ops (``get_item`` gathers and scatters back the gradient), and every
derivative order follows; the cost stays proportional to the output's size.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.checks import as_input, constant, require_ndim, require_result_size
from minigrad.variable import Variable

__all__ = ["resize_images"]

_MODES = ("bilinear", "nearest")


def _sources(mode: str, align_corners: bool, n_in: int, n_out: int) -> tuple[Any, Any, Any]:
    """For each output position: the lower and upper input positions, and the upper's weight (None: nearest)."""
    position = numpy.arange(n_out, dtype=numpy.float64)
    if mode == "nearest":  # Chainer's nearest rule ignores align_corners
        return numpy.minimum(numpy.floor(position * (n_in / n_out)), n_in - 1).astype(numpy.intp), None, None
    if align_corners:
        source = numpy.linspace(0, n_in - 1, num=n_out)
    else:  # pixel centres map to pixel centres (OpenCV's rule), clamped at the first pixel
        source = numpy.maximum((position + 0.5) * (n_in / n_out) - 0.5, 0)
    lower = numpy.floor(source)
    weight = source - lower
    lower = lower.astype(numpy.intp)
    return lower, numpy.minimum(lower + 1, n_in - 1), weight


def _resample(x: Variable, axis: int, mode: str, align_corners: bool, n_out: int) -> Variable:
    lower, upper, weight = _sources(mode, align_corners, x.shape[axis], n_out)
    before = (slice(None),) * axis
    near = F.get_item(x, before + (lower,))  # host indices: get_item checks them there, with no device sync
    if weight is None:
        return near
    shape = [1] * x.ndim
    shape[axis] = n_out
    xp = x.xp
    w_upper = constant(xp.asarray(weight.reshape(shape), dtype=x.dtype))
    w_lower = constant(xp.asarray((1 - weight).reshape(shape), dtype=x.dtype))
    return near * w_lower + F.get_item(x, before + (upper,)) * w_upper


def resize_images(x: Any, output_shape: tuple[int, int], mode: str = "bilinear",
                  align_corners: bool = True) -> Variable:
    """Resize images ``(n, c, h, w)`` to ``(n, c, h_out, w_out)`` by bilinear or nearest-neighbour sampling.

    Output pixel ``(i, j)`` samples the input at a position ``(v, u)`` computed per axis:

    - ``mode='bilinear'``, ``align_corners=True`` (the default): the corners
      map to the corners, ``v = i * (h - 1) / (h_out - 1)`` (``0`` when ``h_out``
      is 1); the value is the bilinear interpolation of the four pixels around
      ``(v, u)``. Resizing to the same size is the identity.
    - ``mode='bilinear'``, ``align_corners=False``: pixel centres map to pixel
      centres as in OpenCV, ``v = max((i + 0.5) * h / h_out - 0.5, 0)``, and
      positions past the last pixel take its value.
    - ``mode='nearest'``: the pixel ``floor(i * h / h_out)``; ``align_corners``
      is ignored, as in Chainer.

    The result is linear in ``x``; its gradient spreads each output gradient
    over the input pixels with the same weights.

    Args:
        x: the images, a 4-D floating-point array ``(n, c, h, w)`` with ``h, w >= 1``.
        output_shape: ``(h_out, w_out)``, positive ints (height first, unlike OpenCV).
        mode: ``'bilinear'`` or ``'nearest'``.
        align_corners: the bilinear sampling rule (see above).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[[[0.0, 1.0], [2.0, 3.0]]]])
        >>> F.resize_images(x, (3, 3)).array
        array([[[[0. , 0.5, 1. ],
                 [1. , 1.5, 2. ],
                 [2. , 2.5, 3. ]]]])
        >>> F.resize_images(x, (1, 4), mode="nearest").array
        array([[[[0., 0., 1., 1.]]]])
    """
    x = as_input("resize_images", x, float_only=True)
    require_ndim("resize_images", x, 4)
    if (not isinstance(output_shape, (tuple, list)) or len(output_shape) != 2
            or any(isinstance(n, (bool, numpy.bool_)) or not isinstance(n, (int, numpy.integer)) or n < 1
                   for n in output_shape)):
        raise ValueError(f"resize_images: output_shape must be a pair of positive ints (h_out, w_out), "
                         f"got {output_shape!r} (x of shape {x.shape})")
    if mode not in _MODES:
        raise ValueError(f"resize_images: unknown mode {mode!r}; use 'bilinear' or 'nearest'")
    if not isinstance(align_corners, (bool, numpy.bool_)):
        raise TypeError(f"resize_images: align_corners must be a bool, got {type(align_corners).__name__}")
    if x.shape[2] == 0 or x.shape[3] == 0:
        raise ValueError(f"resize_images: x has no pixels to sample (shape {x.shape})")
    require_result_size("resize_images", x.shape[:2] + tuple(output_shape), "output_shape")
    rows = _resample(x, 2, mode, bool(align_corners), int(output_shape[0]))
    return _resample(rows, 3, mode, bool(align_corners), int(output_shape[1]))
