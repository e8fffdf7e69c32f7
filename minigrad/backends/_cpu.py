"""Chainer's private module name for the host device: the same as :mod:`minigrad.backends.cpu`."""

from minigrad.backends.cpu import CpuDevice  # noqa: F401
