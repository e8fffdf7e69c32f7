"""Devices in Chainer's vocabulary: the host (NumPy) or one GPU (CuPy).

A device says which array module an array belongs to (``xp``), sends arrays
there (``send``) and makes itself current (``use``, ``using_device``). Device
specifiers follow Chainer: a :class:`Device`, ``'@numpy'``, ``'@cupy:N'``, an
int or a string of one (negative for the host, ``N`` for GPU ``N``), the ``numpy`` or ``cupy``
module, or a ``cupy.cuda.Device``. ChainerX (``'native'``, ``'cuda:0'``) and
iDeep (``'@intel64'``) do not exist in minigrad: their specifiers are a clear
``ValueError``.

Example:
    >>> import numpy as np, minigrad as mg
    >>> mg.get_device("@numpy")
    <CpuDevice (numpy)>
    >>> mg.get_device(-1) == mg.backend.get_device_from_array(np.ones(2))
    True
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import numpy

__all__ = ["Device", "CpuDevice", "GpuDevice", "get_device", "get_device_from_array", "get_array_types",
           "using_device"]


class Device:
    """Base class of the devices: subclasses set ``xp`` and ``name`` and implement ``send_array``."""

    xp: ModuleType
    name: str

    def send(self, arrays: Any) -> Any:
        """Return ``arrays`` on this device: one array (the array itself when it is already here), or a tuple or
        list of arrays (and ``None``) element by element, as Chainer's ``Device.send``.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> a = np.ones(2)
            >>> sent = mg.backend.CpuDevice().send((a, None))
            >>> sent[0] is a, sent[1]
            (True, None)
        """
        if isinstance(arrays, (tuple, list)):
            return type(arrays)(self.send(a) for a in arrays)
        return self.send_array(arrays)

    def send_array(self, array: Any) -> Any:
        """Send one array (array-like data becomes an array here).

        Example:
            >>> import numpy as np, minigrad as mg
            >>> mg.backend.CpuDevice().send_array([1.0, 2.0])
            array([1., 2.])
        """
        raise NotImplementedError

    def use(self) -> None:
        """Make this device the current one (a no-op for the host)."""

    def create_context(self) -> contextlib.AbstractContextManager[Any]:
        """A context manager in which this device is the current one."""
        return contextlib.nullcontext()

    def is_array_supported(self, array: Any) -> bool:
        """Whether ``array`` lives on this device."""
        return _is_on(array, self)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __str__(self) -> str:
        return self.name


class CpuDevice(Device):
    """The host: NumPy arrays.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> device = mg.backend.CpuDevice()
        >>> device.xp is np, device.name
        (True, '@numpy')
    """

    xp = numpy
    name = "@numpy"

    def send_array(self, array: Any) -> Any:
        if array is None or isinstance(array, numpy.ndarray):
            return array
        cupy = sys.modules.get("cupy")
        if cupy is not None and isinstance(array, cupy.ndarray):
            return array.get()
        return numpy.asarray(array)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CpuDevice)

    def __hash__(self) -> int:
        return hash(CpuDevice)

    def __repr__(self) -> str:
        return "<CpuDevice (numpy)>"


class GpuDevice(Device):
    """One GPU, through CuPy.

    Args:
        device: a ``cupy.cuda.Device``.

    Example:
        >>> import minigrad as mg
        >>> mg.backend.GpuDevice.from_device_id(0).name if mg.backend.is_cupy_available() else '@cupy:0'
        '@cupy:0'
    """

    def __init__(self, device: Any) -> None:
        cupy = _require_cupy("GpuDevice")
        if not isinstance(device, cupy.cuda.Device):
            raise TypeError(f"GpuDevice: device must be a cupy.cuda.Device, got {type(device).__name__}")
        self.device = device

    @classmethod
    def from_device_id(cls, device_id: int) -> GpuDevice:
        """The GPU with this id."""
        if not isinstance(device_id, int) or isinstance(device_id, bool) or device_id < 0:
            raise ValueError(f"GpuDevice.from_device_id: device_id must be an int >= 0, got {device_id!r}")
        return cls(_require_cupy("GpuDevice").cuda.Device(device_id))

    @classmethod
    def from_array(cls, array: Any) -> GpuDevice | None:
        """The GPU that holds ``array``, or ``None`` when it is not a CuPy array."""
        cupy = sys.modules.get("cupy")
        if cupy is None or not isinstance(array, cupy.ndarray):
            return None
        return cls(array.device)

    @property
    def xp(self) -> ModuleType:  # type: ignore[override]
        return _require_cupy("GpuDevice")

    @property
    def name(self) -> str:  # type: ignore[override]
        return f"@cupy:{self.device.id}"

    def send_array(self, array: Any) -> Any:
        if array is None:
            return None
        cupy = self.xp
        if isinstance(array, cupy.ndarray) and array.device.id == self.device.id:
            return array
        with self.device:
            return cupy.array(array, copy=True) if isinstance(array, cupy.ndarray) else cupy.asarray(array)

    def use(self) -> None:
        self.device.use()

    def create_context(self) -> contextlib.AbstractContextManager[Any]:
        return self.device

    def __eq__(self, other: object) -> bool:
        return isinstance(other, GpuDevice) and other.device.id == self.device.id

    def __hash__(self) -> int:
        return hash((GpuDevice, self.device.id))

    def __repr__(self) -> str:
        return f"<GpuDevice (cupy):{self.device.id}>"


def _require_cupy(what: str) -> ModuleType:
    """CuPy, or a RuntimeError saying that ``what`` needs it (the one such check: backend.to_gpu uses it too)."""
    from minigrad import backend  # (backend imports this module)

    cupy = backend.cupy_or_none()
    if cupy is None:
        raise RuntimeError(f"{what} needs CuPy and a GPU; install them with `pip install minigrad[cuda]`")
    return cupy


def _is_on(array: Any, device: Device) -> bool:
    try:
        return get_device_from_array(array) == device
    except ValueError:
        return False


def get_device(device_spec: Any) -> Device:
    """The device a Chainer-style specifier names.

    Args:
        device_spec: a :class:`Device`; ``'@numpy'`` or ``'@cupy:N'``; an int
            or a string of one (negative: the host, ``N >= 0``: GPU ``N``); the
            ``numpy`` or ``cupy`` module; or a ``cupy.cuda.Device``.

    Raises:
        ValueError: for a ChainerX or iDeep specifier, or a malformed string.
        TypeError: for anything else.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> mg.get_device(np), mg.get_device("@numpy") == mg.get_device(-1)
        (<CpuDevice (numpy)>, True)
        >>> mg.get_device("native:0")
        Traceback (most recent call last):
        ...
        ValueError: get_device: 'native:0' is a ChainerX device; minigrad has only '@numpy' and '@cupy:N' devices
    """
    if isinstance(device_spec, Device):
        return device_spec
    if device_spec is numpy:
        return CpuDevice()
    if isinstance(device_spec, str):
        return _parse_device_string(device_spec)
    if isinstance(device_spec, (int, numpy.integer)) and not isinstance(device_spec, bool):
        return CpuDevice() if device_spec < 0 else GpuDevice.from_device_id(int(device_spec))
    cupy = sys.modules.get("cupy")
    if cupy is not None:
        if device_spec is cupy:
            return GpuDevice(cupy.cuda.Device())
        if isinstance(device_spec, cupy.cuda.Device):
            return GpuDevice(device_spec)
    raise TypeError(
        f"get_device: a device specifier is a Device, '@numpy', '@cupy:N', an int, or the numpy/cupy module; "
        f"got {type(device_spec).__name__}"
    )


def _parse_device_string(spec: str) -> Device:
    if spec == "@numpy":
        return CpuDevice()
    if spec.lstrip("-").isdigit():  # '-1', '0': what Chainer's example scripts pass from the command line
        return get_device(int(spec))
    if spec.startswith("@cupy:"):
        device_id = spec[len("@cupy:"):]
        if not device_id.isdigit():
            raise ValueError(f"get_device: {spec!r} needs a GPU id after '@cupy:', e.g. '@cupy:0'")
        return GpuDevice.from_device_id(int(device_id))
    if spec.startswith("@intel64"):
        raise ValueError(f"get_device: {spec!r} is an iDeep device; minigrad has only '@numpy' and '@cupy:N' devices")
    if spec.split(":")[0] in ("native", "cuda"):
        raise ValueError(f"get_device: {spec!r} is a ChainerX device; minigrad has only '@numpy' and '@cupy:N' devices")
    raise ValueError(f"get_device: unknown device specifier {spec!r}; use '@numpy' or '@cupy:N'")


def get_array_types() -> tuple[type, ...]:
    """The array types minigrad takes: ``numpy.ndarray``, and ``cupy.ndarray`` when CuPy is available (Chainer's
    ``chainer.get_array_types()``, without ChainerX's).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> isinstance(np.zeros(2), mg.get_array_types()), mg.get_array_types()[0] is np.ndarray
        (True, True)
    """
    from minigrad import backend  # (backend imports this module)

    cupy = backend.cupy_or_none()
    return (numpy.ndarray,) if cupy is None else (numpy.ndarray, cupy.ndarray)


def get_device_from_array(*arrays: Any) -> Device:
    """The device that holds the arrays (NumPy or CuPy arrays, or Variables: their arrays), as Chainer's: the
    first that is not on the host, else the host.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> mg.backend.get_device_from_array(np.zeros(3)), mg.backend.get_device_from_array(mg.Variable(np.ones(1)))
        (<CpuDevice (numpy)>, <CpuDevice (numpy)>)
    """
    if not arrays:
        raise TypeError("get_device_from_array: expected at least one array")
    for array in arrays:
        array = getattr(array, "array", array) if hasattr(array, "creator") else array  # a Variable's array
        if isinstance(array, (numpy.ndarray, numpy.generic)):
            continue
        device = GpuDevice.from_array(array)
        if device is None:
            raise ValueError(f"get_device_from_array: expected a numpy.ndarray, a cupy.ndarray or a Variable, got "
                             f"{type(array).__name__}")
        return device
    return CpuDevice()


@contextlib.contextmanager
def using_device(device_spec: Any) -> Iterator[Device]:
    """Make a device current for a ``with`` block (for a GPU, CuPy's current device).

    Example:
        >>> import minigrad as mg
        >>> with mg.using_device("@numpy") as device:
        ...     device
        <CpuDevice (numpy)>
    """
    device = get_device(device_spec)
    with device.create_context():
        yield device
