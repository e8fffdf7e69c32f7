"""The problem being checked: ``func``, its inputs, parameters and output gradients, and the guards.

A ``CheckProblem`` calls ``func`` on fresh Variables (backprop forced on, whatever
mode the caller is in), evaluates ``f = sum_j sum(y_j * y_grad_j)`` and runs
the backward passes. The guards turn broken set-ups into clear errors: a
``func`` whose forward or backward is not a function of its inputs, one that
modifies its inputs, a backward that modifies the output gradients it was given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy

from minigrad import backend
from minigrad.configuration import force_backprop_mode
from minigrad.function_node import grad as _grad
from minigrad.functions.array.identity import Identity
from minigrad.variable import Variable

# --- small array helpers ---------------------------------------------------------------

def as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def as_entries(value: Any, argname: str, where: str) -> tuple[Any, ...]:
    """``value`` as one entry per input (or output): an array is one, a tuple or list one per element.

    A list or tuple holding numbers is refused with a ``TypeError``: ``[0.1, 0.2]``
    could be one input or two, and minigrad does not guess.
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
    if a.size == 0:
        return 0.0
    flat = a.ravel()
    return math.sqrt(abs(float(backend.get_array_module(a).vdot(flat, flat))) / a.size)


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


# --- the problem -------------------------------------------------------------------------

class DirectionStats(NamedTuple):
    """Sums over one probe direction ``v`` that the noise bound of a probe needs."""

    share: float  # <g_ref, v>
    sum_abs: float  # sum |g_ref v|
    largest: float  # max |g_ref v|
    sum_x: float  # a bound on sum |g_ref x| (it only feeds a rounding floor)
    norm2: float  # ||v||^2


@dataclass
class Target:
    """One input or parameter whose gradient is checked."""

    name: str
    position: int  # index into x_data, or -1 for a parameter
    param: Variable | None
    base: Any  # array (own dtype, device) at the centre
    base_nd: Any  # the same, cast to the numerical dtype
    grad: Any = None  # backprop gradient under test (own dtype) or None
    ref: Any = None  # reference gradient (numerical dtype) or None
    direction: Any = None  # v, float64 on the device
    scale: float = 1.0  # rms magnitude of the input (1 when zero)
    stats: DirectionStats | None = None  # sums over the full direction
    share: float = 0.0  # <g_ref, direction> (>= 0): its part of the directional derivative
    boost: float = 1.0  # how much further than others it moves (an input func rounds coarser than nd)

    @property
    def label(self) -> str:
        return f"{self.name} (shape {self.base.shape}, {self.base.dtype})"


class BackwardRun(NamedTuple):
    """One forward and backward pass: the outputs, one gradient per target, the output gradients used."""

    outputs: tuple[Variable, ...]
    grads: list[Any]
    gys: tuple[Any, ...]


class CheckProblem:
    """``func`` with its inputs, parameters, output gradients and evaluation counter."""

    def __init__(self, func: Callable[..., Any], x_data: tuple[Any, ...], params: tuple[Variable, ...],
                 input_names: Sequence[str], where: str, rounded_inputs: dict[int, numpy.dtype],
                 nondet_tol: float = 0.0) -> None:
        self.func = func
        self.rounded_inputs = rounded_inputs  # input position -> the precision func rounds it to
        self.x_data = x_data
        self.params = params
        self.input_names = tuple(input_names)
        self.where = where
        self.nondet_tol = nondet_tol
        self.evaluations = 0
        self.last_inputs: list[Variable] = []
        self.float_outputs: tuple[int, ...] = ()
        self.gys: tuple[Any, ...] = ()  # float64 copies of the output gradients, per float output
        self.loss_scale = 1.0  # the output gradient of a scalar output when y_grad is None

    def call(self, arrays: Sequence[Any], requires: Sequence[bool]) -> tuple[Variable, ...]:
        """Run ``func`` on fresh Variables made from ``arrays``; check it returns Variables."""
        xs = [Variable(a, requires_grad=r) for a, r in zip(arrays, requires)]
        self.last_inputs = xs
        self.evaluations += 1
        with force_backprop_mode():
            outputs = self.func(*xs)
        outputs = as_tuple(outputs)
        if not outputs:
            raise ValueError(f"{self.where}: func returned no outputs")
        for j, y in enumerate(outputs):
            if not isinstance(y, Variable):
                raise TypeError(f"{self.where}: func must return a Variable or a tuple of Variables; "
                                f"output {j} is {type(y).__name__}")
            if y.dtype.kind == "c":
                raise TypeError(f"{self.where}: output {j} of func is complex ({y.dtype}); complex gradients are "
                                "not checked (check the real and imaginary parts as separate real outputs)")
        return outputs

    def value(self, outputs: Sequence[Variable]) -> float:
        """``f = sum_j sum(y_j * y_grad_j)`` in float64."""
        total = 0.0
        for j, gy in zip(self.float_outputs, self.gys):
            y = outputs[j].array
            if y.shape != gy.shape:
                raise ValueError(f"{self.where}: output {j} changed shape from {gy.shape} to {y.shape} "
                                 "when the inputs were perturbed")
            total += dot(y, gy)
        return total

    def l1_terms(self, outputs: Sequence[Variable]) -> tuple[float, float]:
        """(sum |y * y_grad|, eps of the least precise float output): scale of f's rounding.

        An accepted nondeterminism (``nondet_tol``) counts as rounding of that size."""
        total, eps, gy_l1 = 0.0, 0.0, 0.0
        for j, gy in zip(self.float_outputs, self.gys):
            y = outputs[j].array
            total += float(absolute(y * gy).sum())
            gy_l1 += float(absolute(gy.copy()).sum())
            eps = max(eps, eps_of(y.dtype))
        if self.nondet_tol and total > 0:
            eps = max(eps, self.nondet_tol * gy_l1 / total)
        return total, eps

    def output_grads(self, outputs: tuple[Variable, ...], y_grad: Any) -> tuple[Any, ...]:
        """Match ``y_grad`` to the outputs; returns one gradient array (or None) per output."""
        where = self.where
        if y_grad is None:
            grads: list[Any] = []
            for j, y in enumerate(outputs):
                if y.dtype.kind != "f":
                    grads.append(None)
                    continue
                if y.size != 1:
                    raise ValueError(f"{where}: y_grad=None is only for scalar outputs (a loss), but output {j} "
                                     f"has shape {y.shape}; pass one gradient array per output")
                grads.append(y.xp.full_like(y.array, self.loss_scale))
            return tuple(grads)
        y_grad = as_entries(y_grad, "y_grad", where)
        if len(y_grad) != len(outputs):
            raise ValueError(f"{where}: func returned {len(outputs)} output(s) but y_grad has {len(y_grad)} "
                             "entries")
        grads = []
        for j, (y, gy) in enumerate(zip(outputs, y_grad)):
            if y.dtype.kind != "f":
                if gy is not None:
                    raise ValueError(f"{where}: output {j} has non-float dtype {y.dtype} and no gradient; "
                                     "its y_grad entry must be None")
                grads.append(None)
                continue
            if gy is None:  # as in Chainer: this output gets no gradient (it does not take part in f)
                grads.append(None)
                continue
            if not is_array(gy):
                raise TypeError(f"{where}: y_grad[{j}] must be an array or None, got {type(gy).__name__}")
            if gy.shape != y.shape or gy.dtype != y.dtype:
                raise ValueError(f"{where}: y_grad[{j}] has shape {gy.shape} and dtype {gy.dtype}, but output "
                                 f"{j} has shape {y.shape} and dtype {y.dtype}")
            if backend.get_array_module(gy) is not y.xp:
                raise ValueError(f"{where}: y_grad[{j}] and output {j} live on different devices")
            grads.append(gy)
        return tuple(grads)

    def _backward(self, outputs: tuple[Variable, ...], seeds: Sequence[Any],
                  targets: Sequence[Target]) -> list[Any]:
        """Gradients of the targets, backpropagated from ``seeds`` through all outputs at once."""
        grad_vars = [Variable(s, requires_grad=False) for s in seeds if s is not None]
        differentiable = tuple(outputs[j] for j, s in enumerate(seeds) if s is not None)
        input_vars = self.last_inputs
        target_vars = [input_vars[t.position] if t.param is None else t.param for t in targets]
        if not (differentiable and target_vars):
            return [None] * len(targets)
        with force_backprop_mode():
            joined = Identity().apply(differentiable)
            results = _grad(list(joined), target_vars, grad_vars)
        return [None if g is None else g.array for g in results]

    def first_pass(self, arrays: Sequence[Any], requires: Sequence[bool], targets: Sequence[Target],
                   y_grad: Any) -> BackwardRun:
        """Forward and backward in the inputs' own dtype: validates ``y_grad`` and runs the guards."""
        copies = list(self.x_data)  # the caller's arrays: pristine, func never sees them
        param_copies = [p.array.copy() for p in self.params]
        outputs = self.call(arrays, requires)
        self.guard_unchanged(copies, param_copies, "func")
        gys = self.output_grads(outputs, y_grad)
        self.float_outputs = tuple(j for j, g in enumerate(gys) if g is not None)
        self.gys = tuple(f64(gys[j]) for j in self.float_outputs)
        seeds = tuple(g if g is None else g.copy() for g in gys)  # to catch a backward that writes into them
        grads = self._backward(outputs, seeds, targets)
        for j, (before, after) in enumerate(zip(gys, seeds)):
            if before is not None and not same(before, after):
                raise RuntimeError(
                    f"{self.where}: backward modified the output gradient it was given (y_grad[{j}]): "
                    f"{first_difference(before, after)}; a backward must not write into grad_outputs")
        self.guard_unchanged(copies, param_copies, "backward")
        return BackwardRun(outputs, grads, gys)

    def repeat_pass(self, arrays: Sequence[Any], requires: Sequence[bool], targets: Sequence[Target],
                    first: BackwardRun) -> None:
        """Forward and backward again at the same point: both must give the same results
        (up to ``nondet_tol``): a backward that draws random numbers or reads a counter is reported."""
        outputs = self.call(arrays, requires)
        tol = self.nondet_tol
        for j, (y, z) in enumerate(zip(first.outputs, outputs)):
            if y.shape != z.shape or y.dtype != z.dtype or not close_repeat(y.array, z.array, tol):
                raise RuntimeError(f"{self.where}: func is not deterministic: output {j} differs between two calls "
                                   f"at the same inputs ({first_difference(y.array, z.array)}); fix its randomness "
                                   "(e.g. draw a dropout mask once, outside func) or pass nondet_tol")
        seeds = tuple(g if g is None else g.copy() for g in first.gys)
        grads = self._backward(outputs, seeds, targets)
        for t, g, h in zip(targets, first.grads, grads):
            if (g is None) != (h is None) or (g is not None and (g.shape != h.shape or not close_repeat(g, h, tol))):
                change = "None" if g is None or h is None else first_difference(g, h)
                from minigrad.testing._checker import hints  # (hints imports this module)

                raise RuntimeError(f"{self.where}: backward is not deterministic: the gradient of {t.name} differs "
                                   f"between two backward passes at the same inputs ({change}); a backward must be "
                                   "a function of its inputs and output gradients (or pass nondet_tol)\n  "
                                   + hints.nondeterministic_backward_hint())

    def contiguous_pass(self, arrays: Sequence[Any], requires: Sequence[bool], targets: Sequence[Target],
                        first: BackwardRun) -> list[Any]:
        """Forward and backward on C-contiguous copies of ``arrays`` (which keep the caller's layout)."""
        outputs = self.call([a.copy() for a in arrays], requires)
        return self._backward(outputs, tuple(g if g is None else g.copy() for g in first.gys), targets)

    def reference_pass(self, arrays: Sequence[Any], requires: Sequence[bool], targets: Sequence[Target],
                       gys: tuple[Any, ...]) -> BackwardRun:
        """Forward and backward on the inputs cast to the numerical dtype: the reference gradients."""
        where = self.where
        outputs = self.call(arrays, requires)
        if len(outputs) != len(gys):
            raise ValueError(f"{where}: func returned {len(outputs)} outputs on inputs cast to the numerical "
                             f"dtype but {len(gys)} otherwise")
        casts = dict(zip(self.float_outputs, self.gys))  # float64 copies made by the first pass
        seeds = tuple(None if g is None else casts[j] if casts[j].dtype == outputs[j].dtype
                      else g.astype(outputs[j].dtype) for j, g in enumerate(gys))
        for j, g in enumerate(seeds):
            if g is not None and g.shape != outputs[j].shape:
                raise ValueError(f"{where}: output {j} has shape {outputs[j].shape} on inputs cast to the "
                                 f"numerical dtype, {g.shape} otherwise")
        return BackwardRun(outputs, self._backward(outputs, seeds, targets), seeds)

    def guard_unchanged(self, copies: Sequence[Any], param_copies: Sequence[Any], stage: str) -> None:
        for i, (after, before) in enumerate(zip(self.last_inputs, copies)):
            if not same(before, after.array):
                raise RuntimeError(f"{self.where}: {stage} modified its input {self.input_names[i]}: "
                                   f"{first_difference(before, after.array)}; "
                                   "an op must not write into its input arrays")
        for k, (p, before) in enumerate(zip(self.params, param_copies)):
            if not same(before, p.array):
                raise RuntimeError(f"{self.where}: {stage} modified params[{k}]: "
                                   f"{first_difference(before, p.array)}")
