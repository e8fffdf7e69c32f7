"""Alex Graves's RMSprop (2013): ``n = a*n + (1-a)*g²; m = a*m + (1-a)*g;
delta = momentum*delta - lr*g/sqrt(n - m² + eps); param += delta``."""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["RMSpropGraves", "RMSpropGravesRule"]


class RMSpropGravesRule(UpdateRule):
    """State ``n``, ``g``, ``delta``: running means of g² and of g, and the momentum step."""

    state_names = ("n", "g", "delta")

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        hp = self.hyperparam
        n, g, delta = state["n"], state["g"], state["delta"]
        n *= hp.alpha
        n += (1 - hp.alpha) * grad * grad
        g *= hp.alpha
        g += (1 - hp.alpha) * grad
        delta *= hp.momentum
        delta -= hp.lr * grad / get_array_module(data).sqrt(n - g * g + hp.eps)
        data += delta


class RMSpropGraves(Optimizer):
    """RMSprop with the centred second moment and momentum, as in Graves (2013).

    Args:
        lr: learning rate.
        alpha: decay of the running means.
        momentum: decay of the step.
        eps: added inside the square root.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.RMSpropGraves(lr=0.1, alpha=0.5, eps=0.0).setup(link)
        >>> link.w.grad = np.array([1.0]); opt.update(); link.w.array  # 1 - 0.1 / sqrt(0.5 - 0.25)
        array([0.8])
    """

    rule_class = RMSpropGravesRule
    lr = _HyperparameterProxy("lr")
    alpha = _HyperparameterProxy("alpha")
    momentum = _HyperparameterProxy("momentum")
    eps = _HyperparameterProxy("eps")

    def __init__(self, lr: float = 1e-4, alpha: float = 0.95, momentum: float = 0.9, eps: float = 1e-4) -> None:
        super().__init__(lr=lr, alpha=alpha, momentum=momentum, eps=eps)
