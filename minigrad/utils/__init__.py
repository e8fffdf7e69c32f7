"""Utilities with Chainer's public names (``chainer.utils``): ``WalkerAlias``, the sampler of the word2vec losses."""

from minigrad.utils.walker_alias import WalkerAlias  # noqa: F401

__all__ = ["WalkerAlias"]
