"""``CRF1d``: a linear-chain conditional random field layer holding the transition scores ``cost``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["CRF1d"]


class CRF1d(Link):
    """The loss ``F.crf1d`` and the decoder ``F.argmax_crf1d`` with a learned ``cost`` of shape ``(n_label, n_label)``.

    Args:
        n_label: the number of labels.
        initial_cost: initializer of ``cost``; default zeros.

    With ``transpose=True`` the methods take the sequences themselves (a list
    of ``(L_i, n_label)`` arrays in any order, and their label arrays) and sort
    and transpose them as Chainer does; per-sequence results then come back
    in the order given (Chainer returns the loss and scores in the sorted order).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> crf = L.CRF1d(2)
        >>> xs = [np.array([[1, 0], [0, 2]], np.float32), np.array([[0, 1]], np.float32)]  # two sequences
        >>> ys = [np.array([0, 1]), np.array([1])]
        >>> loss = crf(xs, ys, transpose=True)
        >>> score, path = crf.argmax(xs, transpose=True)
        >>> [p.tolist() for p in path]
        [[0, 1], [1]]
    """

    def __init__(self, n_label: int, initial_cost: Any = None) -> None:
        super().__init__()
        n_label = positive_int("CRF1d", "n_label", n_label)
        with self.init_scope():
            self.cost = Parameter(initializers.get_initializer(initial_cost, initializers.Zero()), (n_label, n_label))

    def forward(self, xs: Sequence[Any], ys: Sequence[Any], reduce: str = "mean", transpose: bool = False) -> Variable:
        """``F.crf1d(cost, xs, ys, reduce)``; with ``transpose``, ``xs`` and ``ys`` are the sequences."""
        if not transpose:
            return F.crf1d(self.cost, xs, ys, reduce)
        order = _longest_first(xs)
        loss = F.crf1d(self.cost, F.transpose_sequence([xs[i] for i in order]),
                       F.transpose_sequence([ys[i] for i in order]), reduce)
        return loss if reduce == "mean" else F.get_item(loss, numpy.argsort(order))

    def argmax(self, xs: Sequence[Any], transpose: bool = False) -> tuple[Variable, list[Any]]:
        """``F.argmax_crf1d(cost, xs)``; with ``transpose``, ``xs`` are the sequences and so is the path."""
        if not transpose:
            return F.argmax_crf1d(self.cost, xs)
        order = _longest_first(xs)
        score, path = F.argmax_crf1d(self.cost, F.transpose_sequence([xs[i] for i in order]))
        sequences = F.transpose_sequence(path)
        inverse = numpy.argsort(order)
        return F.get_item(score, inverse), [sequences[i].array for i in inverse]


def _longest_first(xs: Sequence[Any]) -> Any:
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError("CRF1d: with transpose=True, xs must be a non-empty list of sequences")
    return numpy.argsort([-len(x) for x in xs], kind="stable")
