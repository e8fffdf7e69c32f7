"""gumbel_softmax: a sample of the Gumbel-softmax distribution, ``softmax((log_pi + g) / tau)`` with Gumbel noise ``g``.

The noise is a constant of the graph, so the sample is differentiable in
``log_pi`` (and in ``tau`` when it is a Variable) to every order: it is composed
of add, div and softmax. Passing ``g=`` (minigrad's addition to Chainer's
signature, as ``eps=`` is for ``gaussian``) makes it deterministic, which is how
the gradient checker evaluates it.
"""

from __future__ import annotations

import numbers
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.functions.checks import as_input, constant, given_array, normalize_axis, require_keywords
from minigrad.variable import Variable

__all__ = ["gumbel_softmax"]


def gumbel_softmax(log_pi: Any, tau: Any = 0.1, axis: int = 1, **kwargs: Any) -> Variable | tuple[Variable, Any]:
    """A sample ``softmax((log_pi + g) / tau, axis)`` with ``g`` drawn from ``Gumbel(0, 1)``, as in Chainer.

    It samples in training and in test mode alike. A 0-dim ``log_pi`` gives a
    constant 1 (Chainer's rule: a softmax over nothing).

    Args:
        log_pi: float array of unnormalized log-probabilities.
        tau: the temperature, a positive number or a float Variable/array that
            broadcasts against ``log_pi``.
        axis: the axis of the categories.
        g: (keyword) the Gumbel noise to use instead of a fresh draw, an array
            of ``log_pi``'s shape on its device (cast to its dtype).
        return_g: (keyword) also return the ``g`` used (``None`` for a 0-dim ``log_pi``).

    Returns:
        The sample, of ``log_pi``'s shape and dtype, or ``(sample, g)`` with ``return_g=True``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> log_pi = np.log(np.array([[0.5, 0.25, 0.25]]))
        >>> y = F.gumbel_softmax(log_pi, tau=1.0, g=np.zeros((1, 3)))  # no noise: the probabilities
        >>> y.array
        array([[0.5 , 0.25, 0.25]])
        >>> y, g = F.gumbel_softmax(log_pi, return_g=True)
        >>> bool(np.allclose(y.array, F.softmax((log_pi + g) / 0.1).array))
        True
    """
    require_keywords("gumbel_softmax", kwargs, ("g", "return_g"))
    return_g = bool(kwargs.get("return_g", False))
    log_pi = as_input("gumbel_softmax", log_pi, "log_pi", float_only=True)
    xp = log_pi.xp
    if log_pi.ndim == 0:
        one = constant(xp.ones((), dtype=log_pi.dtype))
        return (one, None) if return_g else one
    axis = normalize_axis("gumbel_softmax", axis, log_pi.ndim)
    if isinstance(tau, numbers.Real) and not isinstance(tau, bool):
        if not tau > 0:
            raise ValueError(f"gumbel_softmax: tau must be positive, got {tau}")
        tau = float(tau)
    else:
        tau = as_input("gumbel_softmax", tau, "tau", float_only=True)
    g = kwargs.get("g")
    if g is None:
        g = xp.random.gumbel(size=log_pi.shape).astype(log_pi.dtype)
    else:
        g = given_array("gumbel_softmax", g, "g", log_pi, "log_pi")
    y = F.softmax((log_pi + constant(g)) / tau, axis=axis)
    return (y, g) if return_g else y
