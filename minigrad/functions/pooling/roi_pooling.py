"""Pooling over regions of interest (Chainer's ROI functions): each box of ``rois`` cut into ``outsize`` bins.

- ``roi_pooling_2d`` (Fast R-CNN), ``roi_max_pooling_2d`` and ``roi_average_pooling_2d``:
  the box's corners are rounded to pixels, and each bin is the block of pixels
  ``[floor(i * size / out), ceil((i + 1) * size / out))`` from the box's corner,
  clipped to the image; its max (or average). An empty bin gives 0, or
  ``-inf`` for ``roi_max_pooling_2d``, as in Chainer.
- ``roi_average_align_2d`` and ``roi_max_align_2d`` (Mask R-CNN): nothing is
  rounded; each bin is sampled at a grid of ``sampling_ratio`` points, each
  point bilinearly interpolated (a point within a pixel of the border reads the
  border; one further out is skipped), then averaged over the grid (a skipped
  point counting as 0) or maximized (``-inf`` when every point is skipped).

The boxes are data, not inputs (no gradient reaches them, as in Chainer): they
are read once on the host, which turns each bin into fixed pixel indices and
weights. The pooled values are then a gather (``get_item``) of ``x``, masked
and reduced with ``max``, ``sum`` or weighted sums: compositions of verified
ops, so every order of gradient follows.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import backend
from minigrad.functions.checks import as_input, constant, require_ndim, require_real
from minigrad.functions.connection.sliding_windows import pair
from minigrad.variable import Variable

__all__ = ["roi_pooling_2d", "roi_max_pooling_2d", "roi_average_pooling_2d", "roi_average_align_2d",
           "roi_max_align_2d"]


# --- the boxes, read once on the host -------------------------------------------------------------------------

def _read_boxes(op: str, x: Variable, rois: Any, roi_indices: Any, spatial_scale: Any) -> tuple[Any, Any]:
    """(batch index of each box, its (y_min, x_min, y_max, x_max) times ``spatial_scale``) as NumPy arrays."""
    require_ndim(op, x, 4)
    rois = as_input(op, rois, "rois", float_only=True)
    if rois.ndim != 2 or rois.shape[1] != 4:
        raise ValueError(f"{op}: rois must have shape (n_rois, 4) of (y_min, x_min, y_max, x_max), got {rois.shape}")
    indices = as_input(op, roi_indices, "roi_indices")
    if indices.dtype.kind not in "iu" or indices.shape != (rois.shape[0],):
        raise ValueError(f"{op}: roi_indices must be integers of shape ({rois.shape[0]},) (one per box), got "
                         f"{indices.dtype} of shape {indices.shape}")
    scale = require_real(op, spatial_scale, "spatial_scale", positive=True)
    for name, array in (("rois", rois), ("roi_indices", indices)):
        if array.xp is not x.xp:
            raise TypeError(f"{op}: {name} is on {array.xp.__name__} but x is on {x.xp.__name__}")
    batch = numpy.asarray(backend.to_cpu(indices.array)).astype(numpy.int64)
    return _scaled(op, x, batch, numpy.asarray(backend.to_cpu(rois.array)), scale)


def _scaled(op: str, x: Variable, batch: Any, boxes: Any, scale: float) -> tuple[Any, Any]:
    if batch.size and (batch.min() < 0 or batch.max() >= x.shape[0]):
        raise ValueError(f"{op}: the boxes' batch indices must be in [0, {x.shape[0]}) (x's batch), got "
                         f"{batch[(batch < 0) | (batch >= x.shape[0])][:5].tolist()}")
    return batch, (boxes * boxes.dtype.type(scale)).astype(numpy.float64)  # scaled in the boxes' dtype, as Chainer


def _outsize(op: str, outsize: Any) -> tuple[int, int]:
    return pair(op, outsize, "outsize", 1)


# --- the pixel bins of the pooling functions ------------------------------------------------------------------

def _pixel_bins(start: Any, length: Any, out: int, limit: int) -> tuple[Any, Any]:
    """First pixel and number of pixels of each of ``out`` bins of each box (``(n_rois, out)`` each)."""
    stride = length[:, None] / out
    i = numpy.arange(out)
    first = numpy.clip(numpy.floor(i * stride).astype(numpy.int64) + start[:, None], 0, limit)
    stop = numpy.clip(numpy.ceil((i + 1) * stride).astype(numpy.int64) + start[:, None], 0, limit)
    return first, numpy.maximum(stop - first, 0)


def _windows(x: Variable, batch: Any, first_h: Any, count_h: Any, first_w: Any, count_w: Any
             ) -> tuple[Variable, Any]:
    """Each bin's pixels, ``(n_rois, outh, outw, kh * kw, channels)`` (a bin padded to the largest), and the mask
    of real ones."""
    kh, kw = max(int(count_h.max(initial=0)), 1), max(int(count_w.max(initial=0)), 1)
    dh, dw = numpy.arange(kh), numpy.arange(kw)
    rows = numpy.minimum(first_h[:, :, None] + dh, x.shape[2] - 1)     # (n, outh, kh), padding clamped in range
    cols = numpy.minimum(first_w[:, :, None] + dw, x.shape[3] - 1)     # (n, outw, kw)
    real = ((dh < count_h[:, :, None])[:, :, None, :, None] & (dw < count_w[:, :, None])[:, None, :, None, :])
    n, outh, outw = rows.shape[0], rows.shape[1], cols.shape[1]
    xp = x.xp
    # host indices: get_item checks their range on the host, with no device read
    index = (batch[:, None, None, None, None], rows[:, :, None, :, None], cols[:, None, :, None, :])
    pixels = F.transpose(x, (0, 2, 3, 1))[index]                       # (n, outh, outw, kh, kw, channels)
    return (F.reshape(pixels, (n, outh, outw, kh * kw, x.shape[1])),
            xp.asarray(real.reshape(n, outh, outw, kh * kw, 1)))


def _pool(x: Variable, batch: Any, boxes_h: tuple[Any, Any], boxes_w: tuple[Any, Any], outsize: tuple[int, int],
          mode: str, empty: float) -> Variable:
    """Max or average of each bin of pixels, ``(n_rois, channels, outh, outw)``; ``empty`` where a bin has none."""
    first_h, count_h = _pixel_bins(*boxes_h, outsize[0], x.shape[2])
    first_w, count_w = _pixel_bins(*boxes_w, outsize[1], x.shape[3])
    pixels, real = _windows(x, batch, first_h, count_h, first_w, count_w)
    xp = x.xp
    if mode == "max":
        y = F.max(F.where(xp.broadcast_to(real, pixels.shape), pixels, xp.full((), -numpy.inf, x.dtype)), axis=3)
    else:
        area = numpy.maximum(count_h[:, :, None] * count_w[:, None, :], 1)[:, :, :, None, None]
        y = F.sum(pixels * constant((real / xp.asarray(area)).astype(x.dtype)), axis=3)
    nonempty = xp.asarray(((count_h[:, :, None] > 0) & (count_w[:, None, :] > 0))[..., None])
    if empty != 0.0 or mode == "max":
        y = F.where(xp.broadcast_to(nonempty, y.shape), y, xp.full((), empty, x.dtype))
    return F.transpose(y, (0, 3, 1, 2))


def _rounded_boxes(boxes: Any, extra: int) -> tuple[tuple[Any, Any], tuple[Any, Any]]:
    """((y start, height), (x start, width)) of boxes rounded to pixels (``extra``: 1 for inclusive corners)."""
    corners = numpy.round(boxes).astype(numpy.int64)   # half to even, as Chainer's CPU code
    height = numpy.maximum(corners[:, 2] - corners[:, 0] + extra, 1)
    width = numpy.maximum(corners[:, 3] - corners[:, 1] + extra, 1)
    return (corners[:, 0], height), (corners[:, 1], width)


def roi_max_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: int | tuple[int, int],
                       spatial_scale: float) -> Variable:
    """The maximum of each of ``outsize`` pixel bins of each box (Chainer's ``F.roi_max_pooling_2d``).

    Args:
        x: float input of shape ``(n, c, h, w)``.
        rois: the boxes, ``(n_rois, 4)`` of ``(y_min, x_min, y_max, x_max)`` in
            the coordinates of the image ``x`` was computed from (any float dtype).
        roi_indices: the image of ``x`` each box is in, integers ``(n_rois,)``.
        outsize: the bins per box, ``(outh, outw)`` or one int for both.
        spatial_scale: the size of ``x`` relative to the image (boxes are scaled by it).

    Returns:
        ``(n_rois, c, outh, outw)``; a bin outside the image is ``-inf``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.roi_max_pooling_2d(x, np.array([[0.0, 0.0, 4.0, 4.0]]), np.array([0]), 2, 1.0).array
        array([[[[ 5.,  7.],
                 [13., 15.]]]])
    """
    x = as_input("roi_max_pooling_2d", x, float_only=True)
    batch, boxes = _read_boxes("roi_max_pooling_2d", x, rois, roi_indices, spatial_scale)
    size = _outsize("roi_max_pooling_2d", outsize)
    return _pool(x, batch, *_rounded_boxes(boxes, 0), size, "max", -numpy.inf)


def roi_average_pooling_2d(x: Any, rois: Any, roi_indices: Any, outsize: int | tuple[int, int],
                           spatial_scale: float) -> Variable:
    """The average of each of ``outsize`` pixel bins of each box (Chainer's ``F.roi_average_pooling_2d``).

    Arguments as :func:`roi_max_pooling_2d`; a bin outside the image is 0.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.roi_average_pooling_2d(x, np.array([[0.0, 0.0, 2.0, 4.0]]), np.array([0]), (1, 2), 1.0).array
        array([[[[2.5, 4.5]]]])
    """
    x = as_input("roi_average_pooling_2d", x, float_only=True)
    batch, boxes = _read_boxes("roi_average_pooling_2d", x, rois, roi_indices, spatial_scale)
    size = _outsize("roi_average_pooling_2d", outsize)
    return _pool(x, batch, *_rounded_boxes(boxes, 0), size, "average", 0.0)


def roi_pooling_2d(x: Any, rois: Any, outh: int, outw: int, spatial_scale: float) -> Variable:
    """Fast R-CNN's ROI max pooling, in Chainer's older form (``F.roi_pooling_2d``).

    Args:
        x: float input of shape ``(n, c, h, w)``.
        rois: ``(n_rois, 5)`` of ``(batch index, x_min, y_min, x_max, y_max)``
            (corners inclusive: a box from 0 to 3 is 4 pixels wide).
        outh, outw: the bins per box.
        spatial_scale: the size of ``x`` relative to the image.

    Returns:
        ``(n_rois, c, outh, outw)``; a bin outside the image is 0.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.roi_pooling_2d(x, np.array([[0.0, 0.0, 0.0, 3.0, 1.0]]), 1, 2, 1.0).array
        array([[[[5., 7.]]]])
    """
    x = as_input("roi_pooling_2d", x, float_only=True)
    boxes = as_input("roi_pooling_2d", rois, "rois", float_only=True)
    if boxes.ndim != 2 or boxes.shape[1] != 5:
        raise ValueError(f"roi_pooling_2d: rois must have shape (n_rois, 5) of (batch index, x_min, y_min, x_max, "
                         f"y_max), got {boxes.shape}")
    require_ndim("roi_pooling_2d", x, 4)
    if boxes.xp is not x.xp:
        raise TypeError(f"roi_pooling_2d: rois is on {boxes.xp.__name__} but x is on {x.xp.__name__}")
    scale = require_real("roi_pooling_2d", spatial_scale, "spatial_scale", positive=True)
    size = _outsize("roi_pooling_2d", (outh, outw))
    host = numpy.asarray(backend.to_cpu(boxes.array))
    if not numpy.array_equal(host[:, 0], numpy.floor(host[:, 0])):
        raise ValueError("roi_pooling_2d: the batch indices (rois[:, 0]) must be whole numbers")
    batch, scaled = _scaled("roi_pooling_2d", x, host[:, 0].astype(numpy.int64), host[:, [2, 1, 4, 3]], scale)
    return _pool(x, batch, *_rounded_boxes(scaled, 1), size, "max", 0.0)


# --- the bilinear samples of the align functions --------------------------------------------------------------

def _sample_axis(start: Any, length: Any, out: int, ratio: int | None, limit: int
                 ) -> tuple[Any, Any, Any, Any, Any, Any]:
    """For one axis: each bin's sample points' (low pixel, high pixel, low weight, high weight, usable), each
    ``(n_rois, out, grid)``, and the number of points per bin of each box (``(n_rois,)``)."""
    size = numpy.maximum(length, 1.0)
    bin_size = size / out
    grid = numpy.full(len(start), ratio) if ratio is not None else numpy.ceil(size / out).astype(numpy.int64)
    most = max(int(grid.max(initial=1)), 1)
    step = numpy.arange(most)
    p = (start[:, None, None] + numpy.arange(out)[None, :, None] * bin_size[:, None, None]
         + (step + 0.5)[None, None, :] * (bin_size / grid)[:, None, None])
    usable = (p >= -1.0) & (p <= limit) & (step < grid[:, None, None])
    clamped = numpy.clip(p, 0, limit - 1)
    low = numpy.minimum(numpy.floor(clamped).astype(numpy.int64), limit - 1)
    high = numpy.minimum(low + 1, limit - 1)
    frac = clamped - low
    return low, high, 1.0 - frac, frac, usable, grid


def _sampling_ratio(op: str, sampling_ratio: Any) -> tuple[int | None, int | None]:
    """Sample points per bin along each axis: an int >= 1, or a pair of them in which ``None`` is per box."""
    if sampling_ratio is None:
        return None, None
    if isinstance(sampling_ratio, (tuple, list)) and len(sampling_ratio) == 2 and None in sampling_ratio:
        return tuple(None if r is None else pair(op, r, "sampling_ratio", 1)[0] for r in sampling_ratio)
    return pair(op, sampling_ratio, "sampling_ratio", 1)


def _align(op: str, x: Any, rois: Any, roi_indices: Any, outsize: Any, spatial_scale: Any, sampling_ratio: Any,
           mode: str) -> Variable:
    x = as_input(op, x, float_only=True)
    batch, boxes = _read_boxes(op, x, rois, roi_indices, spatial_scale)
    outh, outw = _outsize(op, outsize)
    ratio_h, ratio_w = _sampling_ratio(op, sampling_ratio)
    y_low, y_high, y_wlow, y_whigh, y_ok, grid_h = _sample_axis(boxes[:, 0], boxes[:, 2] - boxes[:, 0], outh, ratio_h,
                                                                x.shape[2])
    x_low, x_high, x_wlow, x_whigh, x_ok, grid_w = _sample_axis(boxes[:, 1], boxes[:, 3] - boxes[:, 1], outw, ratio_w,
                                                                x.shape[3])
    xp, n = x.xp, len(batch)
    pixels = F.transpose(x, (0, 2, 3, 1))                                          # (N, H, W, C)
    b = batch[:, None, None, None, None]   # host indices, as in _windows
    usable = (y_ok[:, :, None, :, None] & x_ok[:, None, :, None, :])               # (n, outh, outw, sh, sw)
    value = None
    for rows, wy in ((y_low, y_wlow), (y_high, y_whigh)):
        for cols, wx in ((x_low, x_wlow), (x_high, x_whigh)):
            weight = wy[:, :, None, :, None] * wx[:, None, :, None, :] * usable
            corner = pixels[b, rows[:, :, None, :, None], cols[:, None, :, None, :]]
            term = corner * constant(xp.asarray(weight[..., None].astype(x.dtype)))
            value = term if value is None else value + term                        # (n, outh, outw, sh, sw, C)
    value = F.reshape(value, (n, outh, outw, -1, x.shape[1]))
    mask = xp.asarray(usable.reshape(n, outh, outw, -1, 1))
    if mode == "average":
        y = F.sum(value, axis=3) / constant(xp.asarray((grid_h * grid_w).astype(x.dtype)[:, None, None, None]))
    else:
        y = F.max(F.where(xp.broadcast_to(mask, value.shape), value, xp.full((), -numpy.inf, x.dtype)), axis=3)
    return F.transpose(y, (0, 3, 1, 2))


def roi_average_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: int | tuple[int, int], spatial_scale: float,
                         sampling_ratio: int | tuple[int | None, int | None] | None = None) -> Variable:
    """ROIAlign's average (Mask R-CNN; Chainer's ``F.roi_average_align_2d``): each bin's mean of bilinear samples.

    Args:
        x: float input of shape ``(n, c, h, w)`` (any float dtype; Chainer takes float32 only).
        rois: ``(n_rois, 4)`` of ``(y_min, x_min, y_max, x_max)``, not rounded.
        roi_indices: the image of ``x`` each box is in, integers ``(n_rois,)``.
        outsize: the bins per box, ``(outh, outw)`` or one int.
        spatial_scale: the size of ``x`` relative to the image.
        sampling_ratio: sample points per bin along each axis, an int >= 1 or a
            pair; ``None`` (for both axes, or one in the pair): ``ceil(box size / outsize)``, per box.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.roi_average_align_2d(x, np.array([[0.5, 0.5, 2.5, 2.5]]), np.array([0]), 1, 1.0, 1).array
        array([[[[7.5]]]])
    """
    return _align("roi_average_align_2d", x, rois, roi_indices, outsize, spatial_scale, sampling_ratio, "average")


def roi_max_align_2d(x: Any, rois: Any, roi_indices: Any, outsize: int | tuple[int, int], spatial_scale: float,
                     sampling_ratio: int | tuple[int | None, int | None] | None = None) -> Variable:
    """ROIAlign's maximum (Chainer's ``F.roi_max_align_2d``): each bin's largest bilinear sample.

    Arguments as :func:`roi_average_align_2d`; a bin with no usable sample is ``-inf``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.arange(16.0).reshape(1, 1, 4, 4)
        >>> F.roi_max_align_2d(x, np.array([[0.0, 0.0, 2.0, 2.0]]), np.array([0]), 1, 1.0, 2).array
        array([[[[7.5]]]])
    """
    return _align("roi_max_align_2d", x, rois, roi_indices, outsize, spatial_scale, sampling_ratio, "max")
