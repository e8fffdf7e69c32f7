"""The default dtype: ``config.dtype``, and Chainer's ``mixed16`` (float16 storage, float32 where it matters).

``config.dtype`` may be a NumPy dtype or :data:`mixed16`. Under ``mixed16``
parameters and activations are float16, while the layers that Chainer computes
in higher precision (the normalizations' parameters and statistics) ask
:func:`get_dtype` with ``map_mixed16=numpy.float32`` and get float32.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.configuration import config

__all__ = ["mixed16", "get_dtype"]


class _Mixed16:
    """The ``mixed16`` dtype configuration (a singleton, compared with ``is``).

    Its storage dtype is float16: NumPy reads ``dtype`` (``x.astype(mixed16)``), as with Chainer's.
    """

    dtype = numpy.dtype(numpy.float16)

    def __repr__(self) -> str:
        return "mixed16"

    def __reduce__(self) -> str:
        return "mixed16"  # unpickles as the module's singleton


mixed16 = _Mixed16()


def get_dtype(dtype: Any = None, map_mixed16: Any = None) -> numpy.dtype:
    """``numpy.dtype(dtype)``, or the configured default when ``dtype`` is None (Chainer's ``get_dtype``).

    Args:
        dtype: a dtype specifier, or None for ``config.dtype``.
        map_mixed16: what :data:`mixed16` stands for here (float16 when None).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> mg.get_dtype(), mg.get_dtype(np.float64)
        (dtype('float32'), dtype('float64'))
        >>> with mg.using_config("dtype", mg.mixed16):
        ...     mg.get_dtype(), mg.get_dtype(map_mixed16=np.float32)
        (dtype('float16'), dtype('float32'))
    """
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16:
        dtype = numpy.float16 if map_mixed16 is None else map_mixed16
    try:
        return numpy.dtype(dtype)
    except TypeError:
        raise TypeError(f"get_dtype: {dtype!r} is not a dtype (config.dtype may be a dtype or mixed16)") from None
