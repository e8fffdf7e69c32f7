"""select_item: pick one element per row, ``x[i, t[i]]`` (a gather through get_item)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input, require_integer
from minigrad.variable import Variable

__all__ = ["select_item"]


def select_item(x: Any, t: Any) -> Variable:
    """``y[i] = x[i, t[i]]`` for a 2-D ``x`` of shape ``(B, K)`` and integer ``t`` of shape ``(B,)``.

    Every ``t[i]`` must lie in ``[0, K)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> x = np.array([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]])
        >>> F.select_item(x, np.array([2, 0])).array
        array([2., 3.])
    """
    x = as_input("select_item", x)
    t = as_input("select_item", t, "t")
    require_integer("select_item", t, "t")
    if x.ndim != 2 or t.ndim != 1 or t.shape[0] != x.shape[0]:
        raise ValueError(f"select_item: x must have shape (B, K) and t shape (B,); got x of shape {x.shape} "
                         f"and t of shape {t.shape}")
    if t.size and bool(((t.array < 0) | (t.array >= x.shape[1])).any()):
        raise ValueError(f"select_item: t has values outside [0, {x.shape[1]}) "
                         f"(min {int(t.array.min())}, max {int(t.array.max())}) for x of shape {x.shape}")
    rows = x.xp.arange(x.shape[0])
    return F.GetItem((rows, t.array), basic=False).apply((x,))[0]  # t is checked above: no second range check
