"""Step 1 of a check: validate the arguments (one validator for check_backward and check_double_backward).

Bad arguments become a TypeError or ValueError naming the argument, before
``func`` runs; what passes becomes a ``CheckArguments`` record that the other
steps read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker.arrays import as_entries, float_dtype, is_array
from minigrad.variable import Variable

# The tolerance of a directional comparison when ``atol``/``rtol`` are None, by the numerical dtype.
AUTO_RTOL: dict[str, float] = {"float64": 1e-6, "float32": 1e-4, "float16": 1e-2}


class StepError(ValueError, AssertionError):
    """A bad ``eps``: a ValueError, and an AssertionError like Chainer's ``assert eps > 0``."""


@dataclass
class CheckArguments:
    """The validated arguments of one check."""

    where: str
    x_data: tuple[Any, ...]
    params: tuple[Variable, ...]
    names: tuple[str, ...]  # one per input
    no_grads: tuple[bool, ...]
    eps: float
    atol: float
    rtol: float
    user_tolerance: bool  # atol or rtol given: Chainer's meaning, and they bound the precision check
    numerical_dtype: numpy.dtype
    detect_nondifferentiable: bool
    seed: int
    nondet_tol: float
    linear_in: frozenset[int] = frozenset()
    directions: int | None = None
    # input position -> the precision func itself rounds that input to (filled in as func runs)
    rounded_inputs: dict[int, numpy.dtype] = field(default_factory=dict)
    excluded_may_have_grads: bool = False

    @property
    def requires(self) -> tuple[bool, ...]:
        """Per input: whether its Variable requires grad (every float input does, as in Chainer)."""
        return tuple(x.dtype.kind == "f" for x in self.x_data)


def check_eps(eps: Any, where: str) -> float:
    if not _is_real(eps) or not (eps > 0 and math.isfinite(eps)):
        raise StepError(f"{where}: eps must be a positive finite number, got {eps!r}")
    return float(eps)


def draw_seed() -> int:
    return int(numpy.random.SeedSequence().entropy % (2 ** 63))


def validate_arguments(where: str, x_data: Any, params: Sequence[Any], eps: Any, atol: Any, rtol: Any,
                       no_grads: Sequence[bool] | None, dtype: Any, detect_nondifferentiable: bool,
                       seed: int | None, nondet_tol: Any, input_names: Sequence[str] | None = None,
                       linear_in: Sequence[int] = (), directions: int | None = None) -> CheckArguments:
    """The checks every entry point shares; raises TypeError/ValueError naming the bad argument."""
    x_data = _input_arrays(where, x_data)
    names = tuple(input_names) if input_names is not None else tuple(f"x_data[{i}]" for i in range(len(x_data)))
    if len(names) != len(x_data):
        raise ValueError(f"{where}: input_names has {len(names)} entries for {len(x_data)} inputs")
    for i, x in enumerate(x_data):
        if x.dtype.kind == "c":
            raise TypeError(f"{where}: {names[i]} is complex ({x.dtype}); complex inputs are not checked: pass "
                            "the real and imaginary parts as separate real inputs")
    eps = check_eps(eps, where)
    for name, tol in (("atol", atol), ("rtol", rtol), ("nondet_tol", nondet_tol)):
        if tol is not None and not _is_real(tol):
            raise TypeError(f"{where}: {name} must be a number{' or None' if name != 'nondet_tol' else ''}, "
                            f"got {type(tol).__name__}")
        if tol is not None and not (tol >= 0 and math.isfinite(tol)):
            raise ValueError(f"{where}: {name} must be >= 0{' or None' if name != 'nondet_tol' else ''}, "
                             f"got {tol!r}")
    nd = numpy.dtype(numpy.float64) if dtype is None else float_dtype(dtype, where)
    params = _params(where, params)
    no_grads = _no_grads(where, x_data, names, no_grads)
    for i, x in enumerate(x_data):
        if x.dtype.kind == "f" and not bool(backend.get_array_module(x).isfinite(x).all()):
            raise ValueError(f"{where}: {names[i]} contains NaN or Inf")
    return CheckArguments(
        where, x_data, params, names, no_grads, eps, 0.0 if atol is None else float(atol),
        AUTO_RTOL.get(nd.name, 1e-6) if rtol is None else float(rtol), atol is not None or rtol is not None, nd,
        bool(detect_nondifferentiable), _seed(where, seed), float(nondet_tol),
        _linear_in(where, linear_in, len(x_data)), _directions(where, directions))


def _is_real(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float, numpy.integer, numpy.floating))


def _seed(where: str, seed: Any) -> int:
    """The seed of the directions: a non-negative integer, or None to draw one."""
    if seed is None:
        return draw_seed()
    if isinstance(seed, bool) or not isinstance(seed, (int, numpy.integer)):
        raise TypeError(f"{where}: seed must be a non-negative integer or None, got {type(seed).__name__}")
    if seed < 0:
        raise ValueError(f"{where}: seed must be a non-negative integer or None, got {seed}")
    return int(seed)


def _input_arrays(where: str, x_data: Any) -> tuple[Any, ...]:
    x_data = as_entries(x_data, "x_data", where)
    if not x_data:
        raise ValueError(f"{where}: x_data is empty; pass at least one input array")
    for i, x in enumerate(x_data):
        if not is_array(x):
            raise TypeError(f"{where}: x_data[{i}] must be a NumPy or CuPy array, got {type(x).__name__}")
    return x_data


def param_entries(params: Any) -> tuple[Any, ...]:
    """``params`` as a tuple: one Variable stands for itself, as in Chainer (iterating it would yield its rows,
    each a new Variable)."""
    return (params,) if isinstance(params, Variable) else tuple(params)


def _params(where: str, params: Sequence[Any]) -> tuple[Variable, ...]:
    params = param_entries(params)
    for k, p in enumerate(params):
        if not isinstance(p, Variable):
            raise TypeError(f"{where}: params[{k}] must be a Variable (Parameter), got {type(p).__name__}")
        if p.array is None or p.dtype.kind != "f":
            raise ValueError(f"{where}: params[{k}] must hold a real float array")
    return params


def _no_grads(where: str, x_data: tuple[Any, ...], names: Sequence[str],
              no_grads: Sequence[bool] | None) -> tuple[bool, ...]:
    if no_grads is None:
        return tuple(x.dtype.kind != "f" for x in x_data)
    no_grads = tuple(bool(n) for n in no_grads)
    if len(no_grads) != len(x_data):
        raise ValueError(f"{where}: no_grads has {len(no_grads)} entries but there are {len(x_data)} inputs")
    for i, (x, skip) in enumerate(zip(x_data, no_grads)):
        if not skip and x.dtype.kind != "f":
            raise ValueError(f"{where}: {names[i]} has dtype {x.dtype}, which has no gradient; "
                             "its no_grads entry must be True")
    return no_grads


def _linear_in(where: str, linear_in: Sequence[int], count: int) -> frozenset[int]:
    if isinstance(linear_in, (int, numpy.integer)) and not isinstance(linear_in, bool):
        linear_in = (linear_in,)
    if not isinstance(linear_in, (tuple, list, set, frozenset, range)):
        raise ValueError(f"{where}: linear_in must be a tuple of input positions, got {linear_in!r}")
    positions = []
    for i in linear_in:
        if isinstance(i, bool) or not isinstance(i, (int, numpy.integer)) or not -count <= i < count:
            raise ValueError(f"{where}: linear_in must hold input positions in [0, {count}), got {tuple(linear_in)!r}")
        positions.append(int(i) % count)
    return frozenset(positions)


def _directions(where: str, directions: Any) -> int | None:
    if directions is None:
        return None
    if isinstance(directions, bool) or not isinstance(directions, (int, numpy.integer)) or directions < 1:
        raise ValueError(f"{where}: directions must be a positive integer or None, got {directions!r}")
    return int(directions)


def output_gradients(where: str, outputs: Sequence[Any], y_grad: Any, loss_scale: float) -> tuple[Any, ...]:
    """Match ``y_grad`` to the output arrays: one gradient array (or None) per output.

    ``y_grad=None`` (a loss) gives each scalar float output the gradient
    ``loss_scale``, a random scalar, so that a backward which forgets its output
    gradient is caught.
    """
    if y_grad is None:
        grads: list[Any] = []
        for j, y in enumerate(outputs):
            if y.dtype.kind != "f":
                grads.append(None)
                continue
            if y.size != 1:
                raise ValueError(f"{where}: y_grad=None is only for scalar outputs (a loss), but output {j} "
                                 f"has shape {y.shape}; pass one gradient array per output")
            grads.append(backend.get_array_module(y).full_like(y, loss_scale))
        return tuple(grads)
    y_grad = as_entries(y_grad, "y_grad", where)
    if len(y_grad) != len(outputs):
        raise ValueError(f"{where}: func returned {len(outputs)} output(s) but y_grad has {len(y_grad)} entries")
    return tuple(_output_gradient(where, j, y, gy) for j, (y, gy) in enumerate(zip(outputs, y_grad)))


def _output_gradient(where: str, j: int, y: Any, gy: Any) -> Any:
    if y.dtype.kind != "f":
        if gy is not None:
            raise ValueError(f"{where}: output {j} has non-float dtype {y.dtype} and no gradient; "
                             "its y_grad entry must be None")
        return None
    if gy is None:  # as in Chainer: this output gets no gradient (it does not take part in f)
        return None
    if not is_array(gy):
        raise TypeError(f"{where}: y_grad[{j}] must be an array or None, got {type(gy).__name__}")
    if gy.shape != y.shape or gy.dtype != y.dtype:
        raise ValueError(f"{where}: y_grad[{j}] has shape {gy.shape} and dtype {gy.dtype}, but output "
                         f"{j} has shape {y.shape} and dtype {y.dtype}")
    if backend.get_array_module(gy) is not backend.get_array_module(y):
        raise ValueError(f"{where}: y_grad[{j}] and output {j} live on different devices")
    return gy
