"""Stochastic gradient descent: ``param -= lr * grad``."""

from __future__ import annotations

from typing import Any

from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["SGD", "SGDRule"]


class SGDRule(UpdateRule):
    """``data -= lr * grad``."""

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        data -= self.hyperparam.lr * grad


class SGD(Optimizer):
    """Vanilla stochastic gradient descent.

    Args:
        lr: learning rate.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.SGD(lr=0.1).setup(link)
        >>> link.w.grad = np.array([2.0]); opt.update(); link.w.array
        array([0.8])
    """

    rule_class = SGDRule
    lr = _HyperparameterProxy("lr")

    def __init__(self, lr: float = 0.01) -> None:
        super().__init__(lr=lr)
