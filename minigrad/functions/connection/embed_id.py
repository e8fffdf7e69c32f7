"""embed_id: look up rows of an embedding matrix by integer id (a one-hot linear layer without the matmul)."""

from __future__ import annotations

from typing import Any

from minigrad import backend
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, constant, require_integer, require_ndim
from minigrad.variable import Variable

__all__ = ["EmbedIDFunction", "EmbedIDGrad", "embed_id"]


class EmbedIDFunction(FunctionNode):
    """(ids, W) -> W[ids], with rows of ``ignore_label`` ids set to zero; differentiable in W only."""

    def __init__(self, ignore_label: int | None = None) -> None:
        self.ignore_label = ignore_label

    def forward(self, inputs):
        self.retain_inputs((0,))
        ids, W = inputs
        self.n_vocab = W.shape[0]
        if self.ignore_label is None:
            return W[ids],
        xp = backend.get_array_module(ids)
        ignored = ids == self.ignore_label
        y = W[xp.where(ignored, 0, ids)]
        y[ignored] = 0
        return y,

    def backward(self, indexes, grad_outputs):
        ids, = self.get_retained_inputs()
        gW = EmbedIDGrad(ids.array, self.ignore_label, self.n_vocab).apply(grad_outputs)[0]
        return tuple(gW if i == 1 else None for i in indexes)


class EmbedIDGrad(FunctionNode):
    """gy -> gW: scatter-add each output row back to the row of its id (the adjoint of the lookup)."""

    def __init__(self, ids: Any, ignore_label: int | None, n_vocab: int) -> None:
        self.ids = ids
        self.ignore_label = ignore_label
        self.n_vocab = n_vocab

    def forward(self, inputs):
        gy, = inputs
        xp = backend.get_array_module(gy)
        gW = xp.zeros((self.n_vocab, gy.shape[-1]), dtype=gy.dtype)
        ids, rows = self.ids.reshape(-1), gy.reshape(self.ids.size, gy.shape[-1])
        if self.ignore_label is not None:  # ignored rows add zeros to row 0 (a mask would sync a GPU)
            kept = ids != self.ignore_label
            ids, rows = xp.where(kept, ids, 0), xp.where(kept[:, None], rows, rows.dtype.type(0))
        backend.scatter_add(gW, (ids,), rows)
        return gW,

    def backward(self, indexes, grad_outputs):
        ids = constant(self.ids)
        return EmbedIDFunction(self.ignore_label).apply((ids, grad_outputs[0]))[0],


def embed_id(x: Any, W: Any, ignore_label: int | None = None) -> Variable:
    """Embedding lookup: ``y[..., :] = W[x[...], :]``.

    Args:
        x: integer ids of any shape, each in ``[0, W.shape[0])`` or equal to
            ``ignore_label``.
        W: the embedding matrix, ``(n_vocab, n_units)``.
        ignore_label: ids equal to it give zero vectors (and no gradient).

    Returns:
        Output of shape ``x.shape + (n_units,)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> W = np.array([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
        >>> F.embed_id(np.array([2, -1, 1]), W, ignore_label=-1).array
        array([[3., 4.],
               [0., 0.],
               [1., 2.]])
    """
    op = "embed_id"
    x, W = as_input(op, x, "x"), as_input(op, W, "W", float_only=True)
    require_integer(op, x, "x")
    require_ndim(op, W, 2, "W")
    if ignore_label is not None and (isinstance(ignore_label, bool) or not hasattr(ignore_label, "__index__")):
        raise TypeError(f"{op}: ignore_label must be an int or None, got {ignore_label!r}")
    ids, n_vocab = x.array, W.shape[0]
    bad = (ids < 0) | (ids >= n_vocab)
    if ignore_label is not None:
        bad &= ids != ignore_label
    if bool(bad.any()):
        wrong = backend.to_cpu(ids[bad]).reshape(-1)[:5].tolist()
        allowed = f" or ignore_label={ignore_label}" if ignore_label is not None else ""
        raise ValueError(f"{op}: ids in x (shape {x.shape}) must be in [0, {n_vocab}) for W of shape {W.shape}"
                         f"{allowed}; got {wrong}")
    node = EmbedIDFunction(None if ignore_label is None else int(ignore_label))
    return node.apply((x, W))[0]
