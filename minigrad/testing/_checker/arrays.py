"""Small array helpers the checker's steps share (NumPy or CuPy arrays, never Variables)."""

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad import backend


def as_tuple(x: Any) -> tuple[Any, ...]:
    """``x`` as a tuple: tuples and lists as they are, anything else as a 1-tuple (minigrad.testing's one).

    Example:
        >>> from minigrad.testing._checker.arrays import as_tuple
        >>> as_tuple(1), as_tuple([1, 2]), as_tuple((3,))
        ((1,), (1, 2), (3,))
    """
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def as_entries(value: Any, argname: str, where: str) -> tuple[Any, ...]:
    """``value`` as one entry per input (or output): an array is one, a tuple or list one per element.

    A list or tuple holding numbers is refused with a ``TypeError``: ``[0.1, 0.2]``
    could be one input or two, and minigrad does not guess.

    Example:
        >>> import numpy as np
        >>> from minigrad.testing._checker.arrays import as_entries
        >>> len(as_entries((np.ones(2), np.ones(3)), "x_data", "check_backward"))
        2
        >>> as_entries([0.1, 0.2], "x_data", "check_backward")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        TypeError: check_backward: x_data is a list of numbers: one array, or one array per number? ...
    """
    entries = as_tuple(value)
    if isinstance(value, (list, tuple)) and any(isinstance(e, (int, float, numpy.generic)) for e in entries):
        raise TypeError(f"{where}: {argname} is a {type(value).__name__} of numbers: one array, or one array per "
                        f"number? minigrad does not guess: pass numpy.asarray({argname}, dtype=...) for one array, "
                        "or a tuple of arrays, one per entry")
    return entries


def is_array(x: Any) -> bool:
    if isinstance(x, numpy.ndarray):
        return True
    return backend.get_array_module(x) is not numpy and hasattr(x, "dtype") and hasattr(x, "shape")


def layout_copy(a: Any) -> Any:
    """A copy of ``a`` with the memory layout of ``a``: the same strides, negative and zero ones included.

    ``check_backward`` runs ``func`` on these, so that a backward that is
    wrong only for a transposed view, a strided slice or a broadcast array is
    checked as the caller gives it. An array module without ``as_strided``
    (cupy-sim) gets a copy in the nearest order (``order="K"``).
    """
    if a.ndim == 0 or a.size == 0 or a.flags.c_contiguous:
        return a.copy()
    if a.flags.f_contiguous:
        return a.copy(order="F")
    stride_tricks = getattr(getattr(backend.get_array_module(a), "lib", None), "stride_tricks", None)
    if not hasattr(stride_tricks, "as_strided") or any(s % a.itemsize for s in a.strides):
        return a.copy(order="K")
    flips = tuple(slice(None, None, -1) if s < 0 else slice(None) for s in a.strides)
    forward = a[flips]  # every stride >= 0
    extent = 1 + sum((n - 1) * s for n, s in zip(forward.shape, forward.strides)) // a.itemsize
    buffer = backend.get_array_module(a).zeros(extent, a.dtype)
    view = stride_tricks.as_strided(buffer, forward.shape, forward.strides)
    view[...] = forward  # a zero stride writes the same value more than once
    return view[flips]


def is_c_contiguous(a: Any) -> bool:
    return bool(a.flags.c_contiguous) or a.ndim == 0


def f64(a: Any) -> Any:
    """The array in float64 (the array itself when it already is)."""
    return a.astype(numpy.float64, copy=False)


def dot(a: Any, b64: Any) -> float:
    """sum(a * b64) in float64 (``b64`` is float64)."""
    if a.dtype == b64.dtype:
        return float(backend.get_array_module(a).vdot(a.ravel(), b64.ravel()))
    return float((a * b64).sum())


def absolute(a: Any) -> Any:
    """abs(a), in place for a fresh temporary array (NumPy turns 0-dim results into scalars)."""
    xp = backend.get_array_module(a)
    if isinstance(a, (numpy.ndarray, getattr(xp, "ndarray", numpy.ndarray))) and a.ndim:
        return xp.abs(a, out=a)
    return xp.asarray(abs(a))


def rms(a: Any) -> float:
    """The root mean square of ``a``'s elements, in float64; scaled by the largest first where the squares
    would underflow or overflow (elements below 1e-154 or above 1e154).

    Example:
        >>> import numpy as np
        >>> round(rms(np.array([3e-200, 4e-200])) / 1e-200, 12) == round(12.5 ** 0.5, 12)
        True
    """
    if a.size == 0:
        return 0.0
    flat = a.ravel() if a.dtype.itemsize >= 4 else a.ravel().astype(numpy.float64)  # (float16 squares overflow)
    xp = backend.get_array_module(a)
    square = abs(float(xp.vdot(flat, flat))) / a.size
    if 1e-300 < square < 1e300:
        return math.sqrt(square)
    largest = float(abs(flat).max())
    if largest == 0.0 or not math.isfinite(largest):  # (an inf or a NaN is its own rms)
        return largest
    scaled = flat / largest
    return largest * math.sqrt(abs(float(xp.vdot(scaled, scaled))) / a.size)


def same(a: Any, b: Any) -> bool:
    """Exact equality, NaN equal to NaN."""
    xp = backend.get_array_module(a)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if bool(xp.all(a == b)):
        return True
    return a.dtype.kind in "fc" and bool(xp.all((a == b) | (xp.isnan(a) & xp.isnan(b))))


def first_difference(a: Any, b: Any) -> str:
    xp = backend.get_array_module(a)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shape/dtype {a.shape}/{a.dtype} became {b.shape}/{b.dtype}"
    differ = ~((a == b) | (xp.isnan(a) & xp.isnan(b))) if a.dtype.kind in "fc" else a != b
    flat = int(backend.to_cpu(xp.argmax(differ.reshape(-1))))
    index = element_index(flat, a.shape)
    return f"{int(differ.sum())} element(s) changed, e.g. at {index}: {a[index]!r} -> {b[index]!r}"


def close_repeat(a: Any, b: Any, tolerance: float = 0.0) -> bool:
    """Results of two identical calls: equal up to a few ulps (GPU reductions may reorder sums),
    or within ``tolerance`` (a nondeterminism the user accepts)."""
    if same(a, b) or a.dtype.kind not in "fc":
        return same(a, b)
    xp = backend.get_array_module(a)
    a64, b64 = f64(a), f64(b)
    finite = xp.isfinite(a64) & xp.isfinite(b64)
    if not bool(xp.all(finite | ((a64 == b64) | (xp.isnan(a64) & xp.isnan(b64))))):
        return False
    if a.size == 0:
        return True
    bound = 8 * eps_of(a.dtype) * (abs(a64) + float(abs(xp.where(finite, a64, 0)).max())) + tolerance
    return bool(xp.all(~finite | (abs(a64 - b64) <= bound)))


def eps_of(dtype: Any) -> float:
    dtype = numpy.dtype(dtype)
    return float(numpy.finfo(dtype).eps) if dtype.kind == "f" else 0.0


def float_dtype(dtype: Any, where: str) -> numpy.dtype:
    try:
        dt = numpy.dtype(dtype)
    except TypeError:
        raise TypeError(f"{where}: dtype must be a floating-point dtype or None, got {dtype!r}") from None
    if dt.kind != "f":
        raise TypeError(f"{where}: dtype must be a floating-point dtype or None, got {dt}")
    return dt


def element_index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in numpy.unravel_index(flat, shape)) if shape else ()
