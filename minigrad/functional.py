"""Functional autodiff on minigrad's engine: vjp, jvp, jacobian, hessian, hvp, value_and_grad, elementwise_grad.

Everything here is :func:`minigrad.grad` (reverse mode with double backprop)
called in a few patterns; there is no forward-mode engine. A vector-Jacobian
product is one backward pass. A Jacobian-vector product is the derivative of
the vector-Jacobian product ``g(u) = Jᵀu`` with respect to ``u`` (the
*double-vjp trick*: ``g`` is linear in ``u``, so ``d<g(u), t>/du = J t``). A
Hessian-vector product is the gradient of ``<∇f, v>``.

Conventions, one per family:

- **Linearisation, JAX's** (``jax.vjp``, ``jax.jvp``): ``vjp(f, *primals)``
  returns ``(outputs, pullback)``, and ``pullback(cotangents)`` a tuple with one
  gradient per primal; ``jvp(f, primals, tangents)`` takes two tuples and
  returns ``(outputs, output_tangents)``.
- **Matrices at a point, PyTorch's** (``torch.autograd.functional``):
  ``jacobian(f, inputs)``, ``hessian(f, inputs)`` and ``hvp(f, inputs, v)``
  take one array or a tuple of arrays. A block has the shape ``output.shape +
  input.shape``; where a tuple was given (inputs, or outputs of ``f``) the
  result is a tuple over it, where a single array was, no tuple (a tuple of
  tuples ``J[output][input]`` for both). ``hvp`` returns ``(output, hvp)``.
  ``jacobian``'s ``mode="rev"|"fwd"`` is JAX's ``jacrev``/``jacfwd`` choice.
- **Transforms, JAX's** (``jax.value_and_grad``; ``elementwise_grad`` is HIPS
  autograd's): they take ``f`` and return a function; ``argnums`` picks the
  positional arguments to differentiate (an int gives one gradient, a tuple a
  tuple), ``has_aux`` lets ``f`` return ``(value, aux)``.

In every family, arrays or Variables go in and Variables come out, and where
no gradient flows the result is zeros, never ``None``. Given arrays (or
Variables that need no gradient) the results are constants and the graph is
freed; given Variables that require grad (with backprop on), the results are
differentiable like any op's outputs, so the transforms nest: a Hessian is a
``jacobian`` of ``value_and_grad``'s gradient. Complex and integer arrays are
refused as the variables to differentiate.

Example:
    >>> import numpy as np, minigrad.functions as F
    >>> from minigrad.functional import jvp, vjp
    >>> x = np.array([1.0, 2.0])
    >>> y, pullback = vjp(lambda x: x ** 3, x)
    >>> pullback(np.ones(2))[0].array            # 3x²
    array([ 3., 12.])
    >>> jvp(lambda x: x ** 3, (x,), (np.ones(2),))[1].array
    array([ 3., 12.])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.configuration import config, force_backprop_mode
from minigrad.function_node import grad
from minigrad.variable import Variable

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "value_and_grad", "elementwise_grad"]

Arrays = Any  # an array, a Variable, or a tuple/list of them


# --- arguments in, results out ----------------------------------------------------------------
def _check_callable(where: str, f: Any) -> None:
    if not callable(f):
        raise TypeError(f"{where}: f must be callable, got {type(f).__name__}")


def _check_sequence(where: str, argname: str, value: Any, example: str) -> tuple[Any, ...]:
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{where}: {argname} must be a tuple or list with one entry per argument of f, got "
                        f"{type(value).__name__}; write {example}")
    return tuple(value)


def _array_of(where: str, argname: str, value: Any) -> Any:
    """The array inside ``value`` (an array, a NumPy scalar or a Variable), or a ``TypeError`` naming it."""
    data = value.array if isinstance(value, Variable) else value
    if isinstance(data, numpy.generic):
        data = numpy.asarray(data)
    if not backend.is_array(data):
        raise TypeError(f"{where}: {argname} must be an array or a Variable, got {type(value).__name__}")
    return data


def _differentiable(values: Sequence[Any]) -> bool:
    """Whether the results must be differentiable: backprop is on and a Variable given needs a gradient."""
    return bool(config.enable_backprop) and any(isinstance(v, Variable) and v.requires_grad for v in values)


def _input(where: str, argname: str, value: Any, differentiable: bool) -> Variable:
    """The Variable to differentiate with respect to, for one argument of ``f``.

    A fresh leaf; or, when the results must be differentiable, the caller's
    Variable through one identity node, so that repeated arguments stay apart
    while gradients still flow back to the caller's graph.
    """
    data = _array_of(where, argname, value)
    if data.dtype.kind == "c":
        raise TypeError(f"{where}: {argname} is complex ({data.dtype}); minigrad differentiates real floating-point "
                        "arrays only (split it into real and imaginary parts)")
    if data.dtype.kind != "f":
        raise TypeError(f"{where}: {argname} has dtype {data.dtype}; only floating-point arrays can be "
                        "differentiated (bind the others inside f, or leave them out of argnums)")
    if differentiable and isinstance(value, Variable) and value.requires_grad:
        from minigrad.functions.array.identity import identity

        return identity(value)
    return Variable(data, requires_grad=True)


def _like(where: str, argname: str, value: Any, like: Variable, what: str) -> Variable:
    """``value`` (a tangent or cotangent) as a Variable of ``like``'s shape, dtype and device."""
    data = _array_of(where, argname, value)
    if data.shape != like.shape or data.dtype != like.dtype:
        raise ValueError(f"{where}: {argname} has shape {data.shape} and dtype {data.dtype}, but {what} has shape "
                         f"{like.shape} and dtype {like.dtype}; they must be equal")
    if backend.get_array_module(data) is not backend.get_array_module(like.array):
        raise TypeError(f"{where}: {argname} is a {type(data).__module__} array but {what} is a "
                        f"{type(like.array).__module__} array; put both on one device")
    return value if isinstance(value, Variable) else Variable(data, requires_grad=False)


def _call(where: str, f: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any] | None = None,
          ) -> tuple[tuple[Variable, ...], bool]:
    """``f(*args)`` with backprop forced on: (its outputs as a tuple, whether it returned a single Variable)."""
    with force_backprop_mode():
        out = f(*args, **(kwargs or {}))
    single = not isinstance(out, (tuple, list))
    outputs = (out,) if single else tuple(out)
    if not outputs:
        raise TypeError(f"{where}: f returned an empty {type(out).__name__}; it must return a Variable or a tuple "
                        "of Variables")
    for j, y in enumerate(outputs):
        if not isinstance(y, Variable):
            which = "f" if single else f"output {j} of f"
            raise TypeError(f"{where}: {which} is a {type(y).__name__}, not a Variable; compute f with minigrad "
                            "functions (minigrad.functions, Variable operators), not NumPy, so it can be "
                            "differentiated")
    return outputs, single


def _scalar_output(where: str, outputs: tuple[Variable, ...], single: bool) -> Variable:
    y = outputs[0]
    if not single or y.size != 1 or y.dtype.kind != "f":
        got = f"a tuple of {len(outputs)}" if not single else f"shape {y.shape} and dtype {y.dtype}"
        raise ValueError(f"{where}: f must return one floating-point scalar (a Variable of size 1), got {got}; "
                         "reduce it, e.g. with F.sum")
    return y


def _uses_gradient(y: Variable) -> bool:
    """Whether a gradient can flow into output ``y`` (a float output that depends on something)."""
    return y.requires_grad and y.dtype.kind == "f"


def _lowest_precision(variables: Sequence[Variable]) -> numpy.dtype:
    return min((v.dtype for v in variables), key=lambda dtype: dtype.itemsize)


def _zeros(shape: tuple[int, ...], like: Variable) -> Variable:
    return Variable(backend.get_array_module(like.array).zeros(shape, like.dtype), requires_grad=False)


def _result(v: Variable | None, like: Variable, differentiable: bool) -> Variable:
    """A result as the caller gets it: zeros for ``None``, a constant unless the results are differentiable."""
    if v is None:
        return _zeros(like.shape, like)
    return v if differentiable else Variable(v.array, requires_grad=False)


def _shaped(values: Sequence[Any], single: bool) -> Any:
    return values[0] if single else tuple(values)


def _basis(like: Variable, k: int) -> Variable:
    """The ``k``-th unit array of ``like``'s shape (in C order), as a constant."""
    unit = backend.get_array_module(like.array).zeros(like.size, like.dtype)
    unit[k] = 1
    return Variable(unit.reshape(like.shape), requires_grad=False)


def _probe(like: Variable) -> Any:
    """A fixed array of ``like``'s shape with every element nonzero and distinct-ish (values in ±[0.5, 1])."""
    rng = numpy.random.default_rng(0)
    host = rng.uniform(0.5, 1.0, like.shape) * rng.choice((-1.0, 1.0), like.shape)
    return backend.get_array_module(like.array).asarray(host.astype(like.dtype))


def _assemble(pieces: Sequence[Variable | None], shape: tuple[int, ...], like: Variable, axis: int,
              differentiable: bool) -> Variable:
    """Stack rows (``axis=0``) or columns (``axis=-1``) of ``like``'s shape into a Jacobian block of ``shape``."""
    if all(p is None for p in pieces):
        return _zeros(shape, like)
    full = [_zeros(like.shape, like) if p is None else p for p in pieces]
    if differentiable:
        from minigrad.functions.array.reshape import reshape
        from minigrad.functions.array.stack import stack

        return reshape(stack(full, axis=axis), shape)
    xp = backend.get_array_module(like.array)
    return Variable(xp.stack([p.array for p in full], axis=axis).reshape(shape), requires_grad=False)


# --- the check that double backprop saw everything ---------------------------------------------
def _host64(a: Any) -> numpy.ndarray:
    return numpy.asarray(backend.to_cpu(a), dtype=numpy.float64)


def _ops_in(outputs: Sequence[Variable], inputs: Sequence[Variable]) -> list[str]:
    """The ops between ``inputs`` and ``outputs``, once each, those defined outside minigrad first."""
    stop = {x.creator for x in inputs if x.creator is not None}
    pending = [y.creator for y in outputs if y.creator is not None and y.creator not in stop]
    seen: set[Any] = set(pending)
    found: list[tuple[bool, str]] = []
    while pending:
        node = pending.pop()
        module = type(node).__module__
        found.append((module.startswith("minigrad."), f"{node.label} ({module})"))
        for x in node.inputs or ():
            if x.creator is not None and x.creator not in seen and x.creator not in stop:
                seen.add(x.creator)
                pending.append(x.creator)
    return list(dict.fromkeys(name for _, name in sorted(found, key=lambda item: item[0])))


def _check_recorded(where: str, outputs: Sequence[Variable], inputs: Sequence[Variable],
                    recorded: Any, expected: Any, scale: Any, dtype: Any,
                    in_float64: Callable[[], Any] | None = None) -> None:
    """Raise unless backprop through f's gradient (``recorded``) agrees with the gradient's value (``expected``).

    The two sides of the double-vjp identity ``<u, Jt> = <Jᵀu, t>``, or of
    ``d(s ∇f)/ds = ∇f``, are equal whenever every backward in f records, as a
    graph, how it depends on its output gradient. A backward computed on
    ``.array`` (an op without second order) drops that part, and a wrong
    double backward gets it wrong: the identity then fails by far more than
    rounding (``scale`` bounds the terms). In float16 and float32 the terms
    inside an op may be far larger than ``scale`` (softmax's backward cancels
    terms of size 1 down to 1e-3): where the identity fails there,
    ``in_float64`` (the same computation in float64) decides, since a backward
    that drops its output gradient fails in every dtype.
    """
    recorded, expected, scale = _host64(recorded), _host64(expected), _host64(scale)
    if not (numpy.isfinite(recorded).all() and numpy.isfinite(expected).all()):
        return  # f is not finite here: nothing to judge
    tolerance = math.sqrt(float(numpy.finfo(dtype).eps))
    bound = tolerance * (scale + numpy.abs(recorded) + tolerance * float(numpy.abs(expected).max(initial=0.0)))
    if (numpy.abs(recorded - expected) <= bound).all():
        return
    if in_float64 is not None and numpy.dtype(dtype).itemsize < 8:
        try:
            in_float64()
            return  # the identity holds in float64: this was rounding
        except RuntimeError:
            pass
    worst = int(numpy.argmax(numpy.abs(recorded - expected) - bound))
    raise RuntimeError(
        f"{where}: double backprop through f gives {recorded.flat[worst]:.6g} where the gradient's own value "
        f"gives {expected.flat[worst]:.6g}: the double backward of some op in f is missing or wrong in the output "
        "gradient (its backward is not differentiable with respect to its output gradient: computed on .array "
        "instead of with minigrad functions?). Ops in f (those outside minigrad first): "
        f"{', '.join(_ops_in(outputs, inputs)) or 'none'}; check them with minigrad.testing.check_double_backward")


def _float64(v: Variable) -> Any:
    """``v``'s array in float64 (a constant), for checking a low-precision computation again in float64."""
    return v.array.astype(numpy.float64) if v.dtype.kind == "f" else v.array


def _dot(pairs: Sequence[tuple[Variable, Variable]]) -> tuple[float, float]:
    """``Σ<a, b>`` and ``Σ|a|·|b|`` over pairs of Variables, in float64."""
    total = scale = 0.0
    for a, b in pairs:
        product = _host64(a.array) * _host64(b.array)
        total += float(product.sum())
        scale += float(numpy.abs(product).sum())
    return total, scale


# --- linearisation (JAX's conventions) ---------------------------------------------------------
def vjp(f: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[[Any], tuple[Variable, ...]]]:
    """The outputs of ``f(*primals)`` and a pullback: cotangents of the outputs -> gradients of the primals.

    JAX's convention (``jax.vjp``). ``pullback(cotangents)`` takes one array
    (or Variable) of the output's shape and dtype when ``f`` returns one
    Variable, else a tuple with one per output (``None`` for an output to
    leave out), and returns a tuple with one gradient ``Jᵀ·cotangent`` per
    primal (zeros where no gradient flows). It runs one backward pass on the
    graph of ``f`` kept since the call, so it can be called many times.

    Args:
        f: a function of Variables returning a Variable or a tuple of them.
        primals: arrays or Variables, the point of the linearisation.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import vjp
        >>> y, pullback = vjp(lambda a, b: a * b, np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        >>> y.array
        array([3., 8.])
        >>> [g.array for g in pullback(np.array([1.0, 10.0]))]
        [array([ 3., 40.]), array([ 1., 20.])]
        >>> pullback(np.ones(3))
        Traceback (most recent call last):
        ...
        ValueError: vjp: cotangent has shape (3,) and dtype float64, but output of f has shape (2,) and ...
    """
    _check_callable("vjp", f)
    differentiable = _differentiable(primals)
    xs = [_input("vjp", f"primals[{i}]", p, differentiable) for i, p in enumerate(primals)]
    ys, single = _call("vjp", f, xs)

    def pullback(cotangents: Any) -> tuple[Variable, ...]:
        given = (cotangents,) if single else _check_sequence("vjp", "cotangents", cotangents, "one per output of f")
        if len(given) != len(ys):
            raise ValueError(f"vjp: {len(given)} cotangents for the {len(ys)} outputs of f")
        used = [(y, _like("vjp", "cotangent" if single else f"cotangents[{j}]", c, y,
                          "output of f" if single else f"output {j} of f"))
                for j, (y, c) in enumerate(zip(ys, given)) if c is not None and _uses_gradient(y)]
        keep = differentiable or any(isinstance(c, Variable) and c.requires_grad for _, c in used)
        gs = grad([y for y, _ in used], xs, [c for _, c in used], enable_double_backprop=keep) if used else []
        return tuple(_result(g, x, keep) for g, x in zip(gs or [None] * len(xs), xs))

    return _shaped([_result(y, y, differentiable) for y in ys], single), pullback


def _transposed(ys: Sequence[Variable], xs: Sequence[Variable]) -> tuple[list[int], list[Variable], list[Any]]:
    """The graph the double-vjp trick differentiates: (used outputs, their cotangents ``u``, ``g = Jᵀu`` per input).

    ``u`` are Variables (fixed nonzero values: ``g`` is linear in them, so any
    values give the same derivative, and nonzero ones let ``_check_recorded``
    see a backward that drops its dependence on them).
    """
    used = [j for j, y in enumerate(ys) if _uses_gradient(y)]
    us = [Variable(_probe(ys[j]), requires_grad=True) for j in used]
    gs = grad([ys[j] for j in used], list(xs), us, enable_double_backprop=True) if used else [None] * len(xs)
    return used, us, gs


def jvp(f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any]) -> tuple[Any, Any]:
    """The outputs of ``f(*primals)`` and their tangents ``J·tangents``: a Jacobian-vector product.

    JAX's convention (``jax.jvp``): ``primals`` and ``tangents`` are tuples (or
    lists) with one entry per argument of ``f``, each tangent of its primal's
    shape and dtype; the result is ``(outputs, output_tangents)``, shaped like
    what ``f`` returns.

    minigrad has no forward mode: this is the double-vjp trick. Backprop from
    the outputs with cotangents ``u`` held as Variables gives ``g(u) = Jᵀu``,
    a graph linear in ``u``; backprop of ``<g(u), t>`` to ``u`` gives ``J t``.
    That costs one forward and about two to three backward passes (the second
    one runs over the gradient graph, about twice the first), and it needs
    every backward in ``f`` to be differentiable in its output gradient, as
    every minigrad op's is. A backward computed outside the graph (on
    ``.array``) is detected, at no extra cost, by the identity
    ``<u, J t> = <Jᵀu, t>``, and reported as a ``RuntimeError`` listing the ops.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import jvp
        >>> f = lambda x, y: F.sin(x) * y
        >>> x, y = np.array([0.0, 1.0]), np.array([2.0, 3.0])
        >>> out, tangent = jvp(f, (x, y), (np.array([1.0, 0.0]), np.array([0.0, 1.0])))
        >>> tangent.array                            # cos(x)·y·dx + sin(x)·dy
        array([2.        , 0.84147098])
        >>> jvp(f, (x, y), (np.ones(2, np.float32), np.ones(2)))
        Traceback (most recent call last):
        ...
        ValueError: jvp: tangents[0] has shape (2,) and dtype float32, but primals[0] has shape (2,) and ...
    """
    _check_callable("jvp", f)
    primals = _check_sequence("jvp", "primals", primals, "jvp(f, (x,), (t,))")
    tangents = _check_sequence("jvp", "tangents", tangents, "jvp(f, (x,), (t,))")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(tangents)} tangents for {len(primals)} primals; give one tangent per primal")
    differentiable = _differentiable(primals + tangents)
    xs = [_input("jvp", f"primals[{i}]", p, differentiable) for i, p in enumerate(primals)]
    ts = [_like("jvp", f"tangents[{i}]", t, x, f"primals[{i}]") for i, (t, x) in enumerate(zip(tangents, xs))]
    ys, single = _call("jvp", f, xs)
    used, us, gs = _transposed(ys, xs)
    pairs = [(g, t) for g, t in zip(gs, ts) if g is not None]
    outs = [None] * len(us)
    if pairs:
        outs = grad([g for g, _ in pairs], us, [t for _, t in pairs], enable_double_backprop=differentiable)
    value, scale = _dot([(u, o) for u, o in zip(us, outs) if o is not None])
    target, target_scale = _dot(pairs)
    _check_recorded("jvp", ys, xs, value, target, scale + target_scale, _lowest_precision(xs + [ys[j] for j in used]),
                    lambda: jvp(f, [_float64(x) for x in xs], [_float64(t) for t in ts]))
    tangent_of = dict(zip(used, outs))
    output_tangents = [_result(tangent_of.get(j), y, differentiable) for j, y in enumerate(ys)]
    return _shaped([_result(y, y, differentiable) for y in ys], single), _shaped(output_tangents, single)


# --- matrices at a point (PyTorch's conventions) -----------------------------------------------
def _inputs(where: str, inputs: Any) -> tuple[bool, bool, list[Variable]]:
    """(one input given, results differentiable, the Variables) for PyTorch-style ``inputs``."""
    single = not isinstance(inputs, (tuple, list))
    given = (inputs,) if single else tuple(inputs)
    if not given:
        raise ValueError(f"{where}: inputs is empty; give an array or a tuple of arrays")
    differentiable = _differentiable(given)
    names = ["inputs"] if single else [f"inputs[{i}]" for i in range(len(given))]
    return single, differentiable, [_input(where, n, x, differentiable) for n, x in zip(names, given)]


def _rows(output: Variable, xs: list[Variable], differentiable: bool) -> list[list[Any]]:
    """For each element of ``output``, its gradient with respect to every input: the Jacobian's rows."""
    return [grad([output], xs, [_basis(output, k)], enable_double_backprop=differentiable)
            for k in range(output.size)]


def _jacobian_rev(ys: Sequence[Variable], xs: list[Variable], differentiable: bool) -> dict[tuple[int, int], Any]:
    blocks = {}
    for j, y in enumerate(ys):
        rows = _rows(y, xs, differentiable) if _uses_gradient(y) else []
        for i, x in enumerate(xs):
            blocks[j, i] = _assemble([r[i] for r in rows], y.shape + x.shape, x, 0, differentiable)
    return blocks


def _jacobian_fwd(ys: Sequence[Variable], xs: list[Variable], differentiable: bool) -> dict[tuple[int, int], Any]:
    used, us, gs = _transposed(ys, xs)
    blocks = {}
    for i, (x, g) in enumerate(zip(xs, gs)):
        columns = [grad([g], us, [_basis(x, k)], enable_double_backprop=differentiable)
                   for k in range(x.size)] if g is not None else []
        for n, j in enumerate(used):
            blocks[j, i] = _assemble([c[n] for c in columns], ys[j].shape + x.shape, ys[j], -1, differentiable)
        if g is not None:  # the double-vjp identity, column by column: Σ_j <u_j, J_ji e_k> = g_i[k]
            recorded = sum(numpy.tensordot(_host64(u.array), _host64(blocks[j, i].array), u.ndim)
                           for u, j in zip(us, used))
            scale = sum(numpy.tensordot(numpy.abs(_host64(u.array)), numpy.abs(_host64(blocks[j, i].array)), u.ndim)
                        for u, j in zip(us, used))
            _check_recorded("jacobian", ys, xs, recorded, g.array, scale, x.dtype)
    for j, y in enumerate(ys):
        for i, x in enumerate(xs):
            blocks.setdefault((j, i), _zeros(y.shape + x.shape, x))
    return blocks


def jacobian(f: Callable[..., Any], inputs: Arrays, *, mode: str = "rev") -> Any:
    """The Jacobian of ``f`` at ``inputs``: block ``[j][i]`` has shape ``outputs[j].shape + inputs[i].shape``.

    PyTorch's convention (``torch.autograd.functional.jacobian``): ``inputs``
    is one array (or Variable) or a tuple; the result is one Variable when both
    ``inputs`` and ``f``'s result are single, a tuple over whichever is a tuple,
    and a tuple of tuples (outputs, then inputs) when both are.

    Args:
        f: a function of Variables returning a Variable or a tuple of them.
        inputs: the point.
        mode: ``"rev"`` (default): one backward pass per output element, best for
            few outputs; ``"fwd"``: one Jacobian-vector product per input element
            (the double-vjp trick: one backward pass with double backprop, then
            one pass over the gradient graph per input element), best for few
            inputs. JAX calls them ``jacrev`` and ``jacfwd``; both give the same matrix.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import jacobian
        >>> A = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> jacobian(lambda x: F.matmul(A, x), np.zeros(2)).array
        array([[1., 2.],
               [3., 4.],
               [5., 6.]])
        >>> J = jacobian(lambda x, y: (x * y, F.sum(x)), (np.ones(2), np.full(2, 3.0)), mode="fwd")
        >>> J[0][1].array, J[1][0].shape               # d(x*y)/dy and dsum(x)/dx
        (array([[1., 0.],
               [0., 1.]]), (2,))
    """
    _check_callable("jacobian", f)
    if mode not in ("rev", "fwd"):
        raise ValueError(f"jacobian: mode must be 'rev' or 'fwd', got {mode!r}")
    single_input, differentiable, xs = _inputs("jacobian", inputs)
    ys, single_output = _call("jacobian", f, xs)
    blocks = (_jacobian_rev if mode == "rev" else _jacobian_fwd)(ys, xs, differentiable)
    rows = [_shaped([blocks[j, i] for i in range(len(xs))], single_input) for j in range(len(ys))]
    return _shaped(rows, single_output)


def _seeded_gradient(where: str, f: Callable[..., Any], xs: list[Variable]) -> tuple[Variable, Variable, list[Any]]:
    """(``y = f(xs)``, its gradient seed ``s`` as a Variable (value 1), ``s·∇f`` per input, differentiable)."""
    outputs, single = _call(where, f, xs)
    y = _scalar_output(where, outputs, single)
    seed = Variable(backend.get_array_module(y.array).ones_like(y.array), requires_grad=True)
    gs = grad([y], xs, [seed], enable_double_backprop=True) if y.requires_grad else [None] * len(xs)
    return y, seed, gs


def hessian(f: Callable[..., Any], inputs: Arrays) -> Any:
    """The Hessian of a scalar ``f`` at ``inputs``: block ``[i][j]`` has shape ``inputs[i].shape + inputs[j].shape``.

    PyTorch's convention (``torch.autograd.functional.hessian``): one Variable
    for a single input, a tuple of tuples for a tuple of inputs. Computed as
    the Jacobian of the gradient, row by row (one backward pass over the
    gradient graph per input element); it needs double backprop through every
    op in ``f``, and a backward computed outside the graph is reported as a
    ``RuntimeError`` naming the ops.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import hessian
        >>> hessian(lambda x: F.sum(x ** 3), np.array([1.0, 2.0])).array     # diag(6x)
        array([[ 6.,  0.],
               [ 0., 12.]])
        >>> H = hessian(lambda x, y: F.sum(x * y), (np.ones(2), np.ones(2)))
        >>> H[0][1].array                                                     # the cross block
        array([[1., 0.],
               [0., 1.]])
    """
    _check_callable("hessian", f)
    single, differentiable, xs = _inputs("hessian", inputs)
    y, seed, gs = _seeded_gradient("hessian", f, xs)
    blocks = {}
    for i, (x, g) in enumerate(zip(xs, gs)):
        rows = [grad([g], xs + [seed], [_basis(x, k)], enable_double_backprop=differentiable)
                for k in range(x.size)] if g is not None else []
        if rows:  # d(s·∂f/∂x_k)/ds = ∂f/∂x_k, unless a backward dropped its dependence on s
            recorded = numpy.array([0.0 if r[-1] is None else float(_host64(r[-1].array).sum()) for r in rows])
            _check_recorded("hessian", [y], xs, recorded, g.array.ravel(), 0.0, x.dtype,
                            lambda: hessian(f, _shaped([_float64(x) for x in xs], single)))
        for j, other in enumerate(xs):
            blocks[i, j] = _assemble([r[j] for r in rows], x.shape + other.shape, other, 0, differentiable)
    return _shaped([_shaped([blocks[i, j] for j in range(len(xs))], single) for i in range(len(xs))], single)


def hvp(f: Callable[..., Any], inputs: Arrays, v: Arrays) -> tuple[Variable, Any]:
    """``(f(inputs), H·v)``: a Hessian-vector product of a scalar ``f``, without forming the Hessian.

    PyTorch's convention (``torch.autograd.functional.hvp``): ``v`` is shaped
    like ``inputs`` (one array, or a tuple of the same length), and so is the
    product. It is the gradient of ``<∇f, v>``: one forward, one backward with
    double backprop and one backward over the gradient graph, about 4-5 times a
    forward and backward. It needs double backprop through every op in ``f``;
    a backward computed outside the graph is reported as a ``RuntimeError``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import hvp
        >>> value, Hv = hvp(lambda x: F.sum(x ** 3), np.array([1.0, 2.0]), np.array([1.0, 1.0]))
        >>> value.array, Hv.array                          # Σx³ and 6x·v
        (array(9.), array([ 6., 12.]))
    """
    _check_callable("hvp", f)
    single, differentiable, xs = _inputs("hvp", inputs)
    given = (v,) if single else _check_sequence("hvp", "v", v, "a tuple like inputs")
    if len(given) != len(xs):
        raise ValueError(f"hvp: v has {len(given)} entries for {len(xs)} inputs; give one per input")
    vs = [_like("hvp", "v" if single else f"v[{i}]", vi, x, "inputs" if single else f"inputs[{i}]")
          for i, (vi, x) in enumerate(zip(given, xs))]
    differentiable = differentiable or _differentiable(given)
    y, seed, gs = _seeded_gradient("hvp", f, xs)
    pairs = [(g, vi) for g, vi in zip(gs, vs) if g is not None]
    products = [None] * (len(xs) + 1)
    if pairs:
        products = grad([g for g, _ in pairs], xs + [seed], [vi for _, vi in pairs],
                        enable_double_backprop=differentiable)
    target, scale = _dot(pairs)  # d<s·∇f, v>/ds = <∇f, v>
    recorded = 0.0 if products[-1] is None else float(_host64(products[-1].array).sum())
    _check_recorded("hvp", [y], xs, recorded, target, scale, y.dtype,
                    lambda: hvp(f, *(_shaped([_float64(a) for a in arrays], single) for arrays in (xs, vs))))
    return _result(y, y, differentiable), _shaped([_result(p, x, differentiable)
                                                   for p, x in zip(products[:-1], xs)], single)


# --- transforms (JAX's conventions) ------------------------------------------------------------
def _positions(where: str, argnums: int | Sequence[int], count: int) -> list[int]:
    """``argnums`` as positions in ``range(count)`` (negative ones count from the end)."""
    positions = [argnums] if isinstance(argnums, int) else list(argnums)
    for p in positions:
        if not -count <= p < count:
            raise ValueError(f"{where}: argnums={argnums!r} is out of range for f called with {count} positional "
                             f"argument{'s' if count != 1 else ''}")
    positions = [p % count for p in positions]
    if len(set(positions)) != len(positions):
        raise ValueError(f"{where}: argnums={argnums!r} names an argument twice")
    return positions


def _check_argnums(where: str, argnums: Any) -> None:
    entries = [argnums] if isinstance(argnums, int) else argnums
    if (not isinstance(argnums, (int, tuple, list)) or isinstance(argnums, bool) or not entries
            or not all(isinstance(a, int) and not isinstance(a, bool) for a in entries)):
        raise TypeError(f"{where}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}")


def _differentiated_call(where: str, f: Callable[..., Any], argnums: Any, args: tuple[Any, ...],
                         kwargs: dict[str, Any]) -> tuple[bool, list[Variable], Any]:
    """Call ``f`` with the ``argnums`` arguments as Variables: (differentiable, those Variables, f's result)."""
    positions = _positions(where, argnums, len(args))
    differentiable = _differentiable([args[p] for p in positions])
    xs = [_input(where, f"argument {p}", args[p], differentiable) for p in positions]
    call_args = list(args)
    for p, x in zip(positions, xs):
        call_args[p] = x
    with force_backprop_mode():
        return differentiable, xs, f(*call_args, **kwargs)


def value_and_grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """A function returning ``f``'s value and its gradient with respect to the ``argnums`` arguments.

    JAX's convention (``jax.value_and_grad``): ``f`` returns a floating-point
    scalar (a Variable of size 1), or ``(value, aux)`` with ``has_aux``; the new
    function returns ``(value, gradient)``, or ``((value, aux), gradient)``. The
    gradient is one Variable for an int ``argnums``, a tuple for a tuple. Other
    arguments (and keyword arguments) pass through unchanged.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import value_and_grad
        >>> loss = lambda w, x: F.sum((x * w - 1.0) ** 2)
        >>> value, gw = value_and_grad(loss)(np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        >>> value.array, gw.array                            # Σ(xw-1)², 2(xw-1)x
        (array(53.), array([12., 56.]))
        >>> value_and_grad(loss, argnums=2)(np.ones(2), np.ones(2))
        Traceback (most recent call last):
        ...
        ValueError: value_and_grad: argnums=2 is out of range for f called with 2 positional arguments
    """
    _check_callable("value_and_grad", f)
    _check_argnums("value_and_grad", argnums)

    @functools.wraps(f)
    def value_and_grad_f(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        differentiable, xs, out = _differentiated_call("value_and_grad", f, argnums, args, kwargs)
        if has_aux and not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"value_and_grad: with has_aux=True f must return a pair (value, aux), got "
                            f"{type(out).__name__}")
        value, aux = out if has_aux else (out, None)
        if not isinstance(value, Variable):
            raise TypeError(f"value_and_grad: f returned a {type(value).__name__}, not a Variable; compute it with "
                            "minigrad functions" + ("" if has_aux else " (or pass has_aux=True for (value, aux))"))
        value = _scalar_output("value_and_grad", (value,), True)
        gs = grad([value], xs, enable_double_backprop=differentiable) if value.requires_grad else [None] * len(xs)
        grads = [_result(g, x, differentiable) for g, x in zip(gs, xs)]
        value = _result(value, value, differentiable)
        return ((value, aux) if has_aux else value), (grads[0] if isinstance(argnums, int) else tuple(grads))

    return value_and_grad_f


def elementwise_grad(f: Callable[..., Any], argnums: int | Sequence[int] = 0) -> Callable[..., Any]:
    """A function returning the elementwise derivative of an elementwise ``f`` (the diagonal of its Jacobian).

    HIPS autograd's ``elementwise_grad``, with JAX's ``argnums``: the gradient
    of ``sum(f(x))``, which is the elementwise derivative only when each output
    element depends on the same element of the input alone. So ``f``'s output
    must have the shape of each differentiated argument, and every call checks
    the Jacobian is diagonal on a probe (one more backward pass, with a fixed
    random cotangent ``r``: a diagonal Jacobian gives ``Jᵀr = (Jᵀ1)·r``); a
    function that mixes elements is refused with a ``ValueError`` rather than
    summed. It nests: ``elementwise_grad(elementwise_grad(F.tanh))``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.functional import elementwise_grad
        >>> x = np.array([0.5, 1.0])
        >>> elementwise_grad(F.tanh)(x).array                              # 1 - tanh²
        array([0.78644773, 0.41997434])
        >>> elementwise_grad(elementwise_grad(F.tanh))(x).array            # -2 tanh (1 - tanh²)
        array([-0.72686198, -0.63970001])
        >>> elementwise_grad(F.cumsum)(x)
        Traceback (most recent call last):
        ...
        ValueError: elementwise_grad: the Jacobian of f with respect to argument 0 is not diagonal: ...
    """
    _check_callable("elementwise_grad", f)
    _check_argnums("elementwise_grad", argnums)

    @functools.wraps(f)
    def elementwise_grad_f(*args: Any, **kwargs: Any) -> Any:
        differentiable, xs, y = _differentiated_call("elementwise_grad", f, argnums, args, kwargs)
        if not isinstance(y, Variable):
            raise TypeError(f"elementwise_grad: f returned a {type(y).__name__}; it must return one Variable")
        positions = _positions("elementwise_grad", argnums, len(args))
        for p, x in zip(positions, xs):
            if x.shape != y.shape:
                raise ValueError(f"elementwise_grad: f's output has shape {y.shape} but argument {p} has shape "
                                 f"{x.shape}; an elementwise derivative needs equal shapes (use jacobian)")
        grads = [None] * len(xs)
        if _uses_gradient(y):
            ones = Variable(backend.get_array_module(y.array).ones_like(y.array), requires_grad=False)
            grads = grad([y], xs, [ones], enable_double_backprop=differentiable)
            _check_diagonal(y, xs, positions, grads)
        grads = [_result(g, x, differentiable) for g, x in zip(grads, xs)]
        return grads[0] if isinstance(argnums, int) else tuple(grads)

    return elementwise_grad_f


def _check_diagonal(y: Variable, xs: list[Variable], positions: list[int], grads: list[Any]) -> None:
    """Raise unless ``Jᵀr = (Jᵀ1)·r`` for a fixed random ``r``, which holds for a diagonal Jacobian."""
    r = Variable(_probe(y), requires_grad=False)
    probed = grad([y], xs, [r])
    for p, x, g, q in zip(positions, xs, grads, probed):
        if g is None or q is None:
            continue
        diagonal = _host64(g.array) * _host64(r.array)
        actual = _host64(q.array)
        tolerance = math.sqrt(float(numpy.finfo(x.dtype).eps))
        bound = tolerance * (numpy.abs(diagonal) + numpy.abs(actual) + tolerance * numpy.abs(diagonal).max(initial=0.0))
        wrong = numpy.abs(actual - diagonal) > bound
        if wrong.any():
            index = tuple(int(i) for i in numpy.argwhere(wrong)[0])
            raise ValueError(
                f"elementwise_grad: the Jacobian of f with respect to argument {p} is not diagonal: output "
                f"elements depend on other input elements (at index {index}, backprop of a probe gives "
                f"{actual[index]:.6g}, a diagonal Jacobian {diagonal[index]:.6g}); use jacobian(f, x) for the "
                "whole matrix, or minigrad.grad of F.sum(f(x)) if the summed gradient is what you want")
