"""The arrays of one case: a spec's inputs and gradients drawn and checked, moved to a backend, and the
outputs of a forward checked against a reference.

The case runner (``minigrad.testing.sweep``), the functional checks
(``minigrad.testing.functional_checks``) and the Chainer-style test classes
draw their arrays here, so a spec's mistake (``inputs`` returning a bare
array, float arrays of another dtype) is reported the same way everywhere: a
``SpecError`` naming the spec and the field, never a failure of the op.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad.testing.assertions import assert_allclose
from minigrad.testing.registry import OpSpec
from minigrad.variable import Variable

__all__ = ["SpecError", "to_backend", "draw_inputs", "draw_grad_outputs", "draw_grad_grad_inputs",
           "gradient_check_arguments", "check_inputs_unchanged", "check_outputs"]


class SpecError(Exception):
    """A mistake in an ``OpSpec`` rather than in its op; the message names the spec and the field.

    Example:
        >>> from minigrad.testing.case_arrays import SpecError
        >>> str(SpecError("swish", "inputs", "returned a ndarray, not a tuple of arrays"))
        "spec 'swish', field inputs: returned a ndarray, not a tuple of arrays"
    """

    def __init__(self, spec_name: str, field: str, problem: str) -> None:
        super().__init__(f"spec {spec_name!r}, field {field}: {problem}")
        self.spec_name, self.field = spec_name, field


def to_backend(arrays: Sequence[Any], backend: str) -> tuple[Any, ...]:
    """NumPy arrays moved to ``backend`` ("numpy" keeps them; ``None`` entries stay ``None``).

    Example:
        >>> from minigrad.testing.case_arrays import to_backend
        >>> import numpy as np
        >>> to_backend((np.zeros(2), None), "numpy")[1] is None
        True
    """
    if backend == "numpy":
        return tuple(arrays)
    return tuple(None if a is None else backend_module.to_gpu(a) for a in arrays)


def draw_inputs(spec: OpSpec, rng: numpy.random.Generator, dtype: str) -> tuple[Any, ...]:
    """``spec.inputs(rng, dtype)``, checked: a mistake there raises ``SpecError`` naming the spec and ``inputs``.

    The op is not blamed for its spec's inputs: they must be a tuple (or list)
    of NumPy arrays, and when any is a float array, one at least in ``dtype``.

    Example:
        >>> from minigrad.testing.case_arrays import draw_inputs
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("swish", F.tanh, lambda rng, dt: rng.uniform(-1, 1, 3).astype(dt))
        >>> draw_inputs(spec, np.random.default_rng(0), "float32")
        Traceback (most recent call last):
        ...
        minigrad.testing.case_arrays.SpecError: spec 'swish', field inputs: returned a ndarray, not a tuple ...
    """
    try:
        inputs = spec.inputs(rng, numpy.dtype(dtype))
    except Exception as error:
        raise SpecError(spec.name, "inputs", f"inputs(rng, {dtype}) raised {type(error).__name__}: {error}") \
            from error
    if not isinstance(inputs, (tuple, list)):
        raise SpecError(spec.name, "inputs", f"returned a {type(inputs).__name__}, not a tuple of arrays (for one "
                                             "input write `return (x,)`)")
    for i, a in enumerate(inputs):
        if not isinstance(a, numpy.ndarray):
            raise SpecError(spec.name, "inputs", f"element {i} is a {type(a).__name__}, not a NumPy array")
    floats = sorted({a.dtype.name for a in inputs if a.dtype.kind == "f"})
    if floats and dtype not in floats:
        raise SpecError(spec.name, "inputs", f"asked for {dtype}, returned float arrays of {', '.join(floats)} "
                                             "only: cast the float inputs with .astype(dtype)")
    return tuple(inputs)


def draw_grad_outputs(rng: numpy.random.Generator, outputs: Sequence[Any]) -> tuple[Any, ...]:
    """Output gradients uniform in [-1, 1] in each output's dtype; ``None`` for non-float outputs.

    Example:
        >>> from minigrad.testing.case_arrays import draw_grad_outputs
        >>> import numpy as np
        >>> gy, gi = draw_grad_outputs(np.random.default_rng(0), (np.zeros(2, np.float32), np.zeros(2, np.int64)))
        >>> gy.dtype, gi
        (dtype('float32'), None)
    """
    return tuple(rng.uniform(-1, 1, size=y.shape).astype(y.dtype) if y.dtype.kind == "f" else None
                 for y in outputs)


def draw_grad_grad_inputs(rng: numpy.random.Generator, inputs: Sequence[Any]) -> tuple[Any, ...]:
    """Gradients for the first-order gradients of the float inputs (uniform in [-1, 1]).

    Example:
        >>> from minigrad.testing.case_arrays import draw_grad_grad_inputs
        >>> import numpy as np
        >>> len(draw_grad_grad_inputs(np.random.default_rng(0), (np.zeros(2), np.zeros(2, np.int32))))
        1
    """
    return tuple(rng.uniform(-1, 1, size=x.shape).astype(x.dtype) for x in inputs if x.dtype.kind == "f")


def gradient_check_arguments(grad_outputs: Sequence[Any], outputs: Sequence[Any]) -> tuple[Any, ...] | None:
    """The ``y_grad`` argument of the checkers: ``None`` for a scalar loss given no gradient.

    Example:
        >>> from minigrad.testing.case_arrays import gradient_check_arguments
        >>> import numpy as np
        >>> gradient_check_arguments((None,), (np.float64(1.0),)) is None
        True
    """
    grad_outputs = tuple(grad_outputs)
    if all(g is None for g in grad_outputs) and all(numpy.size(y) == 1 for y in outputs):
        return None
    return grad_outputs


def check_inputs_unchanged(name: str, before: Sequence[Any], after: Sequence[Any], what: str = "forward") -> None:
    """Raise ``AssertionError`` when an input array differs from its copy taken before the call.

    Example:
        >>> from minigrad.testing.case_arrays import check_inputs_unchanged
        >>> import numpy as np
        >>> check_inputs_unchanged("op", (np.zeros(2),), (np.ones(2),))
        Traceback (most recent call last):
        ...
        AssertionError: op: forward modified its input 0 (shape (2,)); an op must not write into its inputs
    """
    for i, (b, a) in enumerate(zip(before, after)):
        if b is None:
            continue
        if not numpy.array_equal(numpy.asarray(b), backend_module.to_cpu(a), equal_nan=True):
            raise AssertionError(f"{name}: {what} modified its input {i} (shape {numpy.shape(b)}); an op must not "
                                 "write into its inputs")


def check_outputs(name: str, outputs: Sequence[Any], expected: Sequence[Any] | None, dtype: Any,
                  atol: float, rtol: float, *, output_dtype: Any = "inputs", differentiable: bool = True,
                  reference_name: str = "the reference") -> None:
    """Check the outputs of a forward: Variables, the declared dtypes, close to ``expected``.

    Args:
        name: the op's name, for messages.
        outputs: what the op returned.
        expected: reference arrays (``None``: compare nothing but types and dtypes).
        dtype: the float dtype of the inputs.
        atol, rtol: the comparison's tolerances.
        output_dtype: the dtype of float outputs: ``"inputs"`` (``dtype``), a dtype,
            or ``None`` (not checked).
        differentiable: False means no output may require grad.
        reference_name: what ``expected`` is called in messages.

    Example:
        >>> from minigrad.testing.case_arrays import check_outputs
        >>> import numpy as np, minigrad as mg
        >>> y = mg.Variable(np.ones(2, np.float32))
        >>> check_outputs("op", (y,), (np.ones(2),), "float32", 1e-5, 1e-5)
        >>> check_outputs("op", (y,), (np.ones(2),), "float64", 1e-5, 1e-5)
        Traceback (most recent call last):
        ...
        AssertionError: op: output 0 has dtype float32 for float64 inputs, declared float64
    """
    dtype = numpy.dtype(dtype)
    declared = dtype if isinstance(output_dtype, str) and output_dtype == "inputs" else output_dtype
    for j, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise AssertionError(f"{name}: output {j} is a {type(y).__name__}, not a Variable")
        if not differentiable and y.requires_grad:
            raise AssertionError(f"{name} is declared non-differentiable but output {j} requires grad")
        if declared is not None and y.dtype.kind == "f" and y.dtype != numpy.dtype(declared):
            raise AssertionError(f"{name}: output {j} has dtype {y.dtype} for {dtype} inputs, declared "
                                 f"{numpy.dtype(declared)}")
    if expected is None:
        return
    if len(expected) != len(outputs):
        raise AssertionError(f"{name}: {len(outputs)} output(s), {reference_name} gives {len(expected)}")
    for j, (y, e) in enumerate(zip(outputs, expected)):
        e = numpy.asarray(e)
        if y.shape != e.shape:
            raise AssertionError(f"{name}: output {j} has shape {y.shape}, {reference_name} {e.shape}")
        kinds = [("float" if k == "f" else "bool" if k == "b" else "integer" if k in "iu" else k)
                 for k in (y.dtype.kind, e.dtype.kind)]
        if kinds[0] != kinds[1]:
            raise AssertionError(f"{name}: output {j} is {kinds[0]} ({y.dtype}), {reference_name} {kinds[1]} "
                                 f"({e.dtype})")
        try:
            assert_allclose(y.array, e, atol=atol, rtol=rtol)
        except AssertionError as error:
            raise AssertionError(f"{name}: output {j} of forward differs from {reference_name}: {error}") from None
