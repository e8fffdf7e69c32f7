"""One order up: the first-order gradient function that ``check_double_backward`` checks.

It takes the inputs and the output gradients as its inputs and returns the
gradients of the checked float inputs (and of the parameters), computed with
``enable_double_backprop=True``. A missing first-order gradient counts as
zero. It is linear in the output gradients, so those inputs are checked with
the adjoint identity (no step).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad.function_node import grad as _grad
from minigrad.functions.array.cast import cast as _cast
from minigrad.testing._checker.arrays import as_entries, as_tuple, is_array
from minigrad.variable import Variable


@dataclass
class FirstOrder:
    """``func``'s gradient function and how to call check_backward on it."""

    func: Callable[..., Any]
    inputs: tuple[Any, ...]  # x_data, then the output gradients that take part
    names: list[str]
    no_grads: tuple[bool, ...]
    linear_in: tuple[int, ...]
    rounded_inputs: dict[int, numpy.dtype] = field(default_factory=dict)


def first_order(where: str, func: Callable[..., Any], x_data: tuple[Any, ...], y_grad: Any,
                params: Sequence[Variable], no_grads: tuple[bool, ...], checked: Sequence[int],
                linear_in: frozenset[int], loss_scale: float, x_names: Sequence[str]) -> FirstOrder:
    """The first-order gradient function of ``func`` at the output gradients ``y_grad`` (its inputs named
    ``x_names``, then ``y_grad[j]``)."""
    n_x, scalar = len(x_data), y_grad is None
    y_grads = () if scalar else as_entries(y_grad, "y_grad", where)
    for j, gy in enumerate(y_grads):
        if gy is not None and not is_array(gy):
            raise TypeError(f"{where}: y_grad[{j}] must be an array or None, got {type(gy).__name__}")
    present = [j for j, gy in enumerate(y_grads) if gy is not None]
    rounded: dict[int, numpy.dtype] = {}  # filled in as it runs, read by the numerical noise bound

    def gradient_function(*args: Variable) -> tuple[Variable, ...]:
        xs = args[:n_x]
        ys = as_tuple(func(*xs))
        for j, y in enumerate(ys):
            if not isinstance(y, Variable):
                raise TypeError(f"{where}: func must return a Variable or a tuple of Variables; output {j} is "
                                f"{type(y).__name__}")
        if scalar:
            outs, seeds = _loss_seeds(where, ys, loss_scale)
        else:
            outs, seeds = _output_seeds(where, ys, len(y_grads), dict(zip(present, args[n_x:])), n_x, present,
                                        rounded)
        wrt = [xs[i] for i in checked] + list(params)
        grads = _grad(outs, wrt, seeds, enable_double_backprop=True) if outs and wrt else [None] * len(wrt)
        # a missing first-order gradient counts as zero
        return tuple(Variable(v.xp.zeros_like(v.array), requires_grad=False) if g is None else g
                     for g, v in zip(grads, wrt))

    inputs = x_data + tuple(y_grads[j] for j in present)
    names = list(x_names) + [f"y_grad[{j}]" for j in present]
    linear = tuple(sorted(linear_in)) + tuple(range(n_x, n_x + len(present)))
    return FirstOrder(gradient_function, inputs, names, tuple(no_grads) + (False,) * len(present), linear,
                      rounded)


def _loss_seeds(where: str, ys: Sequence[Variable], loss_scale: float) -> tuple[list[Variable], list[Any]]:
    outs = [y for y in ys if y.dtype.kind == "f"]
    for y in outs:
        if y.size != 1:
            raise ValueError(f"{where}: y_grad=None is only for scalar outputs (a loss), but an output "
                             f"has shape {y.shape}")
    # the output gradient of a scalar loss: not 1, so a missing * gy shows
    return outs, [Variable(y.xp.full_like(y.array, loss_scale), requires_grad=False) for y in outs]


def _output_seeds(where: str, ys: Sequence[Variable], count: int, given: dict[int, Variable], n_x: int,
                  present: list[int], rounded: dict[int, numpy.dtype]) -> tuple[list[Variable], list[Any]]:
    if count != len(ys):
        raise ValueError(f"{where}: func returned {len(ys)} output(s) but y_grad has {count} entries")
    outs, seeds = [], []
    for j, y in enumerate(ys):
        if j not in given:  # an output whose y_grad entry is None gets no gradient
            continue
        g = given[j]
        if g.shape == y.shape and g.dtype != y.dtype and g.dtype.kind == y.dtype.kind == "f":
            # the float64 reference pass upcasts y_grad, but an op like cast(x, float32) keeps its output
            # dtype: follow the output, through a differentiable cast, and say so: that rounding is noise
            # in the numerical derivative w.r.t. y_grad
            g = _cast(g, y.dtype)
            rounded[n_x + present.index(j)] = y.dtype
        if g.shape != y.shape or g.dtype != y.dtype:
            raise ValueError(f"{where}: y_grad[{j}] has shape {g.shape} and dtype {g.dtype}, but "
                             f"output {j} has shape {y.shape} and dtype {y.dtype}")
        outs.append(y)
        seeds.append(g)
    return outs, seeds
