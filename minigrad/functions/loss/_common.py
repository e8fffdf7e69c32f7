"""Helpers shared by the loss modules: operand checks and float16-safe accumulation."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input, require_same_shape
from minigrad.variable import Variable


def float_pair(op: str, x0: Any, x1: Any, names: tuple[str, str] = ("x0", "x1")) -> tuple[Variable, Variable]:
    """Two float operands of one shape and one dtype (the losses do not broadcast)."""
    x0 = as_input(op, x0, names[0], float_only=True)
    x1 = as_input(op, x1, names[1], float_only=True)
    require_same_shape(op, x0, x1, names)
    if x0.dtype != x1.dtype:
        raise TypeError(f"{op}: {names[0]} and {names[1]} must have the same dtype, got {x0.dtype} and {x1.dtype}")
    return x0, x1


def widened(x: Any) -> Any:
    """float16 arrays as float32 (sums of many float16 terms overflow or lose all precision)."""
    return x.astype(numpy.float32) if x.dtype == numpy.float16 else x


def check_reduce(op: str, reduce: Any, allowed: tuple[str, ...]) -> str:
    if reduce not in allowed:
        raise ValueError(f"{op}: reduce must be one of {', '.join(map(repr, allowed))}, got {reduce!r}")
    return reduce


class SumDivided(FunctionNode):
    """``sum(x) / divisor`` as a 0-dim array of ``x``'s dtype, summed in float32 for float16 (see ``widened``)."""

    def __init__(self, divisor: float) -> None:
        self.divisor = divisor

    def forward(self, inputs):
        x, = inputs
        self.in_shape = x.shape
        return get_array_module(x).asarray(widened(x).sum() / self.divisor, dtype=x.dtype),

    def backward(self, indexes, grad_outputs):
        return F.broadcast_to(grad_outputs[0] * (1.0 / self.divisor), self.in_shape),


def sum_divided(x: Variable, divisor: float) -> Variable:
    """The sum of every element of ``x`` over ``divisor`` (the batch size for Chainer's ``reduce="mean"``)."""
    return SumDivided(float(divisor)).apply((x,))[0]


def require_batch(op: str, x: Variable, argname: str = "x") -> int:
    """The batch size ``len(x)``, which must be positive: ``reduce="mean"`` divides by it."""
    if x.ndim == 0 or len(x) == 0:
        raise ValueError(f"{op}: {argname} must hold at least one sample to average over, got shape {x.shape}")
    return len(x)
