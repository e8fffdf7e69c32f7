"""Gradient checking: is a backward pass right?

``check_backward`` compares the gradients that backprop computes with numerical
derivatives of ``f(x) = sum_j sum(func(x)[j] * y_grad[j])``. How it decides:

1. **Backprop under test.** ``func`` runs forward and backward in the inputs'
   own dtype (its outputs joined through one ``Identity`` node, so one
   backward pass reaches all of them), then forward and backward once more at
   the same point: the two runs must agree (up to ``nondet_tol``). Backprop is
   forced on for every graph the check builds, whatever mode the caller is in.
2. **Reference.** For inputs less precise than ``dtype`` (float64 unless
   given), forward and backward run once more on the inputs cast to
   ``dtype``: the reference gradients. For float64 inputs the gradients under
   test are the reference.
3. **Directions.** Every input and parameter gets its own random direction
   ``v``, drawn from ``seed``: a random sign times a weight in [0.5, 1] per
   element (every element always takes part), times the input's rms magnitude
   up to 1 (small inputs take small steps). A draw nearly orthogonal to the
   reference gradient is redrawn, and the sign makes the input's directional
   derivative positive.
4. **Numerical derivative, one probe per input.** ``f`` is evaluated in
   ``dtype`` at ``x + t*v`` for ``t = -2h, -h, h, 2h`` (``h = eps / 10`` for a
   float64 numerical part; larger for float32/float16), moving that input
   alone. Richardson's extrapolation gives the derivative (error O(h^4)); the
   disagreement of the two central differences and the 4th difference bound
   its error, also next to a kink (``_checker.finite_differences``).
5. **The kink policy.** A tolerance may absorb rounding noise and a smooth
   function's truncation error; it never absorbs a kink. When the error
   bounds of a probe do not fit its tolerance, the step shrinks tenfold (up to
   six times), which clears a kink that is near but not at the point. If that
   does not help, the elements next to the kink are found (bisection) and taken
   out of the direction: if the rest of the input is wrong, that is a
   ``GradientCheckError``; otherwise, and in any case for the isolated
   elements, a ``NondifferentiableError`` names the input and the elements.
   The check never passes what it could not verify. With
   ``detect_nondifferentiable`` it also raises for a kink within the step
   that does not affect the verdict.
6. **Check 1 (the maths).** Each input's own directional derivative
   ``<g_ref, v>`` must match its numerical one within ``max(atol*||v|| +
   rtol*|numerical|, noise)``; ``noise`` is a multiple of the error estimate
   plus bounds on the rounding of ``f`` and of ``<g_ref, v>``. So the default
   tolerance can be tight (``rtol=1e-6`` for float64) without false alarms,
   and no input's error is diluted by the others' terms.
7. **Check 2 (the precision).** Low-precision gradients must match the
   reference element by element within ``64 * eps(dtype)`` of the element plus
   an absolute scale (the largest change of ``f`` per relative change of an
   input element), which absorbs cancellation inside the backward pass.

On failure the report names the input or parameter that is wrong and its
worst elements (each element of small inputs, a bisection over element subsets
of large ones), with the seed that reproduces it. Guards turn broken test
set-ups into clear errors: a ``func`` whose forward or backward is not a
function of its inputs, that modifies its inputs, or whose backward modifies the
output gradients it was given; complex inputs are refused. The machinery lives
in ``minigrad.testing._checker``; this module is its public front.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.function_node import grad as _grad
from minigrad.functions.array.cast import cast as _cast
from minigrad.testing._checker import finite_differences as fd
from minigrad.testing._checker import guards, hints, localisation, probing
from minigrad.testing._checker.precision import precision_check
from minigrad.testing._checker.problem import (
    CheckProblem,
    Target,
    as_entries,
    as_tuple,
    element_index,
    f64,
    float_dtype,
    is_array,
    is_c_contiguous,
    layout_copy,
    rms,
)
from minigrad.testing._checker.report import (
    GradientCheckError,
    GradientCheckReport,
    NondifferentiableError,
    TargetResult,
    failure_message,
)
from minigrad.variable import Variable

__all__ = [
    "numerical_grad",
    "check_backward",
    "check_double_backward",
    "NondifferentiableError",
    "GradientCheckError",
    "GradientCheckReport",
]

# kept importable under their old names
AUTO_RTOL = probing.AUTO_RTOL
STEP_FACTOR = probing.STEP_FACTOR


class _StepError(ValueError, AssertionError):
    """A bad ``eps``: a ValueError, and an AssertionError like Chainer's ``assert eps > 0``."""


def _check_eps(eps: Any, where: str) -> float:
    if isinstance(eps, bool) or not isinstance(eps, (int, float, numpy.integer, numpy.floating)) \
            or not (eps > 0 and math.isfinite(eps)):
        raise _StepError(f"{where}: eps must be a positive finite number, got {eps!r}")
    return float(eps)


# --- numerical_grad (Chainer's element-by-element API) -----------------------------------

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
    (and restored) one element at a time. ``eps`` is an absolute step, as in
    Chainer: ``f`` is never evaluated further than ``eps`` from an input. Each
    element gets Richardson's extrapolation of two central differences (at
    ``eps/2`` and ``eps``, as realised after rounding to the input's dtype),
    computed in float64, from the same finite-difference engine as
    ``check_backward``. Costs ``4 * inputs[i].size`` calls of ``f`` (6 with
    ``detect_nondifferentiable``, at multiples of ``eps/3``), plus one.

    Args:
        f: function of no arguments returning an array, a scalar or a tuple of them (or Variables).
        inputs: float arrays that ``f`` reads.
        grad_outputs: one array or scalar (or ``None`` to ignore that output) per output of ``f``.
        eps: step size (absolute), > 0.
        detect_nondifferentiable: raise ``NondifferentiableError`` when ``f`` has
            a kink, a jump or a NaN/Inf boundary within ``eps`` of an element
            (a 4th difference that does not vanish, or a non-finite value).
        diff_atol, diff_rtol: tolerances of that test: the 4th difference over the
            step must stay below ``diff_atol + diff_rtol * |largest one-sided slope|``.
        center_outputs: outputs of ``f()`` at the unperturbed inputs (computed when None).

    Returns:
        One gradient array per input, in the input's dtype.

    Raises:
        ValueError: ``eps`` is not positive and finite (also an ``AssertionError``, as in Chainer),
            or too small for an input's dtype.
        TypeError: an input is not a float array (complex inputs are refused).
        NondifferentiableError: with ``detect_nondifferentiable``, at a kink.

    Example:
        >>> import numpy as np
        >>> from minigrad.testing.gradient_check import NondifferentiableError, numerical_grad
        >>> x = np.array([1.0, 2.0])
        >>> gx, = numerical_grad(lambda: (x ** 3,), (x,), (np.ones(2),))
        >>> np.round(gx, 6)
        array([ 3., 12.])
        >>> y = np.array([0.5, 0.0])
        >>> try:
        ...     numerical_grad(lambda: (np.abs(y),), (y,), (np.ones(2),), detect_nondifferentiable=True)
        ... except NondifferentiableError as e:
        ...     print(str(e).split(":")[1].strip())
        f is not differentiable within eps=0.001 of inputs[0] element (1,) (value 0.0)
    """
    where = "numerical_grad"
    eps = _check_eps(eps, where)
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if not is_array(x):
            raise TypeError(f"{where}: inputs[{i}] must be an array, got {type(x).__name__}")
        if x.dtype.kind != "f":
            raise TypeError(f"{where}: inputs[{i}] has dtype {x.dtype}; only real float inputs have a numerical "
                            "gradient" + (" (complex inputs are not supported)" if x.dtype.kind == "c" else ""))
    grad_outputs = tuple(None if g is None else _as_array(g) for g in as_tuple(grad_outputs))

    def value(outputs: Any) -> tuple[float, float]:
        outs = tuple(_as_array(getattr(y, "array", y)) for y in as_tuple(outputs))
        if len(outs) != len(grad_outputs):
            raise ValueError(f"{where}: f returned {len(outs)} outputs but {len(grad_outputs)} "
                             "grad_outputs were given")
        total, rounding = 0.0, 0.0
        for y, gy in zip(outs, grad_outputs):
            if gy is not None:
                terms = f64(y) * f64(gy)
                total += float(terms.sum())
                eps_y = float(numpy.finfo(y.dtype).eps) if y.dtype.kind == "f" else 0.0
                rounding += max(eps_y, float(numpy.finfo(numpy.float64).eps)) * float(abs(terms).sum())
        return total, rounding

    f0, rounding0 = value(f() if center_outputs is None else center_outputs)
    nominal = fd.SYMMETRIC_WITH_KINKS if detect_nondifferentiable else fd.PROBE
    step = eps / max(nominal)
    grads = []
    for i, x in enumerate(inputs):
        xp = backend.get_array_module(x)
        g = numpy.zeros(x.shape, dtype=numpy.float64)
        for index in numpy.ndindex(*x.shape):
            original = x[index].copy()
            values, offsets, rounding = [], [], rounding0
            for t in nominal:
                x[index] = original + x.dtype.type(t * step)
                offsets.append(float(x[index]) - float(original))
                v, r = value(f())
                values.append(v)
                rounding = max(rounding, r)
            x[index] = original
            if len(set(offsets)) < len(offsets) or 0.0 in offsets:
                raise ValueError(f"{where}: eps={eps} is too small for inputs[{i}] ({x.dtype}) "
                                 f"at element {index} (value {float(original)!r})")
            diff = fd.difference(offsets, values, f0, step)
            g[index] = diff.derivative
            if detect_nondifferentiable:
                # the 4th difference's own rounding: 16 times that of a value, over the step
                threshold = diff_atol + diff_rtol * diff.slope + 64.0 * rounding / step
                if not diff.finite or diff.kink > threshold:
                    raise NondifferentiableError(
                        f"{where}: f is not differentiable within eps={eps:g} of inputs[{i}] element {index} "
                        f"(value {float(original)!r})" + (": f is not finite there" if not diff.finite else
                                                          f": 4th difference {diff.kink:.3g} over the step, "
                                                          f"threshold {threshold:.3g}"))
        grads.append(xp.asarray(g.astype(x.dtype)))
    return tuple(grads)


def _as_array(a: Any) -> Any:
    """An array for a scalar output or gradient (Chainer's numerical_grad accepts them)."""
    return a if is_array(a) else numpy.asarray(a, dtype=numpy.float64)


# --- check_backward -----------------------------------------------------------------------

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
    nondet_tol: float = 0.0,
) -> GradientCheckReport:
    """Check the gradients backprop computes for ``func`` against numerical derivatives.

    ``func(*variables)`` returns a Variable or a tuple of Variables; its outputs
    are joined through one ``Identity`` node and backpropagated from
    ``y_grad``. The gradient of every float input (and of every parameter in
    ``params``) is compared with a numerical derivative along its own random
    direction (see the module docstring). Costs a fixed number of evaluations
    per input, whatever its size: two forward+backward passes, another in
    ``dtype`` for low-precision inputs, and four numerical evaluations per
    input or parameter (more next to a kink).

    Args:
        func: the function under test, taking one Variable per entry of ``x_data``.
        x_data: input array or tuple (or list) of arrays, one per input, as in
            Chainer (NumPy or CuPy). Integer inputs are passed through
            unperturbed and must receive no gradient. Complex inputs are
            refused (TypeError), and so is a list or tuple of numbers (one
            array, or one input per number? pass ``numpy.asarray(...)``).
        y_grad: gradient array (or tuple, one per output) to backpropagate;
            an entry may be ``None`` for an output that gets no gradient;
            ``None`` for a scalar output (a loss).
        params: Parameters ``func`` uses (e.g. a layer's); they are perturbed
            too and restored exactly (same array objects) afterwards.
        eps: step of the numerical derivative: each element moves by up to
            ``eps / 5`` (float64 numerical part; ``32 * eps`` for float32,
            ``256 * eps`` for float16) times the input's rms magnitude when
            that is below 1, and less next to a kink.
        atol, rtol: tolerances of each input's directional-derivative
            comparison, as in Chainer (``atol`` applies to a unit-length
            direction). ``None`` (default): automatic, ``rtol=1e-6`` for a
            float64 numerical part, so that errors far below Chainer's defaults
            are caught; the comparison never gets tighter than the measured
            numerical noise. When given, they also bound the elementwise
            precision check.
        no_grads: one bool per input: True = do not check (and do not perturb)
            that input; as in Chainer it still requires a gradient, and backprop
            must give it none (RuntimeError otherwise). Default: True exactly
            for non-float inputs.
        dtype: float dtype of the numerical part and of the reference
            gradients; ``None`` means float64.
        detect_nondifferentiable: also raise ``NondifferentiableError`` for a
            kink within the step that does not affect the verdict.
        seed: seed of the random directions; ``None`` draws one. It is printed
            in every failure, so passing it back reproduces the failure.
        input_names: names of the inputs in messages (default ``x_data[i]``).
        nondet_tol: how much two forward or backward runs at the same point may
            differ (absolute, per element); 0 accepts only rounding-level
            differences. The numerical noise bound grows with it.

    Returns:
        A ``GradientCheckReport`` (``margin`` < 1, evaluation count, seed, ...).

    Raises:
        GradientCheckError: (an ``AssertionError``) backprop is wrong; the message
            names the input or parameter and the worst elements.
        NondifferentiableError: ``func`` has a kink (jump, NaN boundary) at the
            point that a smaller step does not clear, or, with
            ``detect_nondifferentiable``, any kink within the step.
        RuntimeError: ``func``'s forward or backward is not deterministic, it
            modifies its inputs, its backward modifies the output gradients it
            was given, or an input excluded by ``no_grads`` gets a gradient.
        TypeError, ValueError: bad arguments.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
        >>> report = gradient_check.check_backward(F.exp, x, np.ones((3, 4)), seed=0)
        >>> report.margin < 1, report.evaluations
        (True, 6)

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
    try:
        return _check_backward(func, x_data, y_grad, params, eps, atol, rtol, no_grads, dtype,
                               detect_nondifferentiable, seed, input_names, nondet_tol, rounded_inputs={},
                               where="check_backward")
    except GradientCheckError as error:  # name the node inside func that is wrong (on failure only: it reruns func)
        from minigrad.testing.node_localisation import localise_failure
        localise_failure(error, "check_backward", func, x_data, params, no_grads, order=1, eps=eps, atol=atol,
                         rtol=rtol, dtype=dtype, detect_nondifferentiable=detect_nondifferentiable,
                         nondet_tol=nondet_tol)
        raise


def _check_backward(func: Callable[..., Any], x_data: Any, y_grad: Any, params: Sequence[Variable], eps: float,
                    atol: float | None, rtol: float | None, no_grads: Sequence[bool] | None, dtype: Any,
                    detect_nondifferentiable: bool, seed: int | None, input_names: Sequence[str] | None,
                    nondet_tol: float, rounded_inputs: dict[int, numpy.dtype], where: str,
                    excluded_may_have_grads: bool = False) -> GradientCheckReport:
    """``check_backward``; ``rounded_inputs`` maps the position of an input that ``func`` itself
    rounds to a lower precision than the numerical dtype to that precision (``func`` may fill it in
    as it runs), so that the rounding is counted in the numerical noise."""
    x_data = as_entries(x_data, "x_data", where)
    if not x_data:
        raise ValueError(f"{where}: x_data is empty; pass at least one input array")
    for i, x in enumerate(x_data):
        if not is_array(x):
            raise TypeError(f"{where}: x_data[{i}] must be a NumPy or CuPy array, got {type(x).__name__}")
    names = tuple(input_names) if input_names is not None else tuple(f"x_data[{i}]" for i in range(len(x_data)))
    if len(names) != len(x_data):
        raise ValueError(f"{where}: input_names has {len(names)} entries for {len(x_data)} inputs")
    for i, x in enumerate(x_data):
        if x.dtype.kind == "c":
            raise TypeError(f"{where}: {names[i]} is complex ({x.dtype}); complex inputs are not checked: pass "
                            "the real and imaginary parts as separate real inputs")
    eps = _check_eps(eps, where)
    for name, tol in (("atol", atol), ("rtol", rtol), ("nondet_tol", nondet_tol)):
        if tol is not None and not (tol >= 0 and math.isfinite(tol)):
            raise ValueError(f"{where}: {name} must be >= 0{' or None' if name != 'nondet_tol' else ''}, "
                             f"got {tol!r}")
    nd = numpy.dtype(numpy.float64) if dtype is None else float_dtype(dtype, where)
    params = tuple(params)
    for k, p in enumerate(params):
        if not isinstance(p, Variable):
            raise TypeError(f"{where}: params[{k}] must be a Variable (Parameter), got {type(p).__name__}")
        if p.array is None or p.dtype.kind != "f":
            raise ValueError(f"{where}: params[{k}] must hold a real float array")
    if no_grads is None:
        no_grads = tuple(x.dtype.kind != "f" for x in x_data)
    else:
        no_grads = tuple(bool(n) for n in no_grads)
        if len(no_grads) != len(x_data):
            raise ValueError(f"{where}: no_grads has {len(no_grads)} entries but there are {len(x_data)} inputs")
        for i, (x, skip) in enumerate(zip(x_data, no_grads)):
            if not skip and x.dtype.kind != "f":
                raise ValueError(f"{where}: {names[i]} has dtype {x.dtype}, which has no gradient; "
                                 "its no_grads entry must be True")
    for i, x in enumerate(x_data):
        if x.dtype.kind == "f" and not bool(backend.get_array_module(x).isfinite(x).all()):
            raise ValueError(f"{where}: {names[i]} contains NaN or Inf")
    if seed is None:
        seed = _draw_seed()
    user_tolerance = atol is not None or rtol is not None
    atol1 = 0.0 if atol is None else float(atol)
    rtol1 = probing.AUTO_RTOL.get(nd.name, 1e-6) if rtol is None else float(rtol)

    problem = CheckProblem(func, x_data, params, names, where, rounded_inputs, float(nondet_tol))
    problem.loss_scale = guards.loss_scale(seed)
    original_params = [p.array for p in params]
    try:
        return _check(problem, y_grad, no_grads, nd, eps, atol1, rtol1, user_tolerance,
                      detect_nondifferentiable, seed, excluded_may_have_grads)
    finally:
        for p, array in zip(params, original_params):
            p.array = array


def _check(problem: CheckProblem, y_grad: Any, no_grads: tuple[bool, ...], nd: numpy.dtype, eps: float,
           atol: float, rtol: float, user_tolerance: bool, detect: bool, seed: int,
           excluded_may_have_grads: bool) -> GradientCheckReport:
    where, x_data, params, names = problem.where, problem.x_data, problem.params, problem.input_names
    requires = [x.dtype.kind == "f" for x in x_data]  # excluded float inputs still require grad, as in Chainer
    targets = [Target(names[i], i, None, x, x) for i, x in enumerate(x_data) if requires[i] and not no_grads[i]]
    for k, p in enumerate(params):
        label = f"params[{k}]" + (f" ({p.name!r})" if p.name else "")
        targets.append(Target(label, -1, p, p.array, p.array))
    excluded = [] if excluded_may_have_grads else [Target(names[i], i, None, x, x) for i, x in enumerate(x_data)
                                                   if requires[i] and no_grads[i]]

    # 1. backprop under test, in the inputs' own dtype (with the guards), twice, on copies of the caller's
    # arrays that keep their layout (a transposed view, a strided slice): func never sees the arrays themselves
    arrays = [layout_copy(x) for x in x_data]
    run = problem.first_pass(arrays, requires, targets + excluded, y_grad)
    for t, g in zip(targets, run.grads):
        t.grad = g
    for t, g in zip(excluded, run.grads[len(targets):]):
        if g is not None:
            raise RuntimeError(f"{where}: {t.name} is excluded by no_grads but backprop gave it a gradient; "
                               "an excluded input must receive none (as in Chainer)")
    problem.repeat_pass(arrays, requires, targets, run._replace(grads=run.grads[:len(targets)]))
    guards.require_finite(where, targets, seed, problem.evaluations, reference=False)
    layout_results = []
    if not all(is_c_contiguous(a) for a in arrays):  # the same gradients on C-contiguous copies
        layout_results = guards.layout_disagreements(
            targets, problem.contiguous_pass(arrays, requires, targets, run._replace(grads=run.grads[:len(targets)])))

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
        reference = problem.reference_pass(arrays_nd, requires, targets, run.gys)
        for t, r in zip(targets, reference.grads):
            t.ref = r
        guards.require_finite(where, targets, seed, problem.evaluations, reference=True)
        center_outputs = reference.outputs
    else:
        for t in targets:
            t.ref = t.grad
        center_outputs = run.outputs
    center_value = problem.value(center_outputs)
    center_l1 = problem.l1_terms(center_outputs)

    # 3. directions, one per target
    rng = numpy.random.default_rng(seed)
    for t in targets:
        t.scale = probing.step_scale(rms(t.base), nd)
        rounded = problem.rounded_inputs.get(t.position) if t.param is None else None
        if rounded is not None:  # move it as far as a numerical part in that precision would
            t.boost = max(1.0, probing.STEP_FACTOR.get(numpy.dtype(rounded).name, 1.0)
                          / probing.STEP_FACTOR.get(nd.name, 1.0))
            t.scale *= t.boost
        t.direction, t.share, t.stats = probing.direction(rng, t)
    setup = probing.ProbeSetup(problem, targets, eps * probing.STEP_FACTOR.get(nd.name, 1.0), nd, center_value,
                               center_l1, arrays_nd, requires, atol, rtol,
                               probing.AUTO_RTOL.get(nd.name, 1e-6))
    report = GradientCheckReport(0.0, 0, seed, nd.name, 0.0, 0.0, 0.0, 0.0)
    if not targets:
        report.evaluations = problem.evaluations
        return report

    # 4. probes. Each target's term is held to its own tolerance: targets of comparable share are
    # probed together and their sum held to the strictest of their tolerances; a target adding much
    # less gets a probe of its own (its errors would drown in the others' noise), and so does every
    # target of a group that fails or cannot be trusted, which decides the verdict target by target
    largest = max(t.share for t in targets)
    main = [k for k, t in enumerate(targets) if not t.share < probing.MINOR_SHARE * largest]
    groups = [main] + [[k] for k in range(len(targets)) if k not in main]
    group_probes = [probing.probe(setup, {k: targets[k].direction for k in g}, kinks=detect) for g in groups]
    scale_all = max(p.scale for p in group_probes)
    if detect:
        for g, p in zip(groups, group_probes):
            first = p.initial or p
            if first.kink > probing.kink_threshold(first, scale_all):
                k = g[0] if len(g) == 1 else _kinkiest(setup, g, scale_all)
                flat = localisation.kink_element(setup, k, targets[k].direction, setup.step, detect=True,
                                                 scale=scale_all)
                raise NondifferentiableError(_kink_message(where, targets[k], [flat], setup.step, seed))
    probes: dict[int, probing.Probe] = {}  # target -> its own probe
    group_margins: dict[int, float] = {}  # target -> margin of the group probe it passed in
    for g, p in zip(groups, group_probes):
        if len(g) == 1:
            probes[g[0]] = p
            continue
        m = probing.group_margin(p, [targets[k] for k in g], atol, rtol)
        if p.trusted and m < 1.0:
            group_margins.update((k, m) for k in g)
        else:
            probes.update((k, probing.probe(setup, {k: targets[k].direction})) for k in g)
    kinks: dict[int, list[int]] = {}
    directions = {k: t.direction for k, t in enumerate(targets)}
    for k, p in probes.items():
        if not p.trusted:  # a kink a smaller step does not clear: isolate its elements
            isolated, rest, directions[k] = localisation.isolate_kinks(setup, k, p)
            kinks[k] = isolated
            if rest is not None:
                probes[k] = rest

    # 5. check 1 (the maths) and check 2 (the precision)
    results = []
    for k, t in enumerate(targets):
        if k in group_margins:
            result = TargetResult(t.name, tuple(t.base.shape), str(t.base.dtype), t.share, math.nan, math.nan,
                                  group_margins[k], step=group_probes[0].step,
                                  note="checked together with the other inputs of comparable share")
        else:
            p = probes[k]
            result = TargetResult(t.name, tuple(t.base.shape), str(t.base.dtype), p.backprop, p.numerical,
                                  probing.tolerance(p, atol, rtol), probing.margin(p, atol, rtol), step=p.step)
            if k in kinks and not p.trusted:
                result.margin = 0.0  # not verified at all: reported as non-differentiable below
        if t.ref is None:
            result.note = "backprop gave no gradient (None)"
        results.append(result)
    if not probes:  # everything passed in one group probe: report that probe
        p = group_probes[0]
        report.backprop, report.numerical, report.error_estimate = p.backprop, p.numerical, p.error_estimate
        report.tolerance = probing.group_tolerance(p, [targets[k] for k in main], atol, rtol)
    margin1 = max(r.margin for r in results)
    worst = max(range(len(targets)), key=lambda k: (k in probes, results[k].margin))
    if worst in probes:
        report.backprop, report.numerical = probes[worst].backprop, probes[worst].numerical
        report.tolerance, report.error_estimate = results[worst].tolerance, probes[worst].error_estimate
    margin2, precision_failures = (precision_check(targets, atol if user_tolerance else None,
                                                   rtol if user_tolerance else None, center_l1[0])
                                   if needs_reference else (None, []))
    report.margin = max(margin1, margin2 or 0.0)
    report.precision_margin = margin2
    report.directional_margin = margin1
    report.targets = results
    kinky = False
    if margin1 >= 1.0:
        failing = [k for k, r in enumerate(results) if r.margin >= 1.0]
        for k in failing[:3]:
            results[k].elements = localisation.worst_elements(setup, k, directions[k])
            if k in kinks:
                results[k].note = (f"elements {[element_index(f, targets[k].base.shape) for f in kinks[k]]} sit "
                                   "on a kink and were left out")
        if not detect:  # is a kink the reason? (five more evaluations, on failure only)
            again = probing.evaluate(setup, {worst: directions[worst]}, setup.step, kinks=True)
            kinky = again.kink > probing.kink_threshold(again, scale_all)
    report.targets += precision_failures + layout_results
    if layout_results:
        report.margin = max(report.margin, max(r.margin for r in layout_results))
    report.evaluations = problem.evaluations
    if report.margin >= 1.0:
        no_graph = all(y.creator is None for y in run.outputs)
        report.hints = hints.gradient_hints(setup, report.targets, probes, directions, seed, no_graph, where)
        report.evaluations = problem.evaluations  # the hints' probes too
        raise GradientCheckError(failure_message(where, report, no_graph, kinky), report)
    if kinks:  # nothing wrong where it could check, but some elements could not be verified
        k = next(iter(kinks))
        raise NondifferentiableError(_kink_message(where, targets[k], kinks[k], probes[k].step, seed))
    return report


def _draw_seed() -> int:
    return int(numpy.random.SeedSequence().entropy % (2 ** 63))


def _kinkiest(setup: probing.ProbeSetup, group: Sequence[int], scale: float) -> int:
    """The target of ``group`` whose own probe shows the largest kink (detect_nondifferentiable)."""
    def ratio(k: int) -> float:
        p = probing.evaluate(setup, {k: setup.targets[k].direction}, setup.step, kinks=True)
        return p.kink / probing.kink_threshold(p, scale)
    return max(group, key=ratio)


def _kink_message(where: str, target: Target, flats: Sequence[int], step: float, seed: int) -> str:
    shape = target.base.shape
    indices = [element_index(f, shape) for f in flats]
    values = [float(target.base[i]) for i in indices]
    first = f"element {indices[0]} (value {values[0]!r})" if len(indices) == 1 else \
        "elements " + ", ".join(f"{i} (value {v!r})" for i, v in zip(indices, values))
    return (f"{where}: func is not differentiable near {target.name} {first} (seed={seed})\n"
            f"  the numerical derivative changes abruptly within the step ({step:g} x the input's rms magnitude, "
            "and smaller steps did not help): move the input away from the kink, or check that the op is "
            "smooth there")


# --- check_double_backward ----------------------------------------------------------------

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
    input_names: Sequence[str] | None = None,
    nondet_tol: float = 0.0,
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
    ``detect_nondifferentiable``, ``seed``, ``input_names`` and ``nondet_tol``
    mean what they mean in ``check_backward`` (the kink policy included); the
    output gradients are named ``y_grad[j]`` in messages.

    Args:
        y_grad: output gradient(s), or ``None`` for a scalar loss (the output
            gradient is then the constant one and is not checked); an entry
            may be ``None`` for an output that gets no gradient.
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
    x_data = as_entries(x_data, "x_data", where)
    for i, x in enumerate(x_data):
        if not is_array(x):
            raise TypeError(f"{where}: x_data[{i}] must be a NumPy or CuPy array, got {type(x).__name__}")
    n_x = len(x_data)
    x_names = [f"x_data[{i}]" for i in range(n_x)] if input_names is None else list(input_names)
    if len(x_names) != n_x:
        raise ValueError(f"{where}: input_names has {len(x_names)} entries for {n_x} inputs")
    if no_grads is None:
        no_grads = tuple(x.dtype.kind != "f" for x in x_data)
    else:
        no_grads = tuple(bool(n) for n in no_grads)
        if len(no_grads) != n_x:
            raise ValueError(f"{where}: no_grads has {len(no_grads)} entries but there are {n_x} inputs")
    checked = [i for i in range(n_x) if not no_grads[i] and x_data[i].dtype.kind == "f"]
    scalar = y_grad is None
    y_grads = () if scalar else as_entries(y_grad, "y_grad", where)
    for j, gy in enumerate(y_grads):
        if gy is not None and not is_array(gy):
            raise TypeError(f"{where}: y_grad[{j}] must be an array or None, got {type(gy).__name__}")
    x_grad_grad = as_entries(x_grad_grad, "x_grad_grad", where)
    if len(x_grad_grad) == n_x and len(checked) != n_x:
        x_grad_grad = tuple(x_grad_grad[i] for i in checked)
    if len(x_grad_grad) != len(checked):
        raise ValueError(f"{where}: x_grad_grad has {len(x_grad_grad)} entries; expected one per checked float "
                         f"input ({len(checked)})")
    params = tuple(params)
    params_grad_grad = as_entries(params_grad_grad, "params_grad_grad", where)
    if len(params_grad_grad) != len(params):
        raise ValueError(f"{where}: params_grad_grad has {len(params_grad_grad)} entries for {len(params)} params")
    gy_present = [j for j, gy in enumerate(y_grads) if gy is not None]
    if seed is None:
        seed = _draw_seed()
    scale = guards.loss_scale(seed)  # the output gradient of a scalar loss: not 1, so a missing * gy shows
    rounded_inputs: dict[int, numpy.dtype] = {}  # filled in by first_order, read by the numerical noise bound

    def first_order(*args: Variable) -> tuple[Variable, ...]:
        xs, gys_in = args[:n_x], args[n_x:]
        ys = as_tuple(func(*xs))
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
            seeds: list[Any] = [Variable(y.xp.full_like(y.array, scale), requires_grad=False) for y in outs]
        else:
            if len(y_grads) != len(ys):
                raise ValueError(f"{where}: func returned {len(ys)} output(s) but y_grad has {len(y_grads)} entries")
            gy_vars = dict(zip(gy_present, gys_in))
            outs, seeds = [], []
            for j, y in enumerate(ys):
                if j in gy_vars:  # an output whose y_grad entry is None gets no gradient
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
    names = x_names + [f"y_grad[{j}]" for j in gy_present]
    inner_no_grads = tuple(no_grads) + tuple(False for _ in gy_present)
    try:
        return _check_backward(first_order, inputs, x_grad_grad + params_grad_grad, params, eps, atol, rtol,
                               inner_no_grads, dtype, detect_nondifferentiable, seed, names, nondet_tol,
                               rounded_inputs, where, excluded_may_have_grads=True)
    except GradientCheckError as error:  # as in check_backward: the node inside func that is wrong
        from minigrad.testing.node_localisation import localise_failure
        localise_failure(error, where, func, x_data, params, no_grads, order=2, eps=eps, atol=atol, rtol=rtol,
                         dtype=dtype, detect_nondifferentiable=detect_nondifferentiable, nondet_tol=nondet_tol)
        raise
