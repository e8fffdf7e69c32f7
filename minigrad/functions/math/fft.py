"""fft and ifft: the discrete Fourier transform along the last axis, with complex numbers as a
``(real, imag)`` pair of float arrays (Chainer's ``F.fft`` / ``F.ifft``).

The transform is a matrix product with the constant cosines and sines of the
DFT matrix, ``y = x @ exp(-2 pi i j k / n)``, written on the real and imaginary
parts, so gradients (the conjugate transform) and every higher order come from
``matmul``. It costs ``O(n^2)`` per row rather than the FFT's ``O(n log n)``:
the formula a reader can check, for the modest lengths this library is for.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.checks import as_input, constant
from minigrad.variable import Variable

__all__ = ["fft", "ifft"]


def _transform(op: str, x: Any, sign: float, scale: bool) -> tuple[Variable, Variable]:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise TypeError(f"{op}: x must be a pair (real, imag), got {type(x).__name__}")
    real, imag = (as_input(op, part, name, float_only=True) for part, name in zip(x, ("real", "imag")))
    if real.shape != imag.shape or real.dtype != imag.dtype or real.ndim < 1:
        raise ValueError(f"{op}: real and imag must have one shape (at least 1-D) and one dtype, got "
                         f"{real.shape} {real.dtype} and {imag.shape} {imag.dtype}")
    n = real.shape[-1]
    angle = 2 * numpy.pi * numpy.outer(numpy.arange(n), numpy.arange(n)) / max(n, 1)
    factor = 1.0 / n if scale else 1.0
    cos = constant(real.xp.asarray(numpy.cos(angle) * factor, dtype=real.dtype))
    sin = constant(real.xp.asarray(sign * numpy.sin(angle) * factor, dtype=real.dtype))
    # (a + ib)(cos + i sin) = (a cos - b sin) + i (a sin + b cos)
    return F.matmul(real, cos) - F.matmul(imag, sin), F.matmul(real, sin) + F.matmul(imag, cos)


def fft(x: tuple[Any, Any]) -> tuple[Variable, Variable]:
    """The discrete Fourier transform of ``x = (real, imag)`` along the last axis: ``(real, imag)`` of
    ``numpy.fft.fft(real + 1j * imag)``, in ``real``'s dtype.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> re, im = F.fft((np.array([1.0, 2.0, 3.0, 4.0]), np.zeros(4)))
        >>> np.round(re.array, 12) + 0.0, np.round(im.array, 12) + 0.0  # (+ 0.0: no -0.)
        (array([10., -2., -2., -2.]), array([ 0.,  2.,  0., -2.]))
    """
    return _transform("fft", x, -1.0, False)


def ifft(x: tuple[Any, Any]) -> tuple[Variable, Variable]:
    """The inverse transform of :func:`fft`: ``(real, imag)`` of ``numpy.fft.ifft(real + 1j * imag)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> re, im = F.ifft(F.fft((np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.0, -1.0]))))
        >>> np.round(re.array, 12) + 0.0, np.round(im.array, 12) + 0.0  # (+ 0.0: no -0.)
        (array([1., 2., 3.]), array([ 0.5,  0. , -1. ]))
    """
    return _transform("ifft", x, 1.0, True)
