"""Property-based tests of op semantics against NumPy, on Hypothesis-drawn shapes, dtypes, axes and indices.

The op registry checks every op on a few fixed shapes; these properties draw the shapes (broadcast pairs,
0-d arrays, size-1 axes), the axes (None / int / tuple, negative too), keepdims, permutations and indices
(basic slices with steps, negative integers, None, Ellipsis, integer arrays with repeats) and check:

* the forward values, shape and dtype against NumPy (a Python scalar never changes the float dtype);
* every input gradient's shape and dtype, and its values with ``check_backward`` (or, for the linear
  array ops, against an independent NumPy computation of the gradient).

Values are drawn clear of ties and kinks (``maximum`` operands on interleaved grids, distinct values for
``max``/``min``, denominators and ``pow`` bases away from zero). Runs are derandomized, so CI sees the
same examples every time; ``MINIGRAD_PROPERTY_SCALE=10`` runs ten times as many, ``MINIGRAD_PROPERTY_RANDOM=1``
draws fresh ones (for hunting, not for CI).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from typing import Any

import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import assert_allclose, check_backward
from minigrad.testing.op_specs import DEFAULT_FORWARD_TOLERANCE, FLOAT_DTYPES


def examples(n: int) -> settings:
    """Settings for a property: ``n`` examples (scaled by MINIGRAD_PROPERTY_SCALE), reproducible by default."""
    scale = float(os.environ.get("MINIGRAD_PROPERTY_SCALE", "1"))
    return settings(max_examples=max(1, round(n * scale)), deadline=None, database=None,
                    derandomize=os.environ.get("MINIGRAD_PROPERTY_RANDOM", "") != "1",
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


dtypes = st.sampled_from(FLOAT_DTYPES).map(np.dtype)
small_shapes = hnp.array_shapes(min_dims=0, max_dims=3, min_side=1, max_side=4)


def values(dtype: np.dtype, low: float, high: float) -> st.SearchStrategy[float]:
    """Floats in [low, high] exactly representable in ``dtype``; magnitudes below 1/64 become 0 (products of
    tiny values underflow, and the numerical derivative of an underflowed function says nothing)."""
    return st.floats(low, high, width=dtype.itemsize * 8).map(lambda v: v if abs(v) >= 1 / 64 else 0.0)


# Value domains: "any" for smooth ops, "nonzero" for denominators, "positive" for pow bases; "grid" and
# "offgrid" interleave (multiples of 1/4, and those plus 1/8), so maximum/minimum never see a tie.
def domain(name: str, dtype: np.dtype) -> st.SearchStrategy[float]:
    if name == "any":
        return values(dtype, -2.0, 2.0)
    if name == "nonzero":
        return values(dtype, 0.5, 2.0) | values(dtype, -2.0, -0.5)
    if name == "positive":
        return values(dtype, 0.5, 2.0)
    offset = 0.125 if name == "offgrid" else 0.0
    return st.integers(-8, 8).map(lambda k: k / 4 + offset)


def arrays(dtype: np.dtype, shape: tuple[int, ...], kind: str = "any") -> st.SearchStrategy[np.ndarray]:
    return hnp.arrays(dtype, shape, elements=domain(kind, dtype))


def assert_forward(y: mg.Variable, expected: np.ndarray, dtype: np.dtype, scale: float = 0.0) -> None:
    """Shape equal, values within the registry's forward tolerance for ``dtype`` (plus ``rtol * scale``, for
    reductions whose rounding grows with the sum of the magnitudes)."""
    expected = np.asarray(expected)
    assert y.shape == expected.shape, f"shape {y.shape}, NumPy gives {expected.shape}"
    atol, rtol = DEFAULT_FORWARD_TOLERANCE[dtype.name]
    assert_allclose(y.array, expected, atol=atol + rtol * scale, rtol=rtol)


def assert_grads_match_inputs(func: Callable[..., Any], xs: tuple[np.ndarray, ...], gy: np.ndarray) -> None:
    """Every float input gets a gradient of its own shape and dtype."""
    variables = [mg.Variable(x) for x in xs]
    y = func(*variables)
    float_vars = [v for v in variables if v.dtype.kind == "f"]
    grads = mg.grad([y], float_vars, [mg.Variable(gy)])
    for i, (v, g) in enumerate(zip(float_vars, grads)):
        assert g is not None, f"input {i} got no gradient"
        assert (g.shape, g.dtype) == (v.shape, v.dtype), \
            f"input {i}: gradient {g.shape} {g.dtype} for an input {v.shape} {v.dtype}"


def output_grad(draw: st.DrawFn, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    return draw(hnp.arrays(dtype, shape, elements=values(dtype, -1.0, 1.0)))


# --- 1. elementwise binary ops ---------------------------------------------------------------------

BINARY = {  # name: (minigrad op, NumPy op, domain of x0, domain of x1)
    "add": (F.add, np.add, "any", "any"),
    "sub": (F.sub, np.subtract, "any", "any"),
    "mul": (F.mul, np.multiply, "any", "any"),
    "div": (F.div, np.divide, "any", "nonzero"),
    "pow": (F.pow, np.power, "positive", "any"),
    "maximum": (F.maximum, np.maximum, "grid", "offgrid"),
    "minimum": (F.minimum, np.minimum, "offgrid", "grid"),
    "operator+": (lambda a, b: a + b, np.add, "any", "any"),
    "operator-": (lambda a, b: a - b, np.subtract, "any", "any"),
    "operator*": (lambda a, b: a * b, np.multiply, "any", "any"),
    "operator/": (lambda a, b: a / b, np.divide, "any", "nonzero"),
    "operator**": (lambda a, b: a ** b, np.power, "positive", "any"),
}


@st.composite
def binary_cases(draw: st.DrawFn, name: str) -> tuple:
    _, _, kind0, kind1 = BINARY[name]
    dtype = draw(dtypes)
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4))
    x0 = draw(arrays(dtype, shapes.input_shapes[0], kind0))
    x1 = draw(arrays(dtype, shapes.input_shapes[1], kind1))
    return x0, x1, output_grad(draw, shapes.result_shape, dtype), draw(st.integers(0, 2 ** 32 - 1))


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_op_matches_numpy_and_its_gradients(name):
    op, reference, _, _ = BINARY[name]

    @examples(40)
    @given(binary_cases(name))
    def check(case):
        x0, x1, gy, seed = case
        y = op(mg.Variable(x0), mg.Variable(x1))
        assert y.dtype == reference(x0, x1).dtype == x0.dtype
        assert_forward(y, reference(x0.astype(np.float64), x1.astype(np.float64)), x0.dtype)
        assert_grads_match_inputs(op, (x0, x1), gy)
        check_backward(op, (x0, x1), gy, seed=seed)

    check()


@st.composite
def where_cases(draw: st.DrawFn) -> tuple:
    dtype = draw(dtypes)
    shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=3, max_dims=3, max_side=4))
    condition = draw(hnp.arrays(np.bool_, shapes.input_shapes[0]))
    x = draw(arrays(dtype, shapes.input_shapes[1]))
    y = draw(arrays(dtype, shapes.input_shapes[2]))
    return condition, x, y, output_grad(draw, shapes.result_shape, dtype), draw(st.integers(0, 2 ** 32 - 1))


@examples(80)
@given(where_cases())
def test_where_matches_numpy_and_its_gradients(case):
    condition, x, y, gy, seed = case
    out = F.where(condition, mg.Variable(x), mg.Variable(y))
    assert out.dtype == np.where(condition, x, y).dtype == x.dtype
    np.testing.assert_array_equal(out.array, np.where(condition, x, y))
    assert_grads_match_inputs(F.where, (condition, x, y), gy)
    check_backward(lambda a, b: F.where(condition, a, b), (x, y), gy, seed=seed)


SCALAR_OPERATORS = {  # name: (operator on (variable, scalar), NumPy op, domain of the array, domain of the scalar)
    "x + s": (lambda v, s: v + s, lambda a, s: a + s, "any", "any"),
    "s + x": (lambda v, s: s + v, lambda a, s: s + a, "any", "any"),
    "x - s": (lambda v, s: v - s, lambda a, s: a - s, "any", "any"),
    "s - x": (lambda v, s: s - v, lambda a, s: s - a, "any", "any"),
    "x * s": (lambda v, s: v * s, lambda a, s: a * s, "any", "any"),
    "s * x": (lambda v, s: s * v, lambda a, s: s * a, "any", "any"),
    "x / s": (lambda v, s: v / s, lambda a, s: a / s, "any", "nonzero"),
    "s / x": (lambda v, s: s / v, lambda a, s: s / a, "nonzero", "any"),
    "x ** s": (lambda v, s: v ** s, lambda a, s: a ** s, "positive", "any"),
    "s ** x": (lambda v, s: s ** v, lambda a, s: s ** a, "any", "positive"),
}


@st.composite
def scalar_cases(draw: st.DrawFn, name: str) -> tuple:
    _, _, kind_x, kind_s = SCALAR_OPERATORS[name]
    dtype = draw(dtypes)
    shape = draw(small_shapes)
    x = draw(arrays(dtype, shape, kind_x))
    # a Python float (float64 precision) or a Python int, in the scalar's domain
    integers = {"any": [-2, -1, 0, 1, 2], "nonzero": [-2, -1, 1, 2], "positive": [1, 2]}[kind_s]
    scalar = draw(domain(kind_s, np.dtype(np.float64)) | st.sampled_from(integers))
    return x, scalar, output_grad(draw, shape, dtype), draw(st.integers(0, 2 ** 32 - 1))


@pytest.mark.parametrize("name", list(SCALAR_OPERATORS))
def test_operator_with_a_python_scalar_keeps_the_float_dtype(name):
    op, reference, _, _ = SCALAR_OPERATORS[name]

    @examples(30)
    @given(scalar_cases(name))
    def check(case):
        x, scalar, gy, seed = case
        y = op(mg.Variable(x), scalar)
        assert y.dtype == x.dtype, f"{name} with {type(scalar).__name__} {scalar!r} made {x.dtype} into {y.dtype}"
        assert_forward(y, reference(x.astype(np.float64), scalar), x.dtype)
        assert_grads_match_inputs(lambda v: op(v, scalar), (x,), gy)
        check_backward(lambda v: op(v, scalar), x, gy, seed=seed)

    check()


# --- 2. reductions -------------------------------------------------------------------------------------

@st.composite
def axes(draw: st.DrawFn, ndim: int) -> Any:
    """None, an int, or a tuple of distinct axes in any order (non-contiguous, negative ones too) of an
    ``ndim``-dimensional array. (``valid_tuple_axes`` rarely gives non-contiguous pairs in a short run.)"""
    kind = draw(st.sampled_from(["tuple", "int", "none"] if ndim else ["none", "tuple"]))
    if kind == "none":
        return None
    chosen = draw(st.permutations(range(ndim)))[:draw(st.integers(1 if kind == "int" else 0, ndim))]
    chosen = [a - ndim if draw(st.booleans()) else a for a in chosen]
    return chosen[0] if kind == "int" else tuple(chosen)


REDUCTIONS = {  # name: (minigrad op, NumPy reference on float64, values, largest input size)
    "sum": (F.sum, np.sum, "any", 64),
    "mean": (F.mean, np.mean, "any", 64),
    "max": (F.max, np.max, "distinct", 64),
    "min": (F.min, np.min, "distinct", 64),
    "prod": (F.prod, np.prod, "with_zeros", 16),
    "logsumexp": (F.logsumexp, None, "any", 64),
}


def logsumexp_reference(x: np.ndarray, axis: Any, keepdims: bool) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    y = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return y if keepdims else np.squeeze(y, axis=axis if axis is not None else tuple(range(x.ndim)))


def distinct_values(order: Any, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    """A shuffled grid (``order`` a permutation): no ties, exactly representable in float16."""
    order = np.asarray(order, dtype=np.float64)
    return ((order - order.size / 2) / 8).reshape(shape).astype(dtype)


@st.composite
def reduction_cases(draw: st.DrawFn, name: str) -> tuple:
    _, _, kind, max_size = REDUCTIONS[name]
    dtype = draw(dtypes)
    shape = draw(small_shapes.filter(lambda s: math.prod(s) <= max_size))
    if kind == "distinct":
        x = distinct_values(draw(st.permutations(range(math.prod(shape)))), shape, dtype)
    elif kind == "with_zeros":  # the product's gradient must stay exact at zeros (no y / x)
        x = draw(hnp.arrays(dtype, shape, elements=values(dtype, 0.75, 1.25) | values(dtype, -1.25, -0.75)
                            | st.just(0.0)))
    else:
        x = draw(arrays(dtype, shape))
    axis = draw(axes(len(shape)))
    keepdims = draw(st.booleans()) if name != "logsumexp" else False
    out_shape = np.sum(x, axis=axis, keepdims=keepdims).shape
    return x, axis, keepdims, output_grad(draw, out_shape, dtype), draw(st.integers(0, 2 ** 32 - 1))


def reduction_example(name: str, axis: Any, keepdims: bool, dtype: str = "float32") -> tuple:
    """A fixed case on a (2, 2, 3) input, for axis combinations that a short run draws too rarely (the
    non-contiguous pair (0, 2), in any order and sign, is the only one that 3 dimensions allow)."""
    rng = np.random.default_rng(0)
    kind, shape = REDUCTIONS[name][2], (2, 2, 3)
    if kind == "distinct":
        x = distinct_values(rng.permutation(12), shape, np.dtype(dtype))
    else:
        x = rng.uniform(-2, 2, shape).astype(dtype)
        if kind == "with_zeros":
            x = np.where(np.abs(x) < 0.75, 0.0, np.sign(x)).astype(dtype)  # zeros, one or several per group
    out_shape = np.sum(x, axis=axis, keepdims=keepdims).shape
    return x, axis, keepdims, rng.uniform(-1, 1, out_shape).astype(dtype), 0


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reduction_matches_numpy_and_its_gradient(name):
    op, reference, _, _ = REDUCTIONS[name]

    @examples(100)
    @given(reduction_cases(name))
    @example(reduction_example(name, (-1, 0), False, "float16"))
    @example(reduction_example(name, (2, -3), name != "logsumexp"))
    def check(case):
        x, axis, keepdims, gy, seed = case
        func = (lambda v: op(v, axis=axis)) if name == "logsumexp" else (lambda v: op(v, axis=axis, keepdims=keepdims))
        y = func(mg.Variable(x))
        x64 = x.astype(np.float64)
        if name == "logsumexp":
            expected, scale = logsumexp_reference(x64, axis, keepdims), 0.0
        else:
            expected = reference(x64, axis=axis, keepdims=keepdims)
            assert y.dtype == reference(x, axis=axis, keepdims=keepdims).dtype == x.dtype
            magnitude = np.abs(x64) if name != "mean" else np.abs(x64) / max(1, x.size // max(1, expected.size))
            scale = float(np.max(np.sum(magnitude, axis=axis), initial=0.0)) if name in ("sum", "mean") else 0.0
        assert y.dtype == x.dtype
        if name in ("max", "min"):
            assert y.shape == expected.shape
            np.testing.assert_array_equal(y.array, expected)  # a selection: exact
        else:
            assert_forward(y, expected, x.dtype, scale)
        assert_grads_match_inputs(func, (x,), gy)
        check_backward(func, x, gy, seed=seed)

    check()


# --- 3. reshape, transpose, get_item: values and gradients against NumPy ------------------------------

def grad_of(func: Callable[[mg.Variable], mg.Variable], x: np.ndarray, gy: np.ndarray) -> np.ndarray:
    v = mg.Variable(x)
    y = func(v)
    gx, = mg.grad([y], [v], [mg.Variable(gy)])
    assert (gx.shape, gx.dtype) == (x.shape, x.dtype)
    return gx.array


def shapes_of_size(size: int, max_dims: int = 4) -> list[tuple[int, ...]]:
    """Every shape of up to ``max_dims`` dimensions with ``size`` elements."""
    found: list[tuple[int, ...]] = [()] if size == 1 else []
    frontier: list[tuple[int, ...]] = [()]
    for _ in range(max_dims):
        frontier = [s + (d,) for s in frontier for d in range(1, size + 1) if size % (math.prod(s) * d) == 0]
        found += [s for s in frontier if math.prod(s) == size]
    return found


@st.composite
def reshape_cases(draw: st.DrawFn) -> tuple:
    dtype = draw(dtypes)
    x = draw(arrays(dtype, draw(small_shapes)))
    target = draw(st.sampled_from(shapes_of_size(x.size)))
    if target and draw(st.booleans()):  # one dimension left for reshape to infer
        position = draw(st.integers(0, len(target) - 1))
        target = target[:position] + (-1,) + target[position + 1:]
    return x, target, output_grad(draw, np.empty(x.shape).reshape(target).shape, dtype)


@examples(100)
@given(reshape_cases())
def test_reshape_matches_numpy_and_its_gradient(case):
    x, target, gy = case
    y = F.reshape(mg.Variable(x), target)
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y.array, x.reshape(target))
    np.testing.assert_array_equal(grad_of(lambda v: F.reshape(v, target), x, gy), gy.reshape(x.shape))


@st.composite
def transpose_cases(draw: st.DrawFn) -> tuple:
    dtype = draw(dtypes)
    x = draw(arrays(dtype, draw(small_shapes)))
    permutation = draw(st.permutations(range(x.ndim)))
    negative = draw(st.lists(st.booleans(), min_size=x.ndim, max_size=x.ndim))
    axes = draw(st.sampled_from([None, tuple(permutation),
                                 tuple(a - x.ndim if n else a for a, n in zip(permutation, negative))]))
    return x, axes, output_grad(draw, np.transpose(x, axes).shape, dtype)


@examples(100)
@given(transpose_cases())
def test_transpose_matches_numpy_and_its_gradient(case):
    x, axes, gy = case
    y = F.transpose(mg.Variable(x), axes)
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y.array, np.transpose(x, axes))
    inverse = None if axes is None else tuple(np.argsort([a % x.ndim for a in axes]))
    np.testing.assert_array_equal(grad_of(lambda v: F.transpose(v, axes), x, gy), np.transpose(gy, inverse))


@st.composite
def index_keys(draw: st.DrawFn, shape: tuple[int, ...]) -> Any:
    """A basic index (slices with steps, negative ints, None, Ellipsis), integer arrays for every axis,
    or a mix: integer arrays (repeats, negative entries) on some axes and slices / None on the others."""
    kind = draw(st.sampled_from(["basic", "arrays", "mixed"] if shape else ["basic"]))
    if kind == "basic":
        return draw(hnp.basic_indices(shape, allow_newaxis=True, allow_ellipsis=True))
    if kind == "arrays":
        return draw(hnp.integer_array_indices(shape, result_shape=hnp.array_shapes(min_dims=1, max_dims=2,
                                                                                  max_side=4)))
    index_shape = draw(hnp.array_shapes(min_dims=1, max_dims=2, max_side=4))
    key: list[Any] = []
    for n in shape:
        if draw(st.booleans()):
            key.append(draw(hnp.arrays(np.int64, index_shape, elements=st.integers(-n, n - 1))))
        else:
            key.append(draw(st.slices(n)))
        if draw(st.integers(0, 5)) == 0:
            key.append(None)
    return tuple(key)


def index_grad_reference(shape: tuple[int, ...], key: Any, gy: np.ndarray) -> np.ndarray:
    """Gradient of x[key] from NumPy alone: label each element of x by its flat position, index the labels,
    and sum gy per label (repeated positions add up)."""
    labels = np.arange(math.prod(shape)).reshape(shape)[key]
    summed = np.bincount(np.ravel(labels), weights=gy.astype(np.float64).ravel(), minlength=math.prod(shape))
    return summed.reshape(shape)


@st.composite
def get_item_cases(draw: st.DrawFn) -> tuple:
    dtype = draw(dtypes)
    x = draw(arrays(dtype, draw(small_shapes)))
    key = draw(index_keys(x.shape))
    return x, key, output_grad(draw, x[key].shape, dtype)


@examples(200)
@given(get_item_cases())
def test_get_item_matches_numpy_and_its_gradient(case):
    x, key, gy = case
    y = F.get_item(mg.Variable(x), key)
    assert y.dtype == x.dtype
    np.testing.assert_array_equal(y.array, x[key])
    gx = grad_of(lambda v: F.get_item(v, key), x, gy)
    atol, rtol = DEFAULT_FORWARD_TOLERANCE[x.dtype.name]  # repeats summed in x's dtype
    assert_allclose(gx, index_grad_reference(x.shape, key, gy), atol=atol, rtol=rtol)
