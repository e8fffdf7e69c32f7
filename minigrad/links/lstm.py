"""Fully-connected LSTM layers: ``LSTM`` keeps its cell state ``c`` and output ``h`` between calls,
``StatelessLSTM`` takes them as arguments."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Chain
from minigrad.links._utils import RecurrentState, positive_int
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["LSTM", "StatelessLSTM"]


class _GateBias(initializers.Initializer):
    """The bias of the four interleaved gates: ``forget`` for the forget gates, ``other`` for the rest."""

    def __init__(self, other: Any, forget: Any) -> None:
        super().__init__()
        self.other = initializers.get_initializer(other, initializers.Zero())
        self.forget = initializers.get_initializer(forget, initializers.One())

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        bias = numpy.empty(shape)
        gates = bias.reshape(-1, 4)  # (units, 4): cell input, input, forget, output (F.lstm's layout)
        for k in range(4):
            (self.forget if k == 2 else self.other)(gates[:, k])  # an initializer fills the column in place
        return bias


class _LSTMBase(Chain):
    """The two Linear children of an LSTM: ``upward`` (``x`` to the four gates) and ``lateral`` (``h`` to them)."""

    def __init__(self, in_size: int | None, out_size: int | None = None, lateral_init: Any = None,
                 upward_init: Any = None, bias_init: Any = None, forget_bias_init: Any = None) -> None:
        super().__init__()
        if out_size is None:
            in_size, out_size = None, in_size
        self.state_size = positive_int(type(self).__name__, "out_size", out_size)
        with self.init_scope():
            self.upward = Linear(in_size, 4 * self.state_size, initialW=upward_init,
                                 initial_bias=_GateBias(bias_init, forget_bias_init))
            self.lateral = Linear(self.state_size, 4 * self.state_size, nobias=True, initialW=lateral_init)


class StatelessLSTM(_LSTMBase):
    """One LSTM step with the state passed in: ``c_new, h_new = lstm(c, h, x)``.

    ``F.lstm(c, upward(x) + lateral(h))``; ``h = None`` leaves out the lateral
    term and ``c = None`` starts from zeros (a first step).

    Args:
        in_size: input size (``None``, or ``StatelessLSTM(out_size)``: learned from the first input).
        out_size: the number of units.
        lateral_init, upward_init, bias_init, forget_bias_init: as in :class:`LSTM`.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> lstm = L.StatelessLSTM(3, 2)
        >>> c, h = lstm(None, None, np.ones((4, 3), dtype=np.float32))
        >>> c, h = lstm(c, h, np.ones((4, 3), dtype=np.float32))
        >>> c.shape, h.shape
        ((4, 2), (4, 2))
    """

    def forward(self, c: Any, h: Any, x: Any) -> tuple[Variable, Variable]:
        """``c`` and ``h`` of shape ``(batch, out_size)`` (or ``None``), ``x`` of shape ``(batch, in_size)``."""
        gates = self.upward(x)
        batch = gates.shape[0]
        for name, state in (("c", c), ("h", h)):
            if state is not None and tuple(state.shape) != (batch, self.state_size):
                raise ValueError(f"StatelessLSTM: {name} must have shape ({batch}, {self.state_size}) (x's batch, "
                                 f"out_size), got {tuple(state.shape)}")
        if h is not None:
            gates = gates + self.lateral(h)
        if c is None:
            c = Variable(self.xp.zeros((batch, self.state_size), dtype=gates.dtype), requires_grad=False)
        return F.lstm(c, gates)


class LSTM(RecurrentState, _LSTMBase):
    """``c, h = F.lstm(c, upward(x) + lateral(h))``, with ``c`` and ``h`` kept from the previous call.

    Args:
        in_size: input size (``None``, or ``LSTM(out_size)``: learned from the first input).
        out_size: the number of units.
        lateral_init, upward_init: initializers of the ``lateral`` (``h`` to
            gates, no bias) and ``upward`` (``x`` to gates) weights; default ``LeCunNormal``.
        bias_init, forget_bias_init: the gate biases: 0 and, for the forget
            gates, 1 by default (as in Chainer).

    The batch may shrink from one call to the next (sequences of decreasing
    length, sorted longest first): the rows of ``h`` and ``c`` past the new
    batch are kept unchanged. ``reset_state()`` forgets ``c`` and ``h``;
    ``set_state(c, h)`` sets them.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> rnn = L.LSTM(3, 2)
        >>> y1 = rnn(np.ones((4, 3), dtype=np.float32)); y2 = rnn(np.ones((4, 3), dtype=np.float32))
        >>> y2.shape, rnn.c.shape, bool((y1.array != y2.array).any())  # the second step sees the first's state
        ((4, 2), (4, 2), True)
    """

    state_names = ("c", "h")  # the cell state and the output, Variables kept between calls (None: no state yet)
    c: Variable | None
    h: Variable | None

    def __init__(self, in_size: int | None, out_size: int | None = None, lateral_init: Any = None,
                 upward_init: Any = None, bias_init: Any = None, forget_bias_init: Any = None) -> None:
        super().__init__(in_size, out_size, lateral_init, upward_init, bias_init, forget_bias_init)
        self.reset_state()

    def set_state(self, c: Any, h: Any) -> None:
        """Set the cell state and the output, each of shape ``(batch, out_size)``."""
        c, h = self._checked_state("c", c), self._checked_state("h", h)
        if c.shape != h.shape or c.dtype != h.dtype:
            raise ValueError(f"LSTM.set_state: c and h must have one shape and dtype, got {c.shape} {c.dtype} "
                             f"and {h.shape} {h.dtype}")
        self.c, self.h = c, h

    def forward(self, x: Any) -> Variable:
        """One step: ``x`` of shape ``(batch, in_size)`` -> ``h`` of shape ``(batch, out_size)``."""
        gates = self.upward(x)
        batch = gates.shape[0]
        h_rest = None
        if self.h is not None:
            if self.h.shape[0] < batch:
                raise ValueError(f"LSTM: the batch of x ({batch}) must not exceed that of the previous state h "
                                 f"({self.h.shape[0]}); call reset_state() to start new sequences")
            h = self.h
            if h.shape[0] > batch:
                h, h_rest = h[:batch], h[batch:]
            gates = gates + self.lateral(h)
        if self.c is None:
            self.c = Variable(self.xp.zeros((batch, self.state_size), dtype=gates.dtype), requires_grad=False)
        self.c, y = F.lstm(self.c, gates)
        self.h = y if h_rest is None else F.concat((y, h_rest), axis=0)
        return y
