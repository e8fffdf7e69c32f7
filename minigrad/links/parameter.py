"""``Parameter``: a link that holds one parameter ``W`` and returns it (Chainer's ``L.Parameter``)."""

from __future__ import annotations

from typing import Any

import minigrad.functions as F
from minigrad import backend
from minigrad.device import get_device_from_array
from minigrad.link import Link
from minigrad.variable import Variable

__all__ = ["Parameter"]


class Parameter(Link):
    """A link whose only parameter ``W`` is ``array`` itself; calling it returns ``W`` through an identity node.

    Chainer kept this link from the days before parameters were Variables; a
    parameter can be used directly instead (``self.W = mg.Parameter(array)``
    in ``init_scope``), but ported code that wraps an array in ``L.Parameter``
    keeps working. As in Chainer, ``W.array`` is ``array`` (not a copy: what
    the optimizer writes into ``W`` is seen in ``array``), ``W.grad`` starts
    NaN-filled like every new parameter's, and the link lives on ``array``'s
    device.

    Args:
        array: the initial parameter array (NumPy or CuPy).

    Attributes:
        W (minigrad.Parameter): the parameter.

    Example:
        >>> import numpy as np, minigrad.functions as F, minigrad.links as L
        >>> link = L.Parameter(np.array([1.0, 2.0], dtype=np.float32))
        >>> link.cleargrads()                # a new parameter's gradient is NaN until cleared
        >>> y = link()
        >>> F.sum(y * y).backward()
        >>> y.array, link.W.grad
        (array([1., 2.], dtype=float32), array([2., 4.], dtype=float32))
    """

    def __init__(self, array: Any) -> None:
        if not backend.is_array(array):
            raise TypeError(f"Parameter: array must be a numpy.ndarray or cupy.ndarray, got {type(array).__name__}")
        super().__init__()
        self.to_device(get_device_from_array(array))
        self.add_param("W", array.shape, dtype=array.dtype)
        self.W.array = array

    def forward(self, volatile: Any = "off") -> Variable:
        """``W`` through an identity node: a new Variable whose gradient flows back into ``W``.

        Args:
            volatile: Chainer 1's volatility flag, gone since Chainer 2; only the
                default ``'off'`` (or ``False``) is accepted. Chainer 7 takes any value
                and ignores it; minigrad refuses the others rather than build a graph
                the caller asked not to have: use ``with minigrad.no_backprop_mode():``.
        """
        if volatile not in ("off", False):
            raise ValueError(
                f"Parameter: volatile={volatile!r} is not supported (volatility was removed in Chainer 2); "
                f"call the link inside `with minigrad.no_backprop_mode():` for no graph"
            )
        return F.identity(self.W)
