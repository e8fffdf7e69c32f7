"""Optimizers (``SGD``, ``MomentumSGD``, ``NesterovAG``, ``AdaGrad``, ``RMSprop``, ``Adam``...) and their hooks.

Example:
    >>> import numpy as np, minigrad as mg, minigrad.functions as F
    >>> link = mg.Link()
    >>> with link.init_scope():
    ...     link.w = mg.Parameter(np.array([3.0]))
    >>> opt = mg.optimizers.SGD(lr=0.25).setup(link)
    >>> opt.update(lambda: F.sum(link.w * link.w))   # clears grads, backward, update
    >>> link.w.array
    array([1.5])
"""

from minigrad.optimizers.ada_delta import AdaDelta  # noqa: F401
from minigrad.optimizers.ada_grad import AdaGrad  # noqa: F401
from minigrad.optimizers.adam import AdaBound, Adam, AdamW, AMSBound, AMSGrad  # noqa: F401
from minigrad.optimizers.corrected_momentum_sgd import CorrectedMomentumSGD  # noqa: F401
from minigrad.optimizers.hooks import (  # noqa: F401
    GradientClipping,
    GradientHardClipping,
    GradientLARS,
    GradientNoise,
    Lasso,
    WeightDecay,
    exponential_decay_noise,
)
from minigrad.optimizers.momentum_sgd import MomentumSGD  # noqa: F401
from minigrad.optimizers.msvag import MSVAG  # noqa: F401
from minigrad.optimizers.nesterov_ag import NesterovAG  # noqa: F401
from minigrad.optimizers.optimizer import Hyperparameter, Optimizer, UpdateRule  # noqa: F401
from minigrad.optimizers.rmsprop import RMSprop  # noqa: F401
from minigrad.optimizers.rmsprop_graves import RMSpropGraves  # noqa: F401
from minigrad.optimizers.sgd import SGD  # noqa: F401
from minigrad.optimizers.smorms3 import SMORMS3  # noqa: F401

__all__ = [
    "Optimizer", "UpdateRule", "Hyperparameter",
    "SGD", "MomentumSGD", "NesterovAG", "AdaGrad", "RMSprop", "Adam", "AdamW", "AMSGrad", "AdaBound", "AMSBound",
    "AdaDelta", "RMSpropGraves", "SMORMS3", "CorrectedMomentumSGD", "MSVAG",
    "WeightDecay", "Lasso", "GradientClipping", "GradientHardClipping", "GradientNoise", "GradientLARS",
    "exponential_decay_noise",
]
