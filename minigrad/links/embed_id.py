"""``EmbedID``: a learned lookup table from integer ids to vectors."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import Link
from minigrad.links._utils import given_params, positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["EmbedID"]


class EmbedID(Link):
    """Embedding table ``W`` of shape ``(in_size, out_size)``: id ``i`` maps to ``W[i]``.

    Args:
        in_size: number of ids (vocabulary size).
        out_size: embedding size.
        initialW: initializer of ``W``; default ``Normal(1.0)``.
        ignore_label: an id that maps to a zero vector and gets no gradient.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> embed = L.EmbedID(10, 4)
        >>> embed(np.array([[1, 2, 3]], dtype=np.int32)).shape
        (1, 3, 4)
    """

    ignore_label: int | None = None  # the class default, as in Chainer: a link pickled before it existed loads

    def __init__(self, in_size: int, out_size: int, initialW: Any = None, ignore_label: int | None = None) -> None:
        super().__init__()
        self.in_size = positive_int("EmbedID", "in_size", in_size)
        self.out_size = positive_int("EmbedID", "out_size", out_size)
        self.ignore_label = ignore_label
        with self.init_scope():
            self.W = Parameter(initializers.get_initializer(initialW, initializers.Normal(1.0)),
                               (self.in_size, self.out_size))

    @classmethod
    def from_params(cls, W: Any, ignore_label: int | None = None) -> EmbedID:
        """An EmbedID whose table starts as ``W`` (in_size, out_size) (Chainer's ``from_params``).

        Example:
            >>> import numpy as np, minigrad.links as L
            >>> L.EmbedID.from_params(np.eye(3, dtype=np.float32))(np.array([2])).array
            array([[0., 0., 1.]], dtype=float32)
        """
        W, _ = given_params("EmbedID", W, None, ndim=2)
        return cls(W.shape[0], W.shape[1], initialW=W, ignore_label=ignore_label)

    def forward(self, x: Any) -> Variable:
        """Integer ids of any shape -> ``x.shape + (out_size,)``."""
        return F.embed_id(x, self.W, ignore_label=self.ignore_label)
