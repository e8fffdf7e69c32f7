"""SMORMS3 (Simon Funk, 2015): RMSprop with a per-element memory length that adapts to the gradient's noise.

``r = 1/(mem+1); g = (1-r)*g + r*grad; g2 = (1-r)*g2 + r*grad²; x = g²/(g2+eps);
param -= grad * min(x, lr) / (sqrt(g2) + eps); mem = 1 + mem*(1-x)``, ``mem`` starting at 1.
"""

from __future__ import annotations

from typing import Any

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["SMORMS3", "SMORMS3Rule"]


class SMORMS3Rule(UpdateRule):
    """State ``mem`` (starts at 1), ``g``, ``g2``."""

    state_names = ("mem", "g", "g2")

    def init_state(self, param: Any) -> None:
        super().init_state(param)
        self.state["mem"][...] = 1

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        hp, xp = self.hyperparam, get_array_module(data)
        mem, g, g2 = state["mem"], state["g"], state["g2"]
        r = 1 / (mem + 1)
        g[...] = (1 - r) * g + r * grad
        g2[...] = (1 - r) * g2 + r * grad * grad
        x = g * g / (g2 + hp.eps)
        data -= grad * xp.minimum(x, hp.lr) / (xp.sqrt(g2) + hp.eps)
        mem[...] = 1 + mem * (1 - x)


class SMORMS3(Optimizer):
    """SMORMS3.

    Args:
        lr: the largest step size.
        eps: added to the denominators.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.SMORMS3(lr=0.1).setup(link)
        >>> link.w.grad = np.array([2.0]); opt.update(); link.w.array  # g = 1, g2 = 2, x = 0.5: 1 - 2 * 0.1 / sqrt(2)
        array([0.85857864])
    """

    rule_class = SMORMS3Rule
    lr = _HyperparameterProxy("lr")
    eps = _HyperparameterProxy("eps")

    def __init__(self, lr: float = 0.001, eps: float = 1e-16) -> None:
        super().__init__(lr=lr, eps=eps)
