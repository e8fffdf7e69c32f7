"""rrelu: the randomized leaky ReLU, ``x`` where ``x >= 0`` and ``r * x`` elsewhere (Chainer's ``F.rrelu``).

In training each element's slope ``r`` is drawn from ``U(l, u)``; in test mode
it is ``(l + u) / 2``. The slopes are data, not an input: the output is ``x``
times the constant factor ``where(x >= 0, 1, r)``, so its gradient (and every
higher order) comes from ``mul``.
"""

from __future__ import annotations

from typing import Any

from minigrad.configuration import config
from minigrad.functions.checks import as_input, constant, given_array, require_keywords, require_real
from minigrad.variable import Variable

__all__ = ["rrelu"]


def rrelu(x: Any, l: float = 1.0 / 8, u: float = 1.0 / 3, **kwargs: Any) -> Variable | tuple[Variable, Any]:
    """Randomized leaky ReLU: ``max(x, r * x)`` with a slope ``r`` drawn from ``U(l, u)`` per element.

    Args:
        x: float Variable or array.
        l: the lower bound of the slopes, in ``[0, 1)``.
        u: the upper bound, in ``(l, 1)``.
        r: (keyword) the slopes to use in training instead of a fresh draw, an
            array of ``x``'s shape on its device (cast to ``x``'s dtype). In test
            mode every slope is ``(l + u) / 2`` whatever ``r`` is, as in Chainer.
        return_r: (keyword) also return the slopes used.

    Returns:
        The output Variable, or ``(output, r)`` with ``return_r=True``.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = np.array([-1.0, 2.0, -3.0])
        >>> F.rrelu(x, r=np.array([0.25, 0.25, 0.125])).array
        array([-0.25 ,  2.   , -0.375])
        >>> with mg.using_config("train", False):
        ...     F.rrelu(x, l=0.1, u=0.3).array  # slope (0.1 + 0.3) / 2
        array([-0.2,  2. , -0.6])
    """
    require_keywords("rrelu", kwargs, ("r", "return_r"))
    x = as_input("rrelu", x, float_only=True)
    l, u = require_real("rrelu", l, "l"), require_real("rrelu", u, "u")
    if not 0.0 <= l < u < 1.0:
        raise ValueError(f"rrelu: l and u must satisfy 0 <= l < u < 1, got l={l}, u={u}")
    xp = x.xp
    if not config.train:
        r = xp.full(x.shape, (l + u) / 2, dtype=x.dtype)
    elif kwargs.get("r") is None:
        r = xp.random.uniform(l, u, x.shape).astype(x.dtype)
    else:
        r = given_array("rrelu", kwargs["r"], "r", x)
    y = x * constant(xp.where(x.array >= 0, x.dtype.type(1), r))
    return (y, r) if kwargs.get("return_r", False) else y
