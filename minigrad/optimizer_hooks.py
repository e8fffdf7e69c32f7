"""Chainer's ``chainer.optimizer_hooks`` namespace: the optimizer hooks of :mod:`minigrad.optimizers`.

Example:
    >>> from minigrad import optimizer_hooks, optimizers
    >>> optimizer_hooks.WeightDecay is optimizers.WeightDecay
    True
"""

from minigrad.optimizers.hooks import *  # noqa: F401,F403
from minigrad.optimizers.hooks import __all__  # noqa: F401  (the same public names)
