"""``BinaryHierarchicalSoftmax``: a softmax over a vocabulary as a product of binary decisions along a tree."""

from __future__ import annotations

import heapq
from typing import Any

import numpy

import minigrad.functions as F
from minigrad import backend, initializers
from minigrad.dtypes import get_dtype
from minigrad.functions.checks import (
    as_input,
    constant,
    in_dtype,
    promoted_dtype,
    require_integer,
    require_ndim,
)
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["BinaryHierarchicalSoftmax"]

_NAME = "BinaryHierarchicalSoftmax"


class _TreePaths:
    """Each leaf's path from the root: the internal nodes it passes (numbered in pre-order) and the direction
    taken at each (+1 left, -1 right), all leaves' concatenated in label order (``begins[t]:begins[t + 1]``)."""

    def __init__(self, tree: Any, dtype: numpy.dtype) -> None:
        paths: dict[int, list[int]] = {}
        codes: dict[int, list[float]] = {}
        self.parser_size = 0  # the number of internal nodes: the rows of W
        stack = [(tree, [], [])]  # a loop, not recursion: a Huffman tree of a skewed vocabulary is deep
        while stack:
            node, path, code = stack.pop()
            if isinstance(node, tuple):
                if len(node) != 2:
                    raise ValueError(f"{_NAME}: every internal node of the tree must be a pair, got {node!r}")
                index, self.parser_size = self.parser_size, self.parser_size + 1
                stack.append((node[1], path + [index], code + [-1.0]))
                stack.append((node[0], path + [index], code + [1.0]))
            elif isinstance(node, bool) or not isinstance(node, (int, numpy.integer)) or node < 0:
                raise TypeError(f"{_NAME}: the leaves of the tree must be non-negative ints (word ids), got "
                                f"{node!r}")
            elif int(node) in paths:
                raise ValueError(f"{_NAME}: the word id {node} is a leaf of the tree twice")
            else:
                paths[int(node)], codes[int(node)] = path, code
        self.leaves = numpy.array(sorted(paths), dtype=numpy.int64)
        n_vocab = int(self.leaves[-1]) + 1
        lengths = numpy.array([len(paths.get(i, ())) for i in range(n_vocab)], dtype=numpy.int64)
        self.begins = numpy.concatenate(([0], numpy.cumsum(lengths))).astype(numpy.int32)
        self.paths = numpy.array([n for i in range(n_vocab) for n in paths.get(i, ())], dtype=numpy.int32)
        self.codes = numpy.array([c for i in range(n_vocab) for c in codes.get(i, ())], dtype=dtype)
        self.is_leaf = numpy.zeros(n_vocab, dtype=bool)
        self.is_leaf[self.leaves] = True

    def padded(self, t: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]:
        """The paths of the words ``t`` as rows padded to the longest: (nodes (-1 past the end), codes, mask)."""
        lengths = self.begins[t + 1] - self.begins[t]
        steps = numpy.arange(max(int(lengths.max(initial=0)), 1))
        inside = steps < lengths[:, None]
        where = numpy.minimum(self.begins[t][:, None] + steps, max(len(self.paths) - 1, 0))
        nodes = numpy.where(inside, self.paths[where] if len(self.paths) else 0, -1)
        codes = numpy.where(inside, self.codes[where] if len(self.codes) else 0, 0).astype(self.codes.dtype)
        return nodes.astype(numpy.int32), codes, inside.astype(self.codes.dtype)


class BinaryHierarchicalSoftmax(Link):
    """Hierarchical softmax over a binary tree whose leaves are the word ids: the loss of word ``t`` is
    ``-log P(t | x)`` with ``P(t | x) = prod_i sigmoid(b_i * dot(W[e_i], x))`` along its path (internal nodes
    ``e_i``, ``b_i = +1`` to the left, ``-1`` to the right), summed over the batch. A word costs
    ``O(depth)`` instead of a softmax's ``O(vocabulary)``.

    Args:
        in_size: the size of the input vectors.
        tree: nested pairs with word ids at the leaves, e.g. ``((0, 1), 2)``
            (:meth:`create_huffman_tree` makes one from word counts).
        dtype: of ``W`` (default ``config.dtype``).

    Attributes:
        W: one row per internal node of the tree, drawn from ``Uniform(1)`` (as in Chainer).

    Words are checked: a label that is not a leaf of the tree is a ``ValueError`` (Chainer's loss is 0 for
    an id missing from the tree). ``x`` may have another float dtype than ``W``: the loss is computed in the
    promoted one and has ``x``'s (Chainer refuses the mix).

    See: Morin and Bengio, Hierarchical Probabilistic Neural Network Language Model, AISTATS 2005.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hsm = L.BinaryHierarchicalSoftmax(3, ((0, 1), 2))
        >>> hsm.W.shape
        (2, 3)
        >>> x = np.ones((1, 3), np.float32)
        >>> total = sum(np.exp(-hsm(x, np.array([word])).array) for word in range(3))
        >>> round(float(total), 5)  # the three probabilities add up to one
        1.0
    """

    def __init__(self, in_size: int, tree: Any, dtype: Any = None) -> None:
        super().__init__()
        dtype = get_dtype(dtype)
        if dtype.kind != "f":
            raise TypeError(f"{_NAME}: dtype must be a floating-point dtype, got {dtype}")
        self.in_size = positive_int(_NAME, "in_size", in_size)
        self._func = _TreePaths(tree, dtype)  # (Chainer's attribute name: its tests read the paths there)
        with self.init_scope():
            self.W = Parameter(initializers.Uniform(1))
            self.W.initialize((self._func.parser_size, self.in_size), dtype=dtype)

    @staticmethod
    def create_huffman_tree(word_counts: dict[Any, float]) -> Any:
        """A binary Huffman tree (nested pairs) of the words in ``word_counts`` (word -> count).

        The two least frequent subtrees are joined first (ties broken by the order of the words in the dict),
        so frequent words get short paths.

        Example:
            >>> import minigrad.links as L
            >>> L.BinaryHierarchicalSoftmax.create_huffman_tree({0: 8, 1: 5, 2: 6, 3: 4})
            ((3, 1), (2, 0))
        """
        if not word_counts:
            raise ValueError(f"{_NAME}.create_huffman_tree: the vocabulary is empty")
        heap = [(count, order, word) for order, (word, count) in enumerate(word_counts.items())]
        heapq.heapify(heap)
        while len(heap) > 1:
            count1, order1, first = heapq.heappop(heap)
            count2, order2, second = heapq.heappop(heap)
            heapq.heappush(heap, (count1 + count2, min(order1, order2), (first, second)))
        return heap[0][2]

    def forward(self, x: Any, t: Any) -> Variable:
        """The summed loss (a scalar) of the words ``t`` (batch,) given the vectors ``x`` (batch, in_size)."""
        x, t = as_input(_NAME, x, "x", float_only=True), as_input(_NAME, t, "t")
        require_integer(_NAME, t, "t")
        require_ndim(_NAME, x, 2, "x")
        require_ndim(_NAME, t, 1, "t")
        if x.shape != (t.shape[0], self.in_size):
            raise ValueError(f"{_NAME}: x must have shape (len(t), in_size) = ({t.shape[0]}, {self.in_size}), "
                             f"got {x.shape}")
        words = backend.to_cpu(t.array).astype(numpy.int64)
        tree = self._func
        unknown = (words < 0) | (words >= len(tree.is_leaf))
        unknown[~unknown] = ~tree.is_leaf[words[~unknown]]
        if unknown.any():
            raise ValueError(f"{_NAME}: t holds word ids that are not leaves of the tree: "
                             f"{words[unknown][:5].tolist()} (the leaves are {tree.leaves[:10].tolist()}...)")
        dtype = promoted_dtype(x, self.W)  # (x may have another float dtype than W: the result has x's)
        nodes, codes, mask = (x.xp.asarray(a) for a in tree.padded(words))
        rows = F.embed_id(nodes, in_dtype(self.W, dtype), ignore_label=-1)  # (batch, depth, in_size), 0 past the end
        scores = F.sum(rows * F.expand_dims(in_dtype(x, dtype), 1), axis=2) * constant(codes.astype(dtype))
        loss = F.sum(F.softplus(-scores) * constant(mask.astype(dtype)))  # -log sigmoid(s) = softplus(-s)
        return in_dtype(loss, x.dtype)
