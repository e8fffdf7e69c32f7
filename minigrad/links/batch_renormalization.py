"""``BatchRenormalization``: batch normalization whose training output is corrected towards the running averages."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.configuration import config
from minigrad.functions.checks import require_real
from minigrad.links.batch_normalization import BatchNormalization
from minigrad.variable import Variable

__all__ = ["BatchRenormalization"]


class BatchRenormalization(BatchNormalization):
    """``BatchNormalization`` that trains with ``F.batch_renormalization`` (Chainer's link).

    In training the batch is normalized with its own statistics, corrected by
    ``r`` (within ``[1/rmax, rmax]``) and ``d`` (within ``[-dmax, dmax]``) towards
    the running averages, which are then updated; in test mode it is
    ``BatchNormalization``'s, with the running averages. ``rmax=1, dmax=0`` is
    batch normalization.

    Args:
        size: the shape of ``gamma``, as in ``BatchNormalization``.
        rmax: the bound of ``r``, at least 1.
        dmax: the bound of ``d``, at least 0.
        decay, eps, dtype: as in ``BatchNormalization``.
        use_gamma, use_beta, initial_gamma, initial_beta: as in ``BatchNormalization``.
        initial_avg_mean, initial_avg_var: as in ``BatchNormalization``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> brn = L.BatchRenormalization(2, rmax=3.0, dmax=5.0)
        >>> x = np.array([[0.0, 1.0], [2.0, 5.0]], dtype=np.float32)
        >>> brn(x).array.round(3)  # r, d unclipped: x normalized by the running averages (mean 0, var 1)
        array([[0., 1.],
               [2., 5.]], dtype=float32)
        >>> brn.avg_mean
        array([0.1, 0.3], dtype=float32)
    """

    def __init__(self, size: Any, rmax: float = 1.0, dmax: float = 0.0, decay: float = 0.9, eps: float = 2e-5,
                 dtype: Any = None, use_gamma: bool = True, use_beta: bool = True, initial_gamma: Any = None,
                 initial_beta: Any = None, initial_avg_mean: Any = None, initial_avg_var: Any = None) -> None:
        super().__init__(size, decay, eps, dtype, use_gamma, use_beta, initial_gamma, initial_beta,
                         initial_avg_mean=initial_avg_mean, initial_avg_var=initial_avg_var)
        self.rmax = require_real("BatchRenormalization", rmax, "rmax")
        self.dmax = require_real("BatchRenormalization", dmax, "dmax")
        if self.rmax < 1 or self.dmax < 0:
            raise ValueError(f"BatchRenormalization: rmax must be at least 1 and dmax at least 0, "
                             f"got rmax={rmax}, dmax={dmax}")

    def forward(self, x: Any, finetune: bool = False) -> Variable:
        """As :meth:`BatchNormalization.forward`; Chainer's takes ``finetune`` positionally here."""
        return super().forward(x, finetune=finetune)

    def _normalize_batch(self, x: Any, gamma: Any, beta: Any, decay: float) -> Variable:
        if config.in_recomputing:  # F.forget's second call: the corrections r, d of the first, no update
            mean, var = self._statistics_before_update
            return F.batch_renormalization(x, gamma, beta, self.rmax, self.dmax, self.eps, mean, var, decay)
        self._statistics_before_update = self.avg_mean.copy(), self.avg_var.copy()
        return F.batch_renormalization(x, gamma, beta, self.rmax, self.dmax, self.eps, self.avg_mean, self.avg_var,
                                       decay, update_statistics=True)
