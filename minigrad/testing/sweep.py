"""Run one registry case (op x backend x dtype x check); shared by the tests and the CLI."""

from __future__ import annotations

import time
import traceback
import zlib
from dataclasses import dataclass
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad.testing.assertions import assert_allclose
from minigrad.testing.gradient_check import check_backward, check_double_backward
from minigrad.testing.op_specs import DEFAULT_FORWARD_TOLERANCE, OpSpec
from minigrad.variable import Variable

__all__ = ["CaseResult", "run_case", "CHECKS"]

CHECKS: tuple[str, ...] = ("forward", "backward", "double")


@dataclass
class CaseResult:
    op: str
    backend: str
    dtype: str
    check: str
    status: str  # "pass", "fail", "skip"
    message: str = ""
    seconds: float = 0.0
    margin: float | None = None  # worst error / tolerance (< 1 passes), when the checker reports it


def _tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _case_seed(spec: OpSpec, dtype: str, seed: int) -> int:
    return zlib.crc32(f"{spec.name}/{dtype}/{seed}".encode())


def _to_backend(arrays: tuple[Any, ...], backend: str) -> tuple[Any, ...]:
    if backend == "numpy":
        return arrays
    return tuple(backend_module.to_gpu(a) for a in arrays)


def _draw_grads(rng: numpy.random.Generator, like: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple(rng.uniform(-1, 1, size=a.shape).astype(a.dtype) for a in like)


def skip_reason(spec: OpSpec, dtype: str, backend: str, check: str) -> str | None:
    """Why this case does not apply, or ``None`` when it should run."""
    if dtype not in spec.dtypes:
        return f"{spec.name} does not support {dtype}"
    if backend not in spec.backends:
        return f"{spec.name} does not support {backend}"
    if backend == "cupy" and not backend_module.is_cupy_available():
        return "CuPy with a GPU is not available"
    if check != "forward" and not spec.differentiable:
        return f"{spec.name} is not differentiable"
    if check == "double" and not spec.second_order:
        return f"{spec.name} has no second-order check"
    return None


def _forward(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator) -> float | None:
    inputs = spec.inputs(rng, numpy.dtype(dtype))
    originals = [a.copy() for a in inputs]
    device_inputs = _to_backend(inputs, backend)
    outputs = _tuple(spec.func(*(Variable(a) for a in device_inputs)))
    for a, before in zip(device_inputs, originals):
        assert_allclose(a, before, atol=0, rtol=0, verbose=False)  # forward must not modify inputs
    for i, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise AssertionError(f"{spec.name} returned {type(y).__name__} for output {i}, not a Variable")
        if not spec.differentiable and y.requires_grad:
            raise AssertionError(f"{spec.name} is declared non-differentiable but output {i} requires grad")
    if spec.reference is None:
        return None
    upcast = tuple(a.astype(numpy.float64) if a.dtype.kind == "f" else a for a in inputs)
    expected = _tuple(spec.reference(*upcast))
    if len(expected) != len(outputs):
        raise AssertionError(f"{spec.name}: {len(outputs)} outputs, reference gives {len(expected)}")
    atol, rtol = spec.forward_tolerance.get(dtype, DEFAULT_FORWARD_TOLERANCE[dtype])
    for y, e in zip(outputs, expected):
        e = numpy.asarray(e)
        if y.shape != e.shape:
            raise AssertionError(f"{spec.name}: output shape {y.shape}, reference shape {e.shape}")
        if y.dtype.kind == "f" and e.dtype.kind == "f" and y.dtype != numpy.dtype(dtype) and spec.preserves_dtype:
            raise AssertionError(f"{spec.name}: output dtype {y.dtype} for {dtype} inputs")
        assert_allclose(y.array, e, atol=atol, rtol=rtol)
    return None


def _gradient(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, order: int,
              seed: int) -> Any:
    inputs = spec.inputs(rng, numpy.dtype(dtype))
    outputs = _tuple(spec.func(*(Variable(a) for a in inputs)))
    y_grad = (spec.grad_outputs(rng, tuple(y.array for y in outputs)) if spec.grad_outputs
              else _draw_grads(rng, tuple(y.array for y in outputs)))
    device_inputs = _to_backend(inputs, backend)
    y_grad = _to_backend(y_grad, backend)
    if order == 1:
        kwargs = dict(zip(("atol", "rtol"), spec.backward_tolerance[dtype])) if dtype in spec.backward_tolerance else {}
        return check_backward(spec.func, device_inputs, y_grad, seed=seed, **kwargs)
    float_inputs = tuple(a for a in inputs if a.dtype.kind == "f")
    x_grad_grad = _to_backend(_draw_grads(rng, float_inputs), backend)
    kwargs = dict(zip(("atol", "rtol"), spec.double_tolerance[dtype])) if dtype in spec.double_tolerance else {}
    return check_double_backward(spec.func, device_inputs, y_grad, x_grad_grad, seed=seed, **kwargs)


def run_case(spec: OpSpec, dtype: str, backend: str, check: str, seed: int = 0) -> CaseResult:
    """Run one check of one op and report it (exceptions become a ``fail`` with the message)."""
    result = CaseResult(spec.name, backend, dtype, check, "pass")
    reason = skip_reason(spec, dtype, backend, check)
    if reason is not None:
        result.status, result.message = "skip", reason
        return result
    case_seed = _case_seed(spec, dtype, seed)
    rng = numpy.random.default_rng(case_seed)
    start = time.perf_counter()
    try:
        if check == "forward":
            report = _forward(spec, dtype, backend, rng)
        else:
            report = _gradient(spec, dtype, backend, rng, 1 if check == "backward" else 2, case_seed)
        result.margin = getattr(report, "margin", None)
    except Exception as error:  # the sweep reports every failure; the tests re-raise it
        result.status = "fail"
        result.message = f"{type(error).__name__}: {error}"
        result.traceback = traceback.format_exc()  # type: ignore[attr-defined]
    result.seconds = time.perf_counter() - start
    return result


def compare_backends(spec: OpSpec, dtype: str, other: str = "cupy", seed: int = 0) -> float:
    """Run ``spec`` on NumPy and on ``other`` with identical inputs and output gradients.

    Returns the worst ``error / tolerance`` over forward outputs and input
    gradients; raises ``AssertionError`` when it exceeds 1.
    """
    from minigrad.function_node import grad as grad_of

    rng = numpy.random.default_rng(_case_seed(spec, dtype, seed))
    inputs = spec.inputs(rng, numpy.dtype(dtype))
    atol, rtol = spec.forward_tolerance.get(dtype, DEFAULT_FORWARD_TOLERANCE[dtype])
    results = []
    y_grad = None
    for name in ("numpy", other):
        xs = [Variable(a) for a in _to_backend(inputs, name)]
        ys = _tuple(spec.func(*xs))
        if y_grad is None:
            y_grad = _draw_grads(rng, tuple(backend_module.to_cpu(y.array) for y in ys))
        values = [backend_module.to_cpu(y.array) for y in ys]
        float_xs = [x for x in xs if x.requires_grad]
        if spec.differentiable and float_xs:
            grads = grad_of(list(ys), float_xs, [Variable(g) for g in _to_backend(y_grad, name)])
            values += [None if g is None else backend_module.to_cpu(g.array) for g in grads]
        results.append(values)
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
