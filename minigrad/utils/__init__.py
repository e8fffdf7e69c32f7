"""Utilities with Chainer's public names (``chainer.utils``): ``WalkerAlias``, the sampler of the word2vec
losses, and ``force_array``."""

from minigrad.utils.array import force_array  # noqa: F401
from minigrad.utils.walker_alias import WalkerAlias  # noqa: F401

__all__ = ["WalkerAlias", "force_array"]
