"""Chainer's ``chainer.optimizer_hooks`` namespace: the optimizer hooks of :mod:`minigrad.optimizers`.

Example:
    >>> from minigrad import optimizer_hooks, optimizers
    >>> optimizer_hooks.WeightDecay is optimizers.WeightDecay
    True
"""

from minigrad.optimizers.hooks import (  # noqa: F401
    GradientClipping,
    GradientHardClipping,
    GradientLARS,
    GradientNoise,
    Lasso,
    WeightDecay,
    exponential_decay_noise,
)

__all__ = ["WeightDecay", "Lasso", "GradientClipping", "GradientHardClipping", "GradientNoise", "GradientLARS",
           "exponential_decay_noise"]
