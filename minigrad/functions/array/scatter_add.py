"""scatter_add: ``a`` with ``b`` added at ``a[slices]`` (out of place; repeated indices add up).

The scattering is ``get_item``'s own gradient map, ``GetItemGrad`` (zeros of
``a``'s shape with ``b`` added at ``slices``), so ``scatter_add(a, slices, b)`` is
``a + GetItemGrad(b)``: ``a``'s gradient is the output's, ``b``'s is the
output's gradient at ``slices``, and every order follows.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.array.get_item import index_key
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["scatter_add"]


def scatter_add(a: Any, slices: Any, b: Any) -> Variable:
    """A copy of ``a`` with ``b`` added to the elements ``a[slices]`` (``numpy.add.at`` out of place).

    Elements that ``slices`` selects more than once (a repeated integer index)
    receive each of their values of ``b``. ``a`` itself is not changed.

    Args:
        a: the array added to.
        slices: an index as ``a[slices]`` takes it: ints, slices, ``None``,
            ``Ellipsis``, integer or boolean arrays, or a tuple of them (a list of
            ints is one integer index array, as in Chainer).
        b: the values added, of ``a[slices]``'s shape (no broadcasting, as in
            Chainer) and ``a``'s dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.scatter_add(np.zeros(4), [0, 2, 0], np.array([1.0, 2.0, 3.0])).array
        array([4., 0., 2., 0.])
        >>> F.scatter_add(np.zeros((2, 3)), (slice(None), 1), np.ones(2)).array
        array([[0., 1., 0.],
               [0., 1., 0.]])
    """
    a = as_input("scatter_add", a, "a")
    b = as_input("scatter_add", b, "b")
    if a.dtype != b.dtype:
        raise TypeError(f"scatter_add: a and b must have the same dtype, got {a.dtype} and {b.dtype}")
    if isinstance(slices, list):
        slices = (slices,) if all(isinstance(s, (int, numpy.integer)) for s in slices) else tuple(slices)
    xp = a.xp
    try:
        key, basic = index_key(slices, a.shape, xp)
        selected = xp.broadcast_to(xp.zeros((), dtype=bool), a.shape)[key].shape  # a[slices]'s shape, no copy of a
    except (IndexError, TypeError) as error:
        raise type(error)(f"scatter_add: invalid slices for a of shape {a.shape}: {error}") from None
    if b.shape != tuple(selected):
        raise ValueError(f"scatter_add: b has shape {b.shape} but a[slices] has shape {tuple(selected)} "
                         f"(a of shape {a.shape}); they must be equal (no broadcasting, as in Chainer)")
    return a + F.GetItemGrad(key, basic, a.shape).apply((b,))[0]
