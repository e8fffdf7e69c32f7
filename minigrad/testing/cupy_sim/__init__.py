"""cupy-sim: a strict CPU stand-in for CuPy, to run minigrad's CuPy code paths without a GPU.

``install()`` puts simulated ``cupy`` and ``cupyx`` modules in ``sys.modules``
(and in minigrad's backend cache) for the duration of a ``with`` block and puts
back whatever was there after, a real CuPy included. Inside, code written for
CuPy runs unchanged on the CPU, with CuPy's rules enforced where code that works
on NumPy breaks on a GPU: its ``ndarray`` is not a NumPy array and refuses
implicit conversion (``numpy.asarray(x)`` raises CuPy's ``TypeError``), ufuncs
and functions refuse NumPy arrays and lists, reductions and scalar indexing
return 0-d arrays, out-of-bounds array indices wrap (NumPy raises), and only the
names CuPy 13.6.0 has exist (``cupy_names.txt``, derived from CuPy's source by
``scripts/derive_cupy_names.py``). Transfers to and from the "device" are
counted (``count_transfers``).

What it cannot find: CUDA compile errors and kernel bugs (there are no
kernels), cuBLAS/cuDNN/TF32 numerics (it computes with NumPy), the ordering of
atomics, device memory limits, multi-GPU placement, speed. Run
``scripts/gpu-check.sh`` on a real GPU for those.

Example:
    >>> import numpy as np
    >>> from minigrad.testing import cupy_sim
    >>> with cupy_sim.install() as cp:
    ...     x = cp.asarray(np.arange(3.0))
    ...     try:
    ...         np.asarray(x)
    ...     except TypeError as error:
    ...         print(str(error)[:47])
    ...     with cupy_sim.count_transfers() as counts:
    ...         total = float(x.sum())
    ...     total, counts.device_to_host
    Implicit conversion to a NumPy array is not all
    (3.0, 1)
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Iterator

from minigrad.testing.cupy_sim._array import TRANSFERS, Transfers, ndarray
from minigrad.testing.cupy_sim._module import VERSION, read_names

__all__ = ["install", "is_installed", "count_transfers", "Transfers", "public_names", "BACKEND", "VERSION"]

BACKEND = "cupy-sim"
_installed: list[types.ModuleType] = []  # the simulated cupy while installed (nesting reuses it)


def _cupy_keys() -> list[str]:
    return [k for k in sys.modules if k in ("cupy", "cupyx") or k.startswith(("cupy.", "cupyx."))]


@contextlib.contextmanager
def install() -> Iterator[types.ModuleType]:
    """Simulate CuPy inside the ``with`` block; yields the simulated ``cupy`` module.

    ``import cupy`` and ``import cupyx`` give the simulated modules there, and
    ``minigrad.backend.cupy_or_none()`` returns it; afterwards ``sys.modules``
    and the backend's cache are as they were. Nesting reuses the outer simulator.

    Example:
        >>> from minigrad import backend
        >>> from minigrad.testing import cupy_sim
        >>> with cupy_sim.install() as cp:
        ...     backend.get_array_module(backend.to_gpu([1.0])) is cp
        True
    """
    if _installed:
        yield _installed[-1]
        return
    from minigrad import backend
    from minigrad.testing.cupy_sim import _module

    saved = {k: sys.modules.pop(k) for k in _cupy_keys()}
    modules = _module.build()
    sys.modules.update(modules)
    _installed.append(modules["cupy"])
    try:
        with backend.using_cupy(modules["cupy"]):
            yield modules["cupy"]
    finally:
        _installed.pop()
        for k in _cupy_keys():
            del sys.modules[k]
        sys.modules.update(saved)


def is_installed() -> bool:
    """Whether the simulator is in place right now.

    Example:
        >>> from minigrad.testing import cupy_sim
        >>> with cupy_sim.install():
        ...     cupy_sim.is_installed()
        True
    """
    return bool(_installed)


@contextlib.contextmanager
def count_transfers() -> Iterator[Transfers]:
    """Count the simulated device-to-host and host-to-device transfers made inside the block.

    A device-to-host transfer is a synchronisation on a real GPU: ``.get()``,
    ``.item()``, ``float()``/``int()``/``bool()`` of an array, ``repr``.

    Example:
        >>> from minigrad.testing import cupy_sim
        >>> with cupy_sim.install() as cp, cupy_sim.count_transfers() as counts:
        ...     ok = bool((cp.ones(3) > 0).all())
        >>> ok, counts
        (True, Transfers(device_to_host=1, host_to_device=0))
    """
    counts = Transfers()
    before = Transfers(TRANSFERS.device_to_host, TRANSFERS.host_to_device)
    try:
        yield counts
    finally:
        counts.device_to_host = TRANSFERS.device_to_host - before.device_to_host
        counts.host_to_device = TRANSFERS.host_to_device - before.host_to_device


def public_names() -> dict[str, list[str]]:
    """The names each CuPy module has in the pinned release, by module (``"cupy"``, ``"cupy.ndarray"``, ...).

    Example:
        >>> from minigrad.testing import cupy_sim
        >>> names = cupy_sim.public_names()
        >>> "take_along_axis" in names["cupy"], "nanargmax" in names["cupy"], "ptp" in names["cupy.ndarray"]
        (True, True, True)
    """
    return read_names()


ndarray.__module__ = "cupy"  # as CuPy reports it in messages (type(x) -> <class 'cupy.ndarray'>)
