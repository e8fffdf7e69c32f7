"""sparse_matmul: a COO sparse matrix times a dense one, either way round (Chainer's ``F.sparse_matmul``).

Two nodes, each the other's gradient. ``CooMatMul`` multiplies the sparse
matrix whose values are its first input (the rows and columns are fixed) by
the dense second input: ``op_c(op_a(S) @ op_b(D))``, where ``op_x`` transposes
the last two axes when ``transx`` is set. ``CooMatMulGradSP`` is the product of
two dense matrices read only at the sparse matrix's entries (what the values
of ``S`` get as gradient). With ``G`` the output's gradient, the chain rule
of the product and of transposition gives

- ``gS = (op_a(op_c(G) @ op_b(D)^T))`` at the entries: ``CooMatMulGradSP(transa=transc,
  transb=not transb, transc=transa)`` of ``(G, D)``;
- ``gD = op_b(op_a(S)^T @ op_c(G))``: ``CooMatMul(transa=not transa, transb=transc, transc=transb)`` of ``(S, G)``;

and the same two rules, read backwards, give ``CooMatMulGradSP``'s gradients,
so every order is one of these two nodes. Entries add up where they repeat;
padding entries (row and column negative) take no part and get a zero gradient.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, require_flag
from minigrad.utils.sparse import CooMatrix
from minigrad.variable import Variable

__all__ = ["CooMatMul", "CooMatMulGradSP", "sparse_matmul"]


def _swap(x: Any, transpose: bool) -> Any:
    return x.swapaxes(-1, -2) if transpose else x


def _working_dtype(dtype: numpy.dtype) -> numpy.dtype:
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype  # float16 sums in float32


class _Pattern:
    """Where the entries of the sparse matrix are: rows, columns (``(ldnz,)`` or ``(nb, ldnz)``) and its shape."""

    def __init__(self, row: Any, col: Any, shape: tuple[int, int]) -> None:
        self.row, self.col, self.shape = row, col, tuple(shape)

    def gathered(self, transpose: bool) -> tuple[Any, Any, Any, tuple[int, int]]:
        """(batch index, row, column) of each entry, padding sent to 0, the real-entry mask, and the shape."""
        xp = backend.get_array_module(self.row)
        real = (self.row >= 0) & (self.col >= 0)
        row, col = xp.where(real, self.row, 0), xp.where(real, self.col, 0)
        shape = self.shape
        if transpose:
            row, col, shape = col, row, shape[::-1]
        batch = xp.broadcast_to(xp.arange(row.shape[0])[:, None], row.shape) if row.ndim == 2 else None
        return (row, col) if batch is None else (batch, row, col), real, shape


def _sparse_times_dense(values: Any, pattern: _Pattern, dense: Any, transa: bool, transb: bool, transc: bool,
                        dtype: numpy.dtype) -> Any:
    """``op_c(op_a(S) @ op_b(dense))``: each entry (i, k) adds ``value * dense[k, :]`` to row i of the result."""
    xp = backend.get_array_module(values)
    work = _working_dtype(dtype)
    (*batch, row, col), real, (m, _) = pattern.gathered(transa)
    b = _swap(dense, transb).astype(work, copy=False)
    picked = b[(*batch, col)]  # (..., ldnz, n): the row of B each entry multiplies
    terms = xp.where(real, values, 0).astype(work, copy=False)[..., None] * picked
    out = xp.zeros(values.shape[:-1] + (m, b.shape[-1]), dtype=work)
    backend.scatter_add(out, (*batch, row), terms)
    return _swap(out, transc).astype(dtype, copy=False)


def _dense_at_entries(a: Any, b: Any, pattern: _Pattern, transa: bool, transb: bool, transc: bool,
                      dtype: numpy.dtype) -> Any:
    """``op_a(a) @ op_b(b)`` read at the entries (transposed first when ``transc``): one dot product each."""
    xp = backend.get_array_module(a)
    work = _working_dtype(dtype)
    (*batch, row, col), real, _ = pattern.gathered(transc)
    left = _swap(a, transa).astype(work, copy=False)[(*batch, row)]               # (..., ldnz, k)
    right = _swap(b, not transb).astype(work, copy=False)[(*batch, col)]          # (..., ldnz, k)
    return xp.where(real, (left * right).sum(axis=-1), 0).astype(dtype, copy=False)


class CooMatMul(FunctionNode):
    """``op_c(op_a(S) @ op_b(D))`` of the sparse values ``S`` (entries at ``sp_row``, ``sp_col``) and dense ``D``."""

    def __init__(self, sp_row: Any, sp_col: Any, sp_shape: tuple[int, int], sp_order: str | None = "other",
                 transa: bool = False, transb: bool = False, transc: bool = False, dtype: Any = None) -> None:
        self.pattern = _Pattern(sp_row, sp_col, sp_shape)
        self.sp_order, self.transa, self.transb, self.transc = sp_order, transa, transb, transc
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        sp, dn = inputs
        dtype = self.dtype or numpy.result_type(sp.dtype, dn.dtype)
        return _sparse_times_dense(sp, self.pattern, dn, self.transa, self.transb, self.transc, dtype),

    def backward(self, indexes, grad_outputs):
        sp, dn = self.get_retained_inputs()
        gc, = grad_outputs
        p = self.pattern
        g_sp = CooMatMulGradSP(p.row, p.col, p.shape, self.sp_order, self.transc, not self.transb, self.transa,
                               dtype=sp.dtype).apply((gc, dn))[0] if 0 in indexes else None
        g_dn = CooMatMul(p.row, p.col, p.shape, self.sp_order, not self.transa, self.transc, self.transb,
                         dtype=dn.dtype).apply((sp, gc))[0] if 1 in indexes else None
        return g_sp, g_dn


class CooMatMulGradSP(FunctionNode):
    """``op_a(a) @ op_b(b)`` at the entries of the sparse pattern (of ``op_c`` of that product when ``transc``)."""

    def __init__(self, sp_row: Any, sp_col: Any, sp_shape: tuple[int, int], sp_order: str | None = "other",
                 transa: bool = False, transb: bool = False, transc: bool = False, dtype: Any = None) -> None:
        self.pattern = _Pattern(sp_row, sp_col, sp_shape)
        self.sp_order, self.transa, self.transb, self.transc = sp_order, transa, transb, transc
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        a, b = inputs
        dtype = self.dtype or numpy.result_type(a.dtype, b.dtype)
        return _dense_at_entries(a, b, self.pattern, self.transa, self.transb, self.transc, dtype),

    def backward(self, indexes, grad_outputs):
        a, b = self.get_retained_inputs()
        g_sp, = grad_outputs
        p = self.pattern
        g_a = CooMatMul(p.row, p.col, p.shape, self.sp_order, self.transc, not self.transb, self.transa,
                        dtype=a.dtype).apply((g_sp, b))[0] if 0 in indexes else None
        g_b = CooMatMul(p.row, p.col, p.shape, self.sp_order, not self.transc, self.transa, not self.transb,
                        dtype=b.dtype).apply((g_sp, a))[0] if 1 in indexes else None
        return g_a, g_b


def sparse_matmul(a: Any, b: Any, transa: bool = False, transb: bool = False) -> Variable:
    """The matrix product of a sparse and a dense matrix, or of a dense and a sparse one (batched or not).

    One operand is a :class:`minigrad.utils.CooMatrix` (``to_coo`` makes one),
    the other a float array or Variable: ``(k, n)`` with a single sparse
    matrix, ``(nb, k, n)`` with a batch of ``nb``. The result is dense, of the
    two dtypes' common type (float16 products are summed in float32).
    Gradients reach the dense operand and the sparse one's ``data`` (at its
    entries only: the zeros stay zeros).

    Args:
        a: the left operand, sparse or dense.
        b: the right operand, dense or sparse (exactly one of the two is sparse).
        transa: transpose each matrix of ``a`` first.
        transb: transpose each matrix of ``b`` first.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.utils import to_coo
        >>> a = to_coo(np.array([[0.0, 2.0], [1.0, 0.0]]), requires_grad=True)
        >>> b = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> c = F.sparse_matmul(a, b)
        >>> c.array
        array([[ 8., 10., 12.],
               [ 1.,  2.,  3.]])
        >>> F.sum(c).backward()
        >>> a.data.grad   # the row sums of b, at the entries (0, 1) and (1, 0)
        array([15.,  6.])
        >>> F.sparse_matmul(b, a, transa=True).array
        array([[4., 2.],
               [5., 4.],
               [6., 6.]])
    """
    transa, transb = require_flag("sparse_matmul", transa, "transa"), require_flag("sparse_matmul", transb, "transb")
    if isinstance(a, CooMatrix) and not isinstance(b, CooMatrix):
        sparse, dense = a, as_input("sparse_matmul", b, "b", float_only=True)
        node = CooMatMul(a.row, a.col, a.shape, a.order, transa=transa, transb=transb, transc=False)
        k_axis, dense_name = (-2, "b") if not transb else (-1, "b")
        sparse_k = a.shape[0 if transa else 1]
    elif isinstance(b, CooMatrix) and not isinstance(a, CooMatrix):
        # a @ b = (b^T @ a^T)^T: the sparse matrix on the left, transposed, and the result transposed back
        sparse, dense = b, as_input("sparse_matmul", a, "a", float_only=True)
        node = CooMatMul(b.row, b.col, b.shape, b.order, transa=not transb, transb=not transa, transc=True)
        k_axis, dense_name = (-1, "a") if not transa else (-2, "a")
        sparse_k = b.shape[1 if transb else 0]
    else:
        raise ValueError(f"sparse_matmul: exactly one of a and b must be a minigrad.utils.CooMatrix (to_coo makes "
                         f"one), got {type(a).__name__} and {type(b).__name__}")
    _check_operands(sparse, dense, dense_name, k_axis, sparse_k)
    return node.apply((sparse.data, dense))[0]


def _check_operands(sparse: CooMatrix, dense: Variable, dense_name: str, k_axis: int, sparse_k: int) -> None:
    as_input("sparse_matmul", sparse.data, "the sparse matrix's data", float_only=True)  # (a Variable: only checked)
    batched = sparse.data.ndim == 2
    if dense.ndim != sparse.data.ndim + 1:
        raise ValueError(f"sparse_matmul: {dense_name} must have {sparse.data.ndim + 1} dimensions for "
                         f"{'a batch of sparse matrices' if batched else 'one sparse matrix'} (data of shape "
                         f"{sparse.data.shape}), got shape {dense.shape}")
    if batched and dense.shape[0] != sparse.data.shape[0]:
        raise ValueError(f"sparse_matmul: {dense_name} has a batch of {dense.shape[0]} matrices, the sparse "
                         f"operand {sparse.data.shape[0]}")
    if dense.shape[k_axis] != sparse_k:
        raise ValueError(f"sparse_matmul: the inner sizes differ: the sparse matrix of shape {sparse.shape} has "
                         f"{sparse_k}, {dense_name} of shape {dense.shape} has {dense.shape[k_axis]} "
                         f"(after transa/transb)")
    if sparse.data.xp is not dense.xp:
        raise TypeError(f"sparse_matmul: the sparse matrix is on {sparse.data.xp.__name__} but {dense_name} is on "
                        f"{dense.xp.__name__}")
