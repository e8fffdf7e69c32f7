"""gaussian: a sample of N(mean, exp(ln_var)) written as mean + exp(ln_var / 2) * eps (the VAE's reparameterisation).

The noise ``eps`` is a constant of the graph, so the sample is differentiable in
``mean`` and ``ln_var`` to every order (it is composed of exp, mul and add);
passing ``eps=`` makes it deterministic, which is how the gradient checker
evaluates it.
"""

from __future__ import annotations

from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, given_array, require_keywords, require_same_shape
from minigrad.variable import Variable

__all__ = ["gaussian"]


def gaussian(mean: Any, ln_var: Any, **kwargs: Any) -> Variable | tuple[Variable, Any]:
    """A sample ``z = mean + exp(ln_var / 2) * eps`` with ``eps`` drawn from ``N(0, 1)``, as in Chainer.

    It samples in training and in test mode alike (Chainer's ``gaussian`` does
    not look at ``config.train``).

    Args:
        mean: float array, the mean of the distribution.
        ln_var: the log of its variance, of ``mean``'s shape and dtype.
        eps: (keyword) the standard-normal noise to use instead of a fresh
            draw, an array of ``mean``'s shape on its device (its dtype is cast
            to ``mean``'s); makes the function deterministic.
        return_eps: (keyword) also return the ``eps`` used.

    Returns:
        The sample, a Variable of ``mean``'s shape and dtype, or ``(sample, eps)``
        with ``return_eps=True``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> mean, ln_var = np.array([0.0, 10.0]), np.log(np.array([4.0, 1.0]))
        >>> F.gaussian(mean, ln_var, eps=np.array([1.0, -0.5])).array  # 0 + 2 * 1, 10 + 1 * -0.5
        array([2. , 9.5])
        >>> z, eps = F.gaussian(mean, ln_var, return_eps=True)
        >>> bool(np.allclose(z.array, mean + np.exp(ln_var / 2) * eps))
        True
    """
    require_keywords("gaussian", kwargs, ("eps", "return_eps"))
    mean = as_input("gaussian", mean, "mean", float_only=True)
    ln_var = as_input("gaussian", ln_var, "ln_var", float_only=True)
    require_same_shape("gaussian", mean, ln_var, ("mean", "ln_var"))
    if mean.dtype != ln_var.dtype:
        raise TypeError(f"gaussian: mean and ln_var must have the same dtype, got {mean.dtype} and {ln_var.dtype}")
    xp = mean.xp
    eps = kwargs.get("eps")
    if eps is None:
        eps = xp.random.standard_normal(mean.shape).astype(mean.dtype)
    else:
        eps = given_array("gaussian", eps, "eps", mean, "mean")
    z = mean + F.exp(ln_var * 0.5) * constant(eps)
    return (z, eps) if kwargs.get("return_eps", False) else z
