"""Decorrelated batch normalization (Huang et al. 2018; Chainer's ``F.decorrelated_batch_normalization`` and
``F.fixed_decorrelated_batch_normalization``): ZCA whitening of the channels, group by group.

The channels split into ``groups`` of ``C``; each group's ``C`` rows of ``m``
samples (batch and spatial positions) are centred and multiplied by
``Sigma^-1/2``, ``Sigma`` their covariance plus ``eps I``. ``Sigma^-1/2`` is
``V diag(w^-1/2) V^T`` from the eigendecomposition ``Sigma = V diag(w) V^T``
(``InverseSquareRoot``, whose gradient ``InverseSquareRootGrad`` has its own
gradient), so first and second order work, exactly also where eigenvalues are
equal, as they are in a batch of fewer samples than channels (Chainer's has
first order only; a third order raises). float16 is computed
in float32 and cast back (LAPACK has no float16 eigensolver).
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, require_real, require_size
from minigrad.functions.math.inv import linalg_dtype
from minigrad.variable import Variable

__all__ = ["SymmetricEigen", "InverseSquareRoot", "InverseSquareRootGrad", "decorrelated_batch_normalization",
           "fixed_decorrelated_batch_normalization"]


class SymmetricEigen(FunctionNode):
    """``w, V = eigh(A)`` for a stack of symmetric matrices ``(g, C, C)``: ascending eigenvalues, eigenvectors as
    columns. With ``dA`` symmetric, ``dw = diag(V^T dA V)`` and ``dV = V (K * (V^T dA V))``,
    ``K_ij = 1 / (w_j - w_i)`` off the diagonal, so ``gA = sym(V (diag(gw) + K * (V^T gV)) V^T)``.
    ``K`` is 0 where two eigenvalues are equal (as in Chainer), where the eigenvectors are not unique."""

    def forward(self, inputs):
        a, = inputs
        self.retain_outputs((0, 1))
        w, v = get_array_module(a).linalg.eigh(a.astype(linalg_dtype(a.dtype), copy=False))
        return w.astype(a.dtype, copy=False), v.astype(a.dtype, copy=False)

    def backward(self, indexes, grad_outputs):
        w, v = self.get_retained_outputs()
        gw, gv = grad_outputs
        xp = get_array_module(w.array)
        eye = constant(xp.eye(w.shape[-1], dtype=w.dtype))
        inner = 0 * eye if gw is None else F.expand_dims(gw, -1) * eye
        if gv is not None:
            gaps = F.expand_dims(w, -2) - F.expand_dims(w, -1)  # [i, j] = w_j - w_i
            distinct = constant(gaps.array != 0)
            inverse_gaps = F.where(distinct, 1.0 / F.where(distinct, gaps, constant(xp.ones_like(gaps.array))),
                                   constant(xp.zeros_like(gaps.array)))
            inner = inner + inverse_gaps * F.matmul(v, gv, transa=True)
        return _symmetric(F.matmul(F.matmul(v, inner), v, transb=True)),


def _symmetric(a: Variable) -> Variable:
    return 0.5 * (a + F.swapaxes(a, -1, -2))


class InverseSquareRoot(FunctionNode):
    """``S = A^-1/2 = V diag(w^-1/2) V^T`` for a stack of symmetric positive-definite matrices.

    Its gradient is the Daleckii-Krein formula ``gA = V (G * (V^T sym(gS) V)) V^T`` with the divided
    differences ``G_ij = (w_i^-1/2 - w_j^-1/2) / (w_i - w_j) = -1 / (s_i s_j (s_i + s_j))``, ``s = sqrt(w)``:
    no division by an eigenvalue gap, and exact where eigenvalues are equal (``InverseSquareRootGrad``).
    """

    def forward(self, inputs):
        a, = inputs
        self.retain_inputs((0,))
        w, v = get_array_module(a).linalg.eigh(a.astype(linalg_dtype(a.dtype), copy=False))
        self.eigen = w, v
        return ((v * w[..., None, :] ** -0.5) @ v.swapaxes(-1, -2)).astype(a.dtype, copy=False),

    def backward(self, indexes, grad_outputs):
        a, = self.get_retained_inputs()
        return InverseSquareRootGrad(*self.eigen).apply((a, grad_outputs[0]))[0],


class InverseSquareRootGrad(FunctionNode):
    """``gA = L_A(gS)``, the gradient of ``A^-1/2`` (``L_A`` the Daleckii-Krein map above), as a node of ``A`` and
    ``gS`` with the eigendecomposition ``w, V`` of ``A``.

    Its own gradient is exact where eigenvalues are equal too: ``L_A`` is self-adjoint, so ``gS`` gets
    ``L_A(ggA)``, and ``A`` gets the second Frechet derivative ``V (H + H^T) V^T``,
    ``H_kj = sum_i B_ik F_ikj C_ij`` in the eigenbasis (``B = V^T sym(gS) V``, ``C = V^T sym(ggA) V``), with
    the second divided differences ``F_ikj = (s_i + s_k + s_j) / (s_i s_k s_j (s_i + s_k)(s_k + s_j)(s_j + s_i))``,
    which divide by no gap either. (Writing the gradient with a differentiable eigendecomposition instead drops
    the terms of equal eigenvalues at second order: a batch of fewer samples than channels has them.) That
    part is computed on arrays: a third derivative raises.
    """

    def __init__(self, w: Any, v: Any) -> None:
        self.w, self.v = w, v

    def forward(self, inputs):
        a, gs = inputs
        self.retain_inputs((0, 1))
        s = self.w ** 0.5
        s_i, s_j = s[..., :, None], s[..., None, :]
        return self._rotate(-1.0 / (s_i * s_j * (s_i + s_j)) * self._eigenbasis(gs), a.dtype),

    def backward(self, indexes, grad_outputs):
        a, gs = self.get_retained_inputs()
        gga, = grad_outputs
        result = []
        if 0 in indexes:
            result.append(_SecondDerivative(self.w, self.v).apply((gs, gga))[0])
        if 1 in indexes:
            result.append(InverseSquareRootGrad(self.w, self.v).apply((a, gga))[0])
        return tuple(result)

    def _eigenbasis(self, m: Any) -> Any:
        v = self.v
        m = m.astype(v.dtype, copy=False)
        return v.swapaxes(-1, -2) @ (0.5 * (m + m.swapaxes(-1, -2))) @ v

    def _rotate(self, m: Any, dtype: Any) -> Any:
        return (self.v @ m @ self.v.swapaxes(-1, -2)).astype(dtype, copy=False)


class _SecondDerivative(InverseSquareRootGrad):
    """The part of ``InverseSquareRootGrad``'s gradient for ``A`` (see there), from ``gS`` and ``ggA``."""

    def forward(self, inputs):
        gs, gga = inputs
        s = self.w ** 0.5
        s_i, s_k, s_j = s[..., :, None, None], s[..., None, :, None], s[..., None, None, :]
        second = (s_i + s_k + s_j) / (s_i * s_k * s_j * (s_i + s_k) * (s_k + s_j) * (s_j + s_i))
        xp = get_array_module(gs)
        h = xp.einsum("...ik,...ikj,...ij->...kj", self._eigenbasis(gs), second, self._eigenbasis(gga))
        return self._rotate(h + h.swapaxes(-1, -2), gs.dtype),

    def backward(self, indexes, grad_outputs):
        raise NotImplementedError("InverseSquareRoot (decorrelated batch normalization) has first and second "
                                  "derivatives only; a third derivative is not implemented")


def _grouped(op: str, x: Any, groups: Any) -> tuple[Variable, int, int]:
    """``x`` checked, and ``(groups, C, m)``: its channels in groups of ``C``, ``m`` samples each."""
    x = as_input(op, x, float_only=True)
    if x.ndim < 2:
        raise ValueError(f"{op}: x must have a batch and a channel axis (at least 2 dimensions), got shape {x.shape}")
    groups = require_size(op, groups, "groups", minimum=1)
    if x.shape[1] % groups:
        raise ValueError(f"{op}: the {x.shape[1]} channels of x (shape {x.shape}) do not split into groups={groups}")
    return x, x.shape[1] // groups, x.size // max(x.shape[1], 1)


def _to_groups(x: Variable, groups: int, m: int) -> Variable:
    """``(b, c, *spatial)`` -> ``(groups, C, m)``: the channels first, then the samples."""
    order = (1, 0) + tuple(range(2, x.ndim))
    return F.reshape(F.transpose(x, order), (groups, x.shape[1] // groups, m))


def _from_groups(y: Variable, shape: tuple[int, ...]) -> Variable:
    order = (1, 0) + tuple(range(2, len(shape)))
    return F.transpose(F.reshape(y, (shape[1], shape[0]) + shape[2:]), order)


def _statistic(op: str, value: Any, name: str, shape: tuple[int, ...], x: Variable) -> Any:
    if value is None:
        return None
    if isinstance(value, Variable) or not hasattr(value, "shape") or getattr(value, "dtype", None) is None:
        raise TypeError(f"{op}: {name} must be an array (it is updated in place), got {type(value).__name__}")
    if tuple(value.shape) != shape or value.dtype.kind != "f":
        raise ValueError(f"{op}: {name} must be a float array of shape {shape}, got {value.dtype} {value.shape}")
    if get_array_module(value) is not x.xp:
        raise TypeError(f"{op}: {name} is a {get_array_module(value).__name__} array but x is on {x.xp.__name__}")
    return value


def decorrelated_batch_normalization(x: Any, *, groups: int = 16, eps: float = 2e-5, running_mean: Any = None,
                                     running_projection: Any = None, decay: float = 0.9) -> Variable:
    """Decorrelated batch normalization: each group of channels centred and ZCA-whitened with the statistics of
    the batch, so that its channels have zero mean and the identity covariance.

    Args:
        x: ``(b, c, ...)``: a batch of ``c`` channels; the batch and the axes after the channels are the samples.
        groups: how many groups the ``c`` channels split into (it must divide ``c``); each is whitened on its own.
        eps: added to the diagonal of each covariance matrix (non-negative).
        running_mean: optional ``(groups, c // groups)`` array, updated **in place** to
            ``decay * running_mean + (1 - decay) * mean``.
        running_projection: optional ``(groups, c // groups, c // groups)`` array updated in place the same way
            with the whitening matrix times ``m / (m - 1)`` (Chainer's correction, ``m`` the samples).
        decay: the running statistics' decay rate, in [0, 1].

    The gradient is differentiable once more (Chainer's has no second order; a third order raises), and both
    are exact where two eigenvalues of a covariance are equal (Chainer's drops a term there), as they are
    when a group has fewer samples than channels.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 2.0], [2.0, 1.0], [3.0, 6.0], [2.0, 3.0]])
        >>> y = F.decorrelated_batch_normalization(x, groups=1, eps=0.0)
        >>> np.round(y.array.T @ y.array / 4, 12) + 0.0   # the identity covariance (+ 0.0: no -0.)
        array([[1., 0.],
               [0., 1.]])
    """
    op = "decorrelated_batch_normalization"
    x, size, m = _grouped(op, x, groups)
    eps = require_real(op, eps, "eps", nonnegative=True)
    decay = require_real(op, decay, "decay")
    if not 0.0 <= decay <= 1.0:
        raise ValueError(f"{op}: decay must be in [0, 1], got {decay}")
    if m == 0:
        raise ValueError(f"{op}: no samples to take statistics over (x of shape {x.shape})")
    running_mean = _statistic(op, running_mean, "running_mean", (groups, size), x)
    running_projection = _statistic(op, running_projection, "running_projection", (groups, size, size), x)
    computed = F.cast(x, numpy.float32) if x.dtype == numpy.float16 else x
    samples = _to_groups(computed, groups, m)
    mean = F.mean(samples, axis=2, keepdims=True)
    centred = samples - mean
    eye = constant(x.xp.eye(size, dtype=computed.dtype))
    covariance = F.matmul(centred, centred, transb=True) * (1.0 / m) + eps * eye
    whitening = InverseSquareRoot().apply((covariance,))[0]
    y = _from_groups(F.matmul(whitening, centred), x.shape)
    if running_mean is not None:
        running_mean *= decay
        running_mean += (1 - decay) * mean.array[..., 0].astype(running_mean.dtype)
    if running_projection is not None:
        running_projection *= decay
        running_projection += ((1 - decay) * m / max(m - 1, 1) * whitening.array).astype(running_projection.dtype)
    return F.cast(y, x.dtype) if y.dtype != x.dtype else y


def fixed_decorrelated_batch_normalization(x: Any, mean: Any, projection: Any, groups: int = 16) -> Variable:
    """Decorrelated batch normalization with given statistics (inference): each group of channels minus its
    ``mean``, times its ``projection``.

    Args:
        x: ``(b, c, ...)``, as in :func:`decorrelated_batch_normalization`.
        mean: ``(groups, c // groups)``, of ``x``'s dtype.
        projection: ``(groups, c // groups, c // groups)``, of ``x``'s dtype.
        groups: how many groups the channels split into.

    All three inputs get gradients (Chainer's for ``mean`` and ``projection`` are wrong, and its tests do not
    check them), and every order works.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[1.0, 2.0], [3.0, 6.0]])
        >>> F.fixed_decorrelated_batch_normalization(x, np.array([[1.0, 2.0]]), np.array([[[1.0, 0.0], [1.0, 1.0]]]),
        ...                                          groups=1).array
        array([[0., 0.],
               [2., 6.]])
    """
    op = "fixed_decorrelated_batch_normalization"
    x, size, m = _grouped(op, x, groups)
    mean = as_input(op, mean, "mean", float_only=True)
    projection = as_input(op, projection, "projection", float_only=True)
    for value, name, shape in ((mean, "mean", (groups, size)), (projection, "projection", (groups, size, size))):
        if value.shape != shape or value.dtype != x.dtype:
            raise ValueError(f"{op}: {name} must have shape {shape} and x's dtype {x.dtype}, got {value.shape} "
                             f"{value.dtype}")
    centred = _to_groups(x, groups, m) - F.expand_dims(mean, 2)
    return _from_groups(F.matmul(projection, centred), x.shape)

