"""Nesterov's accelerated gradient, in the form that needs only the gradient at the parameter.

With velocity ``v`` (Bengio, Boulanger-Lewandowski & Pascanu, 2013, eq. 7):
``v_new = momentum * v - lr * grad``; ``param += momentum * v_new - lr * grad``.
The parameter then follows the "look-ahead" point of Sutskever et al. (2013).
"""

from __future__ import annotations

from typing import Any

from minigrad.optimizers.momentum_sgd import MomentumSGDRule, _MomentumOptimizer

__all__ = ["NesterovAG", "NesterovAGRule"]


class NesterovAGRule(MomentumSGDRule):
    """State ``v``: the velocity, updated as in momentum SGD; the parameter moves to the look-ahead point."""

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        v = self.update_velocity(grad, state["v"])
        data += self.hyperparam.momentum * v - self.hyperparam.lr * grad


class NesterovAG(_MomentumOptimizer):
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
