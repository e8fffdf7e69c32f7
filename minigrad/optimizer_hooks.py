"""Chainer's ``chainer.optimizer_hooks`` namespace: the optimizer hooks of :mod:`minigrad.optimizers`.

Example:
    >>> from minigrad import optimizer_hooks, optimizers
    >>> optimizer_hooks.WeightDecay is optimizers.WeightDecay
    True
"""

from minigrad.optimizers.hooks import GradientClipping, GradientHardClipping, WeightDecay  # noqa: F401

__all__ = ["WeightDecay", "GradientClipping", "GradientHardClipping"]
