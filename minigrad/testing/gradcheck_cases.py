"""The gradient checker's quality suite: deliberately wrong ops beside correct ones.

Every ``Case`` builds a check problem for a dtype and a random generator; with
``wrong=True`` it is a mutant that ``check_backward`` (order 1) or
``check_double_backward`` (order 2) must flag, with ``wrong=False`` the same
op written correctly, which must pass. ``CORRECT_OPS`` adds library ops,
``KINK_MUTANTS`` wrong gradients next to kinks, and cases tagged
``"no_backprop"`` run inside ``no_backprop_mode``. Each problem runs as the
``OpSpec`` of one case through ``run_case``, the case runner of the sweep and
the test classes (``problem_spec``, ``run``). It lives in the package (not
under tests/) because three users share it: ``tests/testing/test_mutations.py``,
``tests/testing/test_false_positives.py`` and
``scripts/gradcheck_false_positives.py``, and anyone who wants to measure a
gradient checker the same way can import it.

Example:
    >>> from minigrad.testing import gradcheck_cases as cases
    >>> case = next(c for c in cases.MUTANTS if c.name == "sin: -cos")
    >>> cases.run(case, "float64", seed=0, wrong=False).passed
    True
    >>> try:
    ...     cases.run(case, "float64", seed=0, wrong=True)
    ... except AssertionError:
    ...     print("flagged")
    flagged
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.configuration import no_backprop_mode
from minigrad.function_node import FunctionNode
from minigrad.testing.gradcheck_nodes import (  # noqa: F401 (importable from here, as before)
    MSE,
    AddBias,
    Cos,
    Exp,
    Kinked,
    Linear,
    MatMul,
    Mul,
    Sin,
    SinCos,
    SquaredReLU,
    Sub,
    SumAxis1,
    Tanh,
    Transpose,
)
from minigrad.testing.registry import OpSpec
from minigrad.testing.sweep import as_tuple, run_case
from minigrad.variable import Parameter

DTYPES = ("float16", "float32", "float64")
# the scale errors the issue asks to catch, per dtype
SCALE_DELTA = {"float64": 1e-4, "float32": 1e-2, "float16": 0.2}



# --- problems ----------------------------------------------------------------------------

@dataclass
class Problem:
    func: Callable[..., Any]
    x_data: tuple[Any, ...]
    y_grad: Any
    params: tuple[Parameter, ...] = ()
    x_grad_grad: tuple[Any, ...] = ()


@dataclass
class Case:
    name: str
    category: str
    order: int
    build: Callable[[numpy.random.Generator, str, bool], Problem]
    dtypes: tuple[str, ...] = DTYPES
    tags: tuple[str, ...] = field(default_factory=tuple)


def uniform(rng, shape, dtype, low=-1.0, high=1.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


def away_from_zero(rng, shape, dtype, low=0.5, high=1.0):
    """|values| in [low, high) with random signs (output gradients that are never ~0)."""
    return (rng.uniform(low, high, size=shape) * rng.choice((-1.0, 1.0), size=shape)).astype(dtype)


def _grad_grads(rng, problem: Problem, dtype: str) -> Problem:
    float_inputs = [x for x in problem.x_data if x.dtype.kind == "f"]
    problem.x_grad_grad = tuple(uniform(rng, x.shape, dtype) for x in float_inputs)
    return problem


def _unary(node: Callable[[bool], FunctionNode], shape=(3, 4), low=-1.0, high=1.0, order: int = 1):
    def build(rng, dtype, wrong):
        x = uniform(rng, shape, dtype, low, high)
        problem = Problem(lambda v: node(wrong).apply((v,))[0], (x,), uniform(rng, shape, dtype))
        return _grad_grads(rng, problem, dtype) if order == 2 else problem
    return build


def _binary(node: Callable[[bool], FunctionNode], shapes, gy_shape):
    def build(rng, dtype, wrong):
        xs = tuple(uniform(rng, s, dtype) for s in shapes)
        return Problem(lambda a, b: node(wrong).apply((a, b))[0], xs, uniform(rng, gy_shape, dtype))
    return build


def _scale_factor(dtype: str, wrong: bool) -> float:
    return 1.0 + SCALE_DELTA[dtype] if wrong else 1.0


def _one_element(rng, dtype, wrong):
    shape = (100, 100)
    x = uniform(rng, shape, dtype)
    element = int(rng.integers(0, x.size))
    gy = away_from_zero(rng, shape, dtype)
    return Problem(lambda v: Exp(element=element if wrong else None).apply((v,))[0], (x,), gy)


def _sincos(ignore: int):
    def build(rng, dtype, wrong):
        x = uniform(rng, (3, 4), dtype)
        return Problem(lambda v: SinCos(ignore if wrong else None).apply((v,)), (x,),
                       (uniform(rng, (3, 4), dtype), uniform(rng, (3, 4), dtype)))
    return build


def _linear(mistake: str):
    def build(rng, dtype, wrong):
        W = Parameter(uniform(rng, (4, 4), dtype))
        b = Parameter(uniform(rng, (4,), dtype))
        x = uniform(rng, (5, 4), dtype)
        factor = _scale_factor(dtype, True)

        def func(v):
            return Linear(mistake if wrong else None, factor).apply((v, W, b))[0]
        return Problem(func, (x,), uniform(rng, (5, 4), dtype), params=(W, b))
    return build


def _mse(mistake: str):
    def build(rng, dtype, wrong):
        x0, x1 = uniform(rng, (3, 4), dtype), uniform(rng, (3, 4), dtype)
        return Problem(lambda a, b: MSE(mistake if wrong else None).apply((a, b))[0], (x0, x1), None)
    return build


def _scaled_exp_large(rng, dtype, wrong):
    x = uniform(rng, (30, 40), dtype)
    return Problem(lambda v: Exp(_scale_factor(dtype, wrong)).apply((v,))[0], (x,), uniform(rng, (30, 40), dtype))


def _dtype_specific(rng, dtype, wrong):
    x = uniform(rng, (3, 4), dtype)
    factor = 1.0 + SCALE_DELTA[dtype] if wrong else 1.0
    return Problem(lambda v: Exp(factor, only_dtype=dtype).apply((v,))[0], (x,), uniform(rng, (3, 4), dtype))


MUTANTS: list[Case] = [
    # scaled gradients: (1 + delta), delta = 1e-4 / 1e-2 / 0.2 at float64 / float32 / float16
    Case("exp*(1+d)", "scale", 1, lambda rng, dt, w: Problem(
        lambda v: Exp(_scale_factor(dt, w)).apply((v,))[0], (uniform(rng, (3, 4), dt),), uniform(rng, (3, 4), dt))),
    Case("exp*(1+d)[30x40]", "scale", 1, _scaled_exp_large),
    Case("tanh*(1+d)", "scale", 1, lambda rng, dt, w: Problem(
        lambda v: Tanh(_scale_factor(dt, w)).apply((v,))[0], (uniform(rng, (3, 4), dt, -2, 2),),
        uniform(rng, (3, 4), dt))),
    Case("mul: x1 grad*(1+d)", "scale", 1, lambda rng, dt, w: Problem(
        lambda a, b: Mul(factor1=_scale_factor(dt, w)).apply((a, b))[0],
        (uniform(rng, (3, 4), dt), uniform(rng, (3, 4), dt)), uniform(rng, (3, 4), dt))),
    Case("matmul: gW*(1+d)", "scale", 1, lambda rng, dt, w: Problem(
        lambda a, b: MatMul("scale_w" if w else None, _scale_factor(dt, w)).apply((a, b))[0],
        (uniform(rng, (5, 4), dt), uniform(rng, (4, 3), dt)), uniform(rng, (5, 3), dt))),
    # sign errors
    Case("sin: -cos", "sign", 1, _unary(lambda w: Sin("sign" if w else None))),
    Case("sub: +gy for x1", "sign", 1, _binary(lambda w: Sub(w), ((3, 4), (3, 4)), (3, 4))),
    # gy @ W instead of gy @ W.T on square matrices
    Case("matmul: gy@W", "matmul transpose", 1, _binary(lambda w: MatMul("no_transpose" if w else None),
                                                        ((4, 4), (4, 4)), (4, 4))),
    Case("matmul: gy@W [16x16]", "matmul transpose", 1, _binary(lambda w: MatMul("no_transpose" if w else None),
                                                               ((16, 16), (16, 16)), (16, 16))),
    # broadcast reductions
    Case("add bias: sum over wrong axis", "broadcast reduction", 1,
         _binary(lambda w: AddBias("wrong_axis" if w else None), ((4, 4), (4,)), (4, 4))),
    Case("add bias: no reduction (one row)", "broadcast reduction", 1,
         _binary(lambda w: AddBias("missing" if w else None), ((4, 4), (4,)), (4, 4))),
    Case("add bias: mean instead of sum", "broadcast reduction", 1,
         _binary(lambda w: AddBias("mean" if w else None), ((4, 4), (4,)), (4, 4))),
    # reduction backward along the wrong axis
    Case("sum(axis=1): broadcast along axis 0", "reduction axis", 1, lambda rng, dt, w: Problem(
        lambda v: SumAxis1(w).apply((v,))[0], (uniform(rng, (4, 4), dt),), uniform(rng, (4,), dt))),
    # transpose backward with the permutation not inverted
    Case("transpose(1,2,0): axes not inverted", "transpose permutation", 1, lambda rng, dt, w: Problem(
        lambda v: Transpose((1, 2, 0), w).apply((v,))[0], (uniform(rng, (3, 3, 3), dt),),
        uniform(rng, (3, 3, 3), dt))),
    # one element 1 % wrong among 10,000
    Case("exp: one element of 10,000 1% off", "one element", 1, _one_element),
    # two outputs, one output's gradient ignored
    Case("sincos: ignores gy of cos", "two outputs", 1, _sincos(1)),
    Case("sincos: ignores gy of sin", "two outputs", 1, _sincos(0)),
    # missing gradient
    Case("mul: no gradient for x1", "missing gradient", 1, lambda rng, dt, w: Problem(
        lambda a, b: Mul(drop1=w).apply((a, b))[0], (uniform(rng, (3, 4), dt), uniform(rng, (3, 4), dt)),
        uniform(rng, (3, 4), dt))),
    # layer parameters
    Case("linear: gW transposed", "layer parameter", 1, _linear("w_transposed")),
    Case("linear: gb*(1+d)", "layer parameter", 1, _linear("b_scaled")),
    Case("linear: gb missing", "layer parameter", 1, _linear("b_missing")),
    # loss off by a constant factor
    Case("mse: forgets 1/N", "loss factor", 1, _mse("no_mean")),
    Case("mse: forgets the 2", "loss factor", 1, _mse("no_two")),
    # second order only: first-order gradients are right
    Case("sin: backward on raw arrays", "graph cut", 2, _unary(lambda w: Sin("raw" if w else None), order=2)),
    Case("sin: cos with wrong derivative", "wrong inner derivative", 2,
         _unary(lambda w: Sin("inner" if w else None), order=2)),
    Case("sin: gy treated as constant", "gy constant", 2,
         _unary(lambda w: Sin("gy_constant" if w else None), order=2)),
]


# --- wrong gradients next to kinks -------------------------------------------------------------

KINK_DISTANCES = (0.0, 1e-12, 1e-9, 1e-6)  # how far two elements sit from the kink at 0
VERIFIABLE_DISTANCES = (1e-9, 1e-6)  # a smaller step clears these: the correct op must pass
KINK_FACTOR = {"float64": 1.05, "float32": 1.05, "float16": 1.2}


def _near_kink(node: Callable[[bool, str], FunctionNode], distance: float, order: int = 1):
    def build(rng, dtype, wrong):
        x = uniform(rng, (3, 4), dtype)
        where = rng.choice(x.size, size=3, replace=False)
        x.reshape(-1)[where[:2]] = distance * rng.choice((-1.0, 1.0), size=2)
        x.reshape(-1)[where[2]] = 0.75  # one element on the sloped side: the mutant always differs somewhere
        problem = Problem(lambda v: node(wrong, dtype).apply((v,))[0], (x,), uniform(rng, (3, 4), dtype))
        return _grad_grads(rng, problem, dtype) if order == 2 else problem
    return build


def _kink_cases() -> list[Case]:
    cases = []
    for distance in KINK_DISTANCES:
        for op in ("relu", "abs", "leaky"):
            cases.append(Case(f"{op} near kink ({distance:g})", "kink", 1, _near_kink(
                lambda w, dt, op=op: Kinked(op, KINK_FACTOR[dt] if w else 1.0), distance),
                dtypes=("float32", "float64"), tags=("verifiable",) if distance in VERIFIABLE_DISTANCES else ()))
        cases.append(Case(f"relu**2 near kink ({distance:g})", "kink, second order", 2, _near_kink(
            lambda w, dt: SquaredReLU(KINK_FACTOR[dt] if w else 1.0), distance, order=2),
            dtypes=("float32", "float64"), tags=("verifiable",) if distance in VERIFIABLE_DISTANCES else ()))
    return cases


KINK_MUTANTS: list[Case] = _kink_cases()

# checks run inside no_backprop_mode: the checker forces backprop on for its own graphs
NO_BACKPROP_MUTANTS: list[Case] = [
    Case(c.name + " [no_backprop_mode]", c.category, c.order, c.build, c.dtypes, tags=("no_backprop",))
    for c in MUTANTS if c.name in ("exp*(1+d)", "sin: -cos", "linear: gb*(1+d)", "sin: cos with wrong derivative")
]

# wrong only in one dtype: the elementwise precision check must catch it
DTYPE_SPECIFIC: list[Case] = [
    Case("exp*(1+d) in this dtype only", "dtype-specific scale", 1, _dtype_specific, dtypes=("float16", "float32")),
]


def _library(func, shapes, gy_shape=None, low=-1.0, high=1.0, params: tuple[tuple[int, ...], ...] = ()):
    """A correct library op: uniform inputs, random output gradients (or a scalar loss)."""
    def build(rng, dtype, wrong):
        xs = tuple(uniform(rng, s, dtype, low, high) for s in shapes)
        ps = tuple(Parameter(uniform(rng, s, dtype)) for s in params)
        f = (lambda *v: func(*v, *ps)) if ps else func
        probe = f(*xs) if gy_shape is None else None
        outputs = probe if isinstance(probe, tuple) else (probe,) if probe is not None else None
        if gy_shape is None:
            y_grad = None if outputs[0].size == 1 else tuple(uniform(rng, y.shape, dtype) for y in outputs)
            if isinstance(y_grad, tuple) and len(y_grad) == 1:
                y_grad = y_grad[0]
        else:
            y_grad = uniform(rng, gy_shape, dtype)
        return Problem(f, xs, y_grad, params=ps)
    return build


CORRECT_OPS: list[Case] = [
    Case("F.exp", "library", 1, _library(F.exp, [(4, 5)])),
    Case("F.log", "library", 1, _library(F.log, [(4, 5)], low=0.5, high=2.0)),
    Case("F.tanh", "library", 1, _library(F.tanh, [(4, 5)], low=-2.0, high=2.0)),
    Case("F.sigmoid", "library", 1, _library(F.sigmoid, [(4, 5)], low=-3.0, high=3.0)),
    Case("F.sin", "library", 1, _library(F.sin, [(4, 5)], low=-3.0, high=3.0)),
    Case("F.matmul", "library", 1, _library(F.matmul, [(6, 8), (8, 5)])),
    Case("F.linear+params", "library", 1, _library(lambda x, W, b: F.linear(x, W, b), [(6, 8)],
                                                   params=((5, 8), (5,)))),
    Case("F.softmax", "library", 1, _library(F.softmax, [(4, 6)], low=-2.0, high=2.0)),
    Case("F.log_softmax", "library", 1, _library(F.log_softmax, [(4, 6)], low=-2.0, high=2.0)),
    Case("F.sum(axis=1)", "library", 1, _library(lambda x: F.sum(x, axis=1), [(5, 7)])),
    Case("F.transpose", "library", 1, _library(lambda x: F.transpose(x, (2, 0, 1)), [(2, 3, 4)])),
    Case("F.add broadcast", "library", 1, _library(F.add, [(5, 4), (4,)])),
    Case("F.div", "library", 1, _library(lambda a, b: a / (b * b + 0.5), [(3, 4), (3, 4)])),
    Case("x**3", "library", 1, _library(lambda x: x ** 3, [(3, 4)], low=-1.5, high=1.5)),
    Case("F.mean_squared_error", "library", 1, _library(F.mean_squared_error, [(4, 5), (4, 5)])),
    Case("F.split_axis", "library", 1, _library(lambda x: F.split_axis(x, 2, axis=1), [(3, 4)])),
    Case("tanh(x@W) 32x32", "library", 1, _library(lambda x, W: F.tanh(F.matmul(x, W)), [(32, 32), (32, 32)])),
]


def correct_cases() -> list[Case]:
    """Every correct problem: library ops and the correct twin of every mutant, first and second order
    (kink twins only where the kink is far enough for a smaller step to clear it)."""
    cases = []
    for case in CORRECT_OPS:
        cases.append(case)
        cases.append(Case(case.name, case.category, 2, case.build, case.dtypes))
    for case in MUTANTS + DTYPE_SPECIFIC + NO_BACKPROP_MUTANTS:
        cases.append(Case(case.name + " [correct]", case.category, case.order, case.build, case.dtypes, case.tags))
        if case.order == 1:
            cases.append(Case(case.name + " [correct]", case.category, 2, case.build, case.dtypes, case.tags))
    for case in KINK_MUTANTS:
        if "verifiable" in case.tags:
            cases.append(Case(case.name + " [correct]", case.category, case.order, case.build, case.dtypes))
    return cases


def all_mutants() -> list[Case]:
    """Every deliberately wrong problem (the ``DTYPE_SPECIFIC`` ones are wrong in float16/float32 only)."""
    return MUTANTS + KINK_MUTANTS + NO_BACKPROP_MUTANTS + DTYPE_SPECIFIC


def problem_spec(name: str, problem: Problem, dtype: str) -> OpSpec:
    """A problem as the ``OpSpec`` of one case: its arrays and gradients fixed, its parameters as ``params``."""
    y_grad = problem.y_grad

    def grad_outputs(rng: numpy.random.Generator, outputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return (None,) * len(outputs) if y_grad is None else as_tuple(y_grad)

    return OpSpec(name, problem.func, lambda rng, dt: problem.x_data, grad_outputs=grad_outputs,
                  grad_grad_inputs=lambda rng, inputs: problem.x_grad_grad, params=lambda: problem.params,
                  dtypes=(dtype,), backends=("numpy",))


def run(case: Case, dtype: str, seed: int, wrong: bool):
    """Build the problem for ``seed`` and run the matching check through the case runner (``run_case``).

    Returns the checker's report; a failure raises as the checker raised it.
    """
    rng = numpy.random.default_rng([seed, sum(map(ord, case.name)), DTYPES.index(dtype)])
    problem = case.build(rng, dtype, wrong)
    if case.order == 2 and not problem.x_grad_grad:
        _grad_grads(rng, problem, dtype)
    spec = problem_spec(case.name, problem, dtype)
    with no_backprop_mode() if "no_backprop" in case.tags else contextlib.nullcontext():
        result = run_case(spec, dtype, "numpy", "backward" if case.order == 1 else "double", case_seed=seed)
    result.reraise()
    return result.outcome
