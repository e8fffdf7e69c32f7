"""Optimizer hooks: weight decay (L2 and L1), gradient clipping, gradient noise and LARS.

Register with ``optimizer.add_hook(hook)``. They run before the update and
replace a parameter's gradient with a new array (never writing into the old
one, which may be shared).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy

from minigrad import backend

__all__ = ["WeightDecay", "Lasso", "GradientClipping", "GradientHardClipping", "GradientNoise", "GradientLARS",
           "exponential_decay_noise"]


class _GradientRewriteHook:
    """Base of the hooks that give each parameter a new gradient (``_new_grad``) before the update."""

    timing = "pre"
    call_for_each_param = True

    def _new_grad(self, rule: Any, param: Any) -> Any:
        raise NotImplementedError

    def __call__(self, rule: Any, param: Any) -> None:
        # a new array (the old one may be shared, e.g. a read-only view); asarray: a 0-dim result is a
        # NumPy scalar, which the grad setter refuses as Chainer's does; dtype: on NumPy 1.x a 0-dim float32
        # times a Python float is float64
        param.grad = param.xp.asarray(self._new_grad(rule, param), dtype=param.grad.dtype)


class WeightDecay(_GradientRewriteHook):
    """L2 regularization: ``grad += rate * param`` (as a new array) for every parameter.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([2.0]))
        >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(mg.optimizers.WeightDecay(0.25))
        >>> link.w.grad = np.array([0.0]); opt.update(); link.w.array
        array([1.5])
    """

    name = "WeightDecay"

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def _new_grad(self, rule: Any, param: Any) -> Any:
        return param.grad + self.rate * param.array


class Lasso(_GradientRewriteHook):
    """L1 regularization: ``grad += rate * sign(param)`` (as a new array) for every parameter.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([2.0, -3.0, 0.0]))
        >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(mg.optimizer_hooks.Lasso(0.25))
        >>> link.w.grad = np.zeros(3); opt.update(); link.w.array
        array([ 1.75, -2.75,  0.  ])
    """

    name = "Lasso"

    def __init__(self, rate: float) -> None:
        self.rate = rate

    def _new_grad(self, rule: Any, param: Any) -> Any:
        return param.grad + self.rate * param.xp.sign(param.array)


def exponential_decay_noise(xp: Any, shape: tuple[int, ...], dtype: Any, hook: GradientNoise, rule: Any) -> Any:
    """``GradientNoise``'s default noise: normal, with variance ``hook.eta / (1 + rule.t) ** 0.55``
    (Neelakantan et al., 2015), drawn from ``xp.random`` (``rule.t`` counts the updates done so far)."""
    std = math.sqrt(hook.eta / (1 + rule.t) ** 0.55)
    return xp.random.normal(0.0, std, shape).astype(dtype)


class GradientNoise(_GradientRewriteHook):
    """Add noise to every gradient: ``grad += noise_func(xp, shape, dtype, hook, rule)``.

    The default ``noise_func`` is ``exponential_decay_noise``: annealed
    Gaussian noise whose variance is ``eta / (1 + t) ** 0.55``. Seed
    ``numpy.random`` (or ``cupy.random``) for reproducible noise.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.zeros(1000))
        >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(mg.optimizer_hooks.GradientNoise(eta=0.01))
        >>> link.w.grad = np.zeros(1000); opt.update()
        >>> 0.08 < float(link.w.array.std()) < 0.12  # sqrt(0.01 / 1 ** 0.55) = 0.1
        True
    """

    name = "GradientNoise"

    def __init__(self, eta: float, noise_func: Callable[..., Any] = exponential_decay_noise) -> None:
        if not eta >= 0:
            raise ValueError(f"GradientNoise: eta must be >= 0, got {eta}")
        if not callable(noise_func):
            raise TypeError(f"GradientNoise: noise_func must be callable, got {type(noise_func).__name__}")
        self.eta = eta
        self.noise_func = noise_func

    def _new_grad(self, rule: Any, param: Any) -> Any:
        grad = param.grad
        return grad + self.noise_func(param.xp, grad.shape, grad.dtype, self, rule)


class GradientLARS(_GradientRewriteHook):
    """Layer-wise adaptive rate scaling (You et al., 2017), one rate per parameter array.

    ``grad`` becomes ``rate * (grad + weight_decay * param)`` with
    ``rate = |param| / (eps + |grad| + weight_decay * |param|)`` (L2 norms) if
    ``|param| > threshold``, else 1.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([3.0, 4.0]))
        >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(mg.optimizer_hooks.GradientLARS(eps=0.0))
        >>> link.w.grad = np.array([0.0, 10.0]); opt.update(); link.w.array  # rate = 5 / 10
        array([ 3., -1.])
    """

    name = "GradientLARS"

    def __init__(self, threshold: float = 1e-2, weight_decay: float = 0.0, eps: float = 1e-9) -> None:
        self.threshold = threshold
        self.weight_decay = weight_decay
        self.eps = eps

    def _new_grad(self, rule: Any, param: Any) -> Any:
        xp, data, grad = param.xp, param.array, param.grad
        p_norm = xp.linalg.norm(data.astype(numpy.float64))  # (float64: a float16 norm overflows past 256)
        g_norm = xp.linalg.norm(grad.astype(numpy.float64))
        local_rate = p_norm / (self.eps + g_norm + self.weight_decay * p_norm)
        rate = xp.where(p_norm > self.threshold, local_rate, 1.0).astype(grad.dtype)
        return rate * (grad + grad.dtype.type(self.weight_decay) * data)


class GradientHardClipping(_GradientRewriteHook):
    """Clip every gradient element into ``[lower_bound, upper_bound]``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([0.0, 0.0]))
        >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(mg.optimizers.GradientHardClipping(-1.0, 0.5))
        >>> link.w.grad = np.array([-3.0, 3.0]); opt.update(); link.w.array
        array([ 1. , -0.5])
    """

    name = "GradientHardClipping"

    def __init__(self, lower_bound: float, upper_bound: float) -> None:
        if lower_bound > upper_bound:
            raise ValueError(
                f"GradientHardClipping: lower_bound ({lower_bound}) must not exceed upper_bound ({upper_bound})"
            )
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def _new_grad(self, rule: Any, param: Any) -> Any:
        return param.xp.clip(param.grad, self.lower_bound, self.upper_bound)


class GradientClipping:
    """Rescale all gradients together so that their global L2 norm is at most ``threshold``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> link = mg.Link()
        >>> with link.init_scope():
        ...     link.w = mg.Parameter(np.array([0.0, 0.0]))
        >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
        >>> opt.add_hook(mg.optimizers.GradientClipping(1.0))
        >>> link.w.grad = np.array([3.0, 4.0]); opt.update(); link.w.array
        array([-0.6, -0.8])
    """

    name = "GradientClipping"
    timing = "pre"

    def __init__(self, threshold: float) -> None:
        if not threshold > 0:
            raise ValueError(f"GradientClipping: threshold must be positive, got {threshold}")
        self.threshold = threshold

    def __call__(self, optimizer: Any) -> None:
        params = [p for p in optimizer.target.params(include_uninit=False) if p.grad is not None]
        sums: dict[Any, Any] = {}  # one running sum per array module: one device-to-host sync, not one per param
        for param in params:
            grad = param.grad.astype(numpy.float64)
            xp = backend.get_array_module(grad)
            sums[xp] = (grad * grad).sum() + sums.get(xp, 0.0)
        norm = math.sqrt(sum(float(backend.to_cpu(total)) for total in sums.values()))
        if norm > self.threshold:
            rate = self.threshold / norm
            for param in params:
                param.grad = param.xp.asarray(param.grad * param.grad.dtype.type(rate))
