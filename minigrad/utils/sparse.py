"""Sparse matrices in COO format (Chainer's ``chainer.utils.CooMatrix``, ``to_coo`` and ``get_order``).

A COO matrix lists its entries as three arrays of one length: the values
``data``, their ``row`` and their ``col``. Entries at the same place add up
(as in ``scipy.sparse.coo_matrix``), and an entry whose row and column are both
negative is padding: a batch of matrices with different numbers of entries is
stored as arrays of one length ``ldnz``, each padded at the end. The product of
such a matrix with a dense one is :func:`minigrad.functions.sparse_matmul`.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad.variable import Variable, check_array

__all__ = ["CooMatrix", "to_coo", "get_order"]

_ORDERS = ("C", "F", "other", None)


class CooMatrix:
    """A sparse matrix, or a batch of them, in COO format.

    Args:
        data: the values of the entries, ``(ldnz,)`` for one matrix or
            ``(nb, ldnz)`` for a batch; an array, or a Variable (then the
            gradients of :func:`~minigrad.functions.sparse_matmul` reach it).
        row: the row of each entry, an integer array of ``data``'s shape
            (``-1`` with ``col`` ``-1``: a padding entry).
        col: the column of each entry, likewise.
        shape: ``(rows, columns)`` of the dense matrix, both positive.
        order: ``'C'`` (entries sorted by row, then column), ``'F'`` (by column,
            then row), ``'other'``, or ``None`` to find out (``get_order``). A hint
            only: every order gives the same products.
        requires_grad: whether ``data`` (given as an array) needs a gradient.

    Attributes:
        data: the values as a Variable.
        row, col, shape, order: as given (``order`` found when ``None``).

    Example:
        >>> import numpy as np
        >>> from minigrad.utils import CooMatrix
        >>> a = CooMatrix(np.array([2.0, 3.0, 4.0]), np.array([0, 1, 0]), np.array([1, 0, 1]), (2, 2))
        >>> a.order
        'other'
        >>> a.to_dense()   # the two entries at (0, 1) add up
        array([[0., 6.],
               [3., 0.]])
    """

    def __init__(self, data: Any, row: Any, col: Any, shape: tuple[int, int], order: str | None = None,
                 requires_grad: bool = False) -> None:
        if isinstance(data, Variable):
            self.data = data
        else:
            self.data = Variable(check_array(data, "data", "CooMatrix"), requires_grad=requires_grad)
        row, col = check_array(row, "row", "CooMatrix"), check_array(col, "col", "CooMatrix")
        if not 1 <= self.data.ndim <= 2:
            raise ValueError(f"CooMatrix: data must have 1 or 2 dimensions ((ldnz,) or (nb, ldnz)), "
                             f"got shape {self.data.shape}")
        for name, index in (("row", row), ("col", col)):
            if index.dtype.kind not in "iu":
                raise TypeError(f"CooMatrix: {name} must have an integer dtype, got {index.dtype}")
            if index.shape != self.data.shape:
                raise ValueError(f"CooMatrix: {name} must have data's shape {self.data.shape}, got {index.shape}")
            if backend.get_array_module(index) is not self.data.xp:
                raise TypeError(f"CooMatrix: {name} is on {backend.get_array_module(index).__name__} but data is "
                                f"on {self.data.xp.__name__}")
        self.shape = _matrix_shape(shape)
        if order not in _ORDERS:
            raise ValueError(f"CooMatrix: order must be 'C', 'F', 'other' or None, got {order!r}")
        _check_indices(row, col, self.shape)
        self.row, self.col = row, col
        self.order = get_order(row, col) if order is None else order

    def to_dense(self) -> Any:
        """The dense matrix (or ``(nb, rows, columns)`` batch) as an array of ``data``'s dtype."""
        data = self.data.array
        xp = backend.get_array_module(data)
        batch = data.shape[:-1]
        dense = xp.zeros(batch + self.shape, dtype=data.dtype)
        real = (self.row >= 0) & (self.col >= 0)
        batch_index = xp.broadcast_to(xp.arange(data.shape[0])[:, None], data.shape) if batch else None
        index = (self.row[real], self.col[real]) if not batch else (batch_index[real], self.row[real],
                                                                    self.col[real])
        backend.scatter_add(dense, index, data[real])
        return dense

    def __repr__(self) -> str:
        return f"CooMatrix(shape={self.shape}, entries={self.data.shape}, order={self.order!r})"


def _matrix_shape(shape: Any) -> tuple[int, int]:
    try:
        sizes = tuple(shape)
    except TypeError:
        sizes = ()
    if len(sizes) != 2 or not all(isinstance(s, (int, numpy.integer)) and not isinstance(s, bool) for s in sizes):
        raise ValueError(f"CooMatrix: shape must be two ints (rows, columns), got {shape!r}")
    if min(sizes) <= 0:
        raise ValueError(f"CooMatrix: shape {tuple(sizes)} must have positive sizes")
    return int(sizes[0]), int(sizes[1])


def _check_indices(row: Any, col: Any, shape: tuple[int, int]) -> None:
    """Every entry is in ``shape`` or is padding (row and column both negative); one device read."""
    padding = (row < 0) & (col < 0)
    inside = (row >= 0) & (row < shape[0]) & (col >= 0) & (col < shape[1])
    bad = ~(padding | inside)
    if bool(bad.any()):
        where = backend.to_cpu(backend.get_array_module(bad).argwhere(bad))[:3].tolist()
        raise ValueError(f"CooMatrix: entries at {where} (positions in row/col) have row and col outside the "
                         f"shape {shape} (a padding entry has both negative)")


def to_coo(x: Any, ldnz: int | None = None, requires_grad: bool = False) -> CooMatrix:
    """The non-zero elements of a matrix (2-D) or of a batch of matrices (3-D) as a ``CooMatrix``.

    Entries come in C order (by row, then column). ``ldnz`` pads the entry
    arrays to that length (padding rows and columns are ``-1``, its values 0);
    it is at least the number of non-zeros (of the fullest matrix of a batch).

    Example:
        >>> import numpy as np
        >>> from minigrad.utils import to_coo
        >>> a = to_coo(np.array([[0.0, 2.0, 0.0], [-1.0, 0.0, 0.0]]), ldnz=3)
        >>> a.data.array, a.row, a.col, a.shape, a.order
        (array([ 2., -1.,  0.]), array([ 0,  1, -1], dtype=int32), array([ 1,  0, -1], dtype=int32), (2, 3), 'C')
    """
    x = check_array(x, "x", "to_coo")
    if x.ndim not in (2, 3):
        raise ValueError(f"to_coo: x must have 2 dimensions (a matrix) or 3 (a batch), got shape {x.shape}")
    xp = backend.get_array_module(x)
    matrices = x if x.ndim == 3 else x[None]
    nonzero = matrices != 0
    counts = nonzero.reshape(len(matrices), -1).sum(axis=1)
    fullest = int(counts.max()) if len(matrices) else 0  # one device read
    if ldnz is not None:
        if isinstance(ldnz, bool) or not isinstance(ldnz, (int, numpy.integer)) or ldnz < 0:
            raise ValueError(f"to_coo: ldnz must be a non-negative int, got {ldnz!r}")
        fullest = max(fullest, int(ldnz))
    # each matrix's entries at the front (C order), padding behind: sort by (not a non-zero, position)
    flat = nonzero.reshape(len(matrices), -1)
    index = xp.arange(flat.shape[1])
    position = xp.argsort(xp.where(flat, index, index + flat.shape[1]), axis=1)[:, :fullest]  # unique keys
    real = xp.take_along_axis(flat, position, axis=1) if fullest else xp.zeros((len(matrices), 0), dtype=bool)
    columns = x.shape[-1]
    data = xp.where(real, xp.take_along_axis(matrices.reshape(len(matrices), -1), position, axis=1), 0)
    row = xp.where(real, position // columns, -1).astype(xp.int32)
    col = xp.where(real, position % columns, -1).astype(xp.int32)
    if fullest > flat.shape[1]:  # more padding than elements
        extra = fullest - flat.shape[1]
        data = xp.concatenate([data, xp.zeros((len(matrices), extra), dtype=x.dtype)], axis=1)
        row = xp.concatenate([row, xp.full((len(matrices), extra), -1, dtype=xp.int32)], axis=1)
        col = xp.concatenate([col, xp.full((len(matrices), extra), -1, dtype=xp.int32)], axis=1)
    data = data.astype(x.dtype, copy=False)
    if x.ndim == 2:
        data, row, col = data[0], row[0], col[0]
    return CooMatrix(data, row, col, x.shape[-2:], order="C", requires_grad=requires_grad)


def get_order(row: Any, col: Any) -> str:
    """``'C'`` if the entries are sorted by row and then column, else ``'F'`` if by column and then row,
    else ``'other'`` (padding entries, both indices negative, are skipped; a batch must hold it in every matrix).

    Example:
        >>> import numpy as np
        >>> from minigrad.utils import get_order
        >>> get_order(np.array([0, 0, 1]), np.array([0, 2, 1])), get_order(np.array([1, 0]), np.array([0, 1]))
        ('C', 'F')
    """
    row, col = check_array(row, "row", "get_order"), check_array(col, "col", "get_order")
    if row.shape != col.shape or row.ndim not in (1, 2):
        raise ValueError(f"get_order: row and col must have one shape of 1 or 2 dimensions, got {row.shape} and "
                         f"{col.shape}")
    if bool(((row < 0) != (col < 0)).any()):
        raise ValueError("get_order: an entry has a negative row and a non-negative column, or the reverse "
                         "(padding has both negative)")
    if _sorted(row, col):
        return "C"
    if _sorted(col, row):
        return "F"
    return "other"


def _sorted(major: Any, minor: Any) -> bool:
    """Whether the real entries of each matrix are sorted by ``major``, ties by ``minor``."""
    xp = backend.get_array_module(major)
    major, minor = major.reshape(-1, major.shape[-1]), minor.reshape(-1, minor.shape[-1])
    if major.shape[-1] < 2:
        return True
    big = int(max(int(major.max()), int(minor.max()), 0)) + 1
    key = major.astype(xp.int64) * big + minor  # (row, col) as one number: sortedness of pairs
    real = major >= 0
    for keys, reals in zip(key, real):  # padding may sit anywhere: compare the real entries only
        keys = keys[reals]
        if keys.size > 1 and not bool((keys[1:] >= keys[:-1]).all()):
            return False
    return True
