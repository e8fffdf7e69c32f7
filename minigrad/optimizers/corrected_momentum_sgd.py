"""Momentum SGD with the learning rate applied after the momentum (Goyal et al., 2017):
``v = momentum * v - grad; param += lr * v``, so a change of ``lr`` takes effect at once."""

from __future__ import annotations

from typing import Any

from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["CorrectedMomentumSGD", "CorrectedMomentumSGDRule"]


class CorrectedMomentumSGDRule(UpdateRule):
    """State ``v``: the velocity, in units of the gradient."""

    state_names = ("v",)

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        v = state["v"]
        v *= self.hyperparam.momentum
        v -= grad
        data += self.hyperparam.lr * v


class CorrectedMomentumSGD(Optimizer):
    """Momentum SGD whose velocity does not carry the learning rate.

    Args:
        lr: learning rate.
        momentum: decay of the velocity.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.5).setup(link)
        >>> for _ in range(2):
        ...     link.w.grad = np.array([1.0]); opt.update()
        >>> link.w.array   # 1 - 0.1 * (1 + 1.5)
        array([0.75])
    """

    rule_class = CorrectedMomentumSGDRule
    lr = _HyperparameterProxy("lr")
    momentum = _HyperparameterProxy("momentum")

    def __init__(self, lr: float = 0.01, momentum: float = 0.9) -> None:
        super().__init__(lr=lr, momentum=momentum)
