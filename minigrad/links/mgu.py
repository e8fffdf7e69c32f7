"""Minimal gated units: ``StatelessMGU`` (the state is an argument) and ``StatefulMGU`` (kept between calls)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.link import Chain
from minigrad.links._utils import RecurrentState, positive_int, require_input
from minigrad.links.linear import Linear
from minigrad.variable import Variable, as_variable

__all__ = ["StatelessMGU", "StatefulMGU"]


class _MGUBase(Chain):
    """The two Linear children of an MGU, each from ``concat(state, input)``: ``W_f`` (the forget gate) and
    ``W_h`` (the candidate state)."""

    def __init__(self, n_inputs: int, n_units: int) -> None:
        super().__init__()
        where = type(self).__name__
        n_inputs, n_units = positive_int(where, "in_size", n_inputs), positive_int(where, "out_size", n_units)
        self.state_size = n_units
        with self.init_scope():
            self.W_f = Linear(n_inputs + n_units, n_units)
            self.W_h = Linear(n_inputs + n_units, n_units)

    def _step(self, h: Variable, x: Any) -> Variable:
        """``h_new = f * h_bar + (1 - f) * h``."""
        f = F.sigmoid(self.W_f(F.concat((h, x))))
        h_bar = F.tanh(self.W_h(F.concat((f * h, x))))
        return F.linear_interpolate(f, h_bar, h)


class StatelessMGU(_MGUBase):
    """A minimal-gated-unit step ``mgu(h, x)`` -> the new state (one gate, ``f``)::

        f = sigmoid(W_f [h, x]);  h_bar = tanh(W_h [f * h, x]);  h_new = f * h_bar + (1 - f) * h

    Args:
        n_inputs: input size.
        n_units: the state size.

    See: Zhou et al., `Minimal Gated Unit for Recurrent Neural Networks <https://arxiv.org/abs/1603.09420>`_.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> mgu = L.StatelessMGU(3, 2)
        >>> mgu(np.zeros((4, 2), dtype=np.float32), np.ones((4, 3), dtype=np.float32)).shape
        (4, 2)
    """

    def forward(self, h: Any, x: Any) -> Variable:
        """``h`` of shape ``(batch, n_units)``, ``x`` of shape ``(batch, n_inputs)``."""
        return self._step(as_variable(h), x)


class StatefulMGU(RecurrentState, _MGUBase):
    """A minimal gated unit that keeps its state ``h`` between calls: ``mgu(x)`` -> the new ``h``.

    The first call after ``reset_state()`` starts from ``h = 0`` in the
    input's dtype (Chainer's ``config.dtype`` only works for inputs of that
    dtype); ``set_state(h)`` sets one. See :class:`StatelessMGU` for the step.

    Args:
        in_size: input size.
        out_size: the state size.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> mgu = L.StatefulMGU(3, 2)
        >>> h1 = mgu(np.ones((1, 3), dtype=np.float32)); h2 = mgu(np.ones((1, 3), dtype=np.float32))
        >>> mgu.h is h2, bool((h1.array != h2.array).any())
        (True, True)
    """

    state_names = ("h",)
    h: Variable | None

    def __init__(self, in_size: int, out_size: int) -> None:
        super().__init__(in_size, out_size)
        self.reset_state()

    def set_state(self, h: Any) -> None:
        """Set the state, of shape ``(batch, out_size)``."""
        self.h = self._checked_state("h", h)

    def forward(self, x: Any) -> Variable:
        """One step: ``x`` of shape ``(batch, in_size)`` -> ``h`` of shape ``(batch, out_size)``."""
        require_input("StatefulMGU", x, 2)
        self._check_state_batch(x.shape[0])
        h = self.h
        if h is None:
            h = Variable(self.xp.zeros((x.shape[0], self.state_size), x.dtype), requires_grad=False)
        self.h = self._step(h, x)
        return self.h
