"""``ChildSumTreeLSTM`` and ``NaryTreeLSTM``: TreeLSTM units that merge the states of a node's children
(Tai et al. 2015; Bowman et al. 2016's per-child forget gates; Chainer's links, around ``F.tree_lstm``).

Neither keeps state: each call takes the children's cells and outputs and the
node's input, and returns the node's ``(c, h)``. A child given as ``None`` has
zero state, and an input ``x`` given as ``None`` is zero.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.link import Chain
from minigrad.links._utils import positive_int
from minigrad.links.linear import Linear
from minigrad.variable import Variable

__all__ = ["ChildSumTreeLSTM", "NaryTreeLSTM"]


def _split_states(where: str, cshsx: tuple[Any, ...], n_ary: int | None) -> tuple[tuple, tuple, Any]:
    """``(c1 .. cN, h1 .. hN, x)`` as its three parts, after checking the count."""
    if len(cshsx) % 2 != 1 or (n_ary is not None and len(cshsx) != 2 * n_ary + 1):
        wanted = f"{2 * n_ary + 1} arguments (n_ary cells, n_ary outputs, x)" if n_ary is not None else \
            "an odd number of arguments (the cells, as many outputs, x)"
        raise TypeError(f"{where}: takes {wanted}, got {len(cshsx)}")
    n = len(cshsx) // 2
    return cshsx[:n], cshsx[n:-1], cshsx[-1]


class _TreeLSTMBase(Chain):
    layer_name = ""

    def _input(self, x: Any, cs: tuple[Any, ...], hs: tuple[Any, ...]) -> Any:
        """``x``, or zeros of ``(batch, in_size)`` when it is ``None`` (batch and dtype from a child)."""
        if x is not None:
            return x
        given = [v for v in cs + hs if v is not None]
        if not given:
            raise ValueError(f"{self.layer_name}: all inputs (cells, outputs and x) are None")
        if self.in_size is None:
            raise ValueError(f"{self.layer_name}: x is None and in_size was not given, so its zeros have no size")
        return self.xp.zeros((given[0].shape[0], self.in_size), dtype=given[0].dtype)

    def _zeros_for_none(self, vs: tuple[Any, ...], x: Any) -> tuple[Any, ...]:
        zero = None
        if any(v is None for v in vs):
            zero = self.xp.zeros((x.shape[0], self.state_size), dtype=x.dtype)
        return tuple(zero if v is None else v for v in vs)


class ChildSumTreeLSTM(_TreeLSTMBase):
    """Child-Sum TreeLSTM: any number of children, whose order does not matter.

    ``a, i, o`` come from ``W_x(x) + W_h_aio(h1 + ... + hN)``; child ``k``'s forget gate from
    ``W_x(x)``'s last block ``+ W_h_f(hk)``. Called as ``link(c1, ..., cN, h1, ..., hN, x)``; with no
    children, ``link(x)`` gives ``c = sigmoid(i) tanh(a)``.

    Args:
        in_size: the size of ``x`` (``None``: learned from the first ``x``).
        out_size: the size of the states ``c`` and ``h``.

    Attributes:
        W_x: ``Linear(in_size, 4 * out_size)``. W_h_aio: ``Linear(out_size, 3 * out_size, nobias=True)``.
        W_h_f: ``Linear(out_size, out_size, nobias=True)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> cell = L.ChildSumTreeLSTM(3, 2)
        >>> leaf = cell(np.ones((1, 3), np.float32))
        >>> c, h = cell(leaf[0], leaf[0], leaf[1], leaf[1], np.ones((1, 3), np.float32))  # two children
        >>> c.shape, h.shape
        ((1, 2), (1, 2))
    """

    layer_name = "ChildSumTreeLSTM"

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        self.in_size = positive_int(self.layer_name, "in_size", in_size, allow_none=True)
        self.state_size = positive_int(self.layer_name, "out_size", out_size)
        with self.init_scope():
            self.W_x = Linear(self.in_size, 4 * self.state_size)
            self.W_h_aio = Linear(self.state_size, 3 * self.state_size, nobias=True)
            self.W_h_f = Linear(self.state_size, self.state_size, nobias=True)

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """``(c, h)`` of the node from its children's ``c1 .. cN``, ``h1 .. hN`` and its input ``x``."""
        cs, hs, x = _split_states(self.layer_name, cshsx, None)
        x = self._input(x, cs, hs)
        aio_x, f_x = F.split_axis(self.W_x(x), [3 * self.state_size], axis=1)
        if not hs:
            a, i, o = F.split_axis(aio_x, 3, axis=1)
            c = F.sigmoid(i) * F.tanh(a)
            return c, F.sigmoid(o) * F.tanh(c)
        hs, cs = self._zeros_for_none(hs, x), self._zeros_for_none(cs, x)
        aio = self.W_h_aio(sum(hs[1:], hs[0])) + aio_x
        forget = [self.W_h_f(h) + f_x for h in hs]
        return F.tree_lstm(*cs, F.concat([aio] + forget, axis=1))


class NaryTreeLSTM(_TreeLSTMBase):
    """N-ary TreeLSTM: exactly ``n_ary`` children, each with its own weights, so their order matters.

    The ``3 + n_ary`` gate blocks are ``W_x(x) + W_h1(h1) + ... + W_hN(hN)``. Called as
    ``link(c1, ..., cN, h1, ..., hN, x)``.

    Args:
        in_size: the size of ``x`` (``None``: learned from the first ``x``).
        out_size: the size of the states.
        n_ary: the number of children, at least 1.

    Attributes:
        W_x: ``Linear(in_size, (3 + n_ary) * out_size)``.
        W_h1, ..., W_hN: one per child, ``Linear(out_size, (3 + n_ary) * out_size, nobias=True)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> cell = L.NaryTreeLSTM(3, 2, n_ary=2)
        >>> c, h = cell(None, None, None, None, np.ones((4, 3), np.float32))   # a leaf: no children's state
        >>> c.shape, len(list(cell.params()))
        ((4, 2), 4)
    """

    layer_name = "NaryTreeLSTM"

    def __init__(self, in_size: int | None, out_size: int, n_ary: int = 2) -> None:
        super().__init__()
        self.in_size = positive_int(self.layer_name, "in_size", in_size, allow_none=True)
        self.state_size = positive_int(self.layer_name, "out_size", out_size)
        self.n_ary = positive_int(self.layer_name, "n_ary", n_ary)
        width = (3 + self.n_ary) * self.state_size
        with self.init_scope():
            self.W_x = Linear(self.in_size, width)
            for k in range(1, self.n_ary + 1):
                setattr(self, f"W_h{k}", Linear(self.state_size, width, nobias=True))

    def forward(self, *cshsx: Any) -> tuple[Variable, Variable]:
        """``(c, h)`` of the node from its children's ``c1 .. cN``, ``h1 .. hN`` and its input ``x``."""
        cs, hs, x = _split_states(self.layer_name, cshsx, self.n_ary)
        x = self._input(x, cs, hs)
        gates = self.W_x(x)
        for k, h in enumerate(hs, start=1):
            if h is not None:
                gates = gates + getattr(self, f"W_h{k}")(h)
        return F.tree_lstm(*self._zeros_for_none(cs, x), gates)
