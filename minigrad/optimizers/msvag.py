"""M-SVAG (Balles & Hennig, 2018): momentum SGD with each element's step scaled by an estimate of its
signal-to-variance ratio.

At step ``t`` with ``b = beta**t``: ``rho = min((1-beta)²(1-b²) / ((1-b)²(1-beta²)), 0.9999)``;
``m``, ``v`` are running means of g and g² (decay ``beta``), ``mt = m/(1-b)``, ``vt = v/(1-b)``,
``s = (vt - mt²)/(1-rho)``, ``factor = clip(mt² / (mt² + rho*s), 0, 1)`` (0 where that is NaN), and
``param -= eta * (lr * mt * factor + weight_decay_rate * param)``.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["MSVAG", "MSVAGRule"]


class MSVAGRule(UpdateRule):
    """State ``m``, ``v``: running means of the gradient and of its square."""

    state_names = ("m", "v")

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        hp, xp = self.hyperparam, get_array_module(data)
        power = hp.beta ** self.t
        rho = min((1 - hp.beta) ** 2 * (1 - power ** 2) / ((1 - power) ** 2 * (1 - hp.beta ** 2)), 0.9999)
        m, v = state["m"], state["v"]
        m += (1 - hp.beta) * (grad - m)
        v += (1 - hp.beta) * (grad * grad - v)
        mt, vt = m / (1 - power), v / (1 - power)
        mt2 = mt * mt
        with numpy.errstate(invalid="ignore", divide="ignore"):  # 0/0 where m = v = 0: the factor is 0 there
            factor = xp.clip(mt2 / (mt2 + rho * (vt - mt2) / (1 - rho)), 0, 1)
        factor = xp.where(xp.isnan(factor), 0, factor)  # (not an in-place mask: a 0-dim clip is a NumPy scalar)
        data -= hp.eta * (hp.lr * mt * factor + hp.weight_decay_rate * data)


class MSVAG(Optimizer):
    """M-SVAG.

    Args:
        lr: learning rate.
        beta: decay of the running means.
        eta: schedule multiplier.
        weight_decay_rate: decoupled weight decay.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.MSVAG(lr=0.1).setup(link)
        >>> link.w.grad = np.array([2.0]); opt.update(); link.w.array  # step 1: rho = 1 - 1e-4 caps, factor 1
        array([0.8])
    """

    rule_class = MSVAGRule
    lr = _HyperparameterProxy("lr")
    beta = _HyperparameterProxy("beta")
    eta = _HyperparameterProxy("eta")
    weight_decay_rate = _HyperparameterProxy("weight_decay_rate")

    def __init__(self, lr: float = 0.1, beta: float = 0.9, eta: float = 1.0, weight_decay_rate: float = 0) -> None:
        super().__init__(lr=lr, beta=beta, eta=eta, weight_decay_rate=weight_decay_rate)
