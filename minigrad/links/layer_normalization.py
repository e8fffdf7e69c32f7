"""``LayerNormalization``: normalize each sample over its features."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.functions.checks import require_real
from minigrad.link import Link
from minigrad.links._utils import per_channel, positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["LayerNormalization"]


class LayerNormalization(Link):
    """Layer normalization of ``(N, size)`` inputs with learned ``gamma`` and ``beta`` of shape ``(size,)``.

    Args:
        size: the feature size, or ``None`` to learn it from the first input.
        eps: added to the variance.
        initial_gamma, initial_beta: initializers (default 1 / 0).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> ln = L.LayerNormalization()
        >>> ln(np.array([[1.0, 3.0]], dtype=np.float32)).array.round(3)
        array([[-1.,  1.]], dtype=float32)
    """

    def __init__(self, size: int | None = None, eps: float = 1e-6, initial_gamma: Any = None,
                 initial_beta: Any = None) -> None:
        super().__init__()
        self.eps = require_real("LayerNormalization", eps, "eps", positive=True)
        size = positive_int("LayerNormalization", "size", size, allow_none=True)
        with self.init_scope():
            self.gamma = Parameter(initializers.get_initializer(initial_gamma, initializers.One()), size)
            self.beta = Parameter(initializers.get_initializer(initial_beta, initializers.Zero()), size)

    def forward(self, x: Any) -> Variable:
        """``x`` of shape ``(N, size)`` -> same shape."""
        self.initialize_from_input(self.gamma, x, 2, lambda x, xp: per_channel((self.gamma, self.beta), x, xp),
                                   "LayerNormalization")
        return F.layer_normalization(x, self.gamma, self.beta, self.eps)
