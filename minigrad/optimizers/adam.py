"""Adam (Kingma & Ba, 2015) with AMSGrad (Reddi et al., 2018), AdaBound (Luo et al., 2019) and decoupled
weight decay (AdamW).

Per parameter, at step ``t``::

    m = beta1 * m + (1 - beta1) * grad
    v = beta2 * v + (1 - beta2) * grad**2
    vhat = max(vhat, v)                      # amsgrad only; otherwise vhat = v
    lr_t = alpha * sqrt(1 - beta2**t) / (1 - beta1**t)
    step = lr_t / (sqrt(vhat) + eps)
    step = clip(step, lower_t, upper_t)        # adabound only (AMSBound with amsgrad too)
    param -= eta * (step * m + weight_decay_rate * param)

with AdaBound's bounds ``final * (1 - 1 / (gamma * t + 1))`` and
``final * (1 + 1 / (gamma * t))``, ``final = final_lr * alpha / initial_alpha``
(so a schedule that scales ``alpha`` scales the bounds too, as in Chainer).

This is the paper's "more efficient" ordering (section 2): the bias corrections
are folded into ``lr_t``, so ``eps`` is added to the uncorrected ``sqrt(v)``.
The weight decay is decoupled from the gradient (Loshchilov & Hutter, 2019).
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.backend import get_array_module
from minigrad.optimizers.optimizer import Optimizer, UpdateRule, _HyperparameterProxy

__all__ = ["Adam", "AdamW", "AMSGrad", "AdaBound", "AMSBound", "AdamRule"]


def _bias_corrected_lr(hyperparam: Any, t: int) -> float:
    """``alpha * sqrt(1 - beta2**t) / (1 - beta1**t)``; before the first step (t = 0) that of step 1."""
    t = t if t > 0 else 1
    return hyperparam.alpha * math.sqrt(1.0 - hyperparam.beta2 ** t) / (1.0 - hyperparam.beta1 ** t)


class AdamRule(UpdateRule):
    """State ``m``, ``v`` (and ``vhat`` with ``amsgrad``): the moment estimates."""

    @property
    def state_names(self) -> tuple[str, ...]:  # type: ignore[override]
        return ("m", "v", "vhat") if self.hyperparam.amsgrad else ("m", "v")

    @property
    def lr(self) -> float:
        """The bias-corrected step size at this parameter's step count."""
        return _bias_corrected_lr(self.hyperparam, self.t)

    @property
    def bounds(self) -> tuple[float, float]:
        """AdaBound's ``(lower, upper)`` bounds of the step size at this parameter's step count."""
        if self.t == 0:
            raise RuntimeError("AdamRule.bounds: the bounds of AdaBound are defined from the first update on")
        hp = self.hyperparam
        final_lr = hp.final_lr * hp.alpha / hp.initial_alpha
        return final_lr * (1.0 - 1.0 / (hp.gamma * self.t + 1)), final_lr * (1.0 + 1.0 / (hp.gamma * self.t))

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        hp = self.hyperparam
        xp = get_array_module(data)
        m, v = state["m"], state["v"]
        m += (1 - hp.beta1) * (grad - m)
        v += (1 - hp.beta2) * (grad * grad - v)
        if hp.amsgrad:
            vhat = state["vhat"]
            xp.maximum(vhat, v, out=vhat)
        else:
            vhat = v
        step = self.lr / (xp.sqrt(vhat) + hp.eps)
        if hp.adabound:
            step = xp.clip(step, *self.bounds)
        step *= m
        if hp.weight_decay_rate != 0:
            step += hp.weight_decay_rate * data
        data -= hp.eta * step


class Adam(Optimizer):
    """Adam.

    Args:
        alpha: step size.
        beta1: decay of the first moment estimate.
        beta2: decay of the second moment estimate.
        eps: added to the denominator for stability.
        eta: schedule multiplier applied to the whole step.
        weight_decay_rate: decoupled weight decay (AdamW); 0 disables it.
        amsgrad: use the running maximum of ``v`` (AMSGrad).
        adabound: clip the step size to AdaBound's bounds.
        final_lr: AdaBound's final (SGD) learning rate.
        gamma: how fast AdaBound's bounds converge to ``final_lr``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([1.0]))
        >>> opt = mg.optimizers.Adam(alpha=0.1).setup(link)
        >>> link.w.grad = np.array([3.0]); opt.update(); link.w.array.round(6)  # first step = alpha * sign
        array([0.9])
    """

    rule_class = AdamRule
    alpha = _HyperparameterProxy("alpha")
    beta1 = _HyperparameterProxy("beta1")
    beta2 = _HyperparameterProxy("beta2")
    eps = _HyperparameterProxy("eps")
    eta = _HyperparameterProxy("eta")
    weight_decay_rate = _HyperparameterProxy("weight_decay_rate")
    amsgrad = _HyperparameterProxy("amsgrad")
    adabound = _HyperparameterProxy("adabound")
    final_lr = _HyperparameterProxy("final_lr")
    gamma = _HyperparameterProxy("gamma")

    def __init__(
        self,
        alpha: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        eta: float = 1.0,
        weight_decay_rate: float = 0,
        amsgrad: bool = False,
        adabound: bool = False,
        final_lr: float = 0.1,
        gamma: float = 1e-3,
    ) -> None:
        super().__init__(alpha=alpha, beta1=beta1, beta2=beta2, eps=eps, eta=eta,
                         weight_decay_rate=weight_decay_rate, amsgrad=amsgrad, adabound=adabound,
                         final_lr=final_lr, gamma=gamma, initial_alpha=alpha)

    @property
    def lr(self) -> float:
        """The bias-corrected step size at the optimizer's step count."""
        return _bias_corrected_lr(self.hyperparam, self.t)


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter, 2019): the same arguments as ``Adam``.

    As in Chainer, ``weight_decay_rate`` defaults to 0 (no decay): pass the rate you want.

    Example:
        >>> import minigrad as mg
        >>> mg.optimizers.AdamW().weight_decay_rate, mg.optimizers.AdamW(weight_decay_rate=0.01).weight_decay_rate
        (0, 0.01)
    """


class AMSGrad(Adam):
    """Adam with ``amsgrad=True``.

    Example:
        >>> import minigrad as mg
        >>> mg.optimizers.AMSGrad().amsgrad
        True
    """

    def __init__(
        self,
        alpha: float = 0.001,
        beta1: float = 0.9,
        beta2: float = 0.999,
        eps: float = 1e-8,
        eta: float = 1.0,
        weight_decay_rate: float = 0,
    ) -> None:
        super().__init__(alpha, beta1, beta2, eps, eta, weight_decay_rate, amsgrad=True)


class AdaBound(Adam):
    """Adam with ``adabound=True`` (Luo et al., 2019): the step size clipped to bounds that close in on ``final_lr``.

    Example:
        >>> import minigrad as mg
        >>> opt = mg.optimizers.AdaBound(final_lr=0.5)
        >>> opt.adabound, opt.amsgrad, opt.final_lr
        (True, False, 0.5)
    """

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, final_lr: float = 0.1,
                 gamma: float = 1e-3, eps: float = 1e-8, eta: float = 1.0) -> None:
        super().__init__(alpha, beta1, beta2, eps, eta, amsgrad=False, adabound=True, final_lr=final_lr, gamma=gamma)


class AMSBound(Adam):
    """Adam with ``amsgrad=True`` and ``adabound=True``.

    Example:
        >>> import minigrad as mg
        >>> opt = mg.optimizers.AMSBound()
        >>> opt.adabound, opt.amsgrad
        (True, True)
    """

    def __init__(self, alpha: float = 0.001, beta1: float = 0.9, beta2: float = 0.999, final_lr: float = 0.1,
                 gamma: float = 1e-3, eps: float = 1e-8, eta: float = 1.0) -> None:
        super().__init__(alpha, beta1, beta2, eps, eta, amsgrad=True, adabound=True, final_lr=final_lr, gamma=gamma)
