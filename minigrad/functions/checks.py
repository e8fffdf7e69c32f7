"""Argument checks shared by the ops: each error names the op and the argument."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.variable import Variable, as_array

__all__ = [
    "to_variable", "to_operand", "normalize_axis", "normalize_axes", "require_float", "require_ndim", "require_integer",
]


def to_variable(op: str, value: Any, argname: str = "x") -> Variable:
    """Accept a Variable or an array (or NumPy scalar); refuse lists and other types."""
    if isinstance(value, Variable):
        return value
    return Variable(as_array(value, argname, op), requires_grad=False)


def to_operand(op: str, value: Any, other: Any) -> Variable:
    """Like ``to_variable``, but a Python scalar becomes a 0-dim array of ``other``'s dtype.

    So ``x * 2.0`` on float32 stays float32 (NEP 50 style); a float scalar
    meeting an integer operand gives float64, as in NumPy.
    """
    if isinstance(value, Variable):
        return value
    if isinstance(value, (bool, int, float, complex)) and not isinstance(value, numpy.generic):
        dtype = getattr(other, "dtype", None)
        if dtype is None:
            dtype = numpy.result_type(value)
        elif isinstance(value, float) and dtype.kind not in "fc":
            dtype = numpy.dtype(numpy.float64)
        elif isinstance(value, complex) and dtype.kind != "c":
            dtype = numpy.dtype(numpy.complex128)
        xp = backend.get_array_module(other)  # a raw cupy.ndarray has no .xp: ask the backend
        return Variable._from_node(xp.asarray(value, dtype=dtype), None, 0, False)
    if isinstance(value, numpy.generic):  # a NumPy scalar keeps its dtype and goes to the other operand's device
        return Variable._from_node(backend.get_array_module(other).asarray(value), None, 0, False)
    return Variable(as_array(value, "operand", op), requires_grad=False)


def normalize_axis(op: str, axis: Any, ndim: int, argname: str = "axis") -> int:
    """A single axis in ``[-ndim, ndim)`` made non-negative."""
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError(f"{op}: {argname} must be an int, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{op}: {argname}={axis} is out of range for an input with {ndim} dimensions")
    return int(axis) % ndim


def normalize_axes(op: str, axis: Any, ndim: int, argname: str = "axis") -> tuple[int, ...]:
    """``None``, an int or a tuple of ints -> a sorted tuple of distinct non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, Sequence):
        axis = (axis,)
    axes = tuple(normalize_axis(op, a, ndim, argname) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: {argname}={tuple(axis)} repeats an axis")
    return tuple(sorted(axes))


def require_float(op: str, x: Variable, argname: str = "x") -> None:
    if x.dtype.kind != "f":
        raise TypeError(f"{op}: {argname} must have a floating-point dtype, got {x.dtype}")


def require_integer(op: str, x: Variable, argname: str) -> None:
    if x.dtype.kind not in "iu":
        raise TypeError(f"{op}: {argname} must have an integer dtype, got {x.dtype}")


def require_ndim(op: str, x: Variable, ndims: int | Sequence[int], argname: str = "x") -> None:
    allowed = (ndims,) if isinstance(ndims, int) else tuple(ndims)
    if x.ndim not in allowed:
        wanted = " or ".join(str(n) for n in allowed)
        raise ValueError(f"{op}: {argname} must have {wanted} dimensions, got shape {x.shape}")


# --- scalar arguments, matching shapes, class labels -------------------------

def require_real(op: str, value: Any, argname: str, *, positive: bool = False) -> float:
    """A finite real number (``positive``: > 0) as a Python float; bools and arrays are refused."""
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"{op}: {argname} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not numpy.isfinite(value) or (positive and value <= 0):
        raise ValueError(f"{op}: {argname} must be a {'positive' if positive else 'finite'} number, got {value}")
    return value


def require_same_shape(op: str, x0: Variable, x1: Variable, argnames: tuple[str, str] = ("x0", "x1")) -> None:
    if x0.shape != x1.shape:
        raise ValueError(
            f"{op}: {argnames[0]} and {argnames[1]} must have the same shape, got {x0.shape} and {x1.shape}"
        )


def require_labels(op: str, t: Variable, n_classes: int, ignore_label: int | None, argname: str = "t") -> None:
    """Integer labels in ``[0, n_classes)``, or equal to ``ignore_label`` (when not ``None``)."""
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: {argname} must hold integer class labels, got dtype {t.dtype}")
    labels = t.array
    bad = (labels < 0) | (labels >= n_classes)
    if ignore_label is not None:
        bad &= labels != ignore_label
    if bool(bad.any()):
        wrong = labels[bad].reshape(-1)[:5].tolist()
        allowed = f" or ignore_label={ignore_label}" if ignore_label is not None else ""
        raise ValueError(
            f"{op}: {argname} has labels outside [0, {n_classes}){allowed}: {wrong} (shape {t.shape})"
        )


def to_float_variable(op: str, value: Any, argname: str = "x") -> Variable:
    """``to_variable`` for inputs that must be floating point (TypeError otherwise)."""
    if value.__class__ is Variable and value._data.dtype.kind == "f":  # the common case, fast
        return value
    x = to_variable(op, value, argname)
    require_float(op, x, argname)
    return x


__all__ += ["require_real", "require_same_shape", "require_labels", "to_float_variable"]
