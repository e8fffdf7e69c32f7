"""``GroupNormalization``: group normalization of ``(N, C, ...)`` inputs with a learned per-channel scale and shift."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import initializers
from minigrad.dtypes import get_dtype
from minigrad.functions.checks import require_real
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["GroupNormalization"]


class GroupNormalization(Link):
    """``F.group_normalization`` with parameters ``gamma`` and ``beta`` of shape ``(C,)``, as in Chainer.

    Args:
        groups: the number of channel groups; it must divide the channels.
        size: the channels ``C``, or ``None`` to learn them from the first input.
        eps: added to the variance.
        initial_gamma, initial_beta: initializers (default 1 / 0).

    ``gamma`` and ``beta`` have ``config.dtype`` when they are created (float32
    under ``mixed16``, as in Chainer), also when sized by the first input,
    whose dtype may differ (see ``F.group_normalization``).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> gn = L.GroupNormalization(2)
        >>> gn(np.array([[[1.0], [3.0], [10.0], [30.0]]], dtype=np.float32)).array.ravel().round(3)
        array([-1., 1., -1., 1.], dtype=float32)
        >>> gn.gamma.shape
        (4,)
    """

    def __init__(self, groups: int, size: int | None = None, eps: float = 1e-5, initial_gamma: Any = None,
                 initial_beta: Any = None) -> None:
        super().__init__()
        self.groups = positive_int("GroupNormalization", "groups", groups)
        self.eps = require_real("GroupNormalization", eps, "eps", positive=True)
        size = positive_int("GroupNormalization", "size", size, allow_none=True)
        if size is not None and size % self.groups:
            raise ValueError(f"GroupNormalization: groups={self.groups} does not divide size={size}")
        self._dtype = get_dtype(None, map_mixed16=numpy.float32)  # (taken now, as Chainer does)
        with self.init_scope():
            self.gamma = Parameter(initializers.get_initializer(initial_gamma, initializers.One()))
            self.beta = Parameter(initializers.get_initializer(initial_beta, initializers.Zero()))
        if size is not None:
            self._initialize_params(size, self.xp)

    def _initialize_params(self, size: int, xp: Any) -> None:
        for param in (self.gamma, self.beta):  # an initializer with a dtype of its own keeps it
            param.initialize((size,), None if getattr(param.initializer, "dtype", None) else self._dtype, xp)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, C, ...)`` -> same shape."""
        self.initialize_from_input(self.gamma, x, 2, lambda x, xp: self._initialize_params(int(x.shape[1]), xp),
                                   "GroupNormalization")
        return F.group_normalization(x, self.groups, self.gamma, self.beta, self.eps)
