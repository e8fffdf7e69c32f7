"""Gradient checking: compare backprop with numerical directional derivatives.

(First version: central differences along one random direction per input,
numerical part in float64. To be strengthened: see issue 3.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.functions.array.identity import identity
from minigrad.variable import Variable

__all__ = ["numerical_grad", "check_backward", "check_double_backward", "NondifferentiableError"]


class NondifferentiableError(Exception):
    """The function is not differentiable at the point being checked."""


def _as_tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


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
    """Per-element central differences of ``sum(f() * grad_outputs)`` w.r.t. each input (in place)."""
    if eps <= 0:
        raise ValueError(f"numerical_grad: eps must be positive, got {eps}")
    grads = []
    for x in inputs:
        g = numpy.zeros(x.shape, dtype=numpy.float64)
        flat = x.reshape(-1)
        for i in range(flat.size):
            orig = flat[i].copy()
            flat[i] = orig + eps
            yp = [numpy.asarray(backend.to_cpu(y), dtype=numpy.float64) for y in _as_tuple(f())]
            flat[i] = orig - eps
            ym = [numpy.asarray(backend.to_cpu(y), dtype=numpy.float64) for y in _as_tuple(f())]
            flat[i] = orig
            total = 0.0
            for a, b, gy in zip(yp, ym, grad_outputs):
                if gy is not None:
                    total += float(((a - b) * numpy.asarray(backend.to_cpu(gy), dtype=numpy.float64)).sum())
            g.reshape(-1)[i] = total / (2 * eps)
        grads.append(g.astype(x.dtype))
    return tuple(grads)


def _run(func: Callable[..., Any], xs: Sequence[Variable]) -> tuple[Variable, ...]:
    ys = _as_tuple(func(*xs))
    for y in ys:
        if not isinstance(y, Variable):
            raise TypeError(f"check_backward: func must return Variables, got {type(y).__name__}")
    return ys


def check_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    params: Sequence[Variable] = (),
    eps: float = 1e-3,
    atol: float = 1e-5,
    rtol: float = 1e-4,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    *,
    seed: int | None = None,
) -> None:
    """Check ``func``'s backprop gradient against a numerical directional derivative."""
    if eps <= 0:
        raise ValueError(f"check_backward: eps must be positive, got {eps}")
    rng = numpy.random.default_rng(seed)
    x_data = _as_tuple(x_data)
    xs = [Variable(x.copy()) if x.dtype.kind == "f" else Variable(x, requires_grad=False) for x in x_data]
    if no_grads is None:
        no_grads = [x.dtype.kind != "f" for x in x_data]
    ys = _as_tuple(identity(*_run(func, xs)))
    y_grad = _as_tuple(y_grad) if y_grad is not None else (None,) * len(ys)
    for y, gy in zip(ys, y_grad):
        if gy is None:
            if y.size != 1:
                raise ValueError("check_backward: y_grad=None needs a scalar output")
            gy = y.xp.ones_like(y.array)
        y.grad = gy
    grad_arrays = [y.grad for y in ys]
    from minigrad.function_node import _backprop

    _backprop(list(ys), [y.grad_var for y in ys], retain_grad=False, enable_double_backprop=False, collect=None)
    targets = [(x, x_data[i]) for i, x in enumerate(xs) if not no_grads[i]] + [(p, p.array) for p in params]
    directions = [rng.standard_normal(d.shape) for _, d in targets]
    norm = numpy.sqrt(sum(float((d * d).sum()) for d in directions)) or 1.0
    directions = [d / norm for d in directions]
    analytic = 0.0
    for (v, _), d in zip(targets, directions):
        if v.grad is not None:
            analytic += float((numpy.asarray(backend.to_cpu(v.grad), dtype=numpy.float64) * d).sum())
    ndtype = numpy.dtype(dtype) if dtype is not None else numpy.float64
    originals = [numpy.asarray(backend.to_cpu(d), dtype=ndtype) for _, d in targets]

    def evaluate(t: float) -> float:
        for (v, _), base, d in zip(targets, originals, directions):
            v.array = v.xp.asarray((base + t * d).astype(ndtype))
        outs = _run(func, [Variable(x.array) for x in xs])
        return sum(
            float((numpy.asarray(backend.to_cpu(o.array), dtype=numpy.float64)
                   * numpy.asarray(backend.to_cpu(g), dtype=numpy.float64)).sum())
            for o, g in zip(outs, grad_arrays)
        )

    original_params = [(p, p.array) for p in params]
    try:
        numeric = (evaluate(eps) - evaluate(-eps)) / (2 * eps)
    finally:
        for (v, data), x in zip(targets, [d for _, d in targets]):
            v.array = x
        for p, data in original_params:
            p.array = data
    lowest = min((numpy.finfo(d.dtype).eps for d in x_data if d.dtype.kind == "f"), default=1e-16)
    scale = max(1.0, lowest / numpy.finfo(numpy.float32).eps * 10) if lowest > 1e-10 else 1.0
    if not abs(analytic - numeric) <= (atol + rtol * abs(numeric)) * scale:
        raise AssertionError(
            f"check_backward failed (seed={seed}): backprop directional derivative {analytic!r} "
            f"vs numerical {numeric!r}"
        )


def check_double_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    x_grad_grad: Any,
    params: Sequence[Variable] = (),
    params_grad_grad: Sequence[Any] = (),
    eps: float = 1e-3,
    atol: float = 1e-4,
    rtol: float = 1e-3,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    *,
    seed: int | None = None,
) -> None:
    """Check the first-order gradient function of ``func`` with ``check_backward``."""
    x_data = _as_tuple(x_data)
    n_x = len(x_data)
    scalar = y_grad is None
    y_grad_t = () if scalar else _as_tuple(y_grad)
    float_idx = [i for i, x in enumerate(x_data) if x.dtype.kind == "f"]

    def first_order(*args: Variable) -> tuple[Variable, ...]:
        xs, gys = args[:n_x], args[n_x:]
        ys = _as_tuple(func(*xs))
        if scalar:
            gys = [Variable(y.xp.ones_like(y.array), requires_grad=False) for y in ys]
        from minigrad.function_node import grad

        gxs = grad(list(ys), [xs[i] for i in float_idx], list(gys), enable_double_backprop=True)
        return tuple(
            g if g is not None else Variable(xs[i].xp.zeros_like(xs[i].array))
            for g, i in zip(gxs, float_idx)
        )

    check_backward(first_order, x_data + y_grad_t, _as_tuple(x_grad_grad), params, eps, atol, rtol,
                   None, dtype, detect_nondifferentiable, seed=seed)
