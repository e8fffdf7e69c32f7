"""Optimizer hooks: weight decay and gradient clipping.

Register with ``optimizer.add_hook(hook)``. They run before the update and
replace a parameter's gradient with a new array (never writing into the old
one, which may be shared).
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad import backend

__all__ = ["WeightDecay", "GradientClipping", "GradientHardClipping"]


class _GradientRewriteHook:
    """Base of the hooks that give each parameter a new gradient (``_new_grad``) before the update."""

    timing = "pre"
    call_for_each_param = True

    def _new_grad(self, param: Any) -> Any:
        raise NotImplementedError

    def __call__(self, rule: Any, param: Any) -> None:
        # a new array (the old one may be shared, e.g. a read-only view); asarray: a 0-dim result is a
        # NumPy scalar, which the grad setter refuses as Chainer's does; dtype: on NumPy 1.x a 0-dim float32
        # times a Python float is float64
        param.grad = param.xp.asarray(self._new_grad(param), dtype=param.grad.dtype)


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

    def _new_grad(self, param: Any) -> Any:
        return param.grad + self.rate * param.array


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

    def _new_grad(self, param: Any) -> Any:
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
