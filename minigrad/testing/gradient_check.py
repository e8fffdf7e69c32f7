"""Gradient checking: is a backward pass right?

``check_backward`` compares the gradients that backprop computes with numerical
derivatives of ``f(x) = sum_j sum(func(x)[j] * y_grad[j])``. How it decides:

1. **Backprop under test.** ``func`` runs forward and backward once in the
   inputs' own dtype (its outputs joined through one ``Identity`` node, so one
   backward pass reaches all of them), then forward once more at the same
   point: the two calls must agree (``func`` is deterministic).
2. **Reference.** For inputs less precise than ``dtype`` (float64 unless
   given), forward and backward run once more on the inputs cast to
   ``dtype``: the reference gradients. For float64 inputs the gradients under
   test are the reference.
3. **Directions.** Every input and parameter gets its own random direction
   ``v``, drawn from ``seed``: a random sign times a weight in [0.5, 1] per
   element (every element always takes part), times the input's rms magnitude
   up to 1 (small inputs take small steps). A draw nearly orthogonal to the reference
   gradient is redrawn and the sign is chosen so that every input adds to the
   directional derivative: no input's error can cancel against another's.
   Inputs that add much less than the others get a probe of their own.
4. **Numerical derivative.** ``f`` is evaluated in ``dtype`` at ``x + t*v``
   for ``t = h, -h, 2h`` (``h = eps / 10`` for a float64 numerical part;
   larger for float32/float16). With ``f(x)`` from step 2, the cubic through
   the four points gives the derivative (error O(h^3), about 1e-13 relative
   in float64), and its disagreement with the plain central difference an
   error estimate. Three evaluations per probe, whatever the
   input size (five with ``detect_nondifferentiable``: ``-2h`` and ``3h`` add
   Richardson's extrapolation and 4th differences that expose kinks).
5. **Check 1 (the maths).** The reference directional derivative
   ``<g_ref, v>`` must match the numerical one within
   ``max(atol + rtol*|numerical|, noise)``; ``noise`` is a multiple of the
   error estimate plus bounds on the rounding of ``f`` and of ``<g_ref, v>``.
   So the default tolerance can be tight (``rtol=1e-6`` for float64) without
   false alarms.
6. **Check 2 (the precision).** Low-precision gradients must match the
   reference element by element within ``64 * eps(dtype)`` of the element plus
   an absolute scale (the largest change of ``f`` per relative change of an
   input element), which absorbs cancellation inside the backward pass.

On failure the report names the input or parameter that is wrong (one probe
per input) and its worst elements (each element of small inputs, a bisection
over element subsets of large ones), with the seed that reproduces it.
Guards turn broken test set-ups into clear errors: a ``func`` that is not
deterministic, that modifies its inputs, or whose backward modifies the output
gradients it was given.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad import backend
from minigrad.configuration import force_backprop_mode
from minigrad.function_node import grad as _grad
from minigrad.functions.array.cast import cast as _cast
from minigrad.functions.array.identity import Identity
from minigrad.variable import Variable

__all__ = [
    "numerical_grad",
    "check_backward",
    "check_double_backward",
    "NondifferentiableError",
    "GradientCheckError",
    "GradientCheckReport",
]

# Tolerance of check 1 when ``atol``/``rtol`` are None, by the dtype of the numerical part.
AUTO_RTOL: dict[str, float] = {"float64": 1e-6, "float32": 1e-4, "float16": 1e-2}
# Step multiplier by the numerical dtype: truncation error grows as step**3, rounding noise
# as eps(dtype) / step; in float64 a step of 1e-4 keeps both far below rtol=1e-6.
STEP_FACTOR: dict[str, float] = {"float64": 0.1, "float32": 16.0, "float16": 128.0}
NOISE_FACTOR = 2.0  # times the error estimate of the numerical derivative
ROUNDING_FACTOR = 16.0  # times eps * (sum of |terms|): bound on rounding in f and in <g, v>
PRECISION_FACTOR = 64.0  # check 2: |g - g_ref| <= PRECISION_FACTOR * eps * (|g_ref| + absolute scale)
KINK_RTOL = 1e-2  # a kink is flagged when |4th difference| / h > KINK_RTOL * largest |g_i v_i|
ORTHOGONALITY = 0.25  # redraw a direction when |<g_ref, v>| < ORTHOGONALITY * ||g_ref|| * rms(v)
MINOR_SHARE = 0.1  # a target adding less than this fraction of the largest share gets its own probe
ELEMENTWISE_LIMIT = 32  # inputs up to this size are localised element by element
SHOWN_ELEMENTS = 3


class NondifferentiableError(Exception):
    """``func`` is not differentiable at (or right next to) the point being checked.

    Raised by ``numerical_grad`` and the checks when ``detect_nondifferentiable``
    is on; the message names the input and the element.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> x = np.array([0.5, 0.0, -0.5])
        >>> try:
        ...     gradient_check.check_backward(F.absolute, x, np.ones(3), detect_nondifferentiable=True, seed=0)
        ... except gradient_check.NondifferentiableError as e:
        ...     print(str(e).splitlines()[0])
        func is not differentiable near x_data[0] element (1,) (value 0.0) (seed=0)
    """


class GradientCheckError(AssertionError):
    """Backprop disagrees with the numerical derivative; ``.report`` holds the figures."""

    def __init__(self, message: str, report: GradientCheckReport) -> None:
        super().__init__(message)
        self.report = report


@dataclass
class ElementDisagreement:
    """One element where backprop and the numerical derivative disagree."""

    index: tuple[int, ...]
    backprop: float
    numerical: float  # the numerical derivative, or the reference gradient for the precision check
    error: float
    tolerance: float
    labels: tuple[str, str] = ("backprop", "numerical")

    def __str__(self) -> str:
        return (f"index {self.index}: {self.labels[0]} {self.backprop:.9g}, {self.labels[1]} {self.numerical:.9g} "
                f"(error {self.error:.3g}, tolerance {self.tolerance:.3g})")


@dataclass
class TargetResult:
    """The comparison for one input or parameter (filled in when it is localised)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    backprop: float = math.nan  # directional derivative along this target's direction
    numerical: float = math.nan
    tolerance: float = math.nan
    margin: float = 0.0
    elements: list[ElementDisagreement] = field(default_factory=list)
    note: str = ""


@dataclass
class GradientCheckReport:
    """What a check measured. ``margin`` < 1 means it passed.

    Attributes:
        margin: worst error / tolerance over every comparison made.
        evaluations: calls of ``func`` (forward passes), all of them.
        seed: the seed of the random directions (pass it back to reproduce).
        numerical_dtype: dtype of the numerical part and of the reference gradients.
        backprop: directional derivative from backprop (reference dtype).
        numerical: Richardson-extrapolated numerical directional derivative.
        tolerance: the tolerance ``|backprop - numerical|`` was held to.
        error_estimate: disagreement of the two central differences.
        precision_margin: worst elementwise error / bound of check 2 (None when not run).
        directional_margin: error / tolerance of check 1 (the directional derivative).
        targets: per input/parameter results (filled in on failure).
    """

    margin: float
    evaluations: int
    seed: int
    numerical_dtype: str
    backprop: float
    numerical: float
    tolerance: float
    error_estimate: float
    precision_margin: float | None = None
    directional_margin: float = 0.0
    targets: list[TargetResult] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Whether every comparison was within its tolerance."""
        return self.margin < 1.0


# --- small helpers ------------------------------------------------------------

def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _is_array(x: Any) -> bool:
    if isinstance(x, numpy.ndarray):
        return True
    return backend.get_array_module(x) is not numpy and hasattr(x, "dtype") and hasattr(x, "shape")


def _f64(a: Any) -> Any:
    """The array in float64 (the array itself when it already is)."""
    return a.astype(numpy.float64, copy=False)


def _dot(a: Any, b64: Any) -> float:
    """sum(a * b64) in float64 (``b64`` is float64)."""
    if a.dtype == b64.dtype:
        return float(backend.get_array_module(a).vdot(a.ravel(), b64.ravel()))
    return float((a * b64).sum())


def _absolute(a: Any) -> Any:
    """abs(a), in place for a fresh temporary array (NumPy turns 0-dim results into scalars)."""
    xp = backend.get_array_module(a)
    if isinstance(a, (numpy.ndarray, getattr(xp, "ndarray", numpy.ndarray))) and a.ndim:
        return xp.abs(a, out=a)
    return xp.asarray(abs(a))


def _rms(a: Any) -> float:
    if a.size == 0:
        return 0.0
    flat = a.ravel()
    return math.sqrt(abs(float(backend.get_array_module(a).vdot(flat, flat))) / a.size)


def _same(a: Any, b: Any) -> bool:
    """Exact equality, NaN equal to NaN."""
    xp = backend.get_array_module(a)
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if bool(xp.all(a == b)):
        return True
    return a.dtype.kind in "fc" and bool(xp.all((a == b) | (xp.isnan(a) & xp.isnan(b))))


def _first_difference(a: Any, b: Any) -> str:
    xp = backend.get_array_module(a)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"shape/dtype {a.shape}/{a.dtype} became {b.shape}/{b.dtype}"
    differ = ~((a == b) | (xp.isnan(a) & xp.isnan(b))) if a.dtype.kind in "fc" else a != b
    flat = int(backend.to_cpu(xp.argmax(differ.reshape(-1))))
    index = numpy.unravel_index(flat, a.shape) if a.ndim else ()
    index = tuple(int(i) for i in index)
    return f"{int(differ.sum())} element(s) changed, e.g. at {index}: {a[index]!r} -> {b[index]!r}"


def _eps(dtype: Any) -> float:
    dtype = numpy.dtype(dtype)
    return float(numpy.finfo(dtype).eps) if dtype.kind == "f" else 0.0


def _float_dtype(dtype: Any, where: str) -> numpy.dtype:
    try:
        dt = numpy.dtype(dtype)
    except TypeError:
        raise TypeError(f"{where}: dtype must be a floating-point dtype or None, got {dtype!r}") from None
    if dt.kind != "f":
        raise TypeError(f"{where}: dtype must be a floating-point dtype or None, got {dt}")
    return dt


def _index(flat: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(int(i) for i in numpy.unravel_index(flat, shape)) if shape else ()


# --- numerical_grad (Chainer's element-by-element API) -------------------------

def _derivative_weights(offsets: Sequence[float]) -> numpy.ndarray:
    """Finite-difference weights for f'(0) from values at ``offsets`` (exact for polynomials)."""
    t = numpy.asarray(offsets, dtype=numpy.float64)
    vander = numpy.vander(t, len(t), increasing=True).T  # rows: powers 0..n-1
    rhs = numpy.zeros(len(t))
    rhs[1] = 1.0
    return numpy.linalg.solve(vander, rhs)


def _outputs_as_arrays(outputs: Any) -> tuple[Any, ...]:
    return tuple(getattr(y, "array", y) for y in _as_tuple(outputs))


def numerical_grad(
    f: Callable[[], Any],
    inputs: Sequence[Any],
    grad_outputs: Sequence[Any],
    eps: float = 1e-3,
    detect_nondifferentiable: bool = False,
    diff_atol: float = 0,
    diff_rtol: float = 1e-2,
    center_outputs: Any = None,
) -> tuple[Any, ...]:
    """Numerical gradient of ``sum(f()[j] * grad_outputs[j])`` w.r.t. each input, element by element.

    ``f`` takes no arguments and reads ``inputs``, which are modified in place
    (and restored) one element at a time. Each element gets a 4-point
    Richardson-extrapolated central difference (steps ``eps`` and ``2*eps``,
    the realised steps after rounding to the input's dtype), computed in
    float64. Costs ``4 * inputs[i].size`` calls of ``f``: for small inputs.

    Args:
        f: function of no arguments returning an array or a tuple of arrays (or Variables).
        inputs: float arrays that ``f`` reads.
        grad_outputs: one array (or ``None`` to ignore that output) per output of ``f``.
        eps: step size (absolute), > 0.
        detect_nondifferentiable: raise ``NondifferentiableError`` when an element
            looks non-differentiable (its 4th difference does not vanish).
        diff_atol, diff_rtol: tolerances of that test: the 4th difference over the
            step must stay below ``diff_atol + diff_rtol * |one-sided slopes|``.
        center_outputs: outputs of ``f()`` at the unperturbed inputs (computed when None).

    Returns:
        One gradient array per input, in the input's dtype.

    Example:
        >>> import numpy as np
        >>> from minigrad.testing.gradient_check import numerical_grad
        >>> x = np.array([1.0, 2.0])
        >>> gx, = numerical_grad(lambda: (x ** 3,), (x,), (np.ones(2),))
        >>> np.round(gx, 6)
        array([ 3., 12.])
    """
    if not eps > 0 or not math.isfinite(eps):
        raise ValueError(f"numerical_grad: eps must be a positive finite number, got {eps!r}")
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if not _is_array(x):
            raise TypeError(f"numerical_grad: inputs[{i}] must be an array, got {type(x).__name__}")
        if x.dtype.kind != "f":
            raise TypeError(f"numerical_grad: inputs[{i}] has dtype {x.dtype}; only float inputs have a "
                            "numerical gradient")
    grad_outputs = _as_tuple(grad_outputs)

    def value() -> float:
        outs = _outputs_as_arrays(f())
        if len(outs) != len(grad_outputs):
            raise ValueError(f"numerical_grad: f returned {len(outs)} outputs but {len(grad_outputs)} "
                             "grad_outputs were given")
        total = 0.0
        for y, gy in zip(outs, grad_outputs):
            if gy is not None:
                total += float((_f64(y) * _f64(gy)).sum())
        return total

    if detect_nondifferentiable:
        if center_outputs is None:
            f0 = value()
        else:
            f0 = sum(float((_f64(y) * _f64(gy)).sum())
                     for y, gy in zip(_outputs_as_arrays(center_outputs), grad_outputs) if gy is not None)
    grads = []
    for i, x in enumerate(inputs):
        xp = backend.get_array_module(x)
        g = numpy.zeros(x.shape, dtype=numpy.float64)
        for index in numpy.ndindex(*x.shape):
            original = x[index].copy()
            values, offsets = [], []
            for t in (1.0, -1.0, 2.0, -2.0):
                x[index] = original + x.dtype.type(t * eps)
                offsets.append(float(x[index]) - float(original))
                values.append(value())
            x[index] = original
            if len(set(offsets)) < 4 or 0.0 in offsets:
                raise ValueError(f"numerical_grad: eps={eps} is too small for inputs[{i}] ({x.dtype}) "
                                 f"at element {index} (value {float(original)!r})")
            g[index] = float(_derivative_weights(offsets) @ numpy.asarray(values))
            if detect_nondifferentiable:
                t_all = [0.0] + offsets
                v_all = numpy.asarray([f0] + values)
                # 4th difference over the step (24 h^3 times the 4th divided difference):
                # about h^3 times the 4th derivative when smooth, of the order of the slope jump at a kink
                fourth = 24.0 * abs(float(_fourth_difference_weights(t_all) @ v_all)) * eps ** 3
                slopes = [abs((v - f0) / o) for v, o in zip(values, offsets)]
                rounding = 64.0 * float(numpy.finfo(numpy.float64).eps) * float(abs(v_all).max()) / eps
                if fourth > diff_atol + diff_rtol * max(slopes) + rounding:
                    raise NondifferentiableError(
                        f"numerical_grad: f is not differentiable near inputs[{i}] element {index} "
                        f"(value {float(original)!r}): one-sided slopes {', '.join(f'{s:.4g}' for s in slopes)}")
        grads.append(xp.asarray(g.astype(x.dtype)))
    return tuple(grads)


def _fourth_difference_weights(offsets: Sequence[float]) -> numpy.ndarray:
    """Weights of the 4th divided difference (coefficient of t**4 of the interpolating quartic)."""
    t = numpy.asarray(offsets, dtype=numpy.float64)
    vander = numpy.vander(t, len(t), increasing=True).T
    rhs = numpy.zeros(len(t))
    rhs[4] = 1.0
    return numpy.linalg.solve(vander, rhs)


# --- the problem under test -----------------------------------------------------

@dataclass
class _Target:
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
    stats: tuple[float, ...] | None = None  # sums over the full direction, see _direction_stats
    share: float = 0.0  # <g_ref, direction> (>= 0): its part of the directional derivative
    boost: float = 1.0  # how much further than others it moves (an input func rounds coarser than nd)

    @property
    def label(self) -> str:
        return f"{self.name} (shape {self.base.shape}, {self.base.dtype})"


@dataclass
class _Probe:
    """Numerical and backprop directional derivatives along one direction."""

    backprop: float
    numerical: float
    error_estimate: float
    kink: float  # |4th difference| / h: zero for smooth f, O(slope jump) at a kink
    noise: float
    rounding: float  # the rounding part of noise
    norm: float  # ||v||, to express atol on a unit direction like Chainer
    scale: float  # largest single-element contribution |g_i v_i|
    size: int  # number of elements moved


class _Problem:
    """``func`` with its inputs, parameters, output gradients and evaluation counter."""

    def __init__(self, func: Callable[..., Any], x_data: tuple[Any, ...], params: tuple[Variable, ...],
                 input_names: Sequence[str], where: str, rounded_inputs: dict[int, numpy.dtype]) -> None:
        self.func = func
        self.rounded_inputs = rounded_inputs  # input position -> the precision func rounds it to
        self.x_data = x_data
        self.params = params
        self.input_names = tuple(input_names)
        self.where = where
        self.evaluations = 0
        self.last_inputs: list[Variable] = []
        self.float_outputs: tuple[int, ...] = ()
        self.gys: tuple[Any, ...] = ()  # float64 copies of the output gradients, per float output

    def call(self, arrays: Sequence[Any], requires: Sequence[bool]) -> tuple[Variable, ...]:
        """Run ``func`` on fresh Variables made from ``arrays``; check it returns Variables."""
        xs = [Variable(a, requires_grad=r) for a, r in zip(arrays, requires)]
        self.last_inputs = xs
        self.evaluations += 1
        with force_backprop_mode():
            outputs = self.func(*xs)
        outputs = _as_tuple(outputs)
        if not outputs:
            raise ValueError(f"{self.where}: func returned no outputs")
        for j, y in enumerate(outputs):
            if not isinstance(y, Variable):
                raise TypeError(f"{self.where}: func must return a Variable or a tuple of Variables; "
                                f"output {j} is {type(y).__name__}")
        return outputs

    def value(self, outputs: Sequence[Variable]) -> float:
        """``f = sum_j sum(y_j * y_grad_j)`` in float64."""
        total = 0.0
        for j, gy in zip(self.float_outputs, self.gys):
            y = outputs[j].array
            if y.shape != gy.shape:
                raise ValueError(f"{self.where}: output {j} changed shape from {gy.shape} to {y.shape} "
                                 "when the inputs were perturbed")
            total += _dot(y, gy)
        return total

    def l1_terms(self, outputs: Sequence[Variable]) -> tuple[float, float]:
        """(sum |y * y_grad|, eps of the least precise float output): scale of f's rounding."""
        total, eps = 0.0, 0.0
        for j, gy in zip(self.float_outputs, self.gys):
            y = outputs[j].array
            total += float(_absolute(y * gy).sum())
            eps = max(eps, _eps(y.dtype))
        return total, eps


def _validate_outputs_and_grads(problem: _Problem, outputs: tuple[Variable, ...], y_grad: Any) -> tuple[Any, ...]:
    """Match ``y_grad`` to the outputs; returns one gradient array (or None) per output."""
    where = problem.where
    if y_grad is None:
        grads: list[Any] = []
        for j, y in enumerate(outputs):
            if y.dtype.kind != "f":
                grads.append(None)
                continue
            if y.size != 1:
                raise ValueError(f"{where}: y_grad=None is only for scalar outputs (a loss), but output {j} has "
                                 f"shape {y.shape}; pass one gradient array per output")
            grads.append(y.xp.ones_like(y.array))
        return tuple(grads)
    y_grad = _as_tuple(y_grad)
    if len(y_grad) != len(outputs):
        raise ValueError(f"{where}: func returned {len(outputs)} output(s) but y_grad has {len(y_grad)} entries")
    grads = []
    for j, (y, gy) in enumerate(zip(outputs, y_grad)):
        if y.dtype.kind != "f":
            if gy is not None:
                raise ValueError(f"{where}: output {j} has non-float dtype {y.dtype} and no gradient; "
                                 "its y_grad entry must be None")
            grads.append(None)
            continue
        if gy is None:
            if y.size != 1:
                raise ValueError(f"{where}: y_grad[{j}] is None but output {j} has shape {y.shape}; "
                                 "None stands for a gradient of one and needs a scalar output")
            grads.append(y.xp.ones_like(y.array))
            continue
        if not _is_array(gy):
            raise TypeError(f"{where}: y_grad[{j}] must be an array or None, got {type(gy).__name__}")
        if gy.shape != y.shape or gy.dtype != y.dtype:
            raise ValueError(f"{where}: y_grad[{j}] has shape {gy.shape} and dtype {gy.dtype}, but output {j} "
                             f"has shape {y.shape} and dtype {y.dtype}")
        if backend.get_array_module(gy) is not y.xp:
            raise ValueError(f"{where}: y_grad[{j}] and output {j} live on different devices")
        grads.append(gy)
    return tuple(grads)


def _forward_backward(problem: _Problem, arrays: Sequence[Any], requires: Sequence[bool],
                      targets: Sequence[_Target], y_grad: Any, first: bool
                      ) -> tuple[tuple[Variable, ...], list[Any], tuple[Any, ...]]:
    """One forward and backward pass; returns outputs, one gradient per target, the output gradients.

    The first pass (in the inputs' dtype) validates ``y_grad`` and runs the
    guards; the reference pass gets the validated gradients and casts them.
    """
    where = problem.where
    copies = list(problem.x_data) if first else []  # the caller's arrays: pristine, func never sees them
    param_copies = [p.array.copy() for p in problem.params] if first else []
    outputs = problem.call(arrays, requires)
    if first:
        _guard_unchanged(problem, copies, param_copies, "func")
        gys = _validate_outputs_and_grads(problem, outputs, y_grad)
        problem.float_outputs = tuple(j for j, g in enumerate(gys) if g is not None)
        problem.gys = tuple(_f64(gys[j]) for j in problem.float_outputs)
    else:
        if len(outputs) != len(y_grad):
            raise ValueError(f"{where}: func returned {len(outputs)} outputs on inputs cast to the numerical "
                             f"dtype but {len(y_grad)} otherwise")
        casts = dict(zip(problem.float_outputs, problem.gys))  # float64 copies made by the first pass
        gys = tuple(None if g is None else casts[j] if casts[j].dtype == outputs[j].dtype
                    else g.astype(outputs[j].dtype) for j, g in enumerate(y_grad))
        for j, g in enumerate(gys):
            if g is not None and g.shape != outputs[j].shape:
                raise ValueError(f"{where}: output {j} has shape {outputs[j].shape} on inputs cast to the "
                                 f"numerical dtype, {g.shape} otherwise")
    # backward gets copies, to catch one that writes into them (the reference pass's are fresh casts)
    seeds = tuple(g if g is None else g.copy() for g in gys) if first else gys
    grad_vars = [Variable(s, requires_grad=False) for s in seeds if s is not None]
    differentiable = tuple(outputs[j] for j, s in enumerate(seeds) if s is not None)
    input_vars = problem.last_inputs
    target_vars = [input_vars[t.position] if t.param is None else t.param for t in targets]
    grads: list[Any] = [None] * len(targets)
    if differentiable and target_vars:
        joined = Identity().apply(differentiable)
        with force_backprop_mode():
            results = _grad(list(joined), target_vars, grad_vars)
        grads = [None if g is None else g.array for g in results]
    if first:
        for j, (before, after) in enumerate(zip(gys, seeds)):
            if before is not None and not _same(before, after):
                raise RuntimeError(
                    f"{where}: backward modified the output gradient it was given (y_grad[{j}]): "
                    f"{_first_difference(before, after)}; a backward must not write into grad_outputs")
        _guard_unchanged(problem, copies, param_copies, "backward")
    return outputs, grads, gys


def _guard_unchanged(problem: _Problem, copies: Sequence[Any],
                     param_copies: Sequence[Any], stage: str) -> None:
    for i, (after, before) in enumerate(zip(problem.last_inputs, copies)):
        if not _same(before, after.array):
            raise RuntimeError(f"{problem.where}: {stage} modified its input {problem.input_names[i]}: "
                               f"{_first_difference(before, after.array)}; "
                               "an op must not write into its input arrays")
    for k, (p, before) in enumerate(zip(problem.params, param_copies)):
        if not _same(before, p.array):
            raise RuntimeError(f"{problem.where}: {stage} modified params[{k}]: "
                               f"{_first_difference(before, p.array)}")


def _probe(problem: _Problem, targets: Sequence[_Target], parts: dict[int, Any], step: float,
           nd: numpy.dtype, center_value: float, center_l1: tuple[float, float], arrays_nd: list[Any],
           requires: Sequence[bool], *, kinks: bool = False) -> _Probe:
    """Evaluations of f along ``parts`` (target index -> direction) and the comparison figures.

    Three evaluations, at ``t = h, -h, 2h`` (with ``f(0)`` known): the cubic
    through the four points gives the derivative (error O(h^3)), and its
    difference from the central difference estimates the error. With
    ``kinks``, two more at ``-2h`` and ``3h`` give Richardson's extrapolation
    and two 4th differences, which vanish for smooth f and not at a kink.
    """
    values = []
    for t in (step, -step, 2 * step, -2 * step, 3 * step)[:5 if kinks else 3]:
        arrays = list(arrays_nd)
        for k, v in parts.items():
            target = targets[k]
            moved = v * t
            moved += target.base_nd
            moved = moved.astype(nd, copy=False)
            if target.param is None:
                arrays[target.position] = moved
            else:
                target.param.array = moved
        try:
            outputs = problem.call(arrays, requires)
        finally:
            for k in parts:
                if targets[k].param is not None:
                    targets[k].param.array = targets[k].base_nd
        values.append(problem.value(outputs))
    fp1, fm1, fp2 = values[:3]
    central = (fp1 - fm1) / (2 * step)
    if kinks:
        fm2, fp3 = values[3:]
        wide = (fp2 - fm2) / (4 * step)
        numerical = (4 * central - wide) / 3
        estimate = abs(central - wide)
        # two 4th differences: each vanishes for smooth f, each misses a kink at one distance, not the same one
        fourth = max(abs(fp2 - 4 * fp1 + 6 * center_value - 4 * fm1 + fm2),
                     abs(fp3 - 4 * fp2 + 6 * fp1 - 4 * center_value + fm1)) / step
    else:
        numerical = (6 * fp1 - 2 * fm1 - 3 * center_value - fp2) / (6 * step)
        estimate = 3 * abs(central - numerical)  # ~ the |central - wide| of the 5-point version
        fourth = 0.0
    backprop, sum_abs, eps_sum_x, largest, norm2 = 0.0, 0.0, 0.0, 0.0, 0.0
    eps_ref = 0.0
    for k, v in parts.items():
        target = targets[k]
        stats = target.stats if v is target.direction and target.stats else _direction_stats(target, v)
        backprop += stats[0]
        sum_abs += stats[1]
        largest = max(largest, stats[2])
        # the input moves in nd, unless func rounds it coarser (a seed cast to a float32 output's dtype);
        # such an input moves ``boost`` times further, which divides its rounding noise as much
        rounded = problem.rounded_inputs.get(target.position) if target.param is None else None
        eps_sum_x += (_eps(nd) if rounded is None else max(_eps(nd), _eps(rounded))) * stats[3] / target.boost
        norm2 += stats[4]
        if target.ref is not None:
            eps_ref = max(eps_ref, _eps(target.ref.dtype))
    l1_outputs, eps_out = center_l1
    rounding = ROUNDING_FACTOR * (eps_out * l1_outputs + eps_sum_x) / step
    noise = NOISE_FACTOR * estimate + rounding + ROUNDING_FACTOR * eps_ref * sum_abs
    size = sum(int(v.size) for v in parts.values())
    return _Probe(backprop, numerical, estimate, fourth, noise, rounding, math.sqrt(norm2), largest, size)


def _direction_stats(target: _Target, v: Any, terms: Any = None) -> tuple[float, float, float, float, float]:
    """(<g_ref, v>, sum |g_ref v|, max |g_ref v|, sum |g_ref x| (bound), ||v||^2) for a probe along ``v``."""
    xp = backend.get_array_module(v)
    flat = v.ravel()
    norm2 = float(xp.vdot(flat, flat))
    if target.ref is None or v.size == 0:
        return 0.0, 0.0, 0.0, 0.0, norm2
    ref = _f64(target.ref)
    terms = ref * v if terms is None else terms
    share = float(terms.sum())
    terms = _absolute(terms)
    ref_flat, base_flat = ref.ravel(), target.base_nd.ravel()
    # Cauchy-Schwarz bound on sum |g_ref * x| (it only feeds a rounding floor)
    sum_x = math.sqrt(float(xp.vdot(ref_flat, ref_flat)) * abs(float(xp.vdot(base_flat, base_flat))))
    return share, float(terms.sum()), float(terms.max()), sum_x, norm2


def _direction(rng: numpy.random.Generator, target: _Target) -> tuple[Any, float, tuple[float, ...]]:
    """A random direction for ``target``: random signs, weights in [0.5, 1], times the input's scale.

    Every element takes part with a weight bounded away from zero (one wrong
    element is never hidden by a tiny weight). Draws nearly orthogonal to the
    reference gradient are redrawn, and the sign is chosen so that the target
    adds to the directional derivative: a scaled or partly wrong gradient then
    shifts it by a fixed fraction, not by an unlucky small one. Returns the
    direction, its share ``<g_ref, v>`` and bounds on the sums ``_probe`` needs
    (the exact ``_direction_stats`` would cost several passes over large inputs).
    """
    xp = backend.get_array_module(target.base)
    ref = None if target.ref is None else _f64(target.ref)
    if ref is not None and ref.size:
        flat = ref.ravel()
        ref_l2 = math.sqrt(float(xp.vdot(flat, flat)))
        magnitudes = abs(flat)
        ref_l1, ref_max = float(magnitudes.sum()), float(magnitudes.max())
        del magnitudes
    for _ in range(32):
        w = rng.random(size=target.base.shape)
        w -= 0.5
        numpy.copysign(numpy.abs(w) + 0.5, w, out=w)  # sign and a weight in [0.5, 1] from one draw
        w *= target.scale
        v = xp.asarray(w)
        vflat = v.ravel()
        norm2 = float(xp.vdot(vflat, vflat))
        if ref is None or ref.size == 0:
            return v, 0.0, (0.0, 0.0, 0.0, 0.0, norm2)
        share = float(xp.vdot(flat, vflat))
        # typical |<g_ref, v>| for a v independent of g_ref: ||g_ref|| * rms(v)
        typical = ref_l2 * target.scale * math.sqrt(7.0 / 12.0)
        if not (math.isfinite(share) and typical > 0):
            return v, 0.0, _direction_stats(target, v)
        if abs(share) >= ORTHOGONALITY * typical:
            break
    if share < 0:
        v = -v
    base = target.base_nd.ravel()
    sum_x = ref_l2 * math.sqrt(abs(float(xp.vdot(base, base))))  # Cauchy-Schwarz bound on sum |g_ref x|
    return v, abs(share), (abs(share), ref_l1 * target.scale, ref_max * target.scale, sum_x, norm2)


def _step_scale(rms: float, nd: numpy.dtype) -> float:
    """How far to move an input, in units of ``eps``: its rms magnitude, at most 1.

    Small inputs move less (a log near 0, a kink at 0.1 stay out of reach).
    Large ones do not move more: a large magnitude says little about the
    scale on which ``func`` changes (logsumexp of values near 60 changes on a
    scale of 1), unless rounding in ``nd`` would drown the step.
    """
    if not (rms > 0 and math.isfinite(rms)):
        return 1.0
    return min(rms, max(1.0, rms * _eps(nd) ** (1.0 / 3.0)))


def _tolerance(probe: _Probe, atol: float, rtol: float) -> float:
    return max(atol * probe.norm + rtol * abs(probe.numerical), probe.noise)


def _margin(probe: _Probe, atol: float, rtol: float) -> float:
    error = abs(probe.backprop - probe.numerical)
    if not math.isfinite(error):
        return math.inf
    tolerance = _tolerance(probe, atol, rtol)
    return error / tolerance if tolerance > 0 else (0.0 if error == 0 else math.inf)


def _kink_threshold(probe: _Probe, scale: float) -> float:
    """The 4th difference a kink must exceed: a fraction of one element's contribution.

    That contribution is the largest ``|g_ref_i v_i|``, or, when backprop gave
    nothing to compare, the numerical derivative's share per element.
    """
    typical = abs(probe.numerical) / math.sqrt(max(probe.size, 1))
    return KINK_RTOL * max(scale, typical) + 2.0 * probe.rounding


def _subset_parts(target_index: int, direction: Any, flat_indices: Any) -> dict[int, Any]:
    xp = backend.get_array_module(direction)
    mask = xp.zeros(direction.size, dtype=numpy.float64)
    mask[flat_indices] = 1.0
    return {target_index: direction * mask.reshape(direction.shape)}


# --- check_backward -----------------------------------------------------------------

def check_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    params: Sequence[Variable] = (),
    eps: float = 1e-3,
    atol: float | None = None,
    rtol: float | None = None,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    *,
    seed: int | None = None,
    input_names: Sequence[str] | None = None,
) -> GradientCheckReport:
    """Check the gradients backprop computes for ``func`` against numerical derivatives.

    ``func(*variables)`` returns a Variable or a tuple of Variables; its outputs
    are joined through one ``Identity`` node and backpropagated from
    ``y_grad``. The gradient of every float input (and of every parameter in
    ``params``) is compared with a Richardson-extrapolated numerical
    derivative along a random direction (see the module docstring). Costs a
    fixed number of evaluations whatever the input sizes: a forward+backward,
    a repeat forward, another forward+backward in ``dtype`` for low-precision
    inputs, and three numerical evaluations per probe (usually one probe).

    Args:
        func: the function under test, taking one Variable per entry of ``x_data``.
        x_data: input array or tuple of arrays (NumPy or CuPy). Integer inputs
            are passed through unperturbed and must receive no gradient.
        y_grad: gradient array (or tuple, one per output) to backpropagate;
            ``None`` for a scalar output (a loss).
        params: Parameters ``func`` uses (e.g. a layer's); they are perturbed
            too and restored exactly (same array objects) afterwards.
        eps: step of the numerical derivative: each element moves by up to
            ``eps / 10`` (float64 numerical part; ``16 * eps`` for float32,
            ``128 * eps`` for float16) times the input's rms magnitude when
            that is below 1. A kink further away than a few steps does not
            affect the check.
        atol, rtol: tolerances of the directional-derivative comparison, as in
            Chainer (``atol`` applies to a unit-length direction). ``None``
            (default): automatic, ``rtol=1e-6`` for a float64 numerical part, so
            that errors far below Chainer's defaults are caught; the comparison
            never gets tighter than the measured numerical noise. When given,
            they also bound the elementwise precision check.
        no_grads: one bool per input: True = do not check (and do not perturb)
            that input. Default: True exactly for non-float inputs.
        dtype: float dtype of the numerical part and of the reference
            gradients; ``None`` means float64.
        detect_nondifferentiable: raise ``NondifferentiableError`` (naming the
            input and element) when ``func`` has a kink within the step.
        seed: seed of the random directions; ``None`` draws one. It is printed
            in every failure, so passing it back reproduces the failure.
        input_names: names of the inputs in messages (default ``x_data[i]``).

    Returns:
        A ``GradientCheckReport`` (``margin`` < 1, evaluation count, seed, ...).

    Raises:
        GradientCheckError: (an ``AssertionError``) backprop is wrong; the message
            names the input or parameter and the worst elements.
        NondifferentiableError: with ``detect_nondifferentiable``, at a kink.
        RuntimeError: ``func`` is not deterministic, modifies its inputs, or its
            backward modifies the output gradients it was given.
        TypeError, ValueError: bad arguments.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
        >>> report = gradient_check.check_backward(F.exp, x, np.ones((3, 4)), seed=0)
        >>> report.margin < 1, report.evaluations
        (True, 5)

        A wrong gradient is caught, and the failure says where:

        >>> import minigrad as mg
        >>> class BadExp(mg.FunctionNode):
        ...     def forward(self, inputs):
        ...         self.retain_outputs((0,))
        ...         return np.exp(inputs[0]),
        ...     def backward(self, indexes, grad_outputs):
        ...         y, = self.get_retained_outputs()
        ...         return grad_outputs[0] * y * 1.001,      # 0.1 % too large
        >>> try:
        ...     gradient_check.check_backward(lambda x: BadExp().apply((x,))[0], x, np.ones((3, 4)), seed=0)
        ... except AssertionError as e:
        ...     print(str(e).splitlines()[0])
        check_backward: backprop disagrees with the numerical derivative for x_data[0] (seed=0)
    """
    return _check_backward(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype, detect_nondifferentiable,
                           seed, input_names, rounded_inputs={})


def _check_backward(func: Callable[..., Any], x_data: Any, y_grad: Any, params: Sequence[Variable], eps: float,
                    atol: float | None, rtol: float | None, no_grads: Sequence[bool] | None, dtype: Any,
                    detect_nondifferentiable: bool, seed: int | None, input_names: Sequence[str] | None,
                    rounded_inputs: dict[int, numpy.dtype]) -> GradientCheckReport:
    """``check_backward``; ``rounded_inputs`` maps the position of an input that ``func`` itself
    rounds to a lower precision than the numerical dtype to that precision (``func`` may fill it in
    as it runs), so that the rounding is counted in the numerical noise."""
    where = "check_backward"
    x_data = _as_tuple(x_data)
    if not x_data:
        raise ValueError(f"{where}: x_data is empty; pass at least one input array")
    for i, x in enumerate(x_data):
        if not _is_array(x):
            raise TypeError(f"{where}: x_data[{i}] must be a NumPy or CuPy array, got {type(x).__name__}")
    if not (isinstance(eps, (int, float, numpy.floating)) and eps > 0 and math.isfinite(eps)):
        raise ValueError(f"{where}: eps must be a positive finite number, got {eps!r}")
    for name, tol in (("atol", atol), ("rtol", rtol)):
        if tol is not None and not (tol >= 0):
            raise ValueError(f"{where}: {name} must be >= 0 or None, got {tol!r}")
    nd = numpy.dtype(numpy.float64) if dtype is None else _float_dtype(dtype, where)
    params = tuple(params)
    for k, p in enumerate(params):
        if not isinstance(p, Variable):
            raise TypeError(f"{where}: params[{k}] must be a Variable (Parameter), got {type(p).__name__}")
        if p.array is None or p.dtype.kind != "f":
            raise ValueError(f"{where}: params[{k}] must hold a float array")
    if no_grads is None:
        no_grads = tuple(x.dtype.kind != "f" for x in x_data)
    else:
        no_grads = tuple(bool(n) for n in no_grads)
        if len(no_grads) != len(x_data):
            raise ValueError(f"{where}: no_grads has {len(no_grads)} entries but there are {len(x_data)} inputs")
        for i, (x, skip) in enumerate(zip(x_data, no_grads)):
            if not skip and x.dtype.kind != "f":
                raise ValueError(f"{where}: x_data[{i}] has dtype {x.dtype}, which has no gradient; "
                                 "its no_grads entry must be True")
    for i, x in enumerate(x_data):
        if x.dtype.kind == "f" and not bool(backend.get_array_module(x).isfinite(x).all()):
            raise ValueError(f"{where}: x_data[{i}] contains NaN or Inf")
    if seed is None:
        seed = int(numpy.random.SeedSequence().entropy % (2 ** 63))
    names = tuple(input_names) if input_names is not None else tuple(f"x_data[{i}]" for i in range(len(x_data)))
    if len(names) != len(x_data):
        raise ValueError(f"{where}: input_names has {len(names)} entries for {len(x_data)} inputs")
    user_tolerance = atol is not None or rtol is not None
    atol1 = 0.0 if atol is None else float(atol)
    rtol1 = AUTO_RTOL.get(nd.name, 1e-6) if rtol is None else float(rtol)

    problem = _Problem(func, x_data, params, names, where, rounded_inputs)
    original_params = [p.array for p in params]
    try:
        return _check(problem, x_data, y_grad, params, no_grads, nd, eps, atol1, rtol1, user_tolerance,
                      detect_nondifferentiable, seed, names)
    finally:
        for p, array in zip(params, original_params):
            p.array = array


def _check(problem: _Problem, x_data: tuple[Any, ...], y_grad: Any, params: tuple[Variable, ...],
           no_grads: tuple[bool, ...], nd: numpy.dtype, eps: float, atol: float, rtol: float,
           user_tolerance: bool, detect: bool, seed: int, names: tuple[str, ...]) -> GradientCheckReport:
    where = problem.where
    requires = [x.dtype.kind == "f" and not skip for x, skip in zip(x_data, no_grads)]
    targets = [_Target(names[i], i, None, x, x) for i, x in enumerate(x_data) if requires[i]]
    for k, p in enumerate(params):
        label = f"params[{k}]" + (f" ({p.name!r})" if p.name else "")
        targets.append(_Target(label, -1, p, p.array, p.array))

    # 1. backprop under test, in the inputs' own dtype (with the guards)
    arrays = [x.copy() for x in x_data]  # func never sees the caller's arrays
    outputs, grads, gys = _forward_backward(problem, arrays, requires, targets, y_grad, first=True)
    for t, g in zip(targets, grads):
        t.grad = g
    # determinism: the same point again must give the same outputs
    again = problem.call(arrays, requires)  # the guards showed that func leaves them unchanged
    for j, (y, z) in enumerate(zip(outputs, again)):
        if y.shape != z.shape or y.dtype != z.dtype or not _close_repeat(y.array, z.array):
            raise RuntimeError(f"{where}: func is not deterministic: output {j} differs between two calls at the "
                               f"same inputs ({_first_difference(y.array, z.array)}); fix its randomness "
                               "(e.g. draw a dropout mask once, outside func) before checking gradients")

    # 2. reference gradients in the numerical dtype
    def cast(a: Any) -> Any:
        return a.astype(nd) if a.dtype.kind == "f" else a

    needs_reference = any(x.dtype != nd for x in x_data if x.dtype.kind == "f") or any(p.dtype != nd for p in params)
    arrays_nd = [cast(a) if a.dtype != nd else a for a in arrays]  # private copies, left unchanged by func
    if needs_reference:
        for t in targets:
            t.base_nd = cast(t.base) if t.param is not None else arrays_nd[t.position]
            if t.param is not None:
                t.param.array = t.base_nd
        ref_outputs, refs, _ = _forward_backward(problem, arrays_nd, requires, targets, gys, first=False)
        for t, r in zip(targets, refs):
            t.ref = r
        center_outputs = ref_outputs
    else:
        for t in targets:
            t.ref = t.grad
        center_outputs = outputs
    center_value = problem.value(center_outputs)
    center_l1 = problem.l1_terms(center_outputs)

    # 3. directions, one per target, and the probes that use them
    rng = numpy.random.default_rng(seed)
    for t in targets:
        t.scale = _step_scale(_rms(t.base), nd)
        rounded = problem.rounded_inputs.get(t.position) if t.param is None else None
        if rounded is not None:  # move it as far as a numerical part in that precision would
            t.boost = max(1.0, STEP_FACTOR.get(numpy.dtype(rounded).name, 1.0) / STEP_FACTOR.get(nd.name, 1.0))
            t.scale *= t.boost
        t.direction, t.share, t.stats = _direction(rng, t)
    step = eps * STEP_FACTOR.get(nd.name, 1.0)
    probe_args = (step, nd, center_value, center_l1, arrays_nd, requires)
    report = GradientCheckReport(0.0, 0, seed, nd.name, 0.0, 0.0, 0.0, 0.0)
    if not targets:
        report.evaluations = problem.evaluations
        return report
    # targets of comparable share go into one probe; a minor one gets its own, so that its
    # errors are not lost in the tolerance of the others
    largest = max(t.share for t in targets)
    main = [k for k, t in enumerate(targets) if not t.share < MINOR_SHARE * largest]
    groups = [main] + [[k] for k in range(len(targets)) if k not in main]
    probes = [_probe(problem, targets, {k: targets[k].direction for k in group}, *probe_args, kinks=detect)
              for group in groups]
    probe = probes[0]
    scale_all = max(p.scale for p in probes)
    report.backprop, report.numerical = probe.backprop, probe.numerical
    report.tolerance, report.error_estimate = _tolerance(probe, atol, rtol), probe.error_estimate

    # 4. kinks
    kinky = any(p.kink > _kink_threshold(p, scale_all) for p in probes)
    if detect and kinky:
        raise NondifferentiableError(_locate_kink(problem, targets, probe_args, scale_all, seed))

    # 5. check 1 (the maths) and check 2 (the precision)
    margin1 = max(_margin(p, atol, rtol) for p in probes)
    if margin1 >= 1.0:
        probe = max(probes, key=lambda p: _margin(p, atol, rtol))
        report.backprop, report.numerical = probe.backprop, probe.numerical
        report.tolerance, report.error_estimate = _tolerance(probe, atol, rtol), probe.error_estimate
    margin2, precision_failures = _precision(targets, atol if user_tolerance else None,
                                             rtol if user_tolerance else None, needs_reference, center_l1[0])
    report.margin = max(margin1, margin2 if margin2 is not None else 0.0)
    report.precision_margin = margin2
    report.directional_margin = margin1
    if margin1 >= 1.0:
        report.targets = _localise(problem, targets, probe_args, atol, rtol, probe)
        if not detect:  # is a kink the reason? (four more evaluations, on failure only)
            again = _probe(problem, targets, {k: t.direction for k, t in enumerate(targets)}, *probe_args,
                           kinks=True)
            kinky = again.kink > _kink_threshold(again, scale_all)
    report.targets += precision_failures
    report.evaluations = problem.evaluations
    if report.margin >= 1.0:
        raise GradientCheckError(_failure_message(where, report, probe, margin1, outputs, kinky, seed), report)
    return report


def _close_repeat(a: Any, b: Any) -> bool:
    """Outputs of two identical calls: equal up to a few ulps (GPU reductions may reorder sums)."""
    if _same(a, b) or a.dtype.kind not in "fc":
        return _same(a, b)
    xp = backend.get_array_module(a)
    a64, b64 = _f64(a), _f64(b)
    finite = xp.isfinite(a64) & xp.isfinite(b64)
    if not bool(xp.all(finite | ((a64 == b64) | (xp.isnan(a64) & xp.isnan(b64))))):
        return False
    if a.size == 0:
        return True
    bound = 8 * _eps(a.dtype) * (abs(a64) + float(abs(xp.where(finite, a64, 0)).max()))
    return bool(xp.all(~finite | (abs(a64 - b64) <= bound)))


def _precision(targets: Sequence[_Target], atol: float | None, rtol: float | None,
               needs_reference: bool, f_terms: float) -> tuple[float | None, list[TargetResult]]:
    """Check 2: low-precision gradients against the reference, element by element.

    Rounding errors of a backward pass scale with the magnitudes it handles, which
    the final gradient can hide (a sum of large terms that nearly cancel). The
    bound therefore has an absolute part, in ``f``'s units divided by this
    input's scale: the larger of the largest change of ``f`` per relative change
    of any input element (``max_k max_i |g_ref[k]_i| * scale_k``) and the
    share of one element in the magnitude of ``f``'s terms (``sum |y * y_grad|``
    over the input's size).
    """
    if not needs_reference:
        return None, []
    # largest |g_ref| * scale over the targets (from the direction statistics)
    sensitivity = max((t.stats[2] for t in targets if t.stats), default=0.0)
    worst = 0.0
    failures = []
    for t in targets:
        if (t.grad is None and t.ref is None) or t.base.size == 0:
            continue
        dtype = t.base.dtype
        xp = backend.get_array_module(t.base)
        # float32 arithmetic is exact enough for a bound of 64 eps of float16/float32, and half the traffic
        work = numpy.dtype(numpy.float32) if dtype.itemsize <= 4 else numpy.dtype(numpy.float64)
        ref = xp.zeros(t.base.shape, work) if t.ref is None else t.ref.astype(work)
        g = xp.zeros(t.base.shape, work) if t.grad is None else t.grad.astype(work, copy=False)
        absolute = max(sensitivity, f_terms / g.size) / t.scale
        factor = PRECISION_FACTOR * _eps(dtype)
        bound = abs(ref)
        if atol is not None or rtol is not None:
            bound = xp.maximum(bound * factor + factor * absolute, (atol or 0.0) + (rtol or 0.0) * bound)
        else:
            bound *= factor
            bound += factor * absolute
        bound += float(numpy.finfo(dtype).tiny)
        error = _absolute(g - ref)
        ratio = error / bound
        margin = float(ratio.max())
        if not math.isfinite(margin):  # NaN or Inf in the gradient under test
            margin = math.inf
            ratio = xp.where(xp.isfinite(ratio), ratio, xp.inf)
        worst = max(worst, margin)
        if margin >= 1.0:
            result = TargetResult(t.name, tuple(t.base.shape), str(dtype), margin=margin,
                                  note=f"its {dtype} gradient differs from the reference gradient by more "
                                       "than the dtype's precision explains")
            order = numpy.argsort(-backend.to_cpu(ratio).reshape(-1), kind="stable")[:SHOWN_ELEMENTS]
            for flat in order:
                index = _index(int(flat), t.base.shape)
                reference = 0.0 if t.ref is None else float(t.ref[index])
                tested = 0.0 if t.grad is None else float(t.grad[index])
                result.elements.append(ElementDisagreement(
                    index, tested, reference, abs(tested - reference), float(bound[index]),
                    (f"backprop in {dtype}", f"backprop in {t.ref.dtype if t.ref is not None else 'float64'}")))
            failures.append(result)
    return worst, failures


def _localise(problem: _Problem, targets: list[_Target], probe_args: tuple, atol: float,
              rtol: float, full: _Probe) -> list[TargetResult]:
    """Which targets disagree (one probe each), and which of their elements."""
    results = []
    for k, t in enumerate(targets):
        result = TargetResult(t.name, tuple(t.base.shape), str(t.base.dtype))
        probe = full if len(targets) == 1 else _probe(problem, targets, {k: t.direction}, *probe_args)
        result.backprop, result.numerical = probe.backprop, probe.numerical
        result.tolerance, result.margin = _tolerance(probe, atol, rtol), _margin(probe, atol, rtol)
        if t.ref is None:
            result.note = "backprop gave no gradient (None)"
        results.append(result)
    failing = [r for r in results if r.margin >= 1.0] or [max(results, key=lambda r: r.margin)]
    for result in failing[:3]:
        k = results.index(result)
        result.elements = _worst_elements(problem, targets, k, probe_args, atol, rtol)
    return results


def _element_disagreement(problem: _Problem, targets: list[_Target], k: int, flat: int, probe_args: tuple,
                          atol: float, rtol: float) -> tuple[ElementDisagreement, float]:
    t = targets[k]
    direction = t.direction
    probe = _probe(problem, targets, _subset_parts(k, direction, [flat]), *probe_args)
    index = _index(flat, t.base.shape)
    v = float(direction[index]) if direction.ndim else float(direction)
    ref = 0.0 if t.ref is None else float(t.ref[index])
    tolerance = _tolerance(probe, atol, rtol) / abs(v)
    numerical = probe.numerical / v
    error = abs(ref - numerical)
    return ElementDisagreement(index, ref, numerical, error, tolerance), error / tolerance if tolerance else math.inf


def _worst_elements(problem: _Problem, targets: list[_Target], k: int, probe_args: tuple, atol: float,
                    rtol: float) -> list[ElementDisagreement]:
    t = targets[k]
    size = t.base.size
    if size == 0:
        return []
    if size <= ELEMENTWISE_LIMIT:
        candidates = list(range(size))
    else:
        # bisection: keep the half whose own probe disagrees most (6 evaluations per level)
        candidates = list(range(size))
        while len(candidates) > ELEMENTWISE_LIMIT // 4:
            half = len(candidates) // 2
            halves = (candidates[:half], candidates[half:])
            margins = [_margin(_probe(problem, targets, _subset_parts(k, t.direction, h), *probe_args), atol, rtol)
                       for h in halves]
            candidates = halves[int(margins[1] > margins[0])]
    scored = [_element_disagreement(problem, targets, k, flat, probe_args, atol, rtol) for flat in candidates]
    scored.sort(key=lambda pair: -pair[1])
    wrong = [element for element, margin in scored if margin >= 1.0]
    return (wrong or [scored[0][0]])[:SHOWN_ELEMENTS]


def _locate_kink(problem: _Problem, targets: list[_Target], probe_args: tuple, scale: float, seed: int) -> str:
    """Name the target and element next to which ``func`` has a kink (bisection on the 4th difference)."""
    best = None
    for k, t in enumerate(targets):
        if t.base.size == 0:
            continue
        probe = _probe(problem, targets, {k: t.direction}, *probe_args, kinks=True)
        ratio = probe.kink / _kink_threshold(probe, scale)
        if best is None or ratio > best[0]:
            best = (ratio, k)
    k = best[1]
    t = targets[k]
    candidates = list(range(t.base.size))
    while len(candidates) > 1:
        half = len(candidates) // 2
        halves = (candidates[:half], candidates[half:])
        ratios = []
        for h in halves:
            probe = _probe(problem, targets, _subset_parts(k, t.direction, h), *probe_args, kinks=True)
            ratios.append(probe.kink / _kink_threshold(probe, scale))
        candidates = halves[int(ratios[1] > ratios[0])]
    index = _index(candidates[0], t.base.shape)
    value = float(t.base[index])
    return (f"func is not differentiable near {t.name} element {index} (value {value!r}) (seed={seed})\n"
            f"  the numerical derivative changes abruptly within the step ({probe_args[0]:g} x the input's "
            "rms magnitude): move the input away from the kink, or check that the op is smooth there")


def _failure_message(where: str, report: GradientCheckReport, probe: _Probe, margin1: float,
                     outputs: tuple[Variable, ...], kinky: bool, seed: int) -> str:
    wrong = [r for r in report.targets if r.margin >= 1.0]
    names = ", ".join(dict.fromkeys(r.name for r in wrong)) or "the inputs together"
    lines = [f"{where}: backprop disagrees with the numerical derivative for {names} (seed={seed})"]
    if margin1 >= 1.0:
        lines.append(f"  directional derivative along a random direction ({report.numerical_dtype}): backprop "
                     f"{probe.backprop:.10g}, numerical {probe.numerical:.10g} (error "
                     f"{abs(probe.backprop - probe.numerical):.3g}, tolerance {report.tolerance:.3g})")
    for r in report.targets:
        if r.note.startswith("its "):
            lines.append(f"  {r.name} (shape {r.shape}, {r.dtype}): {r.note}; worst elements:")
        elif r.margin >= 1.0 or r.elements:
            extra = f"; {r.note}" if r.note else ""
            lines.append(f"  {r.name} (shape {r.shape}, {r.dtype}): backprop {r.backprop:.10g} vs numerical "
                         f"{r.numerical:.10g} along its own direction (error {abs(r.backprop - r.numerical):.3g}, "
                         f"tolerance {r.tolerance:.3g}){extra}; worst elements:")
        else:
            continue
        lines.extend(f"    {e}" for e in r.elements)
    if margin1 >= 1.0 and all(y.creator is None for y in outputs):
        lines.append("  note: no output of func is connected to its inputs (no graph was recorded): was the "
                     "backward written on raw arrays instead of minigrad functions?")
    if kinky:
        lines.append("  note: func looks non-differentiable within the step; pass detect_nondifferentiable=True "
                     "to locate the kink")
    lines.append(f"  reproduce with seed={seed}; {report.evaluations} evaluations of func")
    return "\n".join(lines)


# --- check_double_backward ------------------------------------------------------------

def check_double_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    x_grad_grad: Any,
    params: Sequence[Variable] = (),
    params_grad_grad: Sequence[Any] = (),
    eps: float = 1e-3,
    atol: float | None = None,
    rtol: float | None = None,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    *,
    seed: int | None = None,
) -> GradientCheckReport:
    """Check second-order gradients: ``check_backward`` on the first-order gradient function.

    The first-order gradient function takes the inputs and the output
    gradients (``y_grad``) as its inputs and returns the gradients of the float
    inputs (and of ``params``), computed with ``enable_double_backprop=True``;
    ``x_grad_grad`` (and ``params_grad_grad``) are backpropagated through it.
    A missing first-order gradient counts as zero; a backward that builds no
    graph (written on raw arrays) is reported as a failure, not a crash. For a
    scalar loss pass ``y_grad=None``. An output whose dtype does not follow the
    inputs' (``cast(x, float32)``) gets its ``y_grad`` in that dtype in the
    numerical part too; that input then moves as far as a numerical part in
    that dtype would, and its rounding counts as noise. The arguments ``func``,
    ``x_data``, ``params``, ``eps``, ``atol``, ``rtol``, ``no_grads``, ``dtype``,
    ``detect_nondifferentiable`` and ``seed`` mean what they mean in
    ``check_backward``.

    Args:
        y_grad: output gradient(s), or ``None`` for a scalar loss (the output
            gradient is then the constant one and is not checked).
        x_grad_grad: one array per checked float input (or one per input, with
            ``None`` for unchecked ones): gradients w.r.t. the first-order gradients.
        params_grad_grad: one array per parameter.

    Returns:
        The ``GradientCheckReport`` of the inner ``check_backward``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> rng = np.random.default_rng(0)
        >>> x, gy, ggx = (rng.uniform(-1, 1, 5) for _ in range(3))
        >>> gradient_check.check_double_backward(F.exp, x, gy, ggx, seed=0).margin < 1
        True
        >>> gradient_check.check_double_backward(lambda x: F.sum(x ** 3), x, None, ggx, seed=0).margin < 1
        True
    """
    where = "check_double_backward"
    x_data = _as_tuple(x_data)
    for i, x in enumerate(x_data):
        if not _is_array(x):
            raise TypeError(f"{where}: x_data[{i}] must be a NumPy or CuPy array, got {type(x).__name__}")
    n_x = len(x_data)
    if no_grads is None:
        no_grads = tuple(x.dtype.kind != "f" for x in x_data)
    else:
        no_grads = tuple(bool(n) for n in no_grads)
        if len(no_grads) != n_x:
            raise ValueError(f"{where}: no_grads has {len(no_grads)} entries but there are {n_x} inputs")
    checked = [i for i in range(n_x) if not no_grads[i] and x_data[i].dtype.kind == "f"]
    scalar = y_grad is None
    y_grads = () if scalar else _as_tuple(y_grad)
    for j, gy in enumerate(y_grads):
        if gy is not None and not _is_array(gy):
            raise TypeError(f"{where}: y_grad[{j}] must be an array or None, got {type(gy).__name__}")
    x_grad_grad = _as_tuple(x_grad_grad)
    if len(x_grad_grad) == n_x and len(checked) != n_x:
        x_grad_grad = tuple(x_grad_grad[i] for i in checked)
    if len(x_grad_grad) != len(checked):
        raise ValueError(f"{where}: x_grad_grad has {len(x_grad_grad)} entries; expected one per checked float "
                         f"input ({len(checked)})")
    params = tuple(params)
    params_grad_grad = tuple(params_grad_grad)
    if len(params_grad_grad) != len(params):
        raise ValueError(f"{where}: params_grad_grad has {len(params_grad_grad)} entries for {len(params)} params")
    gy_present = [j for j, gy in enumerate(y_grads) if gy is not None]
    rounded_inputs: dict[int, numpy.dtype] = {}  # filled in by first_order, read by the numerical noise bound

    def first_order(*args: Variable) -> tuple[Variable, ...]:
        xs, gys_in = args[:n_x], args[n_x:]
        ys = _as_tuple(func(*xs))
        for j, y in enumerate(ys):
            if not isinstance(y, Variable):
                raise TypeError(f"{where}: func must return a Variable or a tuple of Variables; output {j} is "
                                f"{type(y).__name__}")
        if scalar:
            outs = [y for y in ys if y.dtype.kind == "f"]
            for y in outs:
                if y.size != 1:
                    raise ValueError(f"{where}: y_grad=None is only for scalar outputs (a loss), but an output "
                                     f"has shape {y.shape}")
            seeds: list[Any] = [None] * len(outs)
        else:
            if len(y_grads) != len(ys):
                raise ValueError(f"{where}: func returned {len(ys)} output(s) but y_grad has {len(y_grads)} entries")
            gy_vars = dict(zip(gy_present, gys_in))
            outs, seeds = [], []
            for j, y in enumerate(ys):
                if j in gy_vars:
                    g = gy_vars[j]
                    if g.shape == y.shape and g.dtype != y.dtype and g.dtype.kind == y.dtype.kind == "f":
                        # the float64 reference pass upcasts y_grad, but an op like cast(x, float32)
                        # keeps its output dtype: follow the output, through a differentiable cast,
                        # and say so: that rounding is noise in the numerical derivative w.r.t. y_grad
                        g = _cast(g, y.dtype)
                        rounded_inputs[n_x + gy_present.index(j)] = y.dtype
                    if g.shape != y.shape or g.dtype != y.dtype:
                        raise ValueError(f"{where}: y_grad[{j}] has shape {g.shape} and dtype {g.dtype}, but "
                                         f"output {j} has shape {y.shape} and dtype {y.dtype}")
                    outs.append(y)
                    seeds.append(g)
                elif y.dtype.kind == "f" and y.size == 1:
                    outs.append(y)
                    seeds.append(None)
        wrt = [xs[i] for i in checked] + list(params)
        if outs and wrt:
            grads = _grad(outs, wrt, seeds, enable_double_backprop=True)
        else:
            grads = [None] * len(wrt)
        result = []
        for g, v in zip(grads, wrt):
            if g is None:  # a missing first-order gradient counts as zero
                g = Variable(v.xp.zeros_like(v.array), requires_grad=False)
            result.append(g)
        return tuple(result)

    inputs = x_data + tuple(y_grads[j] for j in gy_present)
    names = [f"x_data[{i}]" for i in range(n_x)] + [f"y_grad[{j}]" for j in gy_present]
    inner_no_grads = tuple(no_grads) + tuple(False for _ in gy_present)
    return _check_backward(first_order, inputs, x_grad_grad + params_grad_grad, params, eps, atol, rtol,
                           inner_no_grads, dtype, detect_nondifferentiable, seed, names, rounded_inputs)
