"""Build the simulated ``cupy``, ``cupyx``, ``cupy.random``, ``cupy.cuda``... modules from the pinned name list.

Every name of a section of ``cupy_names.txt`` is bound, and no other: NumPy's
object of that name where NumPy has one (types and constants as they are,
ufuncs and functions wrapped with CuPy's argument rules), a simulation written
here for the CuPy-only names minigrad uses, and for the rest a stub that raises
``NotImplementedError`` naming the simulator's limit.
"""

from __future__ import annotations

import contextlib
import functools
import types
from pathlib import Path
from typing import Any

import numpy

from minigrad.testing.cupy_sim._array import (
    UFUNCS,
    _d2h,
    _h2d,
    install_methods,
    ndarray,
    ufunc,
    unwrap,
    wrap,
)

VERSION = "13.6.0"
NAMES_FILE = Path(__file__).with_name("cupy_names.txt")

# Functions that take host data by design (constructors, dtype queries); every other function refuses it.
HOST_OK = frozenset({
    "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "asnumpy", "get_array_module",
    "ndim", "isscalar", "result_type", "can_cast", "common_type", "min_scalar_type", "promote_types",
    "issubdtype", "dtype", "finfo", "iinfo", "shape", "size",
})

# Functions whose output size depends on the data: CuPy synchronises with the device to learn it.
SIZE_SYNCS = frozenset({"nonzero", "flatnonzero", "argwhere", "unique", "extract", "compress", "trim_zeros"})


def read_names(path: Path = NAMES_FILE) -> dict[str, list[str]]:
    """The sections of the checked-in name list: ``{"cupy": [...], "cupy.random": [...], ...}``."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), [])
        elif current is not None:
            current.append(line)
    return sections


def _stub(qualname: str) -> Any:
    def stub(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"cupy-sim does not simulate {qualname} (it exists in CuPy {VERSION}); "
                                  "run this on a real GPU (scripts/gpu-check.sh)")

    stub.__name__ = qualname.rsplit(".", 1)[-1]
    return stub


class _StubModule(types.ModuleType):
    """A simulated module: a name it lacks is an AttributeError, as in CuPy (``hasattr`` works)."""

    simulated = True

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or self.simulated:
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r} "
                             f"(cupy-sim does not simulate {self.__name__})")


def _unsimulated(qualname: str) -> types.ModuleType:
    module = _StubModule(qualname)
    module.simulated = False
    return module


def _function(qualname: str, np_func: Any, host_ok: bool = False) -> Any:
    if host_ok:
        @functools.wraps(np_func)
        def function(*args: Any, **kwargs: Any) -> Any:
            args = tuple(a._a if isinstance(a, ndarray) else a for a in args)
            return np_func(*args, **kwargs)
    else:
        syncs = qualname.rsplit(".", 1)[-1] in SIZE_SYNCS

        @functools.wraps(np_func)
        def function(*args: Any, **kwargs: Any) -> Any:
            result = np_func(*unwrap(args, qualname), **unwrap(kwargs, qualname))
            if syncs:
                _d2h()
            return wrap(result)
    function.__module__ = qualname.rsplit(".", 1)[0]
    return function


# --- the CuPy-only pieces -----------------------------------------------------------------------------------

def _to_host_tree(obj: Any) -> Any:
    if isinstance(obj, ndarray):
        return obj._a
    if isinstance(obj, (list, tuple)):
        return [_to_host_tree(v) for v in obj]
    return obj


def array(obj: Any, dtype: Any = None, copy: bool = True, order: str = "K", subok: bool = False,
          ndmin: int = 0) -> ndarray:
    """Host data (or a device array) to a new device array; host data counts as a host-to-device copy."""
    if isinstance(obj, ndarray):
        return ndarray._of(numpy.array(obj._a, dtype=dtype, copy=copy, order=order, ndmin=ndmin))
    _h2d()
    return ndarray._of(numpy.array(_to_host_tree(obj), dtype=dtype, order=order, ndmin=ndmin))


def asarray(a: Any, dtype: Any = None, order: Any = None, *, blocking: bool = False) -> ndarray:
    if isinstance(a, ndarray):
        return a if dtype is None or numpy.dtype(dtype) == a.dtype else ndarray._of(a._a.astype(dtype))
    _h2d()
    return ndarray._of(numpy.array(_to_host_tree(a), dtype=dtype, order=order or "K"))


def ascontiguousarray(a: Any, dtype: Any = None) -> ndarray:
    a = asarray(a, dtype)
    return a if a.flags.c_contiguous else ndarray._of(numpy.ascontiguousarray(a._a))


def asnumpy(a: Any, stream: Any = None, order: str = "C", out: Any = None, *, blocking: bool = True) -> Any:
    if isinstance(a, ndarray):
        return a.get(order=order, out=out)
    return numpy.asarray(a, order=order)


def get_array_module(*args: Any) -> types.ModuleType:
    import sys

    for arg in args:
        if isinstance(arg, ndarray):
            return sys.modules["cupy"]
    return numpy


def matmul(a: Any, b: Any) -> ndarray:
    return UFUNCS["matmul"](a, b) if "matmul" in UFUNCS else wrap(numpy.matmul(unwrap(a, "matmul"),
                                                                                  unwrap(b, "matmul")))


class Device:
    """``cupy.cuda.Device``: the simulator has one device, 0; usable as a context manager."""

    _current = 0

    def __init__(self, device: Any = None) -> None:
        self.id = Device._current if device is None else int(getattr(device, "id", device))
        if self.id != 0:
            raise _runtime.CUDARuntimeError("cudaErrorInvalidDevice: invalid device ordinal (cupy-sim has 1)")
        self._previous: list[int] = []

    def __enter__(self) -> Device:
        self._previous.append(Device._current)
        Device._current = self.id
        return self

    def __exit__(self, *exc: Any) -> None:
        Device._current = self._previous.pop()

    def use(self) -> None:
        Device._current = self.id

    def synchronize(self) -> None:
        """Nothing to wait for: the simulator runs every kernel synchronously."""

    @property
    def compute_capability(self) -> str:
        return "90"

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("Device", self.id))


class _CUDARuntimeError(RuntimeError):
    pass


_runtime = types.SimpleNamespace(
    getDeviceCount=lambda: 1,
    getDeviceProperties=lambda device: {"name": b"cupy-sim (NumPy on the CPU)", "totalGlobalMem": 0,
                                        "major": 9, "minor": 0},
    getDevice=lambda: Device._current,
    deviceSynchronize=lambda: None,
    is_hip=False,
    runtimeGetVersion=lambda: 12000,
    CUDARuntimeError=_CUDARuntimeError,
)


class _Stream:
    def synchronize(self) -> None:
        """Nothing to wait for."""

    def __enter__(self) -> _Stream:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


def _cuda_module() -> types.ModuleType:
    cuda = _StubModule("cupy.cuda")
    cuda.Device = Device
    cuda.runtime = _runtime
    cuda.Stream = _Stream
    cuda.Stream.null = _Stream()
    cuda.get_current_stream = lambda: cuda.Stream.null
    cuda.is_available = lambda: True
    cuda.CUDARuntimeError = _CUDARuntimeError
    return cuda


class RandomState:
    """``cupy.random.RandomState``: its own stream (NumPy's PCG64), independent of ``numpy.random``."""

    def __init__(self, seed: Any = None) -> None:
        self.seed(seed)

    def seed(self, seed: Any = None) -> None:
        self._rng = numpy.random.Generator(numpy.random.PCG64(seed))

    def _draw(self, method: str, *args: Any, dtype: Any = None, **kwargs: Any) -> ndarray:
        out = numpy.asarray(getattr(self._rng, method)(*args, **kwargs))
        if dtype is not None:
            out = out.astype(dtype)
        return ndarray._of(out)

    def random_sample(self, size: Any = None, dtype: Any = float) -> ndarray:
        return self._draw("random", size, dtype=dtype)

    random = ranf = sample = random_sample

    def rand(self, *size: int, dtype: Any = float) -> ndarray:
        return self._draw("random", size, dtype=dtype)

    def randn(self, *size: int, dtype: Any = float) -> ndarray:
        return self._draw("standard_normal", size, dtype=dtype)

    def uniform(self, low: float = 0.0, high: float = 1.0, size: Any = None, dtype: Any = float) -> ndarray:
        return self._draw("uniform", low, high, size, dtype=dtype)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: Any = None, dtype: Any = float) -> ndarray:
        return self._draw("normal", loc, scale, size, dtype=dtype)

    def standard_normal(self, size: Any = None, dtype: Any = float) -> ndarray:
        return self._draw("standard_normal", size, dtype=dtype)

    def randint(self, low: int, high: int | None = None, size: Any = None, dtype: Any = int) -> ndarray:
        return self._draw("integers", low, high, size, dtype=dtype)

    def permutation(self, n: Any) -> ndarray:
        return self._draw("permutation", n._a if isinstance(n, ndarray) else n)

    def shuffle(self, a: ndarray) -> None:
        self._rng.shuffle(a._a)

    def choice(self, a: Any, size: Any = None, replace: bool = True, p: Any = None) -> ndarray:
        return self._draw("choice", unwrap(a, "cupy.random.choice"), size, replace, unwrap(p, "cupy.random.choice"))


class Generator(RandomState):
    """``cupy.random.Generator`` (from ``default_rng``)."""

    def integers(self, low: int, high: int | None = None, size: Any = None, dtype: Any = numpy.int64,
                 endpoint: bool = False) -> ndarray:
        return self._draw("integers", low, high, size, dtype=dtype, endpoint=endpoint)

    def random(self, size: Any = None, dtype: Any = numpy.float64, out: Any = None) -> ndarray:
        return self._draw("random", size, dtype=dtype)


_GLOBAL = RandomState()


def _random_module(names: list[str]) -> types.ModuleType:
    module = _StubModule("cupy.random")
    bound = {
        "RandomState": RandomState, "Generator": Generator, "seed": lambda seed=None: _GLOBAL.seed(seed),
        "get_random_state": lambda: _GLOBAL, "default_rng": lambda seed=None: Generator(seed),
        "set_random_state": lambda rs: globals().__setitem__("_GLOBAL", rs),
    }
    for name in names:
        if name in bound:
            setattr(module, name, bound[name])
        elif hasattr(RandomState, name):
            setattr(module, name, functools.partial(lambda name, *a, **k: getattr(_GLOBAL, name)(*a, **k), name))
        else:
            setattr(module, name, _stub(f"cupy.random.{name}"))
    return module


def _stride_tricks_module(names: list[str]) -> types.ModuleType:
    module = _StubModule("cupy.lib.stride_tricks")

    def as_strided(x: ndarray, shape: Any = None, strides: Any = None) -> ndarray:
        if not isinstance(x, ndarray):
            raise TypeError(f"as_strided: x must be a cupy.ndarray, got {type(x)}")
        return ndarray._of(numpy.lib.stride_tricks.as_strided(x._a, shape, strides))

    for name in names:
        setattr(module, name, as_strided if name == "as_strided" else _stub(f"cupy.lib.stride_tricks.{name}"))
    return module


def _plain_module(qualname: str, names: list[str], np_module: Any) -> types.ModuleType:
    module = _StubModule(qualname)
    for name in names:
        obj = getattr(np_module, name, None)
        if isinstance(obj, type):  # a class (cupy.linalg.LinAlgError is NumPy's): itself, catchable
            value = obj
        else:
            value = _function(f"{qualname}.{name}", obj) if callable(obj) else _stub(f"{qualname}.{name}")
        setattr(module, name, value)
    return module


def _cupyx_module(names: list[str]) -> types.ModuleType:
    module = _StubModule("cupyx")

    def scatter_add(a: ndarray, slices: Any, value: Any) -> None:
        a.scatter_add(slices, value)  # warns, as in CuPy: ndarray.scatter_add is deprecated

    def scatter_max(a: ndarray, slices: Any, value: Any) -> None:
        a.scatter_max(slices, value)

    def scatter_min(a: ndarray, slices: Any, value: Any) -> None:
        a.scatter_min(slices, value)

    simulated = {"scatter_add": scatter_add, "scatter_max": scatter_max, "scatter_min": scatter_min,
                 "errstate": numpy.errstate, "seterr": numpy.seterr, "geterr": numpy.geterr,
                 "allow_synchronize": lambda allow: contextlib.nullcontext()}
    for name in names:
        setattr(module, name, simulated.get(name) or _stub(f"cupyx.{name}"))
    return module


_SIMULATED = {"array": array, "asarray": asarray, "asanyarray": asarray, "ascontiguousarray": ascontiguousarray,
              "asnumpy": asnumpy, "get_array_module": get_array_module, "ndarray": ndarray, "ufunc": ufunc,
              "is_available": lambda: True, "fuse": lambda *a, **k: (a[0] if a and callable(a[0])
                                                                      else (lambda f: f))}


def build() -> dict[str, types.ModuleType]:
    """Fresh module objects for ``sys.modules``: ``{"cupy": ..., "cupyx": ..., "cupy.random": ..., ...}``."""
    names = read_names()
    install_methods(names["cupy.ndarray"])
    cupy = _StubModule("cupy")
    cupy.__version__ = f"{VERSION}+sim"
    cupy.__file__ = __file__
    submodules = {
        "cuda": _cuda_module(),
        "random": _random_module(names["cupy.random"]),
        "linalg": _plain_module("cupy.linalg", names["cupy.linalg"], numpy.linalg),
    }
    lib = _StubModule("cupy.lib")
    lib.stride_tricks = _stride_tricks_module(names["cupy.lib.stride_tricks"])
    submodules["lib"] = lib
    for name in names["cupy"]:
        if name in submodules:
            value: Any = submodules[name]
        elif name in _SIMULATED:
            value = _SIMULATED[name]
        elif isinstance(getattr(numpy, name, None), numpy.ufunc):
            value = UFUNCS.setdefault(name, ufunc(getattr(numpy, name)))
        elif hasattr(numpy, name):
            obj = getattr(numpy, name)
            if isinstance(obj, (type, types.ModuleType)) or not callable(obj):
                value = obj if not isinstance(obj, types.ModuleType) else _unsimulated(f"cupy.{name}")
            else:
                value = _function(f"cupy.{name}", obj, host_ok=name in HOST_OK)
        elif name in ("fft", "polynomial", "sparse", "testing"):
            value = _unsimulated(f"cupy.{name}")
        else:
            value = _stub(f"cupy.{name}")
        setattr(cupy, name, value)
    for alias, target in (("true_divide", "divide"), ("absolute", "abs")):  # operator lookups by NumPy name
        if alias not in UFUNCS and target in UFUNCS:
            UFUNCS[alias] = UFUNCS[target]
    for name in ("negative", "positive", "invert", "left_shift", "right_shift", "matmul"):
        if name not in UFUNCS and isinstance(getattr(numpy, name, None), numpy.ufunc):
            UFUNCS[name] = ufunc(getattr(numpy, name))
    modules = {"cupy": cupy, "cupyx": _cupyx_module(names["cupyx"]), "cupy.lib.stride_tricks": lib.stride_tricks}
    modules.update({f"cupy.{name}": module for name, module in submodules.items()})
    return modules


def lookup(np_module_name: str, name: str) -> Any:
    """The simulated counterpart of NumPy's ``np_module_name.name`` (for ``__array_function__``), or ``None``."""
    import sys

    target: Any = sys.modules.get("cupy")
    if getattr(target, "ndarray", None) is not ndarray:
        return None
    for part in [*np_module_name.split(".")[1:], name]:
        target = getattr(target, part, None)
    return target


__all__ = ["build", "read_names", "Device", "RandomState", "Generator", "array", "asarray", "asnumpy",
           "_d2h", "_h2d"]
