"""Gated recurrent units: ``StatelessGRU`` (the state is an argument) and ``StatefulGRU`` / ``GRU`` (kept)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.link import Chain
from minigrad.links._utils import RecurrentState, positive_int
from minigrad.links.linear import Linear
from minigrad.variable import Variable, as_variable

__all__ = ["StatelessGRU", "StatefulGRU", "GRU"]


class _GRUBase(Chain):
    """The six Linear children of a GRU: ``W_r``, ``W_z``, ``W`` (from the input) and ``U_r``, ``U_z``, ``U``
    (from the state), each with a bias."""

    def __init__(self, in_size: int | None, out_size: int, init: Any = None, inner_init: Any = None,
                 bias_init: Any = None) -> None:
        super().__init__()
        self.state_size = positive_int(type(self).__name__, "out_size", out_size)
        with self.init_scope():
            for gate in ("W_r", "W_z", "W"):
                setattr(self, gate, Linear(in_size, out_size, initialW=init, initial_bias=bias_init))
            for gate in ("U_r", "U_z", "U"):
                setattr(self, gate, Linear(out_size, out_size, initialW=inner_init, initial_bias=bias_init))

    def _step(self, h: Variable | None, x: Any) -> Variable:
        """``h_new = z * h_bar + (1 - z) * h`` (just ``z * h_bar`` without a state)."""
        z, h_bar = self.W_z(x), self.W(x)
        if h is not None:
            r = F.sigmoid(self.W_r(x) + self.U_r(h))
            z = z + self.U_z(h)
            h_bar = h_bar + self.U(r * h)
        z, h_bar = F.sigmoid(z), F.tanh(h_bar)
        return z * h_bar if h is None else F.linear_interpolate(z, h_bar, h)


class StatelessGRU(_GRUBase):
    """A GRU step ``gru(h, x)`` -> the new state (``r``: reset gate, ``z``: update gate)::

        r = sigmoid(W_r x + U_r h);  z = sigmoid(W_z x + U_z h)
        h_bar = tanh(W x + U (r * h));  h_new = z * h_bar + (1 - z) * h

    Args:
        in_size: input size (``None``, or ``StatelessGRU(out_size)``: learned from the first input).
        out_size: the state size.
        init, inner_init, bias_init: initializers of the input weights, the
            state weights and the biases (default ``LeCunNormal`` and 0).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> gru = L.StatelessGRU(3, 2)
        >>> gru(np.zeros((4, 2), dtype=np.float32), np.ones((4, 3), dtype=np.float32)).shape
        (4, 2)
    """

    def __init__(self, in_size: int | None, out_size: int | None = None, init: Any = None, inner_init: Any = None,
                 bias_init: Any = None) -> None:
        if out_size is None:
            in_size, out_size = None, in_size
        super().__init__(in_size, out_size, init, inner_init, bias_init)

    def forward(self, h: Any, x: Any) -> Variable:
        return self._step(as_variable(h), x)


class StatefulGRU(RecurrentState, _GRUBase):
    """A GRU that keeps its state ``h`` between calls: ``gru(x)`` -> the new ``h`` (see ``StatelessGRU``).

    The first call after ``reset_state()`` starts without a state
    (``h = z * h_bar``); ``set_state(h)`` sets one.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> gru = L.GRU(3, 2)
        >>> h1 = gru(np.ones((1, 3), dtype=np.float32)); h2 = gru(np.ones((1, 3), dtype=np.float32))
        >>> gru.h is h2, bool((h1.array != h2.array).any())
        (True, True)
    """

    state_names = ("h",)  # the state, a Variable kept between calls (None: no state yet)
    h: Variable | None

    def __init__(self, in_size: int | None, out_size: int | None = None, init: Any = None, inner_init: Any = None,
                 bias_init: Any = 0) -> None:
        if out_size is None:
            in_size, out_size = None, in_size
        super().__init__(in_size, out_size, init, inner_init, bias_init)
        self.reset_state()

    def set_state(self, h: Any) -> None:
        """Set the state, of shape ``(batch, out_size)``."""
        self.h = self._checked_state("h", h)

    def forward(self, x: Any) -> Variable:
        self.h = self._step(self.h, x)
        return self.h


GRU = StatefulGRU  # Chainer v7's L.GRU is the stateful one
