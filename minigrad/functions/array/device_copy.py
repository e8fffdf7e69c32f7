"""copy: move an array to another device (host <-> GPU); the gradient moves back to the source device."""

from __future__ import annotations

from typing import Any

from minigrad.device import Device, get_device, get_device_from_array
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["Copy", "copy"]


class Copy(FunctionNode):
    """``x`` sent from ``in_device`` to ``out_device`` (always a new array); its adjoint sends the gradient back."""

    def __init__(self, in_device: Device, out_device: Device) -> None:
        self.in_device = in_device
        self.out_device = out_device

    def forward(self, inputs):
        x, = inputs
        y = self.out_device.send(x)
        return (x.copy() if y is x else y),

    def backward(self, indexes, grad_outputs):
        return Copy(self.out_device, self.in_device).apply(grad_outputs)


def copy(x: Any, dst: Any) -> Variable:
    """A copy of ``x`` on device ``dst``; in backward the gradient is copied back to ``x``'s device.

    Args:
        x: the input array (NumPy or CuPy).
        dst: the target device, a Chainer device specifier: ``-1`` or ``'@numpy'``
            for the host, ``N`` or ``'@cupy:N'`` for GPU ``N``, a
            :class:`~minigrad.backend.Device`, or the ``numpy``/``cupy`` module.

    The result is a new array even when ``dst`` is ``x``'s own device (never a
    view of ``x``).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.array([1.0, 2.0]))
        >>> y = F.copy(x, -1)
        >>> y.array, y.array is x.array
        (array([1., 2.]), False)
        >>> F.sum(y * y).backward()
        >>> x.grad
        array([2., 4.])
    """
    x = as_input("copy", x)
    try:
        out_device = get_device(dst)
    except (TypeError, ValueError) as error:
        raise type(error)(f"copy: dst {dst!r} is not a device specifier ({error})") from None
    except RuntimeError as error:  # a GPU asked for without CuPy
        raise RuntimeError(f"copy: cannot copy x (shape {x.shape}) to {dst!r}: {error}") from None
    return Copy(get_device_from_array(x.array), out_device).apply((x,))[0]
