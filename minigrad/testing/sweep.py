"""The case runner: one check of one op on one backend and dtype.

``run_case(spec, dtype, backend, check)`` is the one case runner: what
``python -m minigrad check`` runs for each row of its table, what
``minigrad.testing.op_tests`` runs for each pytest item, what
``FunctionTestCase`` and ``LinkTestCase`` run for each test (they build an
``OpSpec`` per case: ``minigrad.testing.spec_test_case``) and what the
gradient checker's mutation suite runs for each problem
(``minigrad.testing.gradcheck_cases``), so none of them can drift apart. The
checks are the entries of ``BATTERY`` (their names, in order, are
``CHECKS``); adding a check is one entry there, and every one of them gets it:

- ``forward``: the outputs are Variables matching the reference within the
  dtype's tolerance, in the declared dtype (and not requiring grad for a
  non-differentiable op), and the input arrays are left unchanged;
- ``backward``: ``check_backward``; for an op with several outputs, leaving
  out the gradient of any one output (the op's backward receives ``None``)
  gives what a zero gradient gives;
- ``double``: ``check_double_backward`` (expected to fail under
  ``second_order=False``);
- ``deterministic``: the input gradients are bitwise equal when the backward
  runs twice on one graph and once more on a fresh graph;
- ``views``: transposed (Fortran-ordered or reversed), strided and broadcast
  views as inputs give the outputs and gradients that contiguous copies give;
- ``jvp``, ``vjp_linearity``, ``hvp_symmetry``: see
  ``minigrad.testing.functional_checks``;
- ``refuses``: bad inputs give a TypeError or ValueError naming the op (see
  ``minigrad.testing.refusal_check``); an opt-in check, run only by the bad
  cases ``minigrad.testing.spec_variants`` derives, which run it alone.

A case's status is ``pass``, ``fail``, ``skip`` (with a reason), ``xfail`` (an
expected failure that failed), ``xpass`` (an expected failure that passed:
counted as a failure, so that stale marks are removed) or ``error`` (a mistake
in the spec rather than the op, such as ``inputs`` returning a bare array: the
message names the spec and the field; also a case whose worker process died).

A case's seed depends only on the spec's name, the dtype and the run's seed
(``derive_case_seed``), never on which cases ran before it, so a case gives the same
result alone, in any order, in any process; ``run_case(..., case_seed=N)``
reruns a case from the seed its result reports.
"""

from __future__ import annotations

import time
import traceback
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad.configuration import force_backprop_mode
from minigrad.testing import functional_checks, refusal_check
from minigrad.testing._checker.arrays import as_tuple
from minigrad.testing.assertions import assert_allclose
from minigrad.testing.case_arrays import (
    SpecError,
    check_inputs_unchanged,
    check_outputs,
    draw_grad_grad_inputs,
    draw_grad_outputs,
    draw_inputs,
    gradient_check_arguments,
    to_backend,
)
from minigrad.testing.gradient_check import check_backward, check_double_backward
from minigrad.testing.registry import DEFAULT_FORWARD_TOLERANCE, FLOAT_DTYPES, OpSpec
from minigrad.variable import Variable

__all__ = ["CaseResult", "run_case", "skip_reason", "declared_skip_reason", "derive_case_seed", "Check", "BATTERY",
           "CHECKS", "runs_check", "SpecError", "FAILING_STATUSES", "STATUSES", "as_tuple", "to_backend", "draw_inputs",
           "draw_grad_outputs", "draw_grad_grad_inputs", "gradient_check_arguments", "check_outputs",
           "check_inputs_unchanged", "compare_backends", "FLOAT_DTYPES", "DEFAULT_FORWARD_TOLERANCE"]

STATUSES: tuple[str, ...] = ("pass", "fail", "error", "xpass", "xfail", "skip")
FAILING_STATUSES: frozenset[str] = frozenset({"fail", "error", "xpass"})


@dataclass
class CaseResult:
    """The outcome of one case: ``status`` is pass, fail, skip, xfail or xpass."""

    op: str
    backend: str
    dtype: str
    check: str
    status: str
    message: str = ""
    seconds: float = 0.0
    margin: float | None = None  # worst error / tolerance (< 1 passes), when the check measures one
    traceback: str = ""  # where the op raised, for errors other than a check's AssertionError
    seed: int | None = None  # the case's seed: run_case(..., case_seed=seed) reruns exactly this case
    # in the process that ran the case only (a worker sends neither): what the check raised, and what it returned
    # (a checker's report, a margin or None), for the callers that re-raise or read the report
    error: BaseException | None = field(default=None, repr=False, compare=False)
    outcome: Any = field(default=None, repr=False, compare=False)

    @property
    def failed(self) -> bool:
        """True for ``fail``, ``error`` and ``xpass``: the statuses that make the sweep exit 1."""
        return self.status in FAILING_STATUSES

    def reraise(self) -> None:
        """Raise a failing case's exception as its check raised it (an ``AssertionError`` for an ``xpass``).

        A passing, skipped or expected-to-fail case returns quietly. The test
        classes (``FunctionTestCase``, ``LinkTestCase``) and the mutation suite
        call it, so that a failure reads as the checker wrote it, report included.

        Example:
            >>> from minigrad.testing.sweep import run_case
            >>> import numpy as np, minigrad.functions as F
            >>> from minigrad.testing import OpSpec
            >>> wrong = OpSpec("tanh[off]", F.tanh, lambda rng, dt: (np.zeros(3, dt),), lambda a: np.tanh(a) + 1)
            >>> run_case(wrong, "float64", "numpy", "forward").reraise()
            Traceback (most recent call last):
            ...
            AssertionError: tanh[off]: output 0 of forward differs from the reference: ...
        """
        if not self.failed:
            return
        if self.error is not None and self.status != "xpass":
            raise self.error
        raise AssertionError(f"{self.op} ({self.dtype}, {self.backend}, {self.check}): {self.message}")


# --- the battery ------------------------------------------------------------------------------
def declared_skip_reason(spec: OpSpec, dtype: str, backend: str, check: str) -> str | None:
    """Why the spec itself rules this case out (dtype, backend, differentiability), or ``None``.

    ``skip_reason`` adds what depends on the machine (CuPy and a GPU present).

    Example:
        >>> from minigrad.testing.sweep import declared_skip_reason
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("sign", F.sign, lambda rng, dt: (np.ones(2, dt),), np.sign, backends=("numpy",))
        >>> declared_skip_reason(spec, "float32", "cupy", "forward")
        'sign does not support cupy'
    """
    if check not in BATTERY:
        raise ValueError(f"skip_reason: check must be one of {', '.join(CHECKS)}, got {check!r}")
    if not runs_check(spec, check):
        return f"{spec.name} runs {', '.join(spec.checks)} only" if spec.checks else f"{check} is opt-in"
    if dtype not in spec.dtypes:
        return f"{spec.name} does not support {dtype}"
    if backend not in spec.backends:
        return f"{spec.name} does not support {backend}"
    if BATTERY[check].needs_gradient and not spec.differentiable:
        return f"{spec.name} is not differentiable"
    if check in functional_checks.SECOND_ORDER and not spec.second_order:
        return f"{spec.name} declares second_order=False"
    if check == "jvp" and spec.params is not None and dtype != max(spec.dtypes, key=lambda d: numpy.dtype(d).itemsize):
        return (f"{spec.name}: jvp takes central differences in {dtype}'s widest sibling, which the spec's params "
                f"(in {dtype}) cannot join; it runs at the widest dtype")
    return None


def skip_reason(spec: OpSpec, dtype: str, backend: str, check: str) -> str | None:
    """Why this case does not apply, or ``None`` when it should run.

    Example:
        >>> from minigrad.testing.sweep import skip_reason
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("sign", F.sign, lambda rng, dt: (np.ones(2, dt),), np.sign, differentiable=False)
        >>> skip_reason(spec, "float32", "numpy", "backward"), skip_reason(spec, "float32", "numpy", "forward")
        ('sign is not differentiable', None)
    """
    reason = declared_skip_reason(spec, dtype, backend, check)
    if reason is None and backend == "cupy" and not backend_module.is_cupy_available():
        return "CuPy with a GPU is not available"
    return reason


def derive_case_seed(name: str, dtype: str, seed: int = 0) -> int:
    """The seed of every case of spec ``name`` at ``dtype`` in a run with ``seed``: its inputs and directions.

    It depends on nothing else (not on the order cases run in, nor on the
    process), so a case gives the same result in a serial run, under ``-j``,
    in a shard and alone. The backends share it (NumPy and CuPy see the same
    inputs), and so do the checks of one op.

    Example:
        >>> from minigrad.testing.sweep import derive_case_seed
        >>> derive_case_seed("tanh", "float32", 0) != derive_case_seed("tanh", "float64", 0)
        True
    """
    return zlib.crc32(f"{name}/{dtype}/{seed}".encode())


def _forward_tolerance(spec: OpSpec, dtype: str) -> tuple[float, float]:
    options = {**dict(zip(("atol", "rtol"), DEFAULT_FORWARD_TOLERANCE[dtype])), **spec.options("forward", dtype)}
    return options["atol"], options["rtol"]


def _declared_output_dtype(spec: OpSpec) -> Any:
    return "inputs" if spec.preserves_dtype else spec.output_dtype


def _call(spec: OpSpec, device_inputs: Sequence[Any]) -> tuple[Variable, ...]:
    variables = [Variable(a, requires_grad=a.dtype.kind == "f") for a in device_inputs]
    with force_backprop_mode():
        return as_tuple(spec.func(*variables))


def _grad_outputs(spec: OpSpec, rng: numpy.random.Generator, outputs: Sequence[Variable]) -> tuple[Any, ...]:
    arrays = tuple(backend_module.to_cpu(y.array) for y in outputs)
    if not spec.grad_outputs:
        return draw_grad_outputs(rng, arrays)
    try:
        drawn = as_tuple(spec.grad_outputs(rng, arrays))
    except Exception as error:
        raise SpecError(spec.name, "grad_outputs", f"raised {type(error).__name__}: {error}") from error
    if len(drawn) != len(arrays):
        raise SpecError(spec.name, "grad_outputs", f"gave {len(drawn)} gradient(s) for {len(arrays)} output(s)")
    for j, (g, y) in enumerate(zip(drawn, arrays)):
        if g is not None and numpy.shape(g) != y.shape:
            raise SpecError(spec.name, "grad_outputs", f"gradient {j} has shape {numpy.shape(g)}, output {j} "
                                                       f"{y.shape}")
    return drawn


def _reference_outputs(spec: OpSpec, originals: Sequence[Any], outputs: Sequence[Variable]) -> tuple[Any, ...]:
    """The reference's outputs on the float64 inputs; a count or shape unlike the op's is the spec's mistake."""
    upcast = tuple(a.astype(numpy.float64) if a.dtype.kind == "f" else a.copy() for a in originals)
    try:
        expected = tuple(numpy.asarray(e) for e in as_tuple(spec.reference(*upcast)))
    except Exception as error:
        raise SpecError(spec.name, "reference", f"raised {type(error).__name__}: {error}") from error
    if len(expected) != len(outputs):
        raise SpecError(spec.name, "reference", f"gives {len(expected)} output(s), the op {len(outputs)}")
    for j, (e, y) in enumerate(zip(expected, outputs)):
        if e.shape != y.shape:
            raise SpecError(spec.name, "reference", f"gives shape {e.shape} for output {j}, the op {y.shape} (if "
                                                    "the reference is right, the op's output shape is wrong)")
    return expected


def _worst_margin(outputs: Sequence[Variable], expected: Sequence[Any], atol: float, rtol: float) -> float:
    """max |y - e| / (atol + rtol |e|) over the float outputs: below 1 passes; NaN where both are NaN counts 0."""
    worst = 0.0
    for y, e in zip(outputs, expected):
        if y.dtype.kind != "f" or e.dtype.kind != "f" or not e.size:
            continue
        a, b = backend_module.to_cpu(y.array).astype(numpy.float64), e.astype(numpy.float64)
        with numpy.errstate(invalid="ignore", over="ignore"):
            ratio = numpy.abs(a - b) / (atol + rtol * numpy.abs(b))
        ratio = numpy.where((a == b) | (numpy.isnan(a) & numpy.isnan(b)), 0.0, ratio)
        worst = max(worst, float(numpy.nan_to_num(ratio, nan=numpy.inf).max()))
    return worst


def _forward(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int) -> float | None:
    inputs = draw_inputs(spec, rng, dtype)
    originals = [a.copy() for a in inputs]
    device_inputs = to_backend(inputs, backend)
    outputs = _call(spec, device_inputs)
    check_inputs_unchanged(spec.name, originals, device_inputs)
    expected = None if spec.reference is None else _reference_outputs(spec, originals, outputs)
    atol, rtol = _forward_tolerance(spec, dtype)
    margin = None if expected is None else _worst_margin(outputs, expected, atol, rtol)
    try:
        check_outputs(spec.name, outputs, expected, dtype, atol, rtol, output_dtype=_declared_output_dtype(spec),
                      differentiable=spec.differentiable)
    except AssertionError as error:
        error.margin = margin  # type: ignore[attr-defined]  # the row then says how far off, not only that it is
        raise
    return margin


def _params(spec: OpSpec) -> tuple[Any, ...]:
    """The Parameters ``func`` reads besides its inputs (none unless the spec says)."""
    if spec.params is None:
        return ()
    try:
        return tuple(spec.params())
    except Exception as error:
        raise SpecError(spec.name, "params", f"raised {type(error).__name__}: {error}") from error


def _backward(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int) -> Any:
    inputs = to_backend(draw_inputs(spec, rng, dtype), backend)
    outputs = _call(spec, inputs)
    y_grad = to_backend(_grad_outputs(spec, rng, outputs), backend)
    report = check_backward(spec.func, inputs, gradient_check_arguments(y_grad, outputs), _params(spec), seed=seed,
                            linear_in=spec.linear_in, **spec.options("backward", dtype))
    _check_unused_outputs(spec, dtype, inputs, y_grad)
    return report


def _input_gradients(spec: OpSpec, inputs: Sequence[Any], y_grad: Sequence[Any],
                     leave_out: int | None = None) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    """(output arrays, gradients of the float inputs) from backprop of ``y_grad`` (one output left out)."""
    from minigrad.function_node import grad

    with force_backprop_mode():
        xs = [Variable(a, requires_grad=a.dtype.kind == "f") for a in inputs]
        ys = as_tuple(spec.func(*xs))
        used = [j for j, (y, g) in enumerate(zip(ys, y_grad))
                if g is not None and y.requires_grad and j != leave_out]
        float_xs = [x for x in xs if x.requires_grad]
        grads = grad([ys[j] for j in used], float_xs, [Variable(y_grad[j]) for j in used]) if used else []
    values = tuple(backend_module.to_cpu(y.array) for y in ys)
    return values, tuple(None if g is None else backend_module.to_cpu(g.array) for g in grads)


def _compare(name: str, what: str, actual: Sequence[Any], expected: Sequence[Any], atol: float, rtol: float,
             exact: bool = False, none_is_zero: bool = False) -> None:
    for i, (a, e) in enumerate(zip(actual, expected)):
        if none_is_zero and (a is None) != (e is None):  # no gradient flows = a zero gradient
            a, e = (numpy.zeros_like(e) if a is None else a), (numpy.zeros_like(a) if e is None else e)
        if a is None or e is None:
            if (a is None) != (e is None):
                raise AssertionError(f"{name}: {what}: gradient {i} is None in one run only")
            continue
        if exact:
            if a.shape != e.shape or not numpy.array_equal(a, e, equal_nan=True):
                diff = numpy.abs(a.astype(numpy.float64) - e.astype(numpy.float64)).max() if a.shape == e.shape \
                    else float("nan")
                raise AssertionError(f"{name}: {what}: {i} differs (largest difference {diff:.3g}); the backward "
                                     "must be a function of its inputs and output gradients")
            continue
        try:
            assert_allclose(a, e, atol=atol, rtol=rtol, verbose=False)
        except AssertionError as error:
            raise AssertionError(f"{name}: {what}: {i}: {error}") from None


def _check_unused_outputs(spec: OpSpec, dtype: str, inputs: Sequence[Any], y_grad: Sequence[Any]) -> None:
    """Leaving out one output's gradient (the backward gets ``None``) equals giving it a zero gradient."""
    if sum(g is not None for g in y_grad) < 2:
        return
    atol, rtol = _forward_tolerance(spec, dtype)
    for j, g in enumerate(y_grad):
        if g is None:
            continue
        zeros = list(y_grad)
        zeros[j] = backend_module.get_array_module(g).zeros_like(g)  # g * 0 is float64 on NumPy 1 for 0-dim g
        _, expected = _input_gradients(spec, inputs, zeros)
        try:
            _, actual = _input_gradients(spec, inputs, y_grad, leave_out=j)
        except Exception as error:
            raise AssertionError(f"{spec.name}: the backward fails when output {j} receives no gradient (None): "
                                 f"{type(error).__name__}: {error}") from error
        _compare(spec.name, f"with no gradient for output {j}, input gradient", actual, expected, atol, rtol,
                 none_is_zero=True)


def _double(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int) -> Any:
    host_inputs = draw_inputs(spec, rng, dtype)
    inputs = to_backend(host_inputs, backend)
    outputs = _call(spec, inputs)
    y_grad = to_backend(_grad_outputs(spec, rng, outputs), backend)
    x_grad_grad = to_backend(_grad_grad_inputs(spec, rng, host_inputs), backend)
    params = _params(spec)
    params_grad_grad = tuple(backend_module.get_array_module(p.array).asarray(
        rng.uniform(-1, 1, p.shape).astype(p.dtype)) for p in params)
    return check_double_backward(spec.func, inputs, gradient_check_arguments(y_grad, outputs), x_grad_grad,
                                 params, params_grad_grad, seed=seed, linear_in=spec.linear_in,
                                 **spec.options("double", dtype))


def _grad_grad_inputs(spec: OpSpec, rng: numpy.random.Generator, inputs: Sequence[Any]) -> tuple[Any, ...]:
    """One gradient per float input for its first-order gradient: the spec's (``None`` for none, as Chainer's
    tests give), or uniform in [-1, 1]."""
    if spec.grad_grad_inputs is None:
        return draw_grad_grad_inputs(rng, inputs)
    try:
        drawn = as_tuple(spec.grad_grad_inputs(rng, tuple(inputs)))
    except Exception as error:
        raise SpecError(spec.name, "grad_grad_inputs", f"raised {type(error).__name__}: {error}") from error
    floats = [x for x in inputs if x.dtype.kind == "f"]
    if len(drawn) != len(floats) or any(g is not None and numpy.shape(g) != x.shape for g, x in zip(drawn, floats)):
        shapes = [None if g is None else numpy.shape(g) for g in drawn]
        raise SpecError(spec.name, "grad_grad_inputs", f"gave shapes {shapes} for float inputs of shapes "
                                                       f"{[x.shape for x in floats]}")
    return drawn


def _deterministic(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int) -> None:
    from minigrad.function_node import grad

    inputs = to_backend(draw_inputs(spec, rng, dtype), backend)
    with force_backprop_mode():
        xs = [Variable(a, requires_grad=a.dtype.kind == "f") for a in inputs]
        ys = as_tuple(spec.func(*xs))
        y_grad = to_backend(_grad_outputs(spec, rng, ys), backend)
        used = [j for j, (y, g) in enumerate(zip(ys, y_grad)) if g is not None and y.requires_grad]
        float_xs = [x for x in xs if x.requires_grad]
        if not used or not float_xs:
            return
        runs = []
        for _ in range(2):  # twice on the same graph: the retained arrays must still be intact
            grads = grad([ys[j] for j in used], float_xs, [Variable(y_grad[j]) for j in used])
            runs.append(tuple(None if g is None else backend_module.to_cpu(g.array) for g in grads))
    _, fresh = _input_gradients(spec, inputs, y_grad)
    _compare(spec.name, "a second backward on the same graph, input gradient", runs[1], runs[0], 0, 0, exact=True)
    _compare(spec.name, "a backward on a fresh graph, input gradient", fresh, runs[0], 0, 0, exact=True)


def _view(a: Any, layout: str) -> Any:
    """``a`` as a non-contiguous view with the same values ("broadcast": a stride-0 axis, values repeated)."""
    xp = backend_module.get_array_module(a)
    if layout == "transposed":
        return xp.ascontiguousarray(a.T).T if a.ndim >= 2 else xp.ascontiguousarray(a[::-1])[::-1]
    if layout == "strided":
        spread = xp.zeros(a.shape[:-1] + (2 * a.shape[-1],), dtype=a.dtype)
        spread[..., ::2] = a
        return spread[..., ::2]
    axis = next(i for i, n in enumerate(a.shape) if n > 1)  # broadcast the first element along that axis
    return xp.broadcast_to(xp.take(a, [0], axis=axis), a.shape)


def _views(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int) -> None:
    inputs = to_backend(draw_inputs(spec, rng, dtype), backend)
    ys = _call(spec, inputs)
    y_grad = _grad_outputs(spec, rng, ys) if spec.differentiable else (None,) * len(ys)
    y_grad = to_backend(y_grad, backend)
    atol, rtol = _forward_tolerance(spec, dtype)
    for layout in ("transposed", "strided", "broadcast"):
        viewed = tuple(_view(a, layout) if a.dtype.kind == "f" and a.size > 1 else a for a in inputs)
        if all(v is a for v, a in zip(viewed, inputs)):
            continue
        xp = backend_module.get_array_module(inputs[0])
        copies = tuple(xp.ascontiguousarray(v) for v in viewed)
        try:
            outputs, grads = _input_gradients(spec, viewed, y_grad)
        except Exception as error:
            raise AssertionError(f"{spec.name}: fails on {layout} views as inputs: {type(error).__name__}: "
                                 f"{error}") from error
        expected_outputs, expected_grads = _input_gradients(spec, copies, y_grad)
        _compare(spec.name, f"{layout} views as inputs, output", outputs, expected_outputs, atol, rtol)
        _compare(spec.name, f"{layout} views as inputs, input gradient", grads, expected_grads, atol, rtol)


@dataclass(frozen=True)
class Check:
    """One check of the battery: the function that runs it and what the sweep needs to know about it.

    ``run(spec, dtype, backend, rng, seed)`` raises ``AssertionError`` when the
    op fails the check and returns its margin (worst error over tolerance) or
    an object with a ``margin``, or ``None`` when it measures none.
    """

    run: Callable[[OpSpec, str, str, numpy.random.Generator, int], Any]
    order: int  # the highest derivative order it checks: `--order 1` leaves out the checks of order 2
    needs_gradient: bool  # skipped for ops declared non-differentiable
    estimate: float  # typical seconds per case (minigrad's registry, one core): shards and progress without durations
    opt_in: bool = False  # run only by specs that name it in ``checks`` (a spec's default checks leave it out)


# The battery, in the order a case list runs it; a new check is one entry here.
BATTERY: dict[str, Check] = {
    "forward": Check(_forward, order=0, needs_gradient=False, estimate=0.0004),
    "backward": Check(_backward, order=1, needs_gradient=True, estimate=0.0045),
    "double": Check(_double, order=2, needs_gradient=True, estimate=0.0093),
    "deterministic": Check(_deterministic, order=1, needs_gradient=True, estimate=0.0009),
    "views": Check(_views, order=1, needs_gradient=False, estimate=0.0023),
    # minigrad.testing.functional_checks: forward mode vs central differences, backward linear in the output
    # gradients, a symmetric Hessian (the two of order 2 are skipped for specs with second_order=False)
    "jvp": Check(functional_checks.check_jvp, order=2, needs_gradient=True, estimate=0.004),
    "vjp_linearity": Check(functional_checks.check_vjp_linearity, order=1, needs_gradient=True, estimate=0.002),
    "hvp_symmetry": Check(functional_checks.check_hvp_symmetry, order=2, needs_gradient=True, estimate=0.006),
    # minigrad.testing.refusal_check: the bad cases spec_variants derives run this check and no other
    "refuses": Check(refusal_check.check_refuses, order=0, needs_gradient=False, estimate=0.0003, opt_in=True),
}
CHECKS: tuple[str, ...] = tuple(BATTERY)
GRADIENT_CHECKS: frozenset[str] = frozenset(name for name, check in BATTERY.items() if check.needs_gradient)


def runs_check(spec: OpSpec, check: str) -> bool:
    """Whether ``spec`` runs ``check``: one its ``checks`` names, or by default every check but the opt-in ones.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> from minigrad.testing.sweep import runs_check
        >>> spec = OpSpec("tanh", F.tanh, lambda rng, dt: (np.zeros(2, dt),), np.tanh)
        >>> runs_check(spec, "backward"), runs_check(spec, "refuses")
        (True, False)
    """
    return check in spec.checks if spec.checks else not BATTERY[check].opt_in


def _margin_of(outcome: Any) -> float | None:
    """The margin a check returned or raised with (a report's, or the one ``_forward`` attaches)."""
    if isinstance(outcome, BaseException):
        outcome = getattr(outcome, "report", outcome)
    margin = outcome if isinstance(outcome, (int, float)) else getattr(outcome, "margin", None)
    return None if margin is None else float(margin)


def run_case(spec: OpSpec, dtype: str, backend: str, check: str, seed: int = 0, *,
             case_seed: int | None = None) -> CaseResult:
    """Run one check of one op and report it; an exception becomes a ``fail`` with its message.

    The case's inputs and random directions come from ``case_seed`` (default:
    ``derive_case_seed(spec.name, dtype, seed)``); the result records it, so
    ``run_case(..., case_seed=result.seed)`` gives the same result again. A
    mistake in the spec (``SpecError``) is an ``error``, never an expected failure.

    Example:
        >>> from minigrad.testing.sweep import CHECKS, run_case
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("tanh", F.tanh, lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), np.tanh)
        >>> [run_case(spec, "float32", "numpy", check).status for check in CHECKS]
        ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'skip']
        >>> wrong = OpSpec("tanh[off]", F.tanh, spec.inputs, lambda a: np.tanh(a) + 0.1)
        >>> result = run_case(wrong, "float64", "numpy", "forward")
        >>> result.status, result.message.split(":")[0], result.margin > 1
        ('fail', 'AssertionError', True)
    """
    seed_of_case = derive_case_seed(spec.name, dtype, seed) if case_seed is None else case_seed
    result = CaseResult(spec.name, backend, dtype, check, "pass", seed=seed_of_case)
    reason = skip_reason(spec, dtype, backend, check)
    if reason is not None:
        result.status, result.message = "skip", reason
        return result
    rng = numpy.random.default_rng(seed_of_case)
    expected_failure = spec.expected_failure(dtype, backend, check)
    start = time.perf_counter()
    try:
        result.outcome = BATTERY[check].run(spec, dtype, backend, rng, seed_of_case)
        result.margin = _margin_of(result.outcome)
        if expected_failure is not None:
            result.status = "xpass"
            result.message = (f"unexpected pass: {check} was declared to fail ({expected_failure}) but passes; "
                              "remove the declaration")
    except refusal_check.CaseSkipped as reason:  # the check found, running, that the case says nothing
        result.status, result.message = "skip", str(reason)
    except SpecError as error:  # the spec is wrong, not the op: no expected failure covers it
        result.status, result.message = "error", f"SpecError: {error}"
        result.traceback, result.error = traceback.format_exc(), error
    except Exception as error:  # the sweep reports every failure; the pytest items and test classes re-raise it
        result.error = error
        result.status = "xfail" if expected_failure is not None else "fail"
        result.message = f"{type(error).__name__}: {error}"
        result.margin = _margin_of(error)
        if expected_failure is not None:
            result.message = f"expected failure ({expected_failure}): {result.message}"
        if not isinstance(error, AssertionError):  # a verdict says it all; a crash needs its traceback
            result.traceback = traceback.format_exc()
    result.seconds = time.perf_counter() - start
    return result


def compare_backends(spec: OpSpec, dtype: str, other: str = "cupy", seed: int = 0) -> float:
    """Run ``spec`` on NumPy and on ``other`` with identical inputs and output gradients.

    Returns the worst ``error / tolerance`` over forward outputs and input
    gradients; raises ``AssertionError`` when it exceeds 1.

    Example:
        >>> from minigrad.testing.sweep import compare_backends
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("tanh", F.tanh, lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), np.tanh)
        >>> compare_backends(spec, "float32", other="numpy")
        0.0
    """
    rng = numpy.random.default_rng(derive_case_seed(spec.name, dtype, seed))
    inputs = draw_inputs(spec, rng, dtype)
    atol, rtol = _forward_tolerance(spec, dtype)
    y_grad = _grad_outputs(spec, rng, _call(spec, inputs))
    if not spec.differentiable:
        y_grad = (None,) * len(y_grad)
    results = []
    for name in ("numpy", other):
        outputs, grads = _input_gradients(spec, to_backend(inputs, name), to_backend(y_grad, name))
        results.append(outputs + grads)
    worst = 0.0
    for a, b in zip(*results):
        if a is None or b is None:
            if (a is None) != (b is None):
                raise AssertionError(f"{spec.name}: a gradient is None on one backend only")
            continue
        a64, b64 = numpy.asarray(a, numpy.float64), numpy.asarray(b, numpy.float64)
        if a64.shape != b64.shape:
            raise AssertionError(f"{spec.name}: shapes differ between backends: {a64.shape} vs {b64.shape}")
        if a64.size:
            worst = max(worst, float((numpy.abs(a64 - b64) / (atol + rtol * numpy.abs(a64))).max()))
    if worst > 1:
        raise AssertionError(f"{spec.name} ({dtype}): NumPy and {other} differ by {worst:.3g} x the tolerance")
    return worst
