"""The exercises, in the order of the tutorial, and how each is graded.

Every op exercise is graded the way minigrad grades its own ops: the forward against NumPy, then
``check_backward`` (float64 and float32) and ``check_double_backward`` (float64) with a fixed seed, whose reports
name the wrong input and its worst elements. Inputs are small, so a failing gradient is compared element by
element.
"""

from __future__ import annotations

import inspect
import tokenize
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from minigrad.exercises.exercise import Check, Exercise
from minigrad.testing import assert_allclose, check_backward, check_double_backward


def _retained(get: Any) -> tuple[Any, ...]:
    """What ``get_retained_inputs``/``_outputs`` gives; () for a node that retained nothing (for which they raise)."""
    try:
        return get()
    except RuntimeError:
        return ()


def _require(condition: bool, message: str) -> None:
    """A failed check (not ``assert``: its message must not depend on pytest's assertion rewriting)."""
    if not condition:
        raise AssertionError(message)


def _rng() -> np.random.Generator:
    return np.random.default_rng(33)


def _away_from_zero(rng: np.random.Generator, shape: tuple[int, ...], low: float = 0.3, high: float = 2.0):
    return rng.uniform(low, high, shape) * rng.choice([-1.0, 1.0], shape)


def _op_checks(func: Callable[..., Any], reference: Callable[..., np.ndarray], inputs: Sequence[np.ndarray],
               names: Sequence[str], label: str = "") -> list[Check]:
    """Forward vs NumPy, first order in float64 and float32, second order in float64, on ``inputs``."""
    rng = _rng()
    expected = reference(*inputs)
    y_grad = rng.uniform(-1, 1, np.shape(expected))
    x_grad_grad = [rng.uniform(-1, 1, x.shape) for x in inputs]
    suffix = f" {label}" if label else ""

    def as_dtype(arrays, dtype):
        return tuple(np.asarray(a, dtype=dtype) for a in arrays)

    def forward() -> None:
        y = func(*(x.copy() for x in inputs))
        _require(y.shape == np.shape(expected), f"the output has shape {y.shape}, expected {np.shape(expected)}")
        assert_allclose(y.array, expected, atol=1e-12, rtol=1e-10)

    def first(dtype) -> Callable[[], None]:
        return lambda: check_backward(func, as_dtype(inputs, dtype), np.asarray(y_grad, dtype=dtype), seed=0,
                                      input_names=names)

    def second() -> None:
        check_double_backward(func, inputs, y_grad, tuple(x_grad_grad), seed=0)

    return [(f"forward matches NumPy{suffix}", forward),
            (f"first derivative (check_backward, float64){suffix}", first(np.float64)),
            (f"first derivative (check_backward, float32){suffix}", first(np.float32)),
            (f"second derivative (check_double_backward, float64){suffix}", second)]


# --- 1. numerical_grad ------------------------------------------------------------------

def _numerical_grad_checks(solution: dict[str, Any]) -> list[Check]:
    numerical_grad = solution["numerical_grad"]
    rng = _rng()
    x = rng.uniform(-1.5, 1.5, (3,))
    c = rng.uniform(-1, 1, (2, 3))
    x2 = rng.uniform(-1, 1, (2, 3))

    def compare(f, at, expected, eps=1e-4) -> None:
        got = numerical_grad(f, at.copy(), eps)
        _require(np.shape(got) == at.shape, f"numerical_grad returned shape {np.shape(got)}; x has shape {at.shape}")
        assert_allclose(np.asarray(got, dtype=np.float64), expected, atol=1e-7, rtol=1e-6)

    def leaves_x_alone() -> None:
        before = x2.copy()
        numerical_grad(lambda v: float(np.sin(v).sum()), x2, 1e-4)
        _require(np.array_equal(x2, before), f"x changed: it was {before!r}, it is now {x2!r}; put each element back")

    return [("sum(x ** 3) at 3 points: 3 x ** 2", lambda: compare(lambda v: float((v ** 3).sum()), x, 3 * x ** 2)),
            ("a 2-D x: sum(c * sin(x)) + sum(x) ** 2",
             lambda: compare(lambda v: float((c * np.sin(v)).sum() + v.sum() ** 2), x2,
                             c * np.cos(x2) + 2 * x2.sum())),
            ("x is left as it was", leaves_x_alone)]


# --- 2-8. the backward of an op -------------------------------------------------------------

def _mul_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    return _op_checks(solution["mul"], np.multiply, (rng.uniform(-2, 2, (2, 3)), rng.uniform(-2, 2, (2, 3))),
                      ("x0", "x1"))


def _sum_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    x = rng.uniform(-2, 2, (3, 4))
    checks: list[Check] = []
    for axis in (0, 1, None):
        checks += _op_checks(lambda v, axis=axis: solution["sum_"](v, axis), lambda v, axis=axis: v.sum(axis=axis),
                             (x,), ("x",), f"(axis={axis})")
    return checks


def _broadcast_add_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    checks: list[Check] = [("backward does not call F.sum_to (write the reduction yourself)",
                            lambda: _refuses(solution["add"], "sum_to"))]
    for shape0, shape1 in (((2, 3), (3,)), ((2, 3), (2, 1)), ((2, 1, 4), (3, 1))):
        inputs = (rng.uniform(-2, 2, shape0), rng.uniform(-2, 2, shape1))
        checks += _op_checks(solution["add"], np.add, inputs, ("x0", "x1"), f"({shape0} + {shape1})")
    return checks


def _refuses(function: Callable[..., Any], name: str) -> None:
    """The code of the file defining ``function`` does not use ``name`` (its strings and comments may)."""
    with open(inspect.getsourcefile(function), encoding="utf-8") as handle:
        tokens = tokenize.generate_tokens(handle.readline)
        used = any(token.type == tokenize.NAME and token.string == name for token in tokens)
    _require(not used, f"the file uses {name}: that is the answer this exercise asks you to write")


def _exp_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    exp = solution["exp"]

    def keeps_the_output_only() -> None:
        import minigrad as mg

        y = exp(mg.Variable(np.array([0.5, -1.0])))
        node = y.creator
        _require(_retained(node.get_retained_inputs) == (), "Exp keeps its input: retain only the output")
        kept = _retained(node.get_retained_outputs)
        _require(len(kept) == 1, "Exp keeps no output: call self.retain_outputs((0,)) in forward")
        _require(np.array_equal(kept[0].array, y.array), "the retained output is not the output")

    return [("forward keeps its output, not its input", keeps_the_output_only),
            *_op_checks(exp, np.exp, (rng.uniform(-2, 2, (2, 3)),), ("x",))]


def _softmax_reference(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _softmax_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    return [*_op_checks(solution["softmax"], _softmax_reference, (rng.uniform(-2, 2, (3, 4)),), ("x",)),
            *_op_checks(solution["softmax"], _softmax_reference, (rng.uniform(-2, 2, (5,)),), ("x",), "(1-D)")]


def _matmul_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    return _op_checks(solution["matmul"], np.matmul, (rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3, 4))),
                      ("x", "W"))


def _conv1d_reference(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return np.correlate(x, w, mode="valid")


def _conv1d_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    return _op_checks(solution["conv1d"], _conv1d_reference, (rng.uniform(-1, 1, (7,)), rng.uniform(-1, 1, (3,))),
                      ("x", "w"))


# --- 9-10. fix an op ---------------------------------------------------------------------------

def _hypot_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    return _op_checks(solution["hypot"], np.hypot, (_away_from_zero(rng, (2, 3)), _away_from_zero(rng, (2, 3))),
                      ("x0", "x1"))


def _sigmoid_checks(solution: dict[str, Any]) -> list[Check]:
    rng = _rng()
    return _op_checks(solution["sigmoid"], lambda x: 1 / (1 + np.exp(-x)), (rng.uniform(-3, 3, (2, 3)),), ("x",))


EXERCISES: tuple[Exercise, ...] = (
    Exercise(1, "numerical_grad", "a numerical gradient by central differences", "tutorial/02-function-node",
             "Write numerical_grad(f, x, eps): df/dx[i] for every element, from f(x + eps e_i) and f(x - eps e_i).",
             ("numerical_grad",),
             ("Central, not one-sided: (f(x + eps) - f(x - eps)) / (2 eps) is accurate to eps ** 2, "
              "(f(x + eps) - f(x)) / eps only to eps.",
              "Change one element at a time (np.ndindex(x.shape) visits every index, for any number of dimensions).",
              "Put each element back after its two evaluations, so that x ends as it began.",
              "Do not round: write into an array of x's shape and dtype (np.zeros_like(x))."),
             _numerical_grad_checks),
    Exercise(2, "mul", "the backward of mul", "tutorial/02-function-node",
             "Write Mul.backward: the gradients of x0 * x1 with respect to x0 and x1.",
             ("mul",),
             ("d(x0 x1)/dx0 = x1: the gradient for x0 is gy times x1, and the other way round.",
              "Return one gradient per input, in input order: return gx0, gx1.",
              "Use the Variables from get_retained_inputs() and Variable operators, never .array: then the "
              "second derivative works too (tutorial step 5)."),
             _mul_checks),
    Exercise(3, "sum", "the backward of a sum over an axis", "tutorial/03-backward",
             "Write Sum.backward: spread gy back to the shape of x.",
             ("sum_",),
             ("Every x[i, j] adds once to y, so its gradient is the gy of the element it went into.",
              "gy lost the summed axis: put it back with F.expand_dims(gy, self.axis), then "
              "F.broadcast_to(..., self.x_shape).",
              "With axis=None, gy is 0-dim: F.broadcast_to(gy, self.x_shape) alone does it."),
             _sum_checks),
    Exercise(4, "broadcast_add", "the backward of an addition that broadcasts", "tutorial/03-backward",
             "Write Add.backward: gy summed back to the shape of each input.",
             ("add",),
             ("If x1 was repeated along an axis, each copy received a gradient: add them up (F.sum over that axis).",
              "Broadcasting adds leading axes (shape (3,) against (2, 3)) and stretches axes of size 1 "
              "((2, 1) against (2, 3)): sum over both kinds.",
              "F.sum(g, axis=(...), keepdims=True) keeps the size-1 axes; F.reshape(g, shape) then drops the "
              "leading ones.",
              "An input that was not broadcast gets gy unchanged."),
             _broadcast_add_checks),
    Exercise(5, "exp", "keep the output: retain_outputs", "tutorial/04-intermediate-gradients",
             "Make Exp keep its output (retain_outputs) and write its backward from it.",
             ("exp",),
             ("In forward: self.retain_outputs((0,)) keeps output 0 for backward; nothing else is kept.",
              "In backward: y, = self.get_retained_outputs() gives the output as a Variable of the graph.",
              "d exp(x)/dx = exp(x) = y: the gradient is gy * y."),
             _exp_checks),
    Exercise(6, "softmax", "the backward of softmax", "tutorial/07-custom-op",
             "Write Softmax.backward: y * (gy - sum(gy * y over the last axis)).",
             ("softmax",),
             ("F.sum(gy * y, axis=-1, keepdims=True) keeps the last axis (size 1), so that it broadcasts against gy.",
              "The result is y * (gy - that sum), all with Variable operators.",
              "If only some rows are wrong, check the axis: the sum is over the last axis, one sum per row."),
             _softmax_checks),
    Exercise(7, "matmul", "the backward of a matrix product", "tutorial/07-custom-op",
             "Write MatMul.backward: the gradients for x (n, k) and W (k, m) from gy (n, m).",
             ("matmul",),
             ("Match the shapes: the gradient for x is (n, k) = (n, m) @ (m, k), so gy @ W.T.",
              "The gradient for W is (k, m) = (k, n) @ (n, m), so x.T @ gy.",
              "Use F.matmul and the Variables' .T, not NumPy, so that the gradient is differentiable."),
             _matmul_checks),
    Exercise(8, "conv1d", "the backward of a 1-D convolution", "tutorial/07-custom-op",
             "Write Conv1d.backward: the gradients for x and w of a valid 1-D cross-correlation.",
             ("conv1d",),
             ("For w[k]: F.sum(x[k:k + m] * gy), m = len(gy); F.stack the K results into a vector.",
              "For x: each w[k] sent gy * w[k] to x[k:k + m]; F.pad(gy * w[k], (k, K - 1 - k), 'constant') puts it "
              "there, and the K padded vectors add up.",
              "If only the ends of x are wrong, look at the padding: the left pad is k, the right K - 1 - k.",
              "Slices and F functions keep the graph, so the second derivative works without more effort."),
             _conv1d_checks),
    Exercise(9, "find_the_bug", "find and fix a buggy op", "tutorial/08-checking",
             "hypot(x0, x1) = sqrt(x0 ** 2 + x1 ** 2) has a wrong gradient: find it from the checker's report, "
             "then fix it.",
             ("hypot",),
             ("Read the first failing report: which input does it name, x0 or x1?",
              "Compare backprop and numerical at the worst elements it lists: which formula gives the numerical "
              "values?",
              "d hypot/dx1 = x1 / hypot(x0, x1)."),
             _hypot_checks),
    Exercise(10, "double_backprop", "make a backward differentiable (double backprop)", "tutorial/08-checking",
             "Rewrite Sigmoid.backward with Variable operators so that the second derivative is right.",
             ("sigmoid",),
             ("The first derivative passes and the second fails: the gradient has no graph back to x (step 5).",
              ".array leaves the graph: take y, = self.get_retained_outputs() and compute with y itself.",
              "sigmoid' = y (1 - y): return gy * y * (1 - y)."),
             _sigmoid_checks),
)


def find(number: int) -> Exercise:
    """The exercise numbered ``number``; a ValueError listing the numbers otherwise.

    Example:
        >>> from minigrad.exercises.catalog import find
        >>> find(7).title, find(7).stub_file
        ('the backward of a matrix product', 'ex07_matmul.py')
    """
    for exercise in EXERCISES:
        if exercise.number == number:
            return exercise
    raise ValueError(f"there is no exercise {number}; the exercises are 1 to {len(EXERCISES)} "
                     "(python -m minigrad exercise --list)")
