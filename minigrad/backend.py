"""Array-module helpers: the one place that knows NumPy and CuPy differ.

CuPy is optional and imported lazily: if ``cupy`` has never been imported, no
array can be a CuPy array, so ``get_array_module`` answers ``numpy`` without
touching it.
"""

from __future__ import annotations

import contextlib
import importlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy

__all__ = ["get_array_module", "is_array", "is_cupy_available", "cupy_or_none", "using_cupy", "to_cpu", "to_gpu",
           "scatter_add", "as_strided"]

_cupy_checked: bool = False
_cupy: ModuleType | None = None


def cupy_or_none() -> ModuleType | None:
    """Import CuPy once and return it, or ``None`` when it (or a GPU) is absent.

    Example:
        >>> from minigrad import backend
        >>> backend.cupy_or_none() is None or backend.cupy_or_none().__name__ == "cupy"
        True
    """
    global _cupy_checked, _cupy
    if not _cupy_checked:
        _cupy_checked = True
        try:
            module = importlib.import_module("cupy")
            if module.cuda.runtime.getDeviceCount() > 0:
                _cupy = module
        except Exception:  # ImportError, or a CUDA error with no usable device
            _cupy = None
    return _cupy


@contextlib.contextmanager
def using_cupy(module: ModuleType | None) -> Iterator[None]:
    """Inside the block, ``cupy_or_none()`` answers ``module`` (a CuPy stand-in, or ``None``); restored after.

    ``minigrad.testing.cupy_sim.install()`` uses it to put its simulator in CuPy's place.

    Example:
        >>> from minigrad import backend
        >>> with backend.using_cupy(None):
        ...     backend.is_cupy_available()
        False
    """
    global _cupy_checked, _cupy
    saved = _cupy_checked, _cupy
    _cupy_checked, _cupy = True, module
    try:
        yield
    finally:
        _cupy_checked, _cupy = saved


def is_cupy_available() -> bool:
    """Whether CuPy is installed and sees a GPU.

    Example:
        >>> from minigrad import backend
        >>> isinstance(backend.is_cupy_available(), bool)
        True
    """
    return cupy_or_none() is not None


def is_array(value: Any) -> bool:
    """Whether ``value`` is a ``numpy.ndarray`` or a ``cupy.ndarray`` (NumPy scalars are not).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> mg.backend.is_array(np.ones(2)), mg.backend.is_array(np.float32(1)), mg.backend.is_array([1.0])
        (True, False, False)
    """
    if isinstance(value, numpy.ndarray):
        return True
    cupy = sys.modules.get("cupy")
    return cupy is not None and isinstance(value, getattr(cupy, "ndarray", ()))


def get_array_module(*args: Any) -> ModuleType:
    """Return ``cupy`` if any argument (array or Variable) lives on the GPU, else ``numpy``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> mg.backend.get_array_module(mg.Variable(np.ones(2))) is np
        True
    """
    cupy = sys.modules.get("cupy")  # never imported: no argument can be a CuPy array
    if cupy is not None:
        ndarray = getattr(cupy, "ndarray", None)
        for arg in args:
            arg = getattr(arg, "array", arg)  # a Variable's array; arrays have no .array
            if ndarray is not None and isinstance(arg, ndarray):
                return cupy
    return numpy


def to_cpu(x: Any) -> Any:
    """Copy an array to host memory (NumPy). A Variable is moved in place and returned.

    Example:
        >>> import numpy as np
        >>> from minigrad import backend
        >>> backend.to_cpu(np.ones(2))
        array([1., 1.])
    """
    if hasattr(x, "to_cpu") and hasattr(x, "array"):  # a Variable
        x.to_cpu()
        return x
    if isinstance(x, numpy.ndarray) or x is None:
        return x
    if get_array_module(x) is not numpy:
        return x.get()
    return numpy.asarray(x)


def to_gpu(x: Any) -> Any:
    """Copy an array to the current GPU (CuPy). A Variable is moved in place and returned.

    Raises ``RuntimeError`` saying how to install CuPy when it is missing.

    Example:
        >>> import numpy as np
        >>> from minigrad import backend
        >>> x = backend.to_gpu(np.ones(2)) if backend.is_cupy_available() else None
        >>> x is None or backend.get_array_module(x) is not np
        True
    """
    if hasattr(x, "to_gpu") and hasattr(x, "array"):  # a Variable
        x.to_gpu()
        return x
    cupy = _require_cupy("to_gpu")
    return None if x is None else cupy.asarray(x)


def scatter_add(target: Any, indices: Any, values: Any) -> None:
    """``target[indices] += values`` with repeated indices summed (unbuffered), in place.

    ``xp.add.at`` on both NumPy and CuPy (``cupyx.scatter_add`` is deprecated: it warns on every call).

    Example:
        >>> import numpy as np
        >>> from minigrad import backend
        >>> a = np.zeros(3)
        >>> backend.scatter_add(a, (np.array([0, 0, 2]),), np.ones(3))
        >>> a
        array([2., 0., 1.])
    """
    get_array_module(target).add.at(target, indices, values)


def as_strided(x: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    """A read-only strided view of ``x`` (byte ``strides``), e.g. the sliding windows of im2col.

    NumPy and CuPy both have ``lib.stride_tricks.as_strided``; an array module
    without it gets a gather with the same element offsets (a copy, same values).

    Example:
        >>> import numpy as np
        >>> from minigrad import backend
        >>> backend.as_strided(np.arange(4.0), (3, 2), (8, 8))
        array([[0., 1.],
               [1., 2.],
               [2., 3.]])
    """
    xp = get_array_module(x)
    if xp is numpy:
        return numpy.lib.stride_tricks.as_strided(x, shape, strides, writeable=False)
    stride_tricks = getattr(getattr(xp, "lib", None), "stride_tricks", None)
    if hasattr(stride_tricks, "as_strided"):
        return stride_tricks.as_strided(x, shape, strides)
    return _strided_gather(xp, x, shape, strides)


def _strided_gather(xp: ModuleType, x: Any, shape: tuple[int, ...], strides: tuple[int, ...]) -> Any:
    """What ``as_strided`` reads, gathered by element offsets (``x`` must be C-contiguous)."""
    if not x.flags.c_contiguous:
        raise ValueError("as_strided: the gather fallback needs a C-contiguous array")
    offsets = xp.zeros((), dtype=xp.int64)
    for n, stride in zip(shape, strides):
        offsets = offsets[..., None] + xp.arange(n, dtype=xp.int64) * (stride // x.itemsize)
    return x.reshape(-1)[offsets]


from minigrad.device import (  # noqa: E402
    CpuDevice,
    GpuDevice,
    _require_cupy,  # (the one check for CuPy: to_gpu uses it)
    get_device,
    get_device_from_array,
    using_device,
)

__all__ += ["CpuDevice", "GpuDevice", "get_device", "get_device_from_array", "using_device"]
