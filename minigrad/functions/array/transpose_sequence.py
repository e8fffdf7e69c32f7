"""transpose_sequence: a batch of sequences (longest first) <-> the list of its time steps (pad, swap, slice)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import minigrad.functions as F
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["transpose_sequence"]


def transpose_sequence(xs: Sequence[Any]) -> tuple[Variable, ...]:
    """Turn sequences into time steps: output ``t`` stacks row ``t`` of every sequence longer than ``t``.

    The sequences must come longest first (lengths never increase), as the
    ``n_step_*`` functions want them; the time steps then have batch sizes that
    never increase, so applying the function again gives the sequences back.

    Args:
        xs: a list or tuple of arrays ``(L_i, ...)`` with the same trailing shape
            and dtype, ``L_0 >= L_1 >= ...``.

    Returns:
        A tuple of ``L_0`` Variables, output ``t`` of shape ``(B_t, ...)`` where
        ``B_t`` counts the sequences longer than ``t``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> steps = F.transpose_sequence([np.array([1.0, 2.0, 3.0]), np.array([4.0])])
        >>> [y.array for y in steps]
        [array([1., 4.]), array([2.]), array([3.])]
        >>> [y.array for y in F.transpose_sequence(steps)]
        [array([1., 2., 3.]), array([4.])]
    """
    if not isinstance(xs, (list, tuple)):
        raise TypeError(f"transpose_sequence: xs must be a list or a tuple of arrays, got {type(xs).__name__}")
    xs = [as_input("transpose_sequence", x, f"xs[{i}]") for i, x in enumerate(xs)]
    for i, x in enumerate(xs):
        if x.ndim == 0:
            raise ValueError(f"transpose_sequence: xs[{i}] must have a time axis, got a 0-dim array")
        if x.shape[1:] != xs[0].shape[1:] or x.dtype != xs[0].dtype:
            raise ValueError(f"transpose_sequence: every sequence must have xs[0]'s trailing shape and dtype "
                             f"{xs[0].shape[1:]} {xs[0].dtype}; xs[{i}] has shape {x.shape} and dtype {x.dtype}")
        if i and x.shape[0] > xs[i - 1].shape[0]:
            raise ValueError(f"transpose_sequence: sequences must come longest first; xs[{i}] has length "
                             f"{x.shape[0]} after xs[{i - 1}] of length {xs[i - 1].shape[0]}")
    if not xs or xs[0].shape[0] == 0:
        return ()
    # pad to one (B, L_0, ...) batch, swap to time-major and cut each step to the sequences that reach it:
    # slices only, so no index array needs checking against the data (no device sync on CuPy)
    steps = F.separate(F.swapaxes(F.pad_sequence(xs), 0, 1))
    return tuple(F.get_item(step, slice(0, sum(x.shape[0] > t for x in xs))) for t, step in enumerate(steps))
