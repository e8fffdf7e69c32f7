"""The spatial transformer's grid and sampler (Jaderberg et al. 2015; Chainer's ``F.spatial_transformer_grid``
and ``F.spatial_transformer_sampler``).

``spatial_transformer_grid`` maps the output pixels, at coordinates in
``[-1, 1]``, through an affine ``theta``: a ``matmul`` with the constant
``(x, y, 1)`` of every pixel. ``spatial_transformer_sampler`` reads ``x`` at
those coordinates by bilinear interpolation, zeros outside the image: the
image is padded by one pixel of zeros, the coordinates are clipped to the
padded image, and each output pixel is the weighted sum of its four
neighbours. The neighbours' indices are constants; the weights are made of
the (clipped) coordinates with minigrad ops, so gradients reach both ``x``
and the grid, at every order (Chainer's sampler has first order only).
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import backend
from minigrad.functions.checks import as_input, constant, require_keywords, require_ndim, require_size
from minigrad.variable import Variable

__all__ = ["spatial_transformer_grid", "spatial_transformer_sampler"]


def spatial_transformer_grid(theta: Any, output_shape: tuple[int, int], **kwargs: Any) -> Variable:
    """The points to sample: ``theta`` (``(n, 2, 3)``) applied to an ``output_shape`` grid over ``[-1, 1]^2``.

    Returns:
        ``(n, 2, out_h, out_w)``: the x (first) and y coordinates, in ``[-1, 1]``
        over the input image, of each output pixel.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> identity = np.array([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
        >>> F.spatial_transformer_grid(identity, (2, 3)).array[0]
        array([[[-1.,  0.,  1.],
                [-1.,  0.,  1.]],
        <BLANKLINE>
               [[-1., -1., -1.],
                [ 1.,  1.,  1.]]])
    """
    require_keywords("spatial_transformer_grid", kwargs, ())
    theta = as_input("spatial_transformer_grid", theta, "theta", float_only=True)
    if theta.shape[1:] != (2, 3) or theta.ndim != 3:
        raise ValueError(f"spatial_transformer_grid: theta must have shape (n, 2, 3), got {theta.shape}")
    if not isinstance(output_shape, (tuple, list)) or len(output_shape) != 2:
        raise TypeError(f"spatial_transformer_grid: output_shape must be a pair (out_h, out_w), got {output_shape!r}")
    height, width = (require_size("spatial_transformer_grid", s, "output_shape", minimum=1) for s in output_shape)
    xp = theta.xp
    ys, xs = xp.meshgrid(xp.linspace(-1, 1, height), xp.linspace(-1, 1, width), indexing="ij")
    points = xp.stack([xs.ravel(), ys.ravel(), xp.ones(height * width)]).astype(theta.dtype)   # (3, h * w)
    return F.reshape(F.matmul(theta, constant(points)), (theta.shape[0], 2, height, width))


def spatial_transformer_sampler(x: Any, grid: Any, **kwargs: Any) -> Variable:
    """``x`` (``(n, c, h, w)``) read at the points of ``grid`` by bilinear interpolation, zero outside.

    Args:
        x: float input of shape ``(n, c, h, w)``.
        grid: ``(n, 2, out_h, out_w)`` of ``x``'s dtype: the x and y coordinates
            to read, ``-1`` and ``1`` being the centres of the first and last
            pixels (``spatial_transformer_grid`` makes one).

    Returns:
        ``(n, c, out_h, out_w)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[[[0.0, 10.0], [20.0, 30.0]]]])
        >>> grid = np.array([[[[0.0, 1.0, 2.0]], [[0.0, -1.0, 0.0]]]])   # (0, 0), (1, -1), (2, 0): half outside
        >>> F.spatial_transformer_sampler(x, grid).array
        array([[[[15., 10., 10.]]]])
    """
    require_keywords("spatial_transformer_sampler", kwargs, ())
    x = as_input("spatial_transformer_sampler", x, float_only=True)
    grid = as_input("spatial_transformer_sampler", grid, "grid", float_only=True)
    require_ndim("spatial_transformer_sampler", x, 4)
    if grid.ndim != 4 or grid.shape[:2] != (x.shape[0], 2):
        raise ValueError(f"spatial_transformer_sampler: grid must have shape ({x.shape[0]}, 2, out_h, out_w) for x "
                         f"of shape {x.shape}, got {grid.shape}")
    if grid.dtype != x.dtype:
        raise TypeError(f"spatial_transformer_sampler: grid must have x's dtype {x.dtype}, got {grid.dtype}")
    n, channels, height, width = x.shape
    out_h, out_w = grid.shape[2:]
    # pixel coordinates in the image padded by one pixel of zeros, clipped to it
    u = F.clip((grid[:, 0] + 1) * ((width - 1) / 2) + 1, 0.0, width + 1.0)     # (n, out_h, out_w)
    v = F.clip((grid[:, 1] + 1) * ((height - 1) / 2) + 1, 0.0, height + 1.0)
    xp = x.xp
    # the neighbours' indices on the host (two device reads), so that get_item checks them there
    u0 = numpy.clip(numpy.floor(backend.to_cpu(u.array)), 0, width).astype(numpy.int64)
    v0 = numpy.clip(numpy.floor(backend.to_cpu(v.array)), 0, height).astype(numpy.int64)
    pixels = F.transpose(F.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), "constant"), (0, 2, 3, 1))  # (n, h+2, w+2, c)
    batch = numpy.arange(n)[:, None, None]
    to_u1, to_v1 = constant(xp.asarray(u0 + 1, x.dtype)) - u, constant(xp.asarray(v0 + 1, x.dtype)) - v
    from_u0, from_v0 = u - constant(xp.asarray(u0, x.dtype)), v - constant(xp.asarray(v0, x.dtype))
    y = None
    for rows, wv in ((v0, to_v1), (v0 + 1, from_v0)):
        for cols, wu in ((u0, to_u1), (u0 + 1, from_u0)):
            term = pixels[batch, rows, cols] * F.expand_dims(wv * wu, 3)          # (n, out_h, out_w, c)
            y = term if y is None else y + term
    return F.transpose(y, (0, 3, 1, 2))
