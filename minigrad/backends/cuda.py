"""CuPy under Chainer's module path (``chainer.backends.cuda``), on top of :mod:`minigrad.backend`.

``available`` says whether CuPy and a GPU are there (looked up on first use, so
importing this module loads no CuPy); on a machine without them the host-side
helpers still work (``to_cpu``, ``get_array_module``, ``get_device_from_id(-1)``,
the ``DummyDevice`` that stands for the host), and what needs a GPU
(``to_gpu``, ``copy``, ``check_cuda_available``) raises ``RuntimeError``.
minigrad has no cuDNN paths: ``cudnn_enabled`` is always ``False``.

Example:
    >>> import numpy as np
    >>> from minigrad.backends import cuda
    >>> cuda.get_device_from_id(None) is cuda.DummyDevice, cuda.to_cpu(np.ones(2))
    (True, array([1., 1.]))
"""

from __future__ import annotations

from typing import Any

from minigrad import backend
from minigrad.device import GpuDevice, get_device

__all__ = ["cudnn_enabled", "check_cuda_available", "DummyDeviceType",
           "DummyDevice", "GpuDevice", "get_device_from_id", "get_device_from_array", "get_array_module", "to_cpu",
           "to_gpu", "copy"]

cudnn_enabled = False
get_array_module = backend.get_array_module


class _NoArray:
    """``ndarray`` where there is no CuPy: a class no array belongs to."""


def __getattr__(name: str) -> Any:
    # looked up on use: whether CuPy is there costs an import of it
    cupy = backend.cupy_or_none()
    if name == "available":
        return cupy is not None
    if name == "cupy":
        return cupy
    if name == "cuda":
        return None if cupy is None else cupy.cuda
    if name == "ndarray":
        return _NoArray if cupy is None else cupy.ndarray
    raise AttributeError(f"module 'minigrad.backends.cuda' has no attribute {name!r}")


def check_cuda_available() -> None:
    """Raise ``RuntimeError`` (saying how to install CuPy) unless CuPy and a GPU are there.

    Example:
        >>> from minigrad.backends import cuda
        >>> if not cuda.available:
        ...     try:
        ...         cuda.check_cuda_available()
        ...     except RuntimeError as error:
        ...         assert "pip install minigrad[cuda]" in str(error)
    """
    if backend.cupy_or_none() is None:
        raise RuntimeError("CUDA is not available: it needs CuPy and a GPU; install them with "
                           "`pip install minigrad[cuda]`")


class DummyDeviceType:
    """The host in the shape of a ``cupy.cuda.Device`` (id -1): a context manager that does nothing."""

    id = -1

    def __int__(self) -> int:
        return -1

    def __enter__(self) -> DummyDeviceType:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def use(self) -> None:
        """Nothing to make current."""

    def synchronize(self) -> None:
        """Nothing to wait for."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, DummyDeviceType)

    def __hash__(self) -> int:
        return hash(DummyDeviceType)


DummyDevice = DummyDeviceType()


def get_device_from_id(device_id: int | None) -> Any:
    """The ``cupy.cuda.Device`` with this id, or :data:`DummyDevice` for ``None`` or a negative id.

    Example:
        >>> from minigrad.backends import cuda
        >>> cuda.get_device_from_id(-1) is cuda.DummyDevice
        True
    """
    if device_id is None or device_id < 0:
        return DummyDevice
    check_cuda_available()
    return backend.cupy_or_none().cuda.Device(int(device_id))


def get_device_from_array(*arrays: Any) -> Any:
    """The ``cupy.cuda.Device`` of the first CuPy array among ``arrays``, else :data:`DummyDevice`.

    Example:
        >>> import numpy as np
        >>> from minigrad.backends import cuda
        >>> cuda.get_device_from_array(np.ones(2)) is cuda.DummyDevice
        True
    """
    for array in arrays:
        device = GpuDevice.from_array(array)
        if device is not None:
            return device.device
    return DummyDevice


def _each(arrays: Any, convert: Any) -> Any:
    if isinstance(arrays, (list, tuple)):
        return type(arrays)(convert(a) for a in arrays)
    return convert(arrays)


def to_cpu(array: Any, stream: Any = None) -> Any:
    """A NumPy copy of a CuPy array (NumPy arrays and ``None`` as they are; lists and tuples element-wise).

    Example:
        >>> import numpy as np
        >>> from minigrad.backends import cuda
        >>> cuda.to_cpu((np.zeros(1), None))
        (array([0.]), None)
    """
    return _each(array, backend.to_cpu)


def to_gpu(array: Any, device: Any = None, stream: Any = None) -> Any:
    """A CuPy copy of ``array`` on ``device`` (the current GPU by default); lists and tuples element-wise.

    Raises ``RuntimeError`` where there is no CuPy or GPU.

    Example:
        >>> import numpy as np
        >>> from minigrad.backends import cuda
        >>> x = cuda.to_gpu(np.ones(2)) if cuda.available else None
        >>> x is None or cuda.get_array_module(x) is not np
        True
    """
    check_cuda_available()
    target = get_device(device if device is not None else backend.cupy_or_none().cuda.Device())
    return _each(array, lambda a: None if a is None else target.send(a))


def copy(array: Any, out: Any = None, out_device: Any = None, stream: Any = None) -> Any:
    """Copy a CuPy array into ``out``, or into a new array on ``out_device`` (by default the array's own).

    Example:
        >>> import numpy as np
        >>> from minigrad.backends import cuda
        >>> y = cuda.copy(cuda.to_gpu(np.ones(2))) if cuda.available else None
    """
    check_cuda_available()
    cupy = backend.cupy_or_none()
    if out is None:
        device = get_device(out_device) if out_device is not None else GpuDevice.from_array(array)
        with device.create_context():
            out = cupy.empty_like(array)
    cupy.copyto(out, array)
    return out
