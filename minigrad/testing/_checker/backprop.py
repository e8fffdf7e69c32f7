"""Steps 2 and 3 of a check: backprop under test (twice), and the reference gradients.

Backprop runs on copies of the caller's arrays that keep their layout (a
transposed view, a strided slice): ``func`` never sees the arrays themselves,
and where the layout is not C-contiguous, a third run on C-contiguous copies
must agree. The guards turn broken set-ups into clear errors: a ``func`` whose
forward or backward is not a function of its inputs, that modifies its inputs,
or whose backward modifies the output gradients it was given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from minigrad import backend
from minigrad.testing._checker import guards
from minigrad.testing._checker.arguments import CheckArguments, output_gradients
from minigrad.testing._checker.arrays import close_repeat, f64, first_difference, is_c_contiguous, layout_copy, same
from minigrad.testing._checker.problem import Forward, Problem
from minigrad.testing._checker.report import TargetResult
from minigrad.testing._checker.targets import Target


@dataclass
class Backprop:
    """The run under test: the arrays it ran on, its outputs and output gradients (one per output or None)."""

    arrays: list[Any]
    forward: Forward
    gys: tuple[Any, ...]
    layout_results: list[TargetResult]


def run_backprop_twice(problem: Problem, args: CheckArguments, y_grad: Any, targets: list[Target],
                       excluded: list[Target]) -> Backprop:
    """Forward and backward in the inputs' own dtype, then again at the same point: both must agree."""
    arrays = [layout_copy(x) for x in args.x_data] + [p.array for p in args.params]
    run = _first_run(problem, args, arrays, y_grad, targets + excluded)
    for t in excluded:
        if t.grad is not None:
            raise RuntimeError(f"{args.where}: {t.name} is excluded by no_grads but backprop gave it a gradient; "
                               "an excluded input must receive none (as in Chainer)")
    _repeat_run(problem, args, run, targets)
    guards.require_finite(args.where, targets, args.seed, problem.evaluations, reference=False)
    if not all(is_c_contiguous(a) for a in arrays):  # the same gradients on C-contiguous copies
        contiguous = problem.forward([a.copy() for a in arrays])
        grads = problem.vjp(contiguous, _copies(run.gys), [t.position for t in targets])
        run.layout_results = guards.layout_disagreements(targets, grads)
    return run


def _copies(arrays: Sequence[Any]) -> list[Any]:
    return [None if a is None else a.copy() for a in arrays]


def _first_run(problem: Problem, args: CheckArguments, arrays: list[Any], y_grad: Any,
               targets: list[Target]) -> Backprop:
    pristine = [a.copy() for a in arrays]
    forward = problem.forward(arrays)
    _guard_unchanged(problem, args, forward, pristine, "func")
    guards.require_finite_outputs(args.where, forward.outputs)
    gys = output_gradients(args.where, forward.outputs, y_grad, guards.loss_scale(args.seed))
    seeds = _copies(gys)  # to catch a backward that writes into them
    for t, g in zip(targets, problem.vjp(forward, seeds, [t.position for t in targets])):
        t.grad = g
    for j, (before, after) in enumerate(zip(gys, seeds)):
        if before is not None and not same(before, after):
            raise RuntimeError(f"{args.where}: backward modified the output gradient it was given (y_grad[{j}]): "
                               f"{first_difference(before, after)}; a backward must not write into grad_outputs")
    _guard_unchanged(problem, args, forward, pristine, "backward")
    return Backprop(arrays, forward, gys, [])


def _guard_unchanged(problem: Problem, args: CheckArguments, forward: Forward, pristine: Sequence[Any],
                     stage: str) -> None:
    names = list(args.names) + [f"params[{k}]" for k in range(len(args.params))]
    for name, before, after in zip(names, pristine, problem.arrays_seen(forward)):
        if not same(before, after):
            what = f"its input {name}" if not name.startswith("params") else name
            raise RuntimeError(f"{args.where}: {stage} modified {what}: {first_difference(before, after)}; "
                               "an op must not write into its input arrays")


def _repeat_run(problem: Problem, args: CheckArguments, first: Backprop, targets: list[Target]) -> None:
    """A backward that draws random numbers or reads a counter is reported (up to ``nondet_tol``)."""
    forward, tol = problem.forward(first.arrays), args.nondet_tol
    for j, (y, z) in enumerate(zip(first.forward.outputs, forward.outputs)):
        if y.shape != z.shape or y.dtype != z.dtype or not close_repeat(y, z, tol):
            raise RuntimeError(f"{args.where}: func is not deterministic: output {j} differs between two calls "
                               f"at the same inputs ({first_difference(y, z)}); fix its randomness "
                               "(e.g. draw a dropout mask once, outside func) or pass nondet_tol")
    grads = problem.vjp(forward, _copies(first.gys), [t.position for t in targets])
    for t, h in zip(targets, grads):
        g = t.grad
        if (g is None) != (h is None) or (g is not None and (g.shape != h.shape or not close_repeat(g, h, tol))):
            change = "None" if g is None or h is None else first_difference(g, h)
            from minigrad.testing._checker import hints  # (hints imports the probing steps, which import this)

            raise RuntimeError(f"{args.where}: backward is not deterministic: the gradient of {t.name} differs "
                               f"between two backward passes at the same inputs ({change}); a backward must be "
                               "a function of its inputs and output gradients (or pass nondet_tol)\n  "
                               + hints.nondeterministic_backward_hint())


@dataclass
class Reference:
    """The centre in the numerical dtype: arrays, float outputs and output gradients (float64)."""

    arrays_nd: list[Any]
    forward: Forward
    gys: dict[int, Any]  # float output j with a gradient -> its output gradient, float64
    seeds: list[Any]  # the output gradients backpropagated for the reference, one per output


def reference_gradients(problem: Problem, args: CheckArguments, run: Backprop, targets: list[Target]) -> Reference:
    """Backprop once more on the inputs cast to the numerical dtype; float64 inputs are their own reference."""
    nd = args.numerical_dtype
    arrays_nd = [a.astype(nd) if a.dtype.kind == "f" and a.dtype != nd else a for a in run.arrays]
    for t in targets:
        t.base_nd = arrays_nd[t.position]
    if all(a is b for a, b in zip(arrays_nd, run.arrays)):
        for t in targets:
            t.ref = t.grad
        seeds = list(run.gys)
        return Reference(arrays_nd, run.forward, _float64_gys(seeds), seeds)
    forward = problem.forward(arrays_nd)
    guards.require_finite_outputs(args.where, forward.outputs, f" in the numerical dtype ({nd})")
    if len(forward.outputs) != len(run.gys):
        raise ValueError(f"{args.where}: func returned {len(forward.outputs)} outputs on inputs cast to the "
                         f"numerical dtype but {len(run.gys)} otherwise")
    seeds = [None if g is None else g.astype(y.dtype) for g, y in zip(run.gys, forward.outputs)]
    for j, (g, y) in enumerate(zip(seeds, forward.outputs)):
        if g is not None and g.shape != y.shape:
            raise ValueError(f"{args.where}: output {j} has shape {y.shape} on inputs cast to the numerical "
                             f"dtype, {g.shape} otherwise")
    for t, r in zip(targets, problem.vjp(forward, _copies(seeds), [t.position for t in targets])):
        t.ref = r
    guards.require_finite(args.where, targets, args.seed, problem.evaluations, reference=True)
    return Reference(arrays_nd, forward, _float64_gys(run.gys), seeds)


def _float64_gys(gys: Sequence[Any]) -> dict[int, Any]:
    return {j: f64(g) for j, g in enumerate(gys) if g is not None}


SPLIT_RATIO = 1e-2  # outputs whose terms |y_j * gy_j| differ by more than this are compared one by one


def output_parts(problem: Problem, run: Backprop, reference: Reference, targets: list[Target],
                 sizes: dict[int, float]) -> tuple[int, ...]:
    """Where the outputs' scales differ (``sizes``: each float output's ``sum |y_j * gy_j|``), each
    output's part of every gradient, under test and reference: an error in the part that comes from a
    small output must not drown in a larger one's."""
    if len(sizes) < 2 or min(sizes.values()) >= SPLIT_RATIO * max(sizes.values()):
        return ()
    positions = [t.position for t in targets]
    for j in sizes:
        alone = [g if i == j else None for i, g in enumerate(run.gys)]
        for t, g in zip(targets, problem.vjp(run.forward, _copies(alone), positions)):
            t.part_grads[j] = g
        if reference.forward is run.forward:
            for t in targets:
                t.part_refs[j] = t.part_grads[j]
            continue
        alone = [g if i == j else None for i, g in enumerate(reference.seeds)]
        for t, g in zip(targets, problem.vjp(reference.forward, _copies(alone), positions)):
            t.part_refs[j] = g
    for t in targets:  # a part backprop gives no gradient for counts as zero
        for j in sizes:
            if t.part_refs[j] is None:
                t.part_refs[j] = backend.get_array_module(t.base).zeros(t.base.shape)
    return tuple(sizes)
