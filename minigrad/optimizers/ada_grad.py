"""AdaGrad (Duchi, Hazan & Singer, 2011): ``h += grad**2; param -= lr * grad / (sqrt(h) + eps)``."""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["AdaGrad", "AdaGradRule"]


class AdaGradRule(UpdateRule):
    """State ``h``: the running sum of squared gradients."""

    state_names = ("h",)

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        h = state["h"]
        h += grad * grad
        data -= self.hyperparam.lr * grad / (get_array_module(h).sqrt(h) + self.hyperparam.eps)


class AdaGrad(Optimizer):
    """AdaGrad.

    Args:
        lr: learning rate.
        eps: added to the denominator for stability.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.AdaGrad(lr=0.1, eps=0.0).setup(link)
        >>> link.w.grad = np.array([4.0]); opt.update(); link.w.array
        array([0.9])
    """

    rule_class = AdaGradRule
    lr = _HyperparameterProxy("lr")
    eps = _HyperparameterProxy("eps")

    def __init__(self, lr: float = 0.001, eps: float = 1e-8) -> None:
        super().__init__(lr=lr, eps=eps)
