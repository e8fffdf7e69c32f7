"""cholesky: the lower-triangular ``L`` with ``L L^T = A`` of a symmetric positive-definite matrix (Chainer's
``F.cholesky``).

With ``dA`` symmetric, ``dL = L Phi(L^-1 dA L^-T)`` where ``Phi`` keeps the
lower triangle and halves the diagonal; its adjoint gives
``gA = sym(L^-T Phi(L^T gL) L^-1)``, ``sym(S) = (S + S^T) / 2`` (Murray 2016).
It is written with ``inv``, ``matmul`` and a constant mask of the retained
``L``, so it is differentiable again. float16 is factorised in float32 (no
LAPACK routine for it), as ``inv`` does.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import constant
from minigrad.functions.math.inv import linalg_dtype, square_matrices
from minigrad.variable import Variable

__all__ = ["Cholesky", "cholesky"]

SYMMETRY_TOLERANCE = 64  # |A - A^T| may be this many units of rounding of max |A| (A = B B^T is not exact)


def _factor(a: Any) -> Any:
    """``L`` of ``a``; a matrix that is not symmetric or not positive definite is a ``ValueError``.

    NumPy raises ``LinAlgError`` for a matrix that is not positive definite; CuPy
    returns NaN instead; both read only one triangle, so asymmetry would pass
    silently. One device read checks the two at once. A non-finite ``a`` gives
    a non-finite ``L`` (NaN in, NaN out, as ``inv``).
    """
    xp = get_array_module(a)
    try:
        lower = xp.linalg.cholesky(a.astype(linalg_dtype(a.dtype), copy=False))
    except numpy.linalg.LinAlgError:
        lower = None
    scale = xp.abs(a).max() if a.size else 0.0
    asymmetry = xp.abs(a - a.T).max() if a.size else 0.0
    tolerance = SYMMETRY_TOLERANCE * numpy.finfo(a.dtype).eps * scale
    symmetric = asymmetry <= tolerance
    if lower is None or not bool((symmetric & xp.isfinite(lower).all()) | ~xp.isfinite(a).all()):
        what = "not symmetric" if not bool(symmetric) else "not positive definite"
        raise ValueError(f"cholesky: a is {what} (shape {a.shape}, dtype {a.dtype}); the Cholesky factor needs a "
                         f"symmetric positive-definite matrix")
    return lower.astype(a.dtype, copy=False)


class Cholesky(FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return _factor(inputs[0]),

    def backward(self, indexes, grad_outputs):
        lower, = self.get_retained_outputs()
        xp = get_array_module(lower.array)
        n = lower.shape[0]
        phi_mask = constant(xp.tri(n, dtype=lower.dtype) - 0.5 * xp.eye(n, dtype=lower.dtype))
        lower_inv = F.inv(lower)
        phi = phi_mask * F.matmul(lower, grad_outputs[0], transa=True)
        s = F.matmul(F.matmul(lower_inv, phi, transa=True), lower_inv)
        return 0.5 * (s + s.T),


def cholesky(a: Any) -> Variable:
    """The Cholesky factor of ``a``: the lower-triangular ``L`` with ``L @ L.T == a``.

    Args:
        a: a symmetric positive-definite matrix ``(n, n)``, floating point.

    Raises:
        ValueError: ``a`` is not square and 2-D, not symmetric (beyond rounding: Chainer reads its lower
            triangle and ignores the rest), or not positive definite.

    The gradient is the symmetric one (a perturbation of ``a`` keeps it symmetric), as in Chainer.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.cholesky(np.array([[4.0, 2.0], [2.0, 5.0]])).array
        array([[2., 0.],
               [1., 2.]])
    """
    a = square_matrices("cholesky", a, 2)
    return Cholesky().apply((a,))[0]
