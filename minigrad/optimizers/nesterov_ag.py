"""Nesterov's accelerated gradient, in the form that needs only the gradient at the parameter.

With velocity ``v`` (Bengio, Boulanger-Lewandowski & Pascanu, 2013, eq. 7):
``v_new = momentum * v - lr * grad``; ``param += momentum * v_new - lr * grad``.
The parameter then follows the "look-ahead" point of Sutskever et al. (2013).
"""

from __future__ import annotations

from typing import Any

from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["NesterovAG", "NesterovAGRule"]


class NesterovAGRule(UpdateRule):
    """State ``v``: the velocity."""

    state_names = ("v",)

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        lr, momentum = self.hyperparam.lr, self.hyperparam.momentum
        v = state["v"]
        v *= momentum
        v -= lr * grad
        data += momentum * v - lr * grad


class NesterovAG(Optimizer):
    """Nesterov's accelerated gradient.

    Args:
        lr: learning rate.
        momentum: decay of the velocity.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.NesterovAG(lr=0.1, momentum=0.5).setup(link)
        >>> link.w.grad = np.array([1.0]); opt.update(); link.w.array  # 1 + 0.5 * -0.1 - 0.1
        array([0.85])
    """

    rule_class = NesterovAGRule
    lr = _HyperparameterProxy("lr")
    momentum = _HyperparameterProxy("momentum")

    def __init__(self, lr: float = 0.01, momentum: float = 0.9) -> None:
        super().__init__()
        self.lr = lr
        self.momentum = momentum
