"""Axis arguments of the array ops: errors that name the op, the argument and the input's shape."""

from __future__ import annotations

from typing import Any

import numpy


def axis_in(op: str, axis: Any, shape: tuple[int, ...], argname: str = "axis", new_axis: bool = False) -> int:
    """``axis`` of an input of ``shape`` (of the output, one axis longer, when ``new_axis``), made non-negative."""
    if isinstance(axis, (bool, numpy.bool_)) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError(f"{op}: {argname} must be an int, got {type(axis).__name__}")
    ndim = len(shape) + int(new_axis)
    if not -ndim <= axis < ndim:
        valid = f"valid: {-ndim} to {ndim - 1}" if ndim else "it has no axes"
        raise ValueError(f"{op}: {argname}={axis} is out of range for an input of shape {shape} ({valid})")
    return int(axis) % ndim


def axes_in(op: str, axes: Any, shape: tuple[int, ...], argname: str = "axis") -> tuple[int, ...]:
    """An int or a sequence of distinct axes of an input of ``shape``, made non-negative (order kept)."""
    if not isinstance(axes, (list, tuple)):
        axes = (axes,)
    normalized = tuple(axis_in(op, a, shape, argname) for a in axes)
    if len(set(normalized)) != len(normalized):
        raise ValueError(f"{op}: {argname}={tuple(axes)} repeats an axis (input shape {shape})")
    return normalized
