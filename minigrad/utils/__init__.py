"""Utilities with Chainer's public names (``chainer.utils``): ``WalkerAlias``, the sampler of the word2vec losses,
``force_array``, ``size_of_shape``, the COO sparse matrices of ``F.sparse_matmul`` (``CooMatrix``, ``to_coo``,
``get_order``), and in submodules the im2col helpers (``utils.conv``, ``utils.conv_nd``)."""

import collections.abc as collections_abc  # noqa: F401  (Chainer's name for it: code that reads utils.collections_abc)

from minigrad.utils import argument  # noqa: F401  (Chainer's utils.argument)
from minigrad.utils.array import force_array, size_of_shape  # noqa: F401
from minigrad.utils.sparse import CooMatrix, get_order, to_coo  # noqa: F401
from minigrad.utils.walker_alias import WalkerAlias  # noqa: F401

__all__ = ["WalkerAlias", "force_array", "size_of_shape", "CooMatrix", "to_coo", "get_order"]
