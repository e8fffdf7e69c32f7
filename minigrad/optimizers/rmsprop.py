"""RMSprop (Tieleman & Hinton, 2012): a leaky average of squared gradients scales each step."""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["RMSprop", "RMSpropRule"]


class RMSpropRule(UpdateRule):
    """State ``ms``: the running mean of squared gradients."""

    state_names = ("ms",)

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        hp = self.hyperparam
        ms = state["ms"]
        ms *= hp.alpha
        ms += (1 - hp.alpha) * grad * grad
        xp = get_array_module(ms)
        denom = xp.sqrt(ms + hp.eps) if hp.eps_inside_sqrt else xp.sqrt(ms) + hp.eps
        data -= hp.lr * grad / denom


class RMSprop(Optimizer):
    """RMSprop: ``ms = alpha * ms + (1 - alpha) * grad**2``; ``param -= lr * grad / (sqrt(ms) + eps)``.

    Args:
        lr: learning rate.
        alpha: decay of the running mean.
        eps: added to the denominator (inside the square root when ``eps_inside_sqrt``).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.RMSprop(lr=0.1, alpha=0.75, eps=0.0).setup(link)
        >>> link.w.grad = np.array([2.0]); opt.update(); link.w.array  # ms = 1, step 0.1 * 2 / 1
        array([0.8])
    """

    rule_class = RMSpropRule
    lr = _HyperparameterProxy("lr")
    alpha = _HyperparameterProxy("alpha")
    eps = _HyperparameterProxy("eps")
    eps_inside_sqrt = _HyperparameterProxy("eps_inside_sqrt")

    def __init__(self, lr: float = 0.01, alpha: float = 0.99, eps: float = 1e-8, eps_inside_sqrt: bool = False) -> None:
        super().__init__(lr=lr, alpha=alpha, eps=eps, eps_inside_sqrt=eps_inside_sqrt)
