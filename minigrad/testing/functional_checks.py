"""Three checks of the battery built on ``minigrad.functional``: ``jvp``, ``vjp_linearity``, ``hvp_symmetry``.

The sweep (``python -m minigrad check``, ``op_tests``) runs them on every op
with a gradient, each reported as a check of its own:

- ``jvp``: the tangent map ``J t`` that ``functional.jvp`` gets by the
  double-vjp trick, against central differences of the op along ``t``
  (Richardson's 4-point formula, evaluated in float64, or the most precise
  dtype the op supports). It catches a double backward that is wrong in the
  output gradients, which is the part forward mode relies on.
- ``vjp_linearity``: backward is linear in the output gradients,
  ``vjp(a·u + b·w) = a·vjp(u) + b·vjp(w)``, three pullbacks of one graph. It
  catches a backward that branches on, masks with, or ignores its output
  gradient. No step size: the two sides differ by rounding alone.
- ``hvp_symmetry``: ``u·(Hv) = v·(Hu)`` for ``L = <w, f(x)>``, for each pair
  of float inputs (the cross blocks included), with ``H`` from a vjp of the
  gradient (one double backward, then two passes per input, or per group of
  inputs for ops with more than four). It catches an asymmetric double
  backward. No step size either.

``jvp`` and ``hvp_symmetry`` differentiate a backward pass: a spec with
``second_order=False`` skips them, and ``--order 1`` leaves them out;
``vjp_linearity`` needs first order only. The tolerances are norm-wise (the
largest error against a multiple of the largest term, so that cancellation
inside an op makes no false alarm): multiples of eps(dtype) for the two
identities, a relative error for ``jvp``. The eps is that of the least
precise dtype among the op's float inputs and outputs (Chainer's linear of a
float16 x and a float32 W computes W's gradient from float16 output
gradients), and an op that declares its gradients accurate to ``(atol, rtol)``
only (``check_backward_options`` for ``vjp_linearity``,
``check_double_backward_options`` for ``hvp_symmetry``: an ill-conditioned whitening) is held to
that. In float32 and float64 a broken op
misses them by orders of magnitude; float16's are coarse (15 % for ``jvp``,
about 25 % of the Cauchy-Schwarz bound for ``hvp_symmetry``), so there they
catch gross errors only. Each runner returns a report with ``margin`` (worst
error / tolerance) and raises ``AssertionError`` on failure.

Example:
    >>> import numpy as np, minigrad.functions as F
    >>> from minigrad.testing import OpSpec, run_case
    >>> spec = OpSpec("tanh", F.tanh, lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), np.tanh)
    >>> [run_case(spec, "float32", "numpy", check).status for check in ("jvp", "vjp_linearity", "hvp_symmetry")]
    ['pass', 'pass', 'pass']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad import functional
from minigrad.testing._checker.arrays import as_tuple
from minigrad.testing.case_arrays import draw_inputs
from minigrad.testing.registry import OpSpec
from minigrad.variable import Variable

__all__ = ["RUNNERS", "SECOND_ORDER", "FunctionalCheckReport", "check_jvp", "check_vjp_linearity",
           "check_hvp_symmetry", "declared_tolerance"]

# Tolerances, calibrated on the whole registry over seeds 0-30 (104,625 cases): the worst margin of a correct op is
# 0.31 (crf1d's Hessian and softmax_cross_entropy's tangent in float16), the others at most 0.2; a broken op
# misses them by orders of magnitude (tests/testing/test_functional_checks.py). The one failure in those runs,
# batch_renormalization[r, d at their bounds] in float16 at seed 2, fails backward and double there too.
# vjp_linearity: a multiple of eps(dtype) times the size of the terms.
_LINEARITY_FACTOR = 64.0
# hvp_symmetry: a multiple of eps(dtype) times |u|·|Hv| + |v|·|Hu|; large in float32/float64 because a Hessian made
# of cancelling terms (crf1d's, a covariance of paths) is accurate to a few hundred eps of those bounds only
_SYMMETRY_FACTOR = {"float16": 256.0, "float32": 4096.0, "float64": 4096.0}
# jvp vs central differences: relative to the largest tangent of the output (float64: the Richardson error;
# float16: softmax_cross_entropy's tangent is off by up to 4 % of its largest element)
_JVP_RTOL = {"float16": 0.15, "float32": 2e-4, "float64": 1e-6}
_STEP = {"float16": 1e-1, "float32": 1e-2, "float64": 1e-4}  # central differences in the reference dtype


@dataclass
class FunctionalCheckReport:
    """What a passing check measured: ``margin`` is the worst error over its tolerance (< 1)."""

    check: str
    margin: float
    passed: bool = True


# --- the op as a function of its float inputs --------------------------------------------------
def _float_function(spec: OpSpec, inputs: Sequence[Any]) -> tuple[Callable[..., Any], list[Any]]:
    """``spec.func`` as a function of the float inputs alone (the others bound as constants), and those inputs."""
    floats = [i for i, a in enumerate(inputs) if a.dtype.kind == "f"]

    def func(*xs: Any) -> Any:
        args = [Variable(a, requires_grad=False) for a in inputs]
        for i, x in zip(floats, xs):
            args[i] = x
        return spec.func(*args)

    return func, [inputs[i] for i in floats]


def _draw_inputs(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator) -> list[Any]:
    arrays = draw_inputs(spec, rng, dtype)
    return list(arrays) if backend == "numpy" else [backend_module.to_gpu(a) for a in arrays]


def _like(a: Any, host: numpy.ndarray, dtype: Any = None) -> Any:
    """``host`` on ``a``'s device, in ``dtype`` (default: ``a``'s)."""
    return backend_module.get_array_module(a).asarray(host.astype(a.dtype if dtype is None else dtype))


def _cotangents(spec: OpSpec, rng: numpy.random.Generator, outputs: Sequence[Variable]) -> list[Any]:
    """Output gradients: the spec's own drawing, else uniform in [-1, 1] (``None`` for non-float outputs)."""
    hosts = [backend_module.to_cpu(y.array) for y in outputs]
    if spec.grad_outputs is not None:
        drawn = spec.grad_outputs(rng, tuple(hosts))
        drawn = tuple(drawn) if isinstance(drawn, (tuple, list)) else (drawn,)
    else:
        drawn = [rng.uniform(-1, 1, h.shape) if h.dtype.kind == "f" else None for h in hosts]
    return [None if g is None else _like(y.array, numpy.asarray(g)) for g, y in zip(drawn, outputs)]


def _host64(v: Any) -> numpy.ndarray:
    return numpy.asarray(backend_module.to_cpu(getattr(v, "array", v)), dtype=numpy.float64)


def _eps(dtype: Any) -> float:
    return float(numpy.finfo(dtype).eps)


def declared_tolerance(spec: OpSpec, dtype: str, order: int) -> tuple[float, float]:
    """``(atol, rtol)`` the spec declares for its gradients of ``order`` (1 or 2) in ``dtype``; ``(0, 0)`` if none.

    Read from ``check_backward_options`` / ``check_double_backward_options``, as the gradient checks read
    them. An op only this accurate (an ill-conditioned one, a whitening) is held to it by the checks built on
    ``vjp``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> from minigrad.testing.functional_checks import declared_tolerance
        >>> spec = OpSpec("exp", F.exp, lambda rng, dt: (np.ones(2, dt),),
        ...               check_backward_options={np.float32: {"atol": 1e-4, "rtol": 1e-3}},
        ...               check_double_backward_options={"rtol": 1e-2})
        >>> declared_tolerance(spec, "float32", 1), declared_tolerance(spec, "float32", 2)
        ((0.0001, 0.001), (0.0, 0.01))
    """
    options = spec.options("backward" if order == 1 else "double", dtype)
    return float(options.get("atol") or 0.0), float(options.get("rtol") or 0.0)


def _norm(a: numpy.ndarray) -> float:
    return float(numpy.abs(a).max(initial=0.0))


# --- jvp ----------------------------------------------------------------------------------------
def _lowest(*dtypes: Any) -> str:
    return numpy.dtype(min((numpy.dtype(d) for d in dtypes), key=lambda d: d.itemsize)).name


def _reference_dtypes(spec: OpSpec, output_dtype: Any) -> tuple[str, str]:
    """(the dtype to evaluate central differences in, the precision of its outputs, which sets the step)."""
    reference = max(spec.dtypes, key=lambda d: numpy.dtype(d).itemsize)
    return reference, _lowest(reference, output_dtype) if not spec.preserves_dtype else reference


def _central_differences(func: Callable[..., Any], xs: Sequence[Any], ts: Sequence[Any], dtype: str,
                         precision: str) -> list[numpy.ndarray]:
    """The derivative of each output of ``func`` along ``ts`` at ``xs``, by Richardson's 4-point formula in ``dtype``.

    The step suits ``precision``, the dtype of the outputs (float32 for a cast
    from float64). Where the two central differences (steps h and 2h) disagree
    by far more than a smooth function's O(h²), a kink lies within 2h: the step
    shrinks tenfold, up to three times (the inputs are drawn clear of kinks, but
    not always by 2h).
    """
    h = _STEP[precision]
    for _ in range(4):
        values = {}
        for step in (-2, -1, 1, 2):
            moved = [Variable(_like(x, _host64(x) + step * h * _host64(t), dtype), requires_grad=False)
                     for x, t in zip(xs, ts)]
            values[step] = [_host64(y) for y in as_tuple(func(*moved))]
        near = [(a - b) / (2 * h) for a, b in zip(values[1], values[-1])]
        far = [(c - d) / (4 * h) for c, d in zip(values[2], values[-2])]
        if all(_norm(n - f) <= 1e-3 * max(_norm(n), _norm(f)) for n, f in zip(near, far)):
            break
        h /= 10
    return [(4 * n - f) / 3 for n, f in zip(near, far)]


def check_jvp(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int,
              ) -> FunctionalCheckReport | None:
    """``functional.jvp`` of the op against central differences along a random tangent (see the module).

    Each output is compared norm-wise: its largest error against ``_JVP_RTOL``
    of its largest tangent, or, in low precision, of ``sqrt(eps)`` times the
    largest tangent of any output (a small tangent computed from large shared
    terms, an LSTM's last state beside its sequence, is only that accurate).
    """
    func, xs = _float_function(spec, _draw_inputs(spec, dtype, backend, rng))
    if not xs:
        return None
    ts = [_like(x, rng.uniform(-1, 1, x.shape)) for x in xs]
    outputs, tangents = (as_tuple(r) for r in functional.jvp(func, xs, ts))
    float_outputs = [y.dtype for y in outputs if y.dtype.kind == "f"] or [dtype]
    numerical = _central_differences(func, xs, ts, *_reference_dtypes(spec, _lowest(*float_outputs)))
    pairs = [(j, _host64(t), e) for j, (y, t, e) in enumerate(zip(outputs, tangents, numerical)) if y.dtype.kind == "f"]
    largest = max((max(_norm(a), _norm(e)) for _, a, e in pairs), default=0.0)
    atol, rtol = declared_tolerance(spec, dtype, order=2)
    worst = 0.0
    for j, actual, expected in pairs:
        precision = _lowest(dtype, outputs[j].dtype)
        scale = max(_norm(expected), _norm(actual), _eps(precision) ** 0.5 * largest)
        tiny = numpy.finfo(precision).tiny
        margin = _norm(actual - expected) / (_JVP_RTOL[precision] * scale + tiny)
        if atol or rtol:  # the op declares a looser element-wise tolerance for order 2
            margin = min(margin, float((numpy.abs(actual - expected) / (atol + rtol * numpy.abs(expected) + tiny))
                                       .max(initial=0.0)))
        if not margin < 1:
            index = numpy.unravel_index(int(numpy.argmax(numpy.abs(actual - expected))), actual.shape)
            raise AssertionError(
                f"{spec.name}: jvp: output {j}'s tangent (double-vjp trick) differs from central differences by "
                f"{margin:.3g} x the tolerance; at index {tuple(int(i) for i in index)}: jvp "
                f"{actual[index]:.6g}, numerical {expected[index]:.6g} (the double backward's derivative in the "
                "output gradient is wrong, or the first derivative is)")
        worst = max(worst, margin)
    return FunctionalCheckReport("jvp", float(worst))


# --- vjp_linearity ------------------------------------------------------------------------------
# cotangent weights: powers of two, so a·u and b·w are exact; a + b != 1 and a != 1, so a backward that
# ignores its output gradient cannot pass
_A, _B = 2.0, -0.5


def _grid(rng: numpy.random.Generator, y: Variable) -> Any:
    """Cotangents on a grid of sixteenths in ±[1/16, 1], so ``a·u + b·w`` is exact even in float16."""
    host = rng.integers(1, 17, y.shape) * rng.choice((-1.0, 1.0), y.shape) / 16
    return _like(y.array, host)


def check_vjp_linearity(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int,
                        ) -> FunctionalCheckReport | None:
    """Backward is linear in the output gradients: ``vjp(a·u + b·w) = a·vjp(u) + b·vjp(w)``."""
    func, xs = _float_function(spec, _draw_inputs(spec, dtype, backend, rng))
    if not xs:
        return None
    raw, pullback = functional.vjp(func, *xs)
    outputs = as_tuple(raw)
    if spec.grad_outputs is not None:
        us, ws = _cotangents(spec, rng, outputs), _cotangents(spec, rng, outputs)
    else:
        us = [_grid(rng, y) if y.dtype.kind == "f" else None for y in outputs]
        ws = [_grid(rng, y) if y.dtype.kind == "f" else None for y in outputs]
    combined = [None if u is None else u * u.dtype.type(_A) + w * w.dtype.type(_B) for u, w in zip(us, ws)]
    shaped = tuple if isinstance(raw, tuple) else (lambda cotangents: cotangents[0])
    lhs, ru, rw = (pullback(shaped(cs)) for cs in (combined, us, ws))
    # mixed dtypes (a float32 W beside float16 x, Chainer's linear) compute the gradient at the least precise of
    # the inputs and outputs; an op that declares its gradients accurate to (atol, rtol) is linear to that much
    precision = _lowest(*(x.dtype for x in xs), *(y.dtype for y in outputs if y.dtype.kind == "f"))
    atol, rtol = declared_tolerance(spec, dtype, order=1)
    worst = 0.0
    for i, (left, gu, gw) in enumerate(zip(lhs, ru, rw)):
        left, right_u, right_w = _host64(left), _A * _host64(gu), _B * _host64(gw)
        error = _norm(left - (right_u + right_w))
        scale = _norm(left) + _norm(right_u) + _norm(right_w)
        declared = rtol * scale + atol * (1 + abs(_A) + abs(_B))  # each of the three vjps within atol + rtol|g|
        margin = error / (max(_LINEARITY_FACTOR * _eps(precision) * scale, declared) + numpy.finfo(xs[i].dtype).tiny)
        if not margin < 1:
            raise AssertionError(
                f"{spec.name}: vjp_linearity: the gradient of input {i} is not linear in the output gradients: "
                f"vjp({_A:g}·u + {_B:g}·w) differs from {_A:g}·vjp(u) + {_B:g}·vjp(w) by {error:.3g} (terms of "
                f"size {scale:.3g}; {margin:.3g} x the tolerance); a backward must not branch on, mask with or "
                "ignore its output gradient")
        worst = max(worst, margin)
    return FunctionalCheckReport("vjp_linearity", float(worst))


# --- hvp_symmetry -------------------------------------------------------------------------------
_MAX_GROUPS = 4  # inputs are checked in at most 4 groups: 2 passes per group (an LSTM has 37 inputs)


def _inner(pairs: Sequence[tuple[numpy.ndarray, numpy.ndarray]]) -> tuple[float, float]:
    """``Σ<a, b>`` and ``Σ|a|·|b|``, which bounds it."""
    return (sum(float(numpy.vdot(a, b)) for a, b in pairs),
            sum(float(numpy.linalg.norm(a) * numpy.linalg.norm(b)) for a, b in pairs))


def check_hvp_symmetry(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int,
                       ) -> FunctionalCheckReport | None:
    """``u_G·(H_GK v_K) = v_K·(H_KG u_G)`` for ``L = <w, f(x)>``, every pair of groups of inputs ``(G, K)``.

    A group is one input for ops with up to four float inputs, so every block
    and cross block of the Hessian is checked on its own.
    """
    func, xs = _float_function(spec, _draw_inputs(spec, dtype, backend, rng))
    if not xs:
        return None
    points = [Variable(x) for x in xs]  # Variables that require grad: the gradient comes out differentiable
    raw = func(*points)
    single = not isinstance(raw, (tuple, list))
    ws = _cotangents(spec, rng, as_tuple(raw))

    def gradient(*variables: Variable) -> tuple[Variable, ...]:  # ∇L, differentiable (Variables in)
        return functional.vjp(func, *variables)[1](ws[0] if single else tuple(ws))

    _, pullback = functional.vjp(gradient, *points)
    us = [_like(x, rng.uniform(-1, 1, x.shape)) for x in xs]
    vs = [_like(x, rng.uniform(-1, 1, x.shape)) for x in xs]
    groups = [[int(i) for i in g] for g in numpy.array_split(numpy.arange(len(xs)), min(len(xs), _MAX_GROUPS))]
    # mixed dtypes (a float16 W beside float64 x) round at the least precise of the inputs and outputs
    _, rtol = declared_tolerance(spec, dtype, order=2)
    dtype = _lowest(dtype, *(x.dtype for x in xs), *(y.dtype for y in as_tuple(raw) if y.dtype.kind == "f"))

    def product(directions: list[Any], group: list[int]) -> list[numpy.ndarray]:  # Hᵀ (directions on group)
        return [_host64(p) for p in pullback(tuple(d if k in group else None for k, d in enumerate(directions)))]

    hv = [product(vs, group) for group in groups]
    hu = [product(us, group) for group in groups]
    worst = 0.0
    for a, rows in enumerate(groups):
        for b, columns in enumerate(groups):
            left, left_size = _inner([(_host64(us[i]), hv[b][i]) for i in rows])
            right, right_size = _inner([(_host64(vs[j]), hu[a][j]) for j in columns])
            tolerance = max(_SYMMETRY_FACTOR[dtype] * _eps(dtype), rtol) * (left_size + right_size) \
                + numpy.finfo(dtype).tiny
            margin = abs(left - right) / tolerance
            if not margin < 1:
                block = f"the block of inputs {rows} x {columns}" + (" (a cross block)" if a != b else "")
                raise AssertionError(
                    f"{spec.name}: hvp_symmetry: the Hessian of <w, f(x)> is not symmetric in {block}: "
                    f"u·(H v) = {left:.6g} but v·(H u) = {right:.6g} there ({margin:.3g} x the tolerance); "
                    "the double backward is wrong")
            worst = max(worst, margin)
    return FunctionalCheckReport("hvp_symmetry", float(worst))


RUNNERS: dict[str, Callable[[OpSpec, str, str, numpy.random.Generator, int], FunctionalCheckReport | None]] = {
    "jvp": check_jvp, "vjp_linearity": check_vjp_linearity, "hvp_symmetry": check_hvp_symmetry,
}
SECOND_ORDER: frozenset[str] = frozenset({"jvp", "hvp_symmetry"})
