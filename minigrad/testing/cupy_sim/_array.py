"""The simulated ``cupy.ndarray`` and ``cupy.ufunc``: a NumPy array inside, CuPy's rules outside.

The array is deliberately *not* a ``numpy.ndarray`` subclass: NumPy would then
treat it as host data. Every rule below is one CuPy enforces (read in CuPy
v13.6.0's ``cupy/_core/core.pyx``, ``_kernel.pyx`` and ``_routines_indexing.pyx``):

- no implicit conversion to NumPy (``__array__`` raises CuPy's TypeError);
- ufuncs take cupy arrays and scalars only (``Unsupported type``), so NumPy
  arrays and lists are refused, in either operand order;
- indexing converts lists and NumPy index arrays to device arrays, wraps
  out-of-bounds *array* indices (CuPy gathers with ``mode='wrap'``) and raises
  ``IndexError`` for out-of-bounds *scalar* indices;
- a NumPy array assigned into a slice must match exactly (else ``ValueError``);
- ``.get()``, ``.item()``, ``.tolist()``, ``float()``/``int()``/``bool()``,
  ``repr`` are device-to-host transfers and are counted (``cupy_sim.count_transfers``),
  and so are the synchronisations CuPy makes to size a data-dependent output
  (``nonzero`` and its relatives, boolean-mask indexing).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy

SCALAR_TYPES = (bool, int, float, complex, numpy.generic)


@dataclass
class Transfers:
    """Counts of simulated transfers between host and device (what ``cupy_sim.count_transfers`` yields).

    Example:
        >>> from minigrad.testing import cupy_sim
        >>> with cupy_sim.install() as cp, cupy_sim.count_transfers() as counts:
        ...     x = cp.asarray([1.0, 2.0])       # host to device
        ...     total = x.sum().item()           # device to host
        >>> counts.host_to_device, counts.device_to_host, total
        (1, 1, 3.0)
    """

    device_to_host: int = 0
    host_to_device: int = 0


TRANSFERS = Transfers()  # the running totals; ``cupy_sim.count_transfers()`` reports differences


def _d2h() -> None:
    TRANSFERS.device_to_host += 1


def _h2d() -> None:
    TRANSFERS.host_to_device += 1


def _refuse_host(value: Any, where: str) -> None:
    raise TypeError(
        f"{where}: got a {type(value).__module__}.{type(value).__name__} where CuPy needs a cupy.ndarray "
        f"(cupy-sim, like CuPy, does not convert host arrays implicitly; use cupy.asarray)")


def unwrap(value: Any, where: str) -> Any:
    """The NumPy array inside ``value`` (recursively through lists and tuples); host arrays are refused."""
    if isinstance(value, ndarray):
        return value._a
    if isinstance(value, numpy.ndarray):
        _refuse_host(value, where)
    if isinstance(value, (list, tuple)):
        return type(value)(unwrap(v, where) for v in value)
    return value


def wrap(value: Any) -> Any:
    """NumPy results as simulated device arrays; NumPy scalars become 0-d arrays, as CuPy returns."""
    if isinstance(value, numpy.ndarray):
        return ndarray._of(value)
    if isinstance(value, numpy.generic):
        return ndarray._of(numpy.asarray(value))
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


class ufunc:
    """A CuPy-style ufunc: inputs must be cupy arrays or scalars."""

    def __init__(self, np_ufunc: numpy.ufunc) -> None:
        self._u = np_ufunc
        self.__name__ = np_ufunc.__name__
        self.nin, self.nout, self.nargs = np_ufunc.nin, np_ufunc.nout, np_ufunc.nargs
        self.__doc__ = f"cupy-sim ufunc {np_ufunc.__name__} (NumPy's, with CuPy's argument rules)"

    def __repr__(self) -> str:
        return f"<ufunc 'cupy_{self.__name__}'>"

    def _operand(self, x: Any) -> Any:
        if isinstance(x, ndarray):
            return x._a
        if type(x) in SCALAR_TYPES or isinstance(x, numpy.generic):
            return x
        raise TypeError(f"Unsupported type {type(x)}")

    def _out(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        out = kwargs.get("out")
        if out is not None:
            if isinstance(out, tuple):
                out = out[0] if len(out) == 1 else out
            if not isinstance(out, ndarray):
                raise TypeError(f"{self.__name__}: out must be a cupy.ndarray, got {type(out)}")
            kwargs = {**kwargs, "out": out._a}
        return kwargs

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        inputs = [self._operand(x) for x in args[:self.nin]]
        if len(args) > self.nin:  # outputs given positionally
            kwargs = {**kwargs, "out": args[self.nin]}
        out = kwargs.get("out")
        result = self._u(*inputs, **self._out(kwargs))
        if isinstance(out, ndarray):
            return out
        return wrap(result)

    def at(self, a: ndarray, indices: Any, b: Any = None) -> None:
        """``a[indices] op= b`` unbuffered; CuPy supports it for add, subtract, maximum, minimum, bitwise ops."""
        if self.__name__ not in ("add", "subtract", "maximum", "minimum", "bitwise_and", "bitwise_or",
                                 "bitwise_xor"):
            raise NotImplementedError(f"`cupy_{self.__name__}.at` is not supported yet")
        if not isinstance(a, ndarray):
            raise TypeError(f"{self.__name__}.at: 'a' must be a cupy.ndarray, got {type(a)}")
        a._scatter(indices, b, self._u)

    def reduce(self, array: ndarray, axis: Any = 0, dtype: Any = None, out: Any = None,
               keepdims: bool = False) -> Any:
        if self.__name__ not in ("add", "multiply"):
            raise NotImplementedError(f"`cupy_{self.__name__}.reduce` is not supported yet")
        method = array.sum if self.__name__ == "add" else array.prod
        return method(axis=axis, dtype=dtype, out=out, keepdims=keepdims)

    def outer(self, a: Any, b: Any, **kwargs: Any) -> Any:
        return wrap(self._u.outer(self._operand(a), self._operand(b), **self._out(kwargs)))


UFUNCS: dict[str, ufunc] = {}  # filled by the module builder; operators look them up by name


def _uf(name: str) -> ufunc:
    return UFUNCS[name]


def _use_rop(x: Any, y: Any) -> bool:
    """CuPy's ``_should_use_rop``: defer to ``y``'s reflected operator (e.g. a Variable's)."""
    try:
        y_ufunc = y.__array_ufunc__
    except AttributeError:
        return getattr(x, "__array_priority__", 0) < getattr(y, "__array_priority__", 0)
    return y_ufunc is None


def _binary(name: str, reflected: bool = False) -> Any:
    def op(self: ndarray, other: Any) -> Any:
        if _use_rop(self, other):
            return NotImplemented
        return _uf(name)(other, self) if reflected else _uf(name)(self, other)

    op.__name__ = f"__{'r' if reflected else ''}{name}__"
    return op


def _inplace(name: str) -> Any:
    def op(self: ndarray, other: Any) -> Any:
        return _uf(name)(self, other, out=self)

    return op


def _compare(name: str) -> Any:
    def op(self: ndarray, other: Any) -> Any:
        if _use_rop(self, other):
            return NotImplemented
        if isinstance(other, numpy.ndarray) and other.ndim == 0:
            other = other.item()  # CuPy's workaround for numpy/numpy#12142
        return _uf(name)(self, other)

    return op


def _method(name: str) -> Any:
    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        where = f"cupy.ndarray.{name}"
        return wrap(getattr(self._a, name)(*unwrap(args, where), **unwrap(kwargs, where)))

    method.__name__ = name
    method.__doc__ = f"``numpy.ndarray.{name}`` on the simulated device array."
    return method


class ndarray:
    """A simulated ``cupy.ndarray``: a NumPy array held inside, refusing implicit conversion.

    Example:
        >>> from minigrad.testing import cupy_sim
        >>> with cupy_sim.install() as cp:
        ...     a = cp.arange(3.0)
        ...     float(a.sum()), type(a.sum()).__name__, a[[0, 4]].get()
        (3.0, 'ndarray', array([0., 1.]))
    """

    __slots__ = ("_a", "__weakref__")
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, shape: Any, dtype: Any = float, memptr: Any = None, strides: Any = None,
                 order: str = "C") -> None:
        if memptr is not None or strides is not None:
            raise NotImplementedError("cupy-sim: ndarray(memptr=..., strides=...) is not simulated")
        self._a = numpy.empty(shape, dtype=dtype, order=order)

    @classmethod
    def _of(cls, a: numpy.ndarray) -> ndarray:
        obj = cls.__new__(cls)
        obj._a = a
        return obj

    # --- attributes -------------------------------------------------------------------------------------
    shape = property(lambda self: self._a.shape)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)
    strides = property(lambda self: self._a.strides)
    flags = property(lambda self: self._a.flags)
    T = property(lambda self: ndarray._of(self._a.T))
    real = property(lambda self: ndarray._of(self._a.real))
    imag = property(lambda self: ndarray._of(self._a.imag))
    base = property(lambda self: None if self._a.base is None else ndarray._of(self._a.base))

    @property
    def device(self) -> Any:
        from minigrad.testing.cupy_sim._module import Device

        return Device(0)

    # --- conversions: explicit ones work and are counted, implicit ones raise --------------------------
    def __array__(self, dtype: Any = None, copy: Any = None) -> numpy.ndarray:
        raise TypeError("Implicit conversion to a NumPy array is not allowed. "
                        "Please use `.get()` to construct a NumPy array explicitly.")

    def get(self, stream: Any = None, order: str = "C", out: Any = None, blocking: bool = True) -> numpy.ndarray:
        """A NumPy copy (a device-to-host transfer)."""
        _d2h()
        if out is not None:
            out[...] = self._a
            return out
        return numpy.array(self._a, order=order)

    def set(self, arr: numpy.ndarray, stream: Any = None) -> None:
        """Copy a NumPy array of the same shape and dtype in (a host-to-device transfer)."""
        if not isinstance(arr, numpy.ndarray) or arr.shape != self.shape or arr.dtype != self.dtype:
            raise ValueError("set: the NumPy array must have the same shape and dtype")
        _h2d()
        self._a[...] = arr

    def item(self) -> Any:
        _d2h()
        return self._a.item()

    def tolist(self) -> Any:
        _d2h()
        return self._a.tolist()

    def tobytes(self, order: str = "C") -> bytes:
        _d2h()
        return self._a.tobytes(order)

    def __float__(self) -> float:
        _d2h()
        return float(self._a)

    def __int__(self) -> int:
        _d2h()
        return int(self._a)

    def __complex__(self) -> complex:
        _d2h()
        return complex(self._a)

    def __bool__(self) -> bool:
        _d2h()
        return bool(self._a)

    def __repr__(self) -> str:
        _d2h()
        return repr(self._a)

    def __str__(self) -> str:
        _d2h()
        return str(self._a)

    def __format__(self, spec: str) -> str:
        _d2h()
        return format(self._a.item() if self._a.ndim == 0 else self._a, spec)

    def __reduce__(self) -> Any:
        from minigrad.testing.cupy_sim import _module

        return _module.array, (self.get(),)

    def __copy__(self) -> ndarray:
        return ndarray._of(self._a.copy())

    def __deepcopy__(self, memo: dict[int, Any]) -> ndarray:
        return ndarray._of(self._a.copy())

    # --- NumPy interop: CuPy's protocols, which refuse mixing -----------------------------------------
    def __array_ufunc__(self, np_ufunc: numpy.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        func = UFUNCS.get(np_ufunc.__name__)
        if func is None or method not in ("__call__", "outer", "at", "reduce"):
            return NotImplemented
        for x in inputs:
            if not isinstance(x, (ndarray, numpy.ndarray, numpy.generic)) and type(x) not in SCALAR_TYPES:
                return NotImplemented
        return (func if method == "__call__" else getattr(func, method))(*inputs, **kwargs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        from minigrad.testing.cupy_sim import _module

        target = _module.lookup(func.__module__, func.__name__)
        if target is None or not all(issubclass(t, (ndarray, numpy.ndarray)) for t in types):
            return NotImplemented
        return target(*args, **kwargs)

    # --- container protocol and indexing ---------------------------------------------------------------
    def __len__(self) -> int:
        if self._a.ndim == 0:
            raise TypeError("len() of unsized object")
        return len(self._a)

    def __iter__(self) -> Any:
        if self._a.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(len(self._a)))

    def _key(self, key: Any) -> Any:
        """CuPy's index preparation: host index arrays copied in, out-of-bounds array indices wrapped."""
        items = list(key) if isinstance(key, tuple) else [key]
        for i, s in enumerate(items):
            if s is None or s is Ellipsis or isinstance(s, slice):
                continue
            if isinstance(s, ndarray):
                items[i] = s._a
            elif isinstance(s, (list, tuple, numpy.ndarray)) or isinstance(s, (bool, numpy.bool_)):
                converted = numpy.asarray(s)
                if converted.dtype == object:
                    raise IndexError("arrays used as indices must be of integer (or boolean) type")
                if isinstance(s, (list, tuple)) and converted.size == 0:
                    converted = converted.astype(numpy.int32)
                if not isinstance(s, (bool, numpy.bool_)):
                    _h2d()
                items[i] = converted
        consumed = sum(0 if s is None or s is Ellipsis else (s.ndim if isinstance(s, numpy.ndarray)
                                                              and s.dtype == bool else 1) for s in items)
        axis = 0
        for i, s in enumerate(items):
            if s is None:
                continue
            if s is Ellipsis:
                axis += max(self._a.ndim - consumed, 0)
            elif isinstance(s, numpy.ndarray) and s.dtype == bool:
                axis += s.ndim
            else:
                if isinstance(s, numpy.ndarray) and s.dtype.kind in "iu" and axis < self._a.ndim:
                    n = self._a.shape[axis]
                    if n:
                        items[i] = s % n  # CuPy wraps where NumPy raises IndexError
                axis += 1
        return tuple(items) if isinstance(key, tuple) else items[0]

    def __getitem__(self, key: Any) -> Any:
        key = self._key(key)
        if any(isinstance(k, numpy.ndarray) and k.dtype == bool and k.ndim for k in
               (key if isinstance(key, tuple) else (key,))):
            _d2h()  # a boolean mask's output size is data-dependent: CuPy synchronises to learn it
        return wrap(self._a[key])

    def nonzero(self) -> tuple[ndarray, ...]:
        _d2h()  # data-dependent output size: a synchronisation in CuPy
        return wrap(self._a.nonzero())

    def __setitem__(self, key: Any, value: Any) -> None:
        if isinstance(value, numpy.ndarray) and value.ndim:
            if type(key) is slice and key == slice(None) and value.shape == self.shape and value.dtype == self.dtype:
                _h2d()
                self._a[...] = value
                return
            raise ValueError("non-scalar numpy.ndarray cannot be used for fill")
        if isinstance(value, (list, tuple)):
            raise TypeError(f"Unsupported type {type(value)}")
        self._a[self._key(key)] = value._a if isinstance(value, ndarray) else value

    def _scatter(self, key: Any, value: Any, np_ufunc: numpy.ufunc) -> None:
        if isinstance(value, numpy.ndarray) or isinstance(value, (list, tuple)):
            raise TypeError(f"Unsupported type {type(value)}")
        key = self._key(key)
        np_ufunc.at(self._a, key, value._a if isinstance(value, ndarray) else value)

    def scatter_add(self, slices: Any, value: Any) -> None:
        """Deprecated in CuPy (warns, like CuPy 13): use ``cupy.add.at``."""
        warnings.warn("`ndarray.scatter_add` is deprecated. Please use `cupy.add.at` instead.",
                      DeprecationWarning, stacklevel=2)
        self._scatter(slices, value, numpy.add)

    def scatter_max(self, slices: Any, value: Any) -> None:
        warnings.warn("`ndarray.scatter_max` is deprecated Please use `cupy.maximum.at` instead.",
                      DeprecationWarning, stacklevel=2)
        self._scatter(slices, value, numpy.maximum)

    def scatter_min(self, slices: Any, value: Any) -> None:
        warnings.warn("`ndarray.scatter_min` is deprecated Please use `cupy.minimum.at` instead.",
                      DeprecationWarning, stacklevel=2)
        self._scatter(slices, value, numpy.minimum)

    def fill(self, value: Any) -> None:
        if isinstance(value, (numpy.ndarray, ndarray)) and value.shape != ():
            raise ValueError(f"non-scalar {type(value).__module__.split('.')[0]}.ndarray cannot be used for fill")
        self._a.fill(value._a if isinstance(value, ndarray) else value)

    def dot(self, b: ndarray, out: ndarray | None = None) -> ndarray:
        if not isinstance(b, ndarray):
            raise TypeError(f"Argument 'b' has incorrect type (expected cupy.ndarray, got {type(b).__name__})")
        return wrap(self._a.dot(b._a)) if out is None else wrap(self._a.dot(b._a, out=out._a))

    # --- unary operators ---------------------------------------------------------------------------------
    def __neg__(self) -> ndarray:
        return _uf("negative")(self)

    def __pos__(self) -> ndarray:
        return _uf("positive")(self)

    def __abs__(self) -> ndarray:
        return _uf("absolute")(self)

    def __invert__(self) -> ndarray:
        return _uf("invert")(self)

    def __matmul__(self, other: Any) -> Any:
        if _use_rop(self, other):
            return NotImplemented
        from minigrad.testing.cupy_sim._module import matmul

        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        from minigrad.testing.cupy_sim._module import matmul

        return matmul(other, self)


_OPERATORS = {"add": "add", "sub": "subtract", "mul": "multiply", "truediv": "true_divide",
              "floordiv": "floor_divide", "mod": "remainder", "pow": "power", "lshift": "left_shift",
              "rshift": "right_shift", "and": "bitwise_and", "or": "bitwise_or", "xor": "bitwise_xor"}
for _op, _name in _OPERATORS.items():
    setattr(ndarray, f"__{_op}__", _binary(_name))
    setattr(ndarray, f"__r{_op}__", _binary(_name, reflected=True))
    setattr(ndarray, f"__i{_op}__", _inplace(_name))
for _op, _name in {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
                   "eq": "equal", "ne": "not_equal"}.items():
    setattr(ndarray, f"__{_op}__", _compare(_name))


def install_methods(names: list[str]) -> None:
    """Give ``ndarray`` the methods of CuPy's name list that it does not define itself (NumPy's, wrapped)."""
    for name in names:
        if name not in ndarray.__dict__ and hasattr(numpy.ndarray, name) and callable(getattr(numpy.ndarray, name)):
            setattr(ndarray, name, _method(name))
