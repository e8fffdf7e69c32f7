"""permutate: reorder the entries along one axis by a permutation (or its inverse), as an indexing op."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import backend
from minigrad.functions.array._axis import axis_in
from minigrad.functions.checks import as_input, require_flag
from minigrad.variable import Variable

__all__ = ["permutate"]


def permutate(x: Any, indices: Any, axis: int = 0, inv: bool = False) -> Variable:
    """Permute ``x`` along ``axis``: ``y[..., i, ...] = x[..., indices[i], ...]``.

    With ``inv=True`` the inverse permutation is applied instead,
    ``y[..., indices[i], ...] = x[..., i, ...]``, so ``permutate(permutate(x, p), p, inv=True)``
    is ``x``. The gradient is the inverse reordering of the output's gradient.

    Args:
        x: the input array.
        indices: a 1-D integer array (or Variable, which gets no gradient) holding a
            permutation of ``0 .. x.shape[axis] - 1``.
        axis: the axis to permute.
        inv: apply the inverse permutation.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([10.0, 20.0, 30.0])
        >>> F.permutate(x, np.array([2, 0, 1], dtype=np.int32)).array
        array([30., 10., 20.])
        >>> F.permutate(x, np.array([2, 0, 1], dtype=np.int32), inv=True).array
        array([20., 30., 10.])
    """
    x = as_input("permutate", x)
    if isinstance(indices, Variable):
        indices = indices.array
    if not backend.is_array(indices):
        raise TypeError(f"permutate: indices must be a 1-D integer array, got {type(indices).__name__}")
    if indices.dtype.kind not in "iu" or indices.ndim != 1:
        raise TypeError(f"permutate: indices must be a 1-D integer array, got dtype {indices.dtype} "
                        f"and shape {indices.shape}")
    axis = axis_in("permutate", axis, x.shape)
    n = x.shape[axis]
    if indices.shape[0] != n:
        raise ValueError(f"permutate: indices has {indices.shape[0]} entries but axis {axis} of x "
                         f"(shape {x.shape}) has length {n}")
    order = numpy.asarray(backend.to_cpu(indices))
    if not numpy.array_equal(numpy.sort(order), numpy.arange(n)):
        raise ValueError(f"permutate: indices {order.tolist()[:10]} is not a permutation of 0..{n - 1} "
                         f"(x of shape {x.shape}, axis {axis})")
    if require_flag("permutate", inv, "inv"):
        order = numpy.argsort(order)
    return F.get_item(x, (slice(None),) * axis + (x.xp.asarray(order.astype(numpy.intp)),))
