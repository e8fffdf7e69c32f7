"""Momentum SGD (heavy ball): ``v = momentum * v - lr * grad; param += v``."""

from __future__ import annotations

from typing import Any

from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["MomentumSGD", "MomentumSGDRule"]


class MomentumSGDRule(UpdateRule):
    """State ``v``: the velocity."""

    state_names = ("v",)

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        data += self.update_velocity(grad, state["v"])

    def update_velocity(self, grad: Any, v: Any) -> Any:
        """``v = momentum * v - lr * grad`` in place (NesterovAG's rule takes the same velocity step)."""
        v *= self.hyperparam.momentum
        v -= self.hyperparam.lr * grad
        return v


class _MomentumOptimizer(Optimizer):
    """The hyperparameters ``lr`` and ``momentum``, shared by ``MomentumSGD`` and ``NesterovAG``."""

    lr = _HyperparameterProxy("lr")
    momentum = _HyperparameterProxy("momentum")

    def __init__(self, lr: float = 0.01, momentum: float = 0.9) -> None:
        super().__init__(lr=lr, momentum=momentum)


class MomentumSGD(_MomentumOptimizer):
    """SGD with classical momentum.

    Args:
        lr: learning rate.
        momentum: decay of the velocity.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.MomentumSGD(lr=0.1, momentum=0.5).setup(link)
        >>> for _ in range(2):
        ...     link.w.grad = np.array([1.0]); opt.update()
        >>> link.w.array   # 1 - 0.1 - (0.05 + 0.1)
        array([0.75])
    """

    rule_class = MomentumSGDRule
