"""One recorded node checked alone, on the inputs it saw: what ``check_graph`` and the localisation of a
failing check both do to each node.

A node is replayed from its record (``graph_recording``): a fresh copy of the
node as it was before its forward ran, applied to the recorded arrays, with the
inputs that needed a gradient in the graph as the checked inputs and every
other input (integer labels and indices, constants) held fixed. The replay must
reproduce the outputs the graph's consumers saw; a node that does not (its
forward draws random numbers, or reads state that has changed) is reported as
not replayable, never as wrong. Then the project's own ``check_backward`` (and
``check_double_backward`` for the second order) checks the replay, with random
output gradients on the outputs something downstream used: the same
tolerances, kink policy, float64 reference and refusal at nondifferentiable
points as any other check.
"""

from __future__ import annotations

import contextlib
import math
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from typing import Any

import numpy

from minigrad import backend
from minigrad.configuration import no_backprop_mode
from minigrad.function_node import FunctionNode
from minigrad.testing.gradient_check import (
    GradientCheckError,
    GradientCheckReport,
    NondifferentiableError,
    check_backward,
    check_double_backward,
)
from minigrad.testing.graph_recording import NodeRecord, paused
from minigrad.variable import Variable

__all__ = ["Verdict", "NodeCheck", "check_node", "replay_outputs", "checked_inputs", "share_key", "moved",
           "inside_node_checks", "checking_nodes", "describe_inputs"]

_state = threading.local()  # .depth > 0 while nodes are being checked (their checks are not localised again)
NEARBY = 1e-3  # how far a node at a kink is moved for its check at a point nearby (relative to its inputs' scale)


class Verdict(str, Enum):
    """What checking one node found (the table's ``verdict`` column).

    Example:
        >>> from minigrad.testing.node_check import FAILED, Verdict
        >>> Verdict.KINK.value, Verdict.WRONG in FAILED, Verdict.KINK in FAILED
        ('kink', True, False)
    """

    OK = "ok"
    WRONG = "WRONG"  # its own gradient check failed
    ERROR = "error"  # its own check raised something else (a guard: modifies its inputs, not deterministic, ...)
    KINK = "kink"  # not differentiable at the inputs it saw: not verified (the checker's refusal)
    NOT_REPLAYABLE = "not replayable"  # a replay does not reproduce its outputs (random, or reads state)
    NOTHING = "nothing to check"  # no input that needs a gradient, or no output that is used
    SHARED = "shared"  # not checked again: a node of the same kind on the same shapes passed


FAILED = (Verdict.WRONG, Verdict.ERROR)


@dataclass
class NodeCheck:
    """The outcome of checking one node: its verdict, margin (< 1 passes), time and own report.

    Example:
        >>> from minigrad.testing.node_check import NodeCheck, Verdict
        >>> NodeCheck(Verdict.ERROR, message="RuntimeError: ...").failed
        True
    """

    verdict: Verdict
    margin: float = math.nan
    seconds: float = 0.0
    report: GradientCheckReport | None = None
    message: str = ""  # the node's own failure (or why it was not checked)
    order: int = 1  # the order its verdict is about

    @property
    def failed(self) -> bool:
        """Whether the node's own check failed (wrong, or a guard of the checker raised)."""
        return self.verdict in FAILED


@contextlib.contextmanager
def inside_node_checks() -> Iterator[None]:
    """Mark this thread as checking nodes: no recording, and a failing node check is not localised again."""
    _state.depth = getattr(_state, "depth", 0) + 1
    try:
        with paused():
            yield
    finally:
        _state.depth -= 1


def checking_nodes() -> bool:
    """Whether this thread is inside ``inside_node_checks``."""
    return getattr(_state, "depth", 0) > 0


def checked_inputs(node: FunctionNode, record: NodeRecord) -> list[int]:
    """Positions of the inputs checked: float inputs that needed a gradient in the graph."""
    return [j for j, (x, a) in enumerate(zip(node.inputs or (), record.arrays))
            if x.requires_grad and a.dtype.kind == "f"]


def describe_inputs(record: NodeRecord) -> list[str]:
    """One ``shape dtype`` string per input, e.g. ``'(4, 8) float64'``."""
    return [f"{tuple(a.shape)} {a.dtype}" for a in record.arrays]


def share_key(node: FunctionNode, record: NodeRecord, used: set[int]) -> Any:
    """Nodes with equal keys run the same code on the same shapes: one check may stand for all of them."""
    hyper = tuple(sorted((name, _hyperparameter(value)) for name, value in vars(record.template).items()))
    inputs = tuple((a.shape, a.dtype.str, j in checked_inputs(node, record)) for j, a in enumerate(record.arrays))
    return type(record.template), inputs, hyper, frozenset(used)


def _hyperparameter(value: Any) -> Any:
    """What of an attribute decides which code runs: a scalar itself, an array's shape and dtype."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, tuple) and all(v is None or isinstance(v, (bool, int, float, str)) for v in value):
        return value
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return ("array", tuple(value.shape), str(value.dtype))
    return type(value).__name__


def check_node(node: FunctionNode, record: NodeRecord, used: set[int], seen: dict[int, Any], *, order: int,
               seed: int, options: dict[str, Any]) -> NodeCheck:
    """Check ``node`` alone on the inputs it saw (see the module docstring).

    ``used``: its output indexes that something downstream took; ``seen``: the
    arrays they saw (the replay must reproduce them). ``options``: ``eps``,
    ``atol``, ``rtol``, ``dtype``, ``detect_nondifferentiable``, ``nondet_tol``
    as the checker takes them.
    """
    start = time.perf_counter()
    with inside_node_checks():
        result = _check(node, record, used, seen, order, seed, options)
    result.seconds = time.perf_counter() - start
    return result


def replay_outputs(record: NodeRecord, seen: dict[int, Any]) -> tuple[tuple[Variable, ...] | None, str]:
    """Replay the node on the inputs it saw: its outputs, or None and why they are not what ``seen`` says."""
    try:
        with no_backprop_mode():
            outputs = record.replay(record.arrays)
    except Exception as error:
        return None, f"replaying it on the inputs it saw raised {type(error).__name__}: {error}"
    differs = [i for i, array in sorted(seen.items()) if not _same(outputs[i].array, array)]
    if differs:
        return None, (f"replayed on the inputs it saw, it does not reproduce output {differs[0]}: its forward "
                      "draws random numbers or reads state that has changed since (fix its noise, e.g. pass a "
                      "mask, to check it)")
    return outputs, ""


def _check(node: FunctionNode, record: NodeRecord, used: set[int], seen: dict[int, Any], order: int, seed: int,
           options: dict[str, Any]) -> NodeCheck:
    outputs, why = replay_outputs(record, seen)
    if outputs is None:
        return NodeCheck(Verdict.NOT_REPLAYABLE, message=why)
    checked = checked_inputs(node, record)
    rng = numpy.random.default_rng(seed)
    y_grad = tuple(_random_like(rng, y.array) if i in used and y.dtype.kind == "f" else None
                   for i, y in enumerate(outputs))
    if not checked or all(g is None for g in y_grad):
        return NodeCheck(Verdict.NOTHING, message="no float input needs a gradient, or no float output is used")
    x_data = tuple(record.arrays[j] for j in checked)

    def replay(*xs: Variable) -> tuple[Variable, ...]:
        inputs = list(record.arrays)  # the others stay what the node saw (labels, indices, constants)
        for j, x in zip(checked, xs):
            inputs[j] = x
        return record.replay(inputs)

    names = [f"input {j}" for j in checked]
    x_grad_grad = tuple(_random_like(rng, x) for x in x_data) if order >= 2 else ()
    result = _checks(replay, x_data, y_grad, x_grad_grad, names, seed, options)
    if result.verdict is not Verdict.KINK:
        return result
    # not differentiable at the inputs it saw (ties of a max, a ReLU at 0): say so, and check it at a point
    # nearby, so that its backward is still verified on these shapes and nearly these values
    nearby = tuple(moved(rng, x, NEARBY) for x in x_data)
    return _nearby(result, _checks(replay, nearby, y_grad, x_grad_grad, names, seed, options))


def _nearby(at_kink: NodeCheck, nearby: NodeCheck) -> NodeCheck:
    """The verdict of a node refused at a kink (``at_kink``) once checked at a point nearby."""
    if nearby.verdict is Verdict.KINK:
        return at_kink
    prefix = f"at the inputs it saw: {at_kink.message}\nso checked at a point nearby (its inputs moved by about " \
             f"{NEARBY:g} of their scale): "
    if nearby.failed:  # wrong nearby is wrong
        nearby.message = prefix + nearby.message
        return nearby
    at_kink.margin, at_kink.report, at_kink.message = nearby.margin, nearby.report, prefix + "passes"
    return at_kink


def _checks(replay: Any, x_data: tuple[Any, ...], y_grad: tuple[Any, ...], x_grad_grad: tuple[Any, ...],
            names: list[str], seed: int, options: dict[str, Any]) -> NodeCheck:
    """``check_backward`` of the replay (then ``check_double_backward`` when ``x_grad_grad`` is given)."""
    current = 1
    try:
        report = check_backward(replay, x_data, y_grad, seed=seed, input_names=names, **options)
        if x_grad_grad:
            current = 2
            second = check_double_backward(replay, x_data, y_grad, x_grad_grad, seed=seed, input_names=names,
                                           **options)
            report = second if second.margin > report.margin else report
    except GradientCheckError as error:
        return NodeCheck(Verdict.WRONG, error.report.margin, report=error.report, message=str(error), order=current)
    except NondifferentiableError as error:
        return NodeCheck(Verdict.KINK, message=str(error), order=current)
    except Exception as error:  # a guard of the checker (the node modifies its inputs, is not deterministic, ...)
        return NodeCheck(Verdict.ERROR, message=f"{type(error).__name__}: {error}", order=current)
    return NodeCheck(Verdict.OK, report.margin, report=report, order=current)


def moved(rng: numpy.random.Generator, array: Any, relative: float) -> Any:
    """``array`` moved at random by about ``relative`` of each element's magnitude plus its rms (and of 1)."""
    xp = backend.get_array_module(array)
    host = backend.to_cpu(array).astype(numpy.float64)
    rms = float(numpy.sqrt(numpy.mean(host ** 2))) if host.size else 0.0
    step = relative * (numpy.abs(host) + rms + 1.0) * rng.uniform(-1.0, 1.0, host.shape)
    return xp.asarray((host + step).astype(array.dtype))


def _random_like(rng: numpy.random.Generator, array: Any) -> Any:
    """Uniform in [-1, 1] (away from 0) with ``array``'s shape, dtype and array module."""
    values = rng.uniform(0.5, 1.0, array.shape) * rng.choice((-1.0, 1.0), array.shape)
    return backend.get_array_module(array).asarray(values.astype(array.dtype))


def _same(replayed: Any, seen: Any) -> bool:
    """Whether a replay reproduced an output: equal but for a few ulps (exactly, where not finite)."""
    if replayed.shape != seen.shape or replayed.dtype != seen.dtype:
        return False
    xp = backend.get_array_module(seen)
    finite = xp.isfinite(seen)
    if seen.dtype.kind != "f" or not bool(finite.all()):
        return bool(xp.array_equal(replayed, seen, equal_nan=seen.dtype.kind == "f"))
    scale = float(xp.abs(seen).max()) if seen.size else 0.0
    tol = 16 * float(numpy.finfo(seen.dtype).eps) * max(scale, float(numpy.finfo(seen.dtype).tiny))
    return bool(xp.allclose(replayed, seen, rtol=0.0, atol=tol))
