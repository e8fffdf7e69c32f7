"""The cases an ``OpSpec`` implies: its kind's edge cases and its own variants, derived, not listed by hand.

An op is described once, by its spec; the runner derives from its ``kind``
the cases every op of that kind must pass, and ``load_specs`` puts them right
after the spec, so ``python -m minigrad check`` and ``op_tests`` run them
like any other case (named ``op[label]``):

- ``"elementwise"``: ``[0-dim]`` (one element of each input, as a 0-dim
  array: NumPy 1.x casts 0-dim arrays meeting a Python scalar by type) and
  ``[empty]`` (no elements), both from the spec's own inputs;
- ``"binary"``: ``[broadcast]`` (operands of shapes (2, 1, 3) and (4, 1)),
  ``[0-dim]``, ``[empty]`` (shapes (0, 3) and (3,)), and a Python scalar on
  either side, through the spec's ``operator`` where it has one
  (``[var*scalar]`` with a float, ``[scalar*var]`` with an int: the output keeps
  the array's dtype);
- ``"reduction"``: ``[axis=-1]`` over a size-1 axis, ``[axis=(2,0),keepdims]``
  (non-contiguous, out of order), ``[0-dim]`` and ``[empty,axis=(1,2)]`` (an
  empty array reduced over its other axes);
- every entry of the spec's ``variants``: ``[label]`` with those inputs;
- bad cases, which run the ``refuses`` check alone (the op must raise a
  TypeError or ValueError naming itself: ``minigrad.testing.refusal_check``):
  ``[bad:list]`` and ``[bad:str]`` (its first input as a Python list, and as
  a string), ``[bad:int]`` (its first float input as an integer array, unless
  the spec says ``accepts_integers``; for differentiable ops), and by kind
  ``[bad:shapes]`` (binary: operands (2, 3) and (4,), which do not broadcast)
  and ``[bad:axis]`` (reduction: axis 2 of a 2-d input).

Values of fresh shapes come from the operands' ``domain`` (``DRAWS``). A
derived case runs the checks that matter for it (``forward``, ``backward``
and, for edge cases, ``double``), not the whole battery; the scalar cases,
which stand for their own code path in the op, run every check.

Example:
    >>> import numpy as np, minigrad.functions as F
    >>> from minigrad.testing import OpSpec
    >>> from minigrad.testing.spec_variants import derived
    >>> spec = OpSpec("mul", F.mul, lambda rng, dt: (np.ones((2, 3), dt), np.ones(3, dt)), np.multiply,
    ...               kind="binary", operator="*")
    >>> [case.name for case in derived(spec)]  # doctest: +NORMALIZE_WHITESPACE
    ['mul[broadcast]', 'mul[0-dim]', 'mul[empty]', 'mul[var*scalar]', 'mul[scalar*var]', 'mul[bad:list]',
     'mul[bad:str]', 'mul[bad:int]', 'mul[bad:shapes]']
    >>> derived(spec)[1].checks, derived(spec)[-1].checks
    (('forward', 'backward', 'double'), ('refuses',))
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import operator as operators
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from minigrad.testing.refusal_check import CaseSkipped
from minigrad.testing.registry import DOMAINS, OpSpec

__all__ = ["derived", "bad_cases", "with_shapes", "with_scalar", "with_axis", "takes_keepdims", "DRAWS", "SCALARS",
           "EDGE_CHECKS", "DRAWN_CHECKS", "BAD_CHECKS"]

EDGE_CHECKS: tuple[str, ...] = ("forward", "backward", "double")  # 0-dim, empty and a spec's own variants
DRAWN_CHECKS: tuple[str, ...] = ("forward", "backward")  # other shapes and axes: values and first derivatives
BAD_CHECKS: tuple[str, ...] = ("refuses",)  # bad inputs: a clear error naming the op

Draw = Callable[[numpy.random.Generator, Sequence[int], Any], numpy.ndarray]


def _grid(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any, offset: float) -> numpy.ndarray:
    """Multiples of 1/4 in [-2, 2], plus ``offset``: a "grid" and an "offgrid" operand never tie."""
    return numpy.asarray(rng.integers(-8, 9, size=tuple(shape)) / 4 + offset, dtype=dtype)  # 0-dim: an array too


def _distinct(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any) -> numpy.ndarray:
    """A shuffled ladder of step 1/8 (exact in float16): no ties for max and min."""
    size = int(numpy.prod(shape, dtype=numpy.int64))
    return ((rng.permutation(size) - size / 2) / 8).reshape(tuple(shape)).astype(dtype)


def _with_zeros(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any) -> numpy.ndarray:
    """Magnitudes in [0.75, 1.25] with either sign, a quarter of them 0 (a product's gradient at zeros)."""
    values = rng.uniform(0.75, 1.25, size=tuple(shape)) * rng.choice((-1.0, 1.0), size=tuple(shape))
    return numpy.asarray(numpy.where(rng.random(tuple(shape)) < 0.25, 0.0, values), dtype=dtype)


#: A domain's name -> ``draw(rng, shape, dtype)``.
DRAWS: dict[str, Draw] = {
    "real": lambda rng, shape, dt: rng.uniform(-1, 1, size=tuple(shape)).astype(dt),
    "positive": lambda rng, shape, dt: rng.uniform(0.5, 2, size=tuple(shape)).astype(dt),
    "nonzero": lambda rng, shape, dt: (rng.uniform(0.5, 2, size=tuple(shape))
                                       * rng.choice((-1.0, 1.0), size=tuple(shape))).astype(dt),
    "grid": lambda rng, shape, dt: _grid(rng, shape, dt, 0.0),
    "offgrid": lambda rng, shape, dt: _grid(rng, shape, dt, 0.125),
    "distinct": _distinct,
    "with_zeros": _with_zeros,
}
assert tuple(DRAWS) == DOMAINS  # the registry validates the names, this table draws them

#: A Python scalar inside a domain: (a float, an int or None where none fits).
SCALARS: dict[str, tuple[float, int | None]] = {
    "real": (0.75, -2), "positive": (1.5, 2), "nonzero": (-1.5, 2), "grid": (0.25, 1), "offgrid": (0.375, None),
    "distinct": (0.375, None), "with_zeros": (0.75, -1),
}
_OPERATORS = {"+": operators.add, "-": operators.sub, "*": operators.mul, "/": operators.truediv,
              "**": operators.pow}


def derived(spec: OpSpec) -> list[OpSpec]:
    """The cases ``spec`` implies (see the module docstring), in a fixed order; the same objects on every call."""
    cached = _DERIVED.get(id(spec))
    if cached is None or cached[0] is not spec:
        cases = {"elementwise": _elementwise, "binary": _binary, "reduction": _reduction}.get(spec.kind,
                                                                                            lambda s: [])(spec)
        cases += [_case(spec, label, draw, EDGE_CHECKS) for label, draw in spec.variants.items()]
        cases += bad_cases(spec)
        cached = _DERIVED[id(spec)] = (spec, cases)
    return cached[1]


_DERIVED: dict[int, tuple[OpSpec, list[OpSpec]]] = {}  # by id: one list per spec (load_specs compares by identity)


def _case(spec: OpSpec, label: str, inputs: Any, checks: tuple[str, ...], **fields: Any) -> OpSpec:
    """A derived case: the spec with other inputs (and maybe another ``func``/``reference``), no kind of its own."""
    name = f"{spec.name[:-1]},{label}]" if spec.name.endswith("]") else f"{spec.name}[{label}]"
    return dataclasses.replace(spec, name=name, inputs=inputs, covers=spec.public_names, kind=None, domain=(),
                               operator=None, variants={}, checks=checks, grad_outputs=None, **fields)


def _domain(spec: OpSpec, position: int) -> str:
    return spec.domain[position] if position < len(spec.domain) else "real"


def _draw(domain: str, rng: numpy.random.Generator, shape: Sequence[int], dtype: Any) -> numpy.ndarray:
    return numpy.asarray(DRAWS[domain](rng, shape, dtype), dtype=dtype)  # a 0-dim draw is an array too


# --- elementwise: the spec's own inputs, cut down ---------------------------------------------------------
def _elementwise(spec: OpSpec) -> list[OpSpec]:
    def zero_dim(rng: numpy.random.Generator, dtype: Any) -> tuple[Any, ...]:
        return tuple(numpy.asarray(a.reshape(-1)[0]) if a.size else a for a in spec.inputs(rng, dtype))

    def empty(rng: numpy.random.Generator, dtype: Any) -> tuple[Any, ...]:
        return tuple(a[:0] if a.ndim else a.reshape(0) for a in spec.inputs(rng, dtype))

    return [_case(spec, "0-dim", zero_dim, EDGE_CHECKS), _case(spec, "empty", empty, EDGE_CHECKS)]


# --- binary: fresh operands of other shapes, and Python scalars ---------------------------------------------
def _operands(spec: OpSpec, *shapes: Sequence[int]) -> Any:
    def inputs(rng: numpy.random.Generator, dtype: Any) -> tuple[Any, ...]:
        return tuple(_draw(_domain(spec, i), rng, shape, dtype) for i, shape in enumerate(shapes))
    return inputs


def _binary(spec: OpSpec) -> list[OpSpec]:
    right_float, (left_float, left_int) = SCALARS[_domain(spec, 1)][0], SCALARS[_domain(spec, 0)]
    return [with_shapes(spec, (2, 1, 3), (4, 1), label="broadcast"),
            with_shapes(spec, (), (), label="0-dim", checks=EDGE_CHECKS),
            with_shapes(spec, (0, 3), (3,), label="empty", checks=EDGE_CHECKS),
            with_scalar(spec, right_float, 1),  # a float on the right; an int on the left, where the domain holds one
            with_scalar(spec, left_float if left_int is None else left_int, 0)]


def _call(spec: OpSpec, through_operator: bool) -> Callable[..., Any]:
    return _OPERATORS[spec.operator] if spec.operator and through_operator else spec.func


def with_shapes(spec: OpSpec, *shapes: Sequence[int], label: str | None = None,
                checks: tuple[str, ...] = DRAWN_CHECKS, through_operator: bool = True) -> OpSpec:
    """A binary op's case on operands of ``shapes`` (drawn from its ``domain``), through its ``operator`` if any.

    ``through_operator=False`` calls the spec's ``func`` (``F.add``) instead of
    the operator (``a + b``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec, run_case
        >>> from minigrad.testing.spec_variants import with_shapes
        >>> spec = OpSpec("add", F.add, lambda rng, dt: (np.ones(3, dt), np.ones(3, dt)), np.add, kind="binary")
        >>> case = with_shapes(spec, (2, 1), (3,))
        >>> case.name, run_case(case, "float32", "numpy", "backward").status
        ('add[(2, 1),(3,)]', 'pass')
    """
    call = _call(spec, through_operator)
    label = label or ",".join(str(tuple(shape)) for shape in shapes)
    return _case(spec, label, _operands(spec, *shapes), checks, func=call)


def with_scalar(spec: OpSpec, scalar: float | int, position: int, shape: Sequence[int] = (2, 3),
                through_operator: bool = True) -> OpSpec:
    """A binary op with the Python ``scalar`` as its operand ``position`` (1: ``x * s``, 0: ``s * x``), every check.

    The array operand is drawn from its own position's domain; the op runs
    through its ``operator`` where it has one, as users write it
    (``through_operator=False``: through ``func``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec, run_case
        >>> from minigrad.testing.spec_variants import with_scalar
        >>> spec = OpSpec("mul", F.mul, lambda rng, dt: (np.ones(3, dt), np.ones(3, dt)), np.multiply,
        ...               kind="binary", operator="*")
        >>> case = with_scalar(spec, 2, 0)
        >>> case.name, run_case(case, "float16", "numpy", "forward").status
        ('mul[scalar*var]', 'pass')
    """
    call = _call(spec, through_operator)

    def func(x: Any) -> Any:
        return call(x, scalar) if position == 1 else call(scalar, x)

    def reference(a: Any) -> Any:
        return spec.reference(a, scalar) if position == 1 else spec.reference(scalar, a)

    def inputs(rng: numpy.random.Generator, dtype: Any) -> tuple[Any, ...]:
        return (_draw(_domain(spec, 1 - position), rng, shape, dtype),)

    symbol = spec.operator or ","
    label = f"var{symbol}scalar" if position == 1 else f"scalar{symbol}var"
    return _case(spec, label, inputs, (), func=func, reference=None if spec.reference is None else reference,
                 linear_in=())


# --- reductions: other axes, 0-dim and empty inputs ----------------------------------------------------------
def _reduction(spec: OpSpec) -> list[OpSpec]:
    keeps = takes_keepdims(spec)
    return [with_axis(spec, (3, 1, 2), -1, label="axis=-1"),
            with_axis(spec, (2, 3, 2), (2, 0), keeps, label="axis=(2,0),keepdims" if keeps else "axis=(2,0)"),
            with_axis(spec, (), None, label="0-dim", checks=EDGE_CHECKS),
            with_axis(spec, (0, 2, 3), (1, 2), label="empty,axis=(1,2)", checks=EDGE_CHECKS)]


def takes_keepdims(spec: OpSpec) -> bool:
    """Whether a reduction's ``func`` takes ``keepdims=`` (``logsumexp`` does not)."""
    try:
        return "keepdims" in inspect.signature(spec.func).parameters
    except (TypeError, ValueError):
        return False


def with_axis(spec: OpSpec, shape: Sequence[int], axis: Any, keepdims: bool = False, label: str | None = None,
              checks: tuple[str, ...] = DRAWN_CHECKS) -> OpSpec:
    """A reduction's case over ``axis`` of an input of ``shape`` (drawn from its ``domain``).

    Example:
        >>> import functools, numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec, run_case
        >>> from minigrad.testing.spec_variants import with_axis
        >>> spec = OpSpec("sum", F.sum, lambda rng, dt: (np.ones(3, dt),), np.sum, kind="reduction")
        >>> case = with_axis(spec, (2, 3, 4), (0, -1), keepdims=True)
        >>> case.name, run_case(case, "float64", "numpy", "backward").status
        ('sum[(2, 3, 4),axis=(0, -1),keepdims]', 'pass')
    """
    options = {"axis": axis, **({"keepdims": keepdims} if takes_keepdims(spec) else {})}
    reference = None if spec.reference is None else functools.partial(spec.reference, **options)
    label = label or f"{tuple(shape)},axis={axis}" + (",keepdims" if options.get("keepdims") else "")
    return _case(spec, label, _operands(spec, shape), checks, func=functools.partial(spec.func, **options),
                 reference=reference, linear_in=spec.linear_in)


# --- bad inputs: each must be refused with an error naming the op ----------------------------------------------------
def _replaced(spec: OpSpec, bad: Callable[[numpy.ndarray], Any], float_only: bool = False) -> Any:
    """``inputs`` with the first input (the first float one, with ``float_only``) replaced by ``bad(it)``."""
    def inputs(rng: numpy.random.Generator, dtype: Any) -> tuple[Any, ...]:
        arrays = list(spec.inputs(rng, dtype))
        at = next((i for i, a in enumerate(arrays) if not float_only or a.dtype.kind == "f"), None)
        if at is None:
            raise CaseSkipped(f"{spec.name}: no {'float ' if float_only else ''}input to replace")
        arrays[at] = bad(arrays[at])
        return tuple(arrays)
    return inputs


def _integers(a: numpy.ndarray) -> numpy.ndarray:
    return (numpy.arange(a.size).reshape(a.shape) % 3 + 1).astype(numpy.int64)  # small, positive: in most domains


def bad_cases(spec: OpSpec) -> list[OpSpec]:
    """The bad cases of ``spec`` (see the module docstring), each running the ``refuses`` check alone.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec, run_case
        >>> from minigrad.testing.spec_variants import bad_cases
        >>> spec = OpSpec("sum", F.sum, lambda rng, dt: (np.ones((2, 3), dt),), np.sum, kind="reduction",
        ...               accepts_integers=True)
        >>> [(case.name, run_case(case, "float32", "numpy", "refuses").status) for case in bad_cases(spec)]
        [('sum[bad:list]', 'pass'), ('sum[bad:str]', 'pass'), ('sum[bad:axis]', 'pass')]
    """
    fields = {"expected_failures": {}}  # the spec's marks are for its own checks (a glob would catch these too)
    cases = [_case(spec, "bad:list", _replaced(spec, lambda a: a.tolist()), BAD_CHECKS, **fields),
             _case(spec, "bad:str", _replaced(spec, lambda a: "abc"), BAD_CHECKS, **fields)]
    if spec.differentiable and not spec.accepts_integers:
        cases.append(_case(spec, "bad:int", _replaced(spec, _integers, float_only=True), BAD_CHECKS, **fields))
    if spec.kind == "binary":
        cases.append(_case(spec, "bad:shapes", _operands(spec, (2, 3), (4,)), BAD_CHECKS, **fields))
    if spec.kind == "reduction":
        cases.append(dataclasses.replace(with_axis(spec, (2, 3), 2, label="bad:axis", checks=BAD_CHECKS), **fields))
    return cases
