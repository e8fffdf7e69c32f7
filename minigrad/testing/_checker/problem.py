"""The problem interface the checker's steps work on, and its minigrad adapter.

The steps of ``check_backward`` never touch a Variable: they see a *problem*,
which can do two things at arrays (the inputs, then the parameters, in one
list):

- ``forward(arrays)``: evaluate the function, returning its output arrays and a
  handle for the next call;
- ``vjp(forward, cotangents, positions)``: a vector-Jacobian product at the
  point of ``forward``: the gradients of ``sum_j <y_j, cotangents[j]>`` with
  respect to the arrays at ``positions`` (``None`` where backprop gives none).

Two questions serve the guards and the failure text: ``arrays_seen`` (the
arrays the function holds after a call: did it write into them?) and
``graph_missing`` (no output connected to the inputs).

"The same one order up" is another problem of the same kind: the first-order
gradient function (``first_order.py``) is a function like any other.
Another array framework is adapted by writing these two methods for it.
``MinigradProblem`` is minigrad's adapter: ``func`` runs on fresh Variables
with backprop forced on, whatever mode the caller is in, and the outputs are
joined through one ``Identity`` node so that one backward pass reaches all of
them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, Protocol

from minigrad.configuration import force_backprop_mode
from minigrad.function_node import grad as _grad
from minigrad.functions.array.identity import Identity
from minigrad.testing._checker.arrays import as_tuple
from minigrad.variable import Variable


class Forward(NamedTuple):
    """One evaluation: the output arrays, and what the adapter needs for a vjp at that point."""

    outputs: tuple[Any, ...]
    handle: Any


class Problem(Protocol):
    """What the checker's steps need from an array framework."""

    where: str
    evaluations: int  # forward calls so far

    def forward(self, arrays: Sequence[Any]) -> Forward: ...

    def vjp(self, forward: Forward, cotangents: Sequence[Any], positions: Sequence[int]) -> list[Any]: ...

    def graph_missing(self, forward: Forward) -> bool: ...

    def arrays_seen(self, forward: Forward) -> list[Any]: ...


class MinigradProblem:
    """``func`` on minigrad Variables: ``x_count`` input arrays, then one array per parameter."""

    def __init__(self, func: Callable[..., Any], x_count: int, params: tuple[Variable, ...],
                 requires: Sequence[bool], where: str) -> None:
        self.func = func
        self.x_count = x_count
        self.params = params
        self.requires = tuple(requires)  # per input: whether its Variable requires grad
        self.where = where
        self.evaluations = 0

    def forward(self, arrays: Sequence[Any]) -> Forward:
        """Run ``func`` on fresh Variables made from ``arrays``; check that it returns real Variables."""
        for p, a in zip(self.params, arrays[self.x_count:]):
            p.array = a
        xs = [Variable(a, requires_grad=r) for a, r in zip(arrays[:self.x_count], self.requires)]
        self.evaluations += 1
        with force_backprop_mode():
            outputs = as_tuple(self.func(*xs))
        if not outputs:
            raise ValueError(f"{self.where}: func returned no outputs")
        for j, y in enumerate(outputs):
            if not isinstance(y, Variable):
                raise TypeError(f"{self.where}: func must return a Variable or a tuple of Variables; "
                                f"output {j} is {type(y).__name__}")
            if y.dtype.kind == "c":
                raise TypeError(f"{self.where}: output {j} of func is complex ({y.dtype}); complex gradients are "
                                "not checked (check the real and imaginary parts as separate real outputs)")
        return Forward(tuple(y.array for y in outputs), (xs, outputs, list(arrays[self.x_count:])))

    def vjp(self, forward: Forward, cotangents: Sequence[Any], positions: Sequence[int]) -> list[Any]:
        """Gradients at ``positions`` of ``sum_j <y_j, cotangents[j]>`` (a ``None`` cotangent: no gradient)."""
        xs, outputs, param_arrays = forward.handle
        for p, a in zip(self.params, param_arrays):  # the parameters' arrays at that point (a graph holds them)
            p.array = a
        seeds = [Variable(c, requires_grad=False) for c in cotangents if c is not None]
        differentiable = tuple(y for y, c in zip(outputs, cotangents) if c is not None)
        wrt = [xs[i] if i < self.x_count else self.params[i - self.x_count] for i in positions]
        if not (differentiable and wrt):
            return [None] * len(positions)
        with force_backprop_mode():
            joined = Identity().apply(differentiable)
            results = _grad(list(joined), wrt, seeds)
        return [None if g is None else g.array for g in results]

    def graph_missing(self, forward: Forward) -> bool:
        """No output is connected to the inputs (a backward written on raw arrays, one order up)."""
        return all(y.creator is None for y in forward.handle[1])

    def arrays_seen(self, forward: Forward) -> list[Any]:
        """The arrays the Variables of ``forward`` hold now (to catch a func that writes into its inputs)."""
        xs = forward.handle[0]
        return [x.array for x in xs] + [p.array for p in self.params]
