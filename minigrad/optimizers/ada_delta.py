"""AdaDelta (Zeiler, 2012): ``msg = rho*msg + (1-rho)*g²; dx = sqrt((msdx+eps)/(msg+eps))*g;
msdx = rho*msdx + (1-rho)*dx²; param -= dx``."""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["AdaDelta", "AdaDeltaRule"]


class AdaDeltaRule(UpdateRule):
    """State ``msg``, ``msdx``: running means of the squared gradients and of the squared steps."""

    state_names = ("msg", "msdx")

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        rho, eps = self.hyperparam.rho, self.hyperparam.eps
        msg, msdx = state["msg"], state["msdx"]
        msg *= rho
        msg += (1 - rho) * grad * grad
        dx = get_array_module(data).sqrt((msdx + eps) / (msg + eps)) * grad
        msdx *= rho
        msdx += (1 - rho) * dx * dx
        data -= dx


class AdaDelta(Optimizer):
    """AdaDelta: no learning rate; the step is scaled by the ratio of running RMS of steps and gradients.

    Args:
        rho: decay of the running means.
        eps: added inside both square roots.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.AdaDelta(rho=0.5, eps=0.25).setup(link)
        >>> link.w.grad = np.array([1.0]); opt.update(); link.w.array  # 1 - sqrt(0.25 / 0.75)
        array([0.42264973])
    """

    rule_class = AdaDeltaRule
    rho = _HyperparameterProxy("rho")
    eps = _HyperparameterProxy("eps")

    def __init__(self, rho: float = 0.95, eps: float = 1e-6) -> None:
        super().__init__(rho=rho, eps=eps)
