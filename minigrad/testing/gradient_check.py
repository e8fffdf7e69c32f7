"""Gradient checking: is a backward pass right?

``check_backward`` compares the gradients that backprop computes for ``func``
with numerical derivatives of ``f(x) = sum_j sum(func(x)[j] * y_grad[j])``. It
is a pipeline of named steps (``minigrad.testing._checker``), in this order:

1. **Validate the arguments** (``arguments.validate_arguments``, shared with
   ``check_double_backward``): bad arguments are a TypeError or ValueError
   naming the argument, before ``func`` runs.
2. **Run backprop twice** (``backprop.run_backprop_twice``): ``func`` runs
   forward and backward in the inputs' own dtype on copies that keep the
   caller's layout (a transposed view, a strided slice), then again at the same
   point: the two runs must agree (up to ``nondet_tol``); where the layout is
   not C-contiguous, C-contiguous copies must give the same gradients. Guards
   report a ``func`` that modifies its inputs, a backward that writes into its
   output gradients, and a NaN or inf in backprop's gradient. ``y_grad=None``
   (a loss) backpropagates a random scalar, so a forgotten ``* gy`` shows.
3. **Reference gradients** (``backprop.reference_gradients``): for inputs less
   precise than ``dtype`` (float64 unless given), backprop once more on the
   inputs cast to ``dtype``. Where the outputs' scales differ by more than a
   factor 100, each output's part of every gradient is backpropagated alone
   (``backprop.output_parts``), so it is judged at its own scale.
4. **Directions** (``targets.scale_bands``, ``directions.draw_direction``):
   every input and parameter (a *target*) is split into scale bands of its
   reference gradient (three decades each; zeros apart), so that small elements
   are not drowned by large ones; each band gets an *aligned* direction (the
   gradient's signs, random weights in [0.5, 1]: an error of one sign relative
   to the gradient cannot cancel) and, for bands of up to 1,024 elements, a
   random-sign one (``directions=`` sets how many).
5. **Probes** (``probing.probe``): ``f`` is evaluated at ``x + t*v`` for
   ``t = -2h, -h, h, 2h``, moving one target alone; Richardson's extrapolation
   gives the derivative of each output (error O(h^4)), the disagreement of two
   central differences and a 4th difference bound its error, also next to a
   kink. An input declared linear (``linear_in``) is checked with the adjoint
   identity ``<f(x + v) - f(x), y_grad> = <v, gradient>`` instead: one
   evaluation, no step, exact up to rounding. The kink policy: a tolerance may
   absorb rounding and a smooth function's truncation error, never a kink; an
   untrusted probe is refined (the step shrinks tenfold, up to six times), then
   the elements next to the kink are isolated: a ``NondifferentiableError``
   names them unless the rest is wrong (a ``GradientCheckError``). A probe whose
   tolerance is set by rounding (a large constant in an output) tries larger
   steps.
6. **Verdicts** (``pipeline.judge``): each target, band, output and direction
   is held to its own tolerance, ``max(rtol * max(|numerical|, scale), noise)``
   where ``scale`` is the typical directional derivative of that band and
   ``noise`` bounds the numerical error (rounding counted only where outputs
   move); explicit ``atol``/``rtol`` keep Chainer's ``atol * ||v|| + rtol *
   |numerical|``. Low-precision gradients are then compared with the reference
   element by element (``precision.precision_check``): about 1 % in float16,
   ``7.6e-6`` in float32, whatever the other inputs' scales.
7. **Report** (``pipeline.build_report``): a ``GradientCheckReport`` whose
   ``sensitivity`` (and ``str``) states what the check would have caught: an
   error above ``X`` relative in any one element with certainty, any error of
   norm above ``Y`` with probability at least ``1 - 1e-6``
   (``sensitivity.py`` derives both); or a ``GradientCheckError`` naming the
   wrong input and its worst elements, with the seed that reproduces it.

The steps see the function through a small interface (``problem.Problem``:
evaluate at arrays, a vector-Jacobian product at arrays), so another array
framework can be adapted without touching them; ``check_double_backward``
runs the same pipeline on the first-order gradient function
(``first_order.py``). Complex inputs are refused.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

from minigrad import backend
from minigrad.configuration import no_backprop_mode
from minigrad.testing._checker import finite_differences as fd
from minigrad.testing._checker import guards
from minigrad.testing._checker.arguments import (  # noqa: F401
    AUTO_RTOL,
    CheckArguments,
    check_eps,
    param_entries,
    validate_arguments,
)
from minigrad.testing._checker.arrays import as_entries, as_tuple, f64, is_array
from minigrad.testing._checker.first_order import first_order
from minigrad.testing._checker.pipeline import run_check
from minigrad.testing._checker.probing import STEP_FACTOR  # noqa: F401 (importable from here, as before)
from minigrad.testing._checker.problem import MinigradProblem
from minigrad.testing._checker.report import GradientCheckError, GradientCheckReport, NondifferentiableError
from minigrad.variable import Variable

__all__ = [
    "numerical_grad",
    "check_backward",
    "check_double_backward",
    "NondifferentiableError",
    "GradientCheckError",
    "GradientCheckReport",
]


# --- numerical_grad (Chainer's element-by-element API) -----------------------------------

def numerical_grad(
    f: Callable[[], Any],
    inputs: Sequence[Any],
    grad_outputs: Sequence[Any],
    eps: float = 1e-3,
    detect_nondifferentiable: bool = False,
    diff_atol: float = 0,
    diff_rtol: float = 1e-2,
    center_outputs: Any = None,
) -> tuple[Any, ...]:
    """Numerical gradient of ``sum(f()[j] * grad_outputs[j])`` w.r.t. each input, element by element.

    ``f`` takes no arguments and reads ``inputs``, which are modified in place
    (and restored) one element at a time. ``eps`` is an absolute step, as in
    Chainer: ``f`` is never evaluated further than ``eps`` from an input. Each
    element gets Richardson's extrapolation of two central differences (at
    ``eps/2`` and ``eps``, as realised after rounding to the input's dtype),
    computed in float64, from the same finite-difference engine as
    ``check_backward``. Costs ``4 * inputs[i].size`` calls of ``f`` (6 with
    ``detect_nondifferentiable``, at multiples of ``eps/3``), plus one.

    Args:
        f: function of no arguments returning an array, a scalar or a tuple of them (or Variables).
        inputs: float arrays that ``f`` reads.
        grad_outputs: one array or scalar (or ``None`` to ignore that output) per output of ``f``.
        eps: step size (absolute), > 0.
        detect_nondifferentiable: raise ``NondifferentiableError`` when ``f`` has
            a kink, a jump or a NaN/Inf boundary within ``eps`` of an element
            (a 4th difference that does not vanish, or a non-finite value).
        diff_atol, diff_rtol: tolerances of that test: the 4th difference over the
            step must stay below ``diff_atol + diff_rtol * |largest one-sided slope|``.
        center_outputs: outputs of ``f()`` at the unperturbed inputs (computed when None).

    Returns:
        One gradient array per input, in the input's dtype.

    Raises:
        ValueError: ``eps`` is not positive and finite (also an ``AssertionError``, as in Chainer),
            or too small for an input's dtype.
        TypeError: an input is not a float array (complex inputs are refused).
        NondifferentiableError: with ``detect_nondifferentiable``, at a kink.

    Example:
        >>> import numpy as np
        >>> from minigrad.testing.gradient_check import NondifferentiableError, numerical_grad
        >>> x = np.array([1.0, 2.0])
        >>> gx, = numerical_grad(lambda: (x ** 3,), (x,), (np.ones(2),))
        >>> np.round(gx, 6)
        array([ 3., 12.])
        >>> y = np.array([0.5, 0.0])
        >>> try:
        ...     numerical_grad(lambda: (np.abs(y),), (y,), (np.ones(2),), detect_nondifferentiable=True)
        ... except NondifferentiableError as e:
        ...     print(str(e).split(":")[1].strip())
        f is not differentiable within eps=0.001 of inputs[0] element (1,) (value 0.0)
    """
    where = "numerical_grad"
    eps = check_eps(eps, where)
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if not is_array(x):
            raise TypeError(f"{where}: inputs[{i}] must be an array, got {type(x).__name__}")
        if x.dtype.kind != "f":
            raise TypeError(f"{where}: inputs[{i}] has dtype {x.dtype}; only real float inputs have a numerical "
                            "gradient" + (" (complex inputs are not supported)" if x.dtype.kind == "c" else ""))
    grad_outputs = tuple(None if g is None else _as_array(g) for g in as_tuple(grad_outputs))

    def value(outputs: Any) -> tuple[float, float]:
        outs = tuple(_as_array(getattr(y, "array", y)) for y in as_tuple(outputs))
        if len(outs) != len(grad_outputs):
            raise ValueError(f"{where}: f returned {len(outs)} outputs but {len(grad_outputs)} "
                             "grad_outputs were given")
        total, rounding = 0.0, 0.0
        for y, gy in zip(outs, grad_outputs):
            if gy is not None:
                terms = f64(y) * f64(gy)
                total += float(terms.sum())
                eps_y = float(numpy.finfo(y.dtype).eps) if y.dtype.kind == "f" else 0.0
                rounding += max(eps_y, float(numpy.finfo(numpy.float64).eps)) * float(abs(terms).sum())
        return total, rounding

    f0, rounding0 = value(f() if center_outputs is None else center_outputs)
    nominal = fd.SYMMETRIC_WITH_KINKS if detect_nondifferentiable else fd.PROBE
    step = eps / max(nominal)
    grads = []
    for i, x in enumerate(inputs):
        xp = backend.get_array_module(x)
        g = numpy.zeros(x.shape, dtype=numpy.float64)
        for index in numpy.ndindex(*x.shape):
            original = x[index].copy()
            values, offsets, rounding = [], [], rounding0
            for t in nominal:
                x[index] = original + x.dtype.type(t * step)
                offsets.append(float(x[index]) - float(original))
                v, r = value(f())
                values.append(v)
                rounding = max(rounding, r)
            x[index] = original
            if len(set(offsets)) < len(offsets) or 0.0 in offsets:
                raise ValueError(f"{where}: eps={eps} is too small for inputs[{i}] ({x.dtype}) "
                                 f"at element {index} (value {float(original)!r})")
            diff = fd.difference(offsets, values, f0, step)
            g[index] = diff.derivative
            if detect_nondifferentiable:
                # the 4th difference's own rounding: 16 times that of a value, over the step
                threshold = diff_atol + diff_rtol * diff.slope + 64.0 * rounding / step
                if not diff.finite or diff.kink > threshold:
                    raise NondifferentiableError(
                        f"{where}: f is not differentiable within eps={eps:g} of inputs[{i}] element {index} "
                        f"(value {float(original)!r})" + (": f is not finite there" if not diff.finite else
                                                          f": 4th difference {diff.kink:.3g} over the step, "
                                                          f"threshold {threshold:.3g}"))
        grads.append(xp.asarray(g.astype(x.dtype)))
    return tuple(grads)


def _as_array(a: Any) -> Any:
    """An array for a scalar output or gradient (Chainer's numerical_grad accepts them)."""
    return a if is_array(a) else numpy.asarray(a, dtype=numpy.float64)


# --- check_backward -----------------------------------------------------------------------

def check_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    params: Sequence[Variable] = (),
    eps: float = 1e-3,
    atol: float | None = None,
    rtol: float | None = None,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    *,
    seed: int | None = None,
    input_names: Sequence[str] | None = None,
    nondet_tol: float = 0.0,
    linear_in: Sequence[int] = (),
    directions: int | None = None,
) -> GradientCheckReport:
    """Check the gradients backprop computes for ``func`` against numerical derivatives.

    ``func(*variables)`` returns a Variable or a tuple of Variables; its outputs
    are joined through one ``Identity`` node and backpropagated from
    ``y_grad``. The gradient of every float input (and of every parameter in
    ``params``) is compared with numerical derivatives along its own
    directions, scale band by scale band (see the module docstring). Costs a
    number of calls of ``func`` that does not grow with the inputs' size: two
    forward+backward passes, another in ``dtype`` for low-precision inputs,
    and four calls per direction (two per band of up to 1,024 elements, one
    above; one call for an input in ``linear_in``), more next to a kink.

    Args:
        func: the function under test, taking one Variable per entry of ``x_data``.
        x_data: input array or tuple (or list) of arrays, one per input, as in
            Chainer (NumPy or CuPy). Integer inputs are passed through
            unperturbed and must receive no gradient. Complex inputs are
            refused (TypeError), and so is a list or tuple of numbers (one
            array, or one input per number? pass ``numpy.asarray(...)``).
        y_grad: gradient array (or tuple, one per output) to backpropagate;
            an entry may be ``None`` for an output that gets no gradient;
            ``None`` for a scalar output (a loss).
        params: Parameters ``func`` uses (e.g. a layer's); they are perturbed
            too and restored exactly (same array objects) afterwards.
        eps: step of the numerical derivative: each element moves by up to
            ``eps / 5`` (float64 numerical part; ``32 * eps`` for float32,
            ``256 * eps`` for float16) times the input's rms magnitude when
            that is below 1, and less next to a kink.
        atol, rtol: tolerances of each input's directional-derivative
            comparison, as in Chainer (``atol`` applies to a unit-length
            direction). ``None`` (default): automatic, ``rtol=1e-6`` for a
            float64 numerical part, so that errors far below Chainer's defaults
            are caught; the comparison never gets tighter than the measured
            numerical noise. When given, they also bound the elementwise
            precision check.
        no_grads: one bool per input: True = do not check (and do not perturb)
            that input; as in Chainer it still requires a gradient, and backprop
            must give it none (RuntimeError otherwise). Default: True exactly
            for non-float inputs.
        dtype: float dtype of the numerical part and of the reference
            gradients; ``None`` means float64.
        detect_nondifferentiable: also raise ``NondifferentiableError`` for a
            kink within the step that does not affect the verdict.
        seed: seed of the random directions; ``None`` draws one. It is printed
            in every failure, so passing it back reproduces the failure.
        input_names: names of the inputs in messages (default ``x_data[i]``).
        nondet_tol: how much two forward or backward runs at the same point may
            differ (absolute, per element); 0 accepts only rounding-level
            differences. The numerical noise bound grows with it.
        linear_in: positions of inputs ``func`` is linear (or affine) in, the
            others held fixed: those are checked with the adjoint identity
            ``<f(x + v) - f(x), y_grad> = <v, gradient>``, exact up to rounding
            (no step; it works in float16 too).
        directions: probes per scale band of each input (the first aligned
            with the gradient's signs, the others random); ``None``: 2 for
            bands of up to 1,024 elements, 1 above.

    Returns:
        A ``GradientCheckReport`` (``margin`` < 1, evaluation count, seed,
        ``sensitivity``: what the check would have caught; ``str`` states it).

    Raises:
        GradientCheckError: (an ``AssertionError``) backprop is wrong; the message
            names the input or parameter and the worst elements.
        NondifferentiableError: ``func`` has a kink (jump, NaN boundary) at the
            point that a smaller step does not clear, or, with
            ``detect_nondifferentiable``, any kink within the step.
        RuntimeError: ``func``'s forward or backward is not deterministic, it
            modifies its inputs, its backward modifies the output gradients it
            was given, or an input excluded by ``no_grads`` gets a gradient.
        TypeError, ValueError: bad arguments; ``ValueError`` too where an output
            of ``func`` is NaN or inf at the point (no derivative can be checked
            where ``func`` overflows or is undefined).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
        >>> report = gradient_check.check_backward(F.exp, x, np.ones((3, 4)), seed=0)
        >>> report.margin < 1, report.evaluations
        (True, 10)
        >>> print(str(report).splitlines()[-1])  # doctest: +ELLIPSIS
            x_data[0]: an error above ... relative (... absolute) in any one element, or any error of norm above ...

        A wrong gradient is caught, and the failure says where:

        >>> import minigrad as mg
        >>> class BadExp(mg.FunctionNode):
        ...     def forward(self, inputs):
        ...         self.retain_outputs((0,))
        ...         return np.exp(inputs[0]),
        ...     def backward(self, indexes, grad_outputs):
        ...         y, = self.get_retained_outputs()
        ...         return grad_outputs[0] * y * 1.001,      # 0.1 % too large
        >>> try:
        ...     gradient_check.check_backward(lambda x: BadExp().apply((x,))[0], x, np.ones((3, 4)), seed=0)
        ... except AssertionError as e:
        ...     print(str(e).splitlines()[0])
        check_backward: backprop disagrees with the numerical derivative for x_data[0] (seed=0)
    """
    initialize_parameters("check_backward", func, x_data, params)
    args = validate_arguments("check_backward", x_data, params, eps, atol, rtol, no_grads, dtype,
                              detect_nondifferentiable, seed, nondet_tol, input_names, linear_in, directions)
    try:
        return run_checked(args, func, y_grad)
    except GradientCheckError as error:  # name the node inside func that is wrong (on failure only: it reruns func)
        from minigrad.testing.node_localisation import localise_failure
        localise_failure(error, "check_backward", func, x_data, params, no_grads, order=1, eps=eps, atol=atol,
                         rtol=rtol, dtype=dtype, detect_nondifferentiable=detect_nondifferentiable,
                         nondet_tol=nondet_tol)
        raise


def initialize_parameters(where: str, func: Callable[..., Any], x_data: Any, params: Any) -> None:
    """Parameters a lazily sized link has not made yet (``L.Linear(None, 3)``, Swish's ``beta``) get their
    arrays from one call of ``func`` on the inputs, as the first forward of Chainer's check gives them.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> from minigrad.testing.gradient_check import initialize_parameters
        >>> layer = L.Linear(None, 2)
        >>> initialize_parameters("check_backward", layer, np.ones((1, 3), np.float32), layer.W)
        >>> layer.W.shape
        (2, 3)
    """
    if not any(isinstance(p, Variable) and p.array is None for p in param_entries(params)):
        return
    inputs = as_entries(x_data, "x_data", where)
    with no_backprop_mode():
        func(*(Variable(x, requires_grad=False) if is_array(x) else x for x in inputs))


def run_checked(args: CheckArguments, func: Callable[..., Any], y_grad: Any) -> GradientCheckReport:
    """Steps 2 to 7 on validated arguments; parameters get their own arrays back, whatever happens."""
    problem = MinigradProblem(func, len(args.x_data), args.params, args.requires, args.where)
    original_params = [p.array for p in args.params]
    try:
        return run_check(problem, args, y_grad)
    finally:
        for p, array in zip(args.params, original_params):
            p.array = array


# --- check_double_backward ----------------------------------------------------------------

def check_double_backward(
    func: Callable[..., Any],
    x_data: Any,
    y_grad: Any,
    x_grad_grad: Any,
    params: Sequence[Variable] = (),
    params_grad_grad: Sequence[Any] = (),
    eps: float = 1e-3,
    atol: float | None = None,
    rtol: float | None = None,
    no_grads: Sequence[bool] | None = None,
    dtype: Any = None,
    detect_nondifferentiable: bool = False,
    *,
    seed: int | None = None,
    input_names: Sequence[str] | None = None,
    nondet_tol: float = 0.0,
    linear_in: Sequence[int] = (),
    directions: int | None = None,
) -> GradientCheckReport:
    """Check second-order gradients: ``check_backward`` on the first-order gradient function.

    The first-order gradient function takes the inputs and the output
    gradients (``y_grad``) as its inputs and returns the gradients of the float
    inputs (and of ``params``), computed with ``enable_double_backprop=True``;
    ``x_grad_grad`` (and ``params_grad_grad``) are backpropagated through it.
    A missing first-order gradient counts as zero; a backward that builds no
    graph (written on raw arrays) is reported as a failure, not a crash. For a
    scalar loss pass ``y_grad=None``. An output whose dtype does not follow the
    inputs' (``cast(x, float32)``) gets its ``y_grad`` in that dtype in the
    numerical part too; that input then moves as far as a numerical part in
    that dtype would, and its rounding counts as noise. The arguments ``func``,
    ``x_data``, ``params``, ``eps``, ``atol``, ``rtol``, ``no_grads``, ``dtype``,
    ``detect_nondifferentiable``, ``seed``, ``input_names`` and ``nondet_tol``
    mean what they mean in ``check_backward`` (the kink policy included); the
    output gradients are named ``y_grad[j]`` in messages. The gradient
    function is linear in the output gradients, so those inputs are checked
    with the adjoint identity, and so are the inputs in ``linear_in`` (``func``
    linear in them makes its gradient function constant in them).

    Args:
        y_grad: output gradient(s), or ``None`` for a scalar loss (the output
            gradient is then the constant one and is not checked); an entry
            may be ``None`` for an output that gets no gradient.
        x_grad_grad: one array per checked float input (or one per input, with
            ``None`` for unchecked ones): gradients w.r.t. the first-order gradients.
        params_grad_grad: one array per parameter.

    Returns:
        The ``GradientCheckReport`` of the inner ``check_backward``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import gradient_check
        >>> rng = np.random.default_rng(0)
        >>> x, gy, ggx = (rng.uniform(-1, 1, 5) for _ in range(3))
        >>> gradient_check.check_double_backward(F.exp, x, gy, ggx, seed=0).margin < 1
        True
        >>> gradient_check.check_double_backward(lambda x: F.sum(x ** 3), x, None, ggx, seed=0).margin < 1
        True
    """
    where = "check_double_backward"
    initialize_parameters(where, func, x_data, params)
    args = validate_arguments(where, x_data, params, eps, atol, rtol, no_grads, dtype, detect_nondifferentiable,
                              seed, nondet_tol, input_names, linear_in, directions)
    checked = [i for i, x in enumerate(args.x_data) if not args.no_grads[i] and x.dtype.kind == "f"]
    x_grad_grad = as_entries(x_grad_grad, "x_grad_grad", where)
    if len(x_grad_grad) == len(args.x_data) and len(checked) != len(args.x_data):
        x_grad_grad = tuple(x_grad_grad[i] for i in checked)
    if len(x_grad_grad) != len(checked):
        raise ValueError(f"{where}: x_grad_grad has {len(x_grad_grad)} entries; expected one per checked float "
                         f"input ({len(checked)})")
    params_grad_grad = as_entries(params_grad_grad, "params_grad_grad", where)
    if len(params_grad_grad) != len(args.params):
        raise ValueError(f"{where}: params_grad_grad has {len(params_grad_grad)} entries for {len(args.params)} "
                         "params")
    gradient = first_order(where, func, args.x_data, y_grad, args.params, args.no_grads, checked, args.linear_in,
                           guards.loss_scale(args.seed), args.names)
    inner = validate_arguments(where, gradient.inputs, args.params, eps, atol, rtol, gradient.no_grads, dtype,
                               detect_nondifferentiable, args.seed, nondet_tol, gradient.names, gradient.linear_in,
                               directions)
    inner.rounded_inputs, inner.excluded_may_have_grads = gradient.rounded_inputs, True
    try:
        return run_checked(inner, gradient.func, x_grad_grad + params_grad_grad)
    except GradientCheckError as error:  # as in check_backward: the node inside func that is wrong
        from minigrad.testing.node_localisation import localise_failure
        localise_failure(error, where, func, x_data, params, no_grads, order=2, eps=eps, atol=atol, rtol=rtol,
                         dtype=dtype, detect_nondifferentiable=detect_nondifferentiable, nondet_tol=nondet_tol)
        raise
