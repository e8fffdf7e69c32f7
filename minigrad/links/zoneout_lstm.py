"""``StatefulZoneoutLSTM``: an LSTM whose state units keep their previous values at random (zoneout)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import require_keywords, require_real
from minigrad.link import Chain
from minigrad.links._utils import RecurrentState, positive_int, split_gates
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["StatefulZoneoutLSTM"]


class StatefulZoneoutLSTM(RecurrentState, Chain):
    """A fully-connected LSTM with zoneout on its cell state and output, keeping ``c`` and ``h`` between calls::

        a, i, f, o = the four gates of upward x + lateral h
        c_tmp = tanh(a) * sigmoid(i) + sigmoid(f) * c
        c' = zoneout(c, c_tmp, c_ratio);  h' = zoneout(h, sigmoid(o) * tanh(c_tmp), h_ratio)

    In training each unit of ``c'`` keeps its previous value with probability
    ``c_ratio`` (``h'`` likewise with ``h_ratio``), drawn from NumPy's (CuPy's)
    global generator as ``F.zoneout`` does; with ``config.train = False`` the
    new values are taken everywhere.

    Args:
        in_size: input size (``None``: learned from the first input).
        out_size: the number of units.
        c_ratio, h_ratio: the zoneout ratios, in ``[0, 1]``.

    ``reset_state()`` forgets ``c`` and ``h`` (the next call starts from
    zeros); ``set_state(c, h)`` sets them.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.links as L
        >>> rnn = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.3, h_ratio=0.3)
        >>> with mg.using_config("train", False):
        ...     y1 = rnn(np.ones((4, 3), dtype=np.float32)); y2 = rnn(np.ones((4, 3), dtype=np.float32))
        >>> y2.shape, bool((y1.array != y2.array).any())
        ((4, 2), True)
    """

    state_names = ("c", "h")
    c: Variable | None
    h: Variable | None

    def __init__(self, in_size: int | None, out_size: int, c_ratio: float = 0.5, h_ratio: float = 0.5,
                 **kwargs: Any) -> None:
        require_keywords("StatefulZoneoutLSTM", kwargs, ())
        super().__init__()
        n = self.state_size = positive_int("StatefulZoneoutLSTM", "out_size", out_size)
        for name, ratio in (("c_ratio", c_ratio), ("h_ratio", h_ratio)):
            if not 0.0 <= require_real("StatefulZoneoutLSTM", ratio, name) <= 1.0:
                raise ValueError(f"StatefulZoneoutLSTM: {name} must be in [0, 1], got {ratio}")
        self.c_ratio, self.h_ratio = float(c_ratio), float(h_ratio)
        with self.init_scope():
            self.upward = Linear(positive_int("StatefulZoneoutLSTM", "in_size", in_size, allow_none=True), 4 * n)
            self.lateral = Linear(n, 4 * n, nobias=True)
        self.reset_state()

    def set_state(self, c: Any, h: Any) -> None:
        """Set the cell state and the output, each of shape ``(batch, out_size)``."""
        self.c, self.h = self._checked_state("c", c), self._checked_state("h", h)

    def forward(self, x: Any) -> Variable:
        """One step: ``x`` of shape ``(batch, in_size)`` -> ``h`` of shape ``(batch, out_size)``."""
        gates = self.upward(x)
        batch = gates.shape[0]
        self._check_state_batch(batch)
        if self.h is not None:
            gates = gates + self.lateral(self.h)
        zeros = self.xp.zeros((batch, self.state_size), gates.dtype)
        c = self.c if self.c is not None else Variable(zeros, requires_grad=False)
        h = self.h if self.h is not None else Variable(zeros, requires_grad=False)
        a, i, f, o = split_gates(gates, self.state_size)
        c_tmp = F.tanh(a) * F.sigmoid(i) + F.sigmoid(f) * c
        self.c = F.zoneout(c, c_tmp, self.c_ratio)
        self.h = F.zoneout(h, F.sigmoid(o) * F.tanh(c_tmp), self.h_ratio)
        return self.h
