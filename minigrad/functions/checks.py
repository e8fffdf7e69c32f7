"""What an op author uses besides ``FunctionNode``: taking arguments, making constants, checking them.

Every op of ``minigrad.functions`` is written with this API and nothing else
of the engine, so reading any of them shows how to write your own:

- **an argument becomes a Variable** through ``as_input(op, value, argname)``
  (a Variable passes, an array becomes a constant, anything else is a
  ``TypeError`` naming the op and the argument);
- **a constant** (a mask, a sign, saved noise: an array that enters a backward
  as a fixed factor) is ``constant(array)``;
- **another op, called from a forward wrapper or a backward**, is called the
  way a user calls it, ``F.name(...)`` after ``import minigrad.functions as F``
  at the top of the module (an attribute looked up when the op runs, so it
  needs no import tricks even inside ``minigrad.functions``);
- the other helpers check axes, dtypes, shapes and scalar arguments, each
  error naming the op and the argument.

Example:
    >>> import numpy as np, minigrad as mg
    >>> import minigrad.functions as F
    >>> from minigrad.functions.checks import as_input, constant
    >>> class Hinge(mg.FunctionNode):  # max(x, 0) ** 2 / 2
    ...     def forward(self, inputs):
    ...         self.retain_inputs((0,))
    ...         x, = inputs
    ...         return np.maximum(x, 0) ** 2 / 2,
    ...     def backward(self, indexes, grad_outputs):
    ...         x, = self.get_retained_inputs()
    ...         positive = constant(x.array > 0)     # a 0/1 factor: no gradient flows into it
    ...         return grad_outputs[0] * F.relu(x) * positive,  # another op, called as a user would
    >>> def hinge(x):
    ...     return Hinge().apply((as_input("hinge", x, float_only=True),))[0]
    >>> x = mg.Variable(np.array([-1.0, 2.0]))
    >>> F.sum(hinge(x)).backward()
    >>> x.grad
    array([0., 2.])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.variable import Variable, check_array

__all__ = [
    "as_input", "constant", "normalize_axis", "normalize_axes", "normalize_shape", "require_ndim",
    "require_integer", "given_array", "require_keywords", "MAX_SIZE", "require_size", "require_result_size",
    "require_flag", "in_dtype", "promoted_dtype",
]


def as_input(op: str, value: Any, argname: str = "x", *, float_only: bool = False, like: Any = None) -> Variable:
    """Argument ``argname`` of op ``op`` as a Variable: the one way every op takes its inputs.

    A Variable passes unchanged; an array (or a NumPy scalar) becomes a
    ``constant``. With ``like`` (the other operand of a binary op), a Python
    scalar is accepted too and becomes a 0-dim constant of ``like``'s dtype and
    array module, so ``x * 2.0`` on float32 stays float32 (a float scalar meeting
    an integer operand gives float64, as in NumPy). Anything else, lists
    included, is a ``TypeError`` naming the op and the argument; with
    ``float_only``, so is a dtype that is not floating point.

    Example:
        >>> import numpy as np
        >>> from minigrad.functions.checks import as_input
        >>> as_input("relu", np.ones(2, dtype=np.float32)).requires_grad
        False
        >>> as_input("add", 2.0, "x1", like=np.ones(2, dtype=np.float32)).dtype
        dtype('float32')
        >>> as_input("relu", [1.0])
        Traceback (most recent call last):
        ...
        TypeError: relu: x must be a numpy.ndarray or cupy.ndarray, got list; ...
    """
    if isinstance(value, Variable):
        x = value
    elif like is not None and isinstance(value, (bool, int, float, complex)) and not isinstance(value, numpy.generic):
        x = constant(_scalar_array(value, like))
    elif like is not None and isinstance(value, numpy.generic):  # a NumPy scalar: its dtype, like's device
        x = constant(get_array_module(like).asarray(value))
    else:
        x = constant(check_array(value, argname, op))
    if float_only and x.dtype.kind != "f":
        raise TypeError(f"{op}: {argname} must have a floating-point dtype, got {x.dtype}")
    return x


def _scalar_array(value: bool | int | float | complex, like: Any) -> Any:
    """A Python scalar as a 0-dim array of ``like``'s dtype and array module (NEP 50 style)."""
    dtype = getattr(like, "dtype", None)
    if dtype is None:
        dtype = numpy.result_type(value)
    elif isinstance(value, float) and dtype.kind not in "fc":
        dtype = numpy.dtype(numpy.float64)
    elif isinstance(value, complex) and dtype.kind != "c":
        dtype = numpy.dtype(numpy.complex128)
    return get_array_module(like).asarray(value, dtype=dtype)


def constant(array: Any) -> Variable:
    """``array`` as a constant of the graph: a Variable with no creator that needs no gradient.

    Use it for arrays that enter a backward as fixed factors (masks, signs,
    saved random numbers), so that the backward stays differentiable: the
    gradient flows through the Variables it multiplies, never into the constant.

    Example:
        >>> import numpy as np
        >>> from minigrad.functions.checks import constant
        >>> mask = constant(np.array([True, False]))
        >>> mask.requires_grad, mask.creator
        (False, None)
    """
    return Variable(array, requires_grad=False)


def promoted_dtype(*values: Variable | None) -> numpy.dtype:
    """The float dtype an op with inputs of mixed float dtypes computes in: NumPy's promotion of theirs
    (``None`` entries, absent optional inputs, left out).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> from minigrad.functions.checks import promoted_dtype
        >>> promoted_dtype(mg.Variable(np.zeros(2, np.float16)), None, mg.Variable(np.zeros(2, np.float32)))
        dtype('float32')
    """
    return numpy.result_type(*(v.dtype for v in values if v is not None))


def in_dtype(x: Variable, dtype: Any) -> Variable:
    """``x`` in ``dtype``: ``x`` itself when it has that dtype, else ``F.cast(x, dtype)``.

    Ops that accept inputs of different float dtypes, as Chainer's do (batch
    normalization with float16 ``x`` and float32 ``gamma``; linear and
    convolution with ``x`` and ``W`` of different dtypes), compute in one dtype
    this way: through ``Cast`` nodes, so that each gradient comes back in its
    own input's dtype and every order of differentiation still works.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.functions.checks import in_dtype
        >>> x = mg.Variable(np.ones(2, np.float16))
        >>> y = in_dtype(x, np.float32)
        >>> F.sum(y * y).backward()
        >>> y.dtype, x.grad.dtype, in_dtype(x, np.float16) is x
        (dtype('float32'), dtype('float16'), True)
    """
    import minigrad.functions as F  # (the ops import this module)

    return x if x.dtype == dtype else F.cast(x, dtype)


def require_keywords(op: str, kwargs: dict[str, Any], allowed: tuple[str, ...]) -> None:
    """A ``TypeError`` naming ``op`` for any keyword argument outside ``allowed`` (Chainer's keyword-only
    options taken through ``**kwargs``); a ``train`` argument is pointed to ``using_config``.

    Example:
        >>> from minigrad.functions.checks import require_keywords
        >>> require_keywords("dropout", {"mask": None}, ("mask", "return_mask"))
        >>> require_keywords("dropout", {"train": False}, ("mask", "return_mask"))
        Traceback (most recent call last):
        ...
        TypeError: dropout: unexpected keyword argument(s) ['train']; use minigrad.using_config('train', ...) ...
    """
    unknown = sorted(set(kwargs) - set(allowed))
    if unknown:
        hint = "use minigrad.using_config('train', ...) instead of a train argument; " if "train" in unknown else ""
        raise TypeError(f"{op}: unexpected keyword argument(s) {unknown}; {hint}it takes {', '.join(allowed)}")


def given_array(op: str, value: Any, argname: str, like: Variable, likename: str = "x",
                shape: tuple[int, ...] | None = None) -> Any:
    """An array the caller gives an op as data, not as an input (a dropout mask, saved noise).

    A Variable gives its array. It must have ``shape`` (``like``'s by default)
    and live on ``like``'s device, and is cast to ``like``'s dtype; anything
    else is an error naming the op and the argument.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> from minigrad.functions.checks import given_array
        >>> x = mg.Variable(np.zeros(2, dtype=np.float32))
        >>> given_array("dropout", np.array([0.0, 2.0]), "mask", x).dtype
        dtype('float32')
    """
    whose = f"{likename}'s shape" if shape is None else "shape"
    shape = like.shape if shape is None else tuple(shape)
    array = getattr(value, "array", value)
    if not hasattr(array, "shape") or tuple(array.shape) != shape:
        raise ValueError(f"{op}: {argname} must be an array of {whose} {shape}, "
                         f"got {getattr(array, 'shape', type(value).__name__)}")
    xp = like.xp
    if get_array_module(array) is not xp:
        raise TypeError(f"{op}: {argname} is a {get_array_module(array).__name__} array but {likename} is on "
                        f"{xp.__name__}")
    return array.astype(like.dtype, copy=False)


def normalize_axis(op: str, axis: Any, ndim: int, argname: str = "axis") -> int:
    """A single axis in ``[-ndim, ndim)`` made non-negative."""
    if isinstance(axis, bool) or not isinstance(axis, (int, numpy.integer)):
        raise TypeError(f"{op}: {argname} must be an int, got {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{op}: {argname}={axis} is out of range for an input with {ndim} dimensions")
    return int(axis) % ndim


def normalize_shape(op: str, shape: Any, argname: str = "shape", *, negative_ok: bool = False) -> tuple[int, ...]:
    """An int or a sequence of ints as a tuple of ints; a negative size is a ``ValueError`` unless
    ``negative_ok`` (``reshape``'s -1, which the op resolves itself).

    Example:
        >>> from minigrad.functions.checks import normalize_shape
        >>> normalize_shape("broadcast_to", 3), normalize_shape("broadcast_to", [2, 3])
        ((3,), (2, 3))
    """
    if isinstance(shape, (int, numpy.integer)):
        shape = (shape,)
    try:
        sizes = tuple(shape)
    except TypeError:
        sizes = None
    if sizes is None or any(isinstance(s, (bool, numpy.bool_)) or not isinstance(s, (int, numpy.integer))
                            for s in sizes):  # (2.5 is refused, not truncated to 2)
        raise TypeError(f"{op}: {argname} must be an int or a tuple of ints, got {shape!r}") from None
    shape = tuple(int(s) for s in sizes)
    if not negative_ok and any(s < 0 for s in shape):
        raise ValueError(f"{op}: {argname} {shape} has a negative size")
    require_result_size(op, [abs(s) for s in shape], argname)
    return shape


MAX_SIZE = 2 ** 31 - 1
"""The largest size an op or a link accepts: every size argument (a repeat count, a pad, a window, a stride,
an LRN ``n``, a layer's width) and the number of elements of a result or a parameter it would allocate.
Past it, ``require_size`` and ``require_result_size`` refuse, naming the argument, before anything is
allocated: such a size is almost always a mistake, and would otherwise take minutes or every byte of memory."""


def require_size(op: str, value: Any, argname: str, *, minimum: int = 0) -> int:
    """A size argument as an int in ``[minimum, MAX_SIZE]``: a bool, a float (even ``3.0``: no truncation)
    or a string is a ``TypeError``, a size out of range a ``ValueError``, each naming the op and the argument.

    Example:
        >>> from minigrad.functions.checks import require_size
        >>> require_size("repeat", 3, "repeats")
        3
        >>> require_size("repeat", 2 ** 31, "repeats")
        Traceback (most recent call last):
        ...
        ValueError: repeat: repeats=2147483648 is larger than the size limit 2147483647 ...
    """
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, numpy.integer)):
        raise TypeError(f"{op}: {argname} must be an int, got {type(value).__name__} {value!r}")
    value = int(value)
    if value < minimum:
        raise ValueError(f"{op}: {argname} must be >= {minimum}, got {value}")
    if value > MAX_SIZE:
        raise ValueError(f"{op}: {argname}={value} is larger than the size limit {MAX_SIZE} "
                         f"(minigrad.functions.checks.MAX_SIZE)")
    return value


def require_result_size(op: str, shape: Sequence[int], argname: str) -> tuple[int, ...]:
    """``shape`` (what ``argname`` would make ``op`` allocate) if its element count is at most ``MAX_SIZE``.

    Example:
        >>> from minigrad.functions.checks import require_result_size
        >>> require_result_size("Linear", (2 ** 17, 2 ** 17), "in_size, out_size")
        Traceback (most recent call last):
        ...
        ValueError: Linear: in_size, out_size would make an array of shape (131072, 131072), 17179869184 ...
    """
    shape = tuple(int(s) for s in shape)
    if math.prod(shape) > MAX_SIZE or any(s > MAX_SIZE for s in shape):
        raise ValueError(f"{op}: {argname} would make an array of shape {shape}, {math.prod(shape)} elements, "
                         f"more than the size limit {MAX_SIZE} (minigrad.functions.checks.MAX_SIZE)")
    return shape


def require_flag(op: str, value: Any, argname: str) -> bool:
    """A flag as a bool: only ``True``/``False`` (or a NumPy bool); the string ``'False'``, ``0`` or ``None``
    is a ``TypeError`` naming the op and the argument (``'False'`` would otherwise count as true).

    Example:
        >>> from minigrad.functions.checks import require_flag
        >>> require_flag("sum", "False", "keepdims")
        Traceback (most recent call last):
        ...
        TypeError: sum: keepdims must be a bool, got str 'False'
    """
    if not isinstance(value, (bool, numpy.bool_)):
        raise TypeError(f"{op}: {argname} must be a bool, got {type(value).__name__} {value!r}")
    return bool(value)


def normalize_axes(op: str, axis: Any, ndim: int, argname: str = "axis") -> tuple[int, ...]:
    """``None``, an int or a tuple of ints -> a sorted tuple of distinct non-negative axes.

    As in NumPy and Chainer, a list is a ``TypeError``, and so is a tuple holding anything but ints, whatever
    the range of the others.

    Example:
        >>> from minigrad.functions.checks import normalize_axes
        >>> normalize_axes("sum", (-1, 0), 3)
        (0, 2)
        >>> normalize_axes("sum", [0], 3)
        Traceback (most recent call last):
        ...
        TypeError: sum: axis must be None, an int or a tuple of ints, got list [0]
    """
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, tuple):
        if isinstance(axis, Sequence) or hasattr(axis, "__array__"):
            raise TypeError(f"{op}: {argname} must be None, an int or a tuple of ints, got {type(axis).__name__} "
                            f"{axis!r}")
        axis = (axis,)  # (one axis of another type: normalize_axis names its type)
    elif any(isinstance(a, (bool, numpy.bool_)) or not isinstance(a, (int, numpy.integer)) for a in axis):
        raise TypeError(f"{op}: {argname} must be None, an int or a tuple of ints, got {axis!r}")
    axes = tuple(normalize_axis(op, a, ndim, argname) for a in axis)
    if len(set(axes)) != len(axes):
        raise ValueError(f"{op}: {argname}={tuple(axis)} repeats an axis")
    return tuple(sorted(axes))


def require_integer(op: str, x: Variable, argname: str) -> None:
    if x.dtype.kind not in "iu":
        raise TypeError(f"{op}: {argname} must have an integer dtype, got {x.dtype}")


def require_ndim(op: str, x: Variable, ndims: int | Sequence[int], argname: str = "x") -> None:
    allowed = (ndims,) if isinstance(ndims, int) else tuple(ndims)
    if x.ndim not in allowed:
        wanted = " or ".join(str(n) for n in allowed)
        raise ValueError(f"{op}: {argname} must have {wanted} dimensions, got shape {x.shape}")


def require_nonempty(op: str, x: Variable, axes: tuple[int, ...] | None = None) -> int:
    """How many elements each mean of ``x`` over ``axes`` (every element when ``None``) averages.

    None is a ``ValueError`` naming the op: a mean of nothing is NaN, never a result.

    Example:
        >>> import numpy as np
        >>> from minigrad.functions.checks import as_input, require_nonempty
        >>> require_nonempty("mean", as_input("mean", np.ones((2, 3))), (1,))
        3
        >>> require_nonempty("mean", as_input("mean", np.ones((0, 3))), (0,))
        Traceback (most recent call last):
        ...
        ValueError: mean: cannot average over an empty axis (input shape (0, 3), axes (0,))
    """
    count = x.size if axes is None else math.prod(x.shape[a] for a in axes)
    if count == 0:
        where = "an empty input" if axes is None else "an empty axis"
        raise ValueError(f"{op}: cannot average over {where} (input shape {x.shape}"
                         f"{'' if axes is None else f', axes {axes}'})")
    return count


# --- scalar arguments, matching shapes, class labels -------------------------

def require_real(op: str, value: Any, argname: str, *, positive: bool = False, nonnegative: bool = False) -> float:
    """A finite real number (``positive``: > 0, ``nonnegative``: >= 0) as a Python float; bools and arrays
    are refused, except a 0-d NumPy array of a real dtype (``numpy.random.uniform(1, 2, ())``, as Chainer takes)."""
    if isinstance(value, numpy.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
        value = value.item()
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        raise TypeError(f"{op}: {argname} must be a real number, got {type(value).__name__}")
    value = float(value)
    if not numpy.isfinite(value) or (positive and value <= 0) or (nonnegative and value < 0):
        wanted = "positive" if positive else "non-negative" if nonnegative else "finite"
        raise ValueError(f"{op}: {argname} must be a {wanted} number, got {value}")
    return value


def require_same_shape(op: str, x0: Variable, x1: Variable, argnames: tuple[str, str] = ("x0", "x1")) -> None:
    if x0.shape != x1.shape:
        raise ValueError(
            f"{op}: {argnames[0]} and {argnames[1]} must have the same shape, got {x0.shape} and {x1.shape}"
        )


def require_labels(op: str, t: Variable, n_classes: int, ignore_label: int | None, argname: str = "t") -> None:
    """Integer labels in ``[0, n_classes)``, or equal to ``ignore_label`` (when not ``None``)."""
    if t.dtype.kind not in "iu":
        raise TypeError(f"{op}: {argname} must hold integer class labels, got dtype {t.dtype}")
    labels = t.array
    bad = (labels < 0) | (labels >= n_classes)
    if ignore_label is not None:
        bad &= labels != ignore_label
    if bool(bad.any()):
        wrong = labels[bad].reshape(-1)[:5].tolist()
        allowed = f" or ignore_label={ignore_label}" if ignore_label is not None else ""
        raise ValueError(
            f"{op}: {argname} has labels outside [0, {n_classes}){allowed}: {wrong} (shape {t.shape})"
        )


__all__ += ["require_nonempty", "require_real", "require_same_shape", "require_labels"]
