"""``StatefulPeepholeLSTM``: an LSTM whose gates also look at the cell state (peephole connections)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.link import Chain
from minigrad.links._utils import RecurrentState, positive_int, split_gates
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["StatefulPeepholeLSTM"]


class StatefulPeepholeLSTM(RecurrentState, Chain):
    """A fully-connected LSTM with peephole connections, keeping ``c`` and ``h`` between calls::

        a = tanh(upward x + lateral h)        (the four gates' pre-activations: one split of upward x + lateral h)
        i = sigmoid(... + peep_i c);  f = sigmoid(... + peep_f c)
        c' = a * i + f * c
        o = sigmoid(... + peep_o c');  h' = o * tanh(c')

    Args:
        in_size: input size (``None``: learned from the first input).
        out_size: the number of units.

    Every child is a ``Linear`` with its default initializers; ``lateral`` and
    the peepholes ``peep_i``, ``peep_f``, ``peep_o`` have no bias.
    ``reset_state()`` forgets ``c`` and ``h``; the first call starts from zeros.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> rnn = L.StatefulPeepholeLSTM(3, 2)
        >>> y1 = rnn(np.ones((4, 3), dtype=np.float32)); y2 = rnn(np.ones((4, 3), dtype=np.float32))
        >>> y2.shape, rnn.c.shape, bool((y1.array != y2.array).any())
        ((4, 2), (4, 2), True)
    """

    state_names = ("c", "h")
    c: Variable | None
    h: Variable | None

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        n = self.state_size = positive_int("StatefulPeepholeLSTM", "out_size", out_size)
        with self.init_scope():
            self.upward = Linear(positive_int("StatefulPeepholeLSTM", "in_size", in_size, allow_none=True), 4 * n)
            self.lateral = Linear(n, 4 * n, nobias=True)
            self.peep_i = Linear(n, n, nobias=True)
            self.peep_f = Linear(n, n, nobias=True)
            self.peep_o = Linear(n, n, nobias=True)
        self.reset_state()

    def forward(self, x: Any) -> Variable:
        """One step: ``x`` of shape ``(batch, in_size)`` -> ``h`` of shape ``(batch, out_size)``."""
        gates = self.upward(x)
        self._check_state_batch(gates.shape[0])
        if self.h is not None:
            gates = gates + self.lateral(self.h)
        if self.c is None:
            self.c = Variable(self.xp.zeros((gates.shape[0], self.state_size), gates.dtype), requires_grad=False)
        a, i, f, o = split_gates(gates, self.state_size)
        self.c = F.tanh(a) * F.sigmoid(i + self.peep_i(self.c)) + F.sigmoid(f + self.peep_f(self.c)) * self.c
        self.h = F.sigmoid(o + self.peep_o(self.c)) * F.tanh(self.c)
        return self.h

