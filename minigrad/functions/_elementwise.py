"""An elementwise op of one input as one row of a table: its forward beside its backward.

``Sin = elementwise("Sin", "sin", lambda gy, x, y: gy * F.cos(x))`` makes a FunctionNode class whose
forward is ``xp.sin(x)`` and whose backward is the row's last column: the input's gradient from the
output's gradient ``gy``, written with minigrad functions of the input ``x`` and the output ``y``, so
that it is differentiable again (autograd's ``defvjp``, as a FunctionNode). The math functions, the
activations and the arithmetic with a Python scalar are all written this way.

- ``forward``: the name of a ufunc of the array module, called as ``ufunc(x, *params)``, or
  ``f(xp, x, *params)`` on arrays;
- ``backward``: ``gx = g(gy, x, y, *params)`` on Variables;
- ``uses``: which of ``x`` and ``y`` the backward reads (``"x"``, ``"y"``, ``"xy"`` or ``""``): the node
  keeps those and nothing else, and the backward gets ``None`` for the other;
- ``params``: the names of the arguments the node is made with (``LeakyReLU(0.2)``, ``ELU(alpha=1.0)``),
  ``defaults`` the values of those that may be left out; forward and backward receive their values after
  their own arguments, and each is an attribute of the node (``node.slope``), ``node.params`` all of them.

The output keeps the input's dtype. NumPy 2 guarantees that; NumPy 1.x computes a 0-dim float16/float32
array with a Python float in float64, so there, and only there (sparing NumPy 2 a call per op), each
forward casts back.

Example:
    >>> import numpy as np, minigrad as mg
    >>> from minigrad.functions._elementwise import elementwise
    >>> Cube = elementwise("Cube", lambda xp, x: x * x * x, lambda gy, x, y: gy * 3 * x * x)
    >>> x = mg.Variable(np.array(2.0))
    >>> y, = Cube().apply((x,))
    >>> y.backward(); x.grad
    array(12.)
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Callable
from typing import Any

import numpy

from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.variable import Variable

__all__ = ["UnaryElementwise", "elementwise"]

Forward = str | Callable[..., Any]  # a ufunc name of the array module, or f(xp, x, *params)
Backward = Callable[..., Variable]  # g(gy, x, y, *params): the input's gradient
_LEGACY_PROMOTION = int(numpy.__version__.split(".")[0]) < 2  # NumPy 1.x: value-based casting
_USES = ("", "x", "y", "xy")
_UNSET = object()  # a param not given


class UnaryElementwise(FunctionNode):
    """``y = f(x, *params)`` elementwise, its gradient the row's backward; made by ``elementwise``."""

    param_names: tuple[str, ...] = ()
    uses: str = "x"

    @property
    def params(self) -> tuple[Any, ...]:
        """The values the node was made with, one per name in ``param_names``."""
        return tuple(getattr(self, name) for name in self.param_names)


def elementwise(name: str, forward: Forward, backward: Backward, uses: str = "x",
                params: tuple[str, ...] = (), defaults: dict[str, Any] | None = None) -> type[UnaryElementwise]:
    """A ``UnaryElementwise`` subclass called ``name``: the row ``forward``, ``backward`` (see the module)."""
    if uses not in _USES:
        raise ValueError(f"elementwise: uses must be one of {_USES}, got {uses!r}")
    if set(defaults or ()) - set(params):
        raise ValueError(f"elementwise: {name}'s defaults name no param: {sorted(set(defaults) - set(params))}")
    forward_method = _forward_method(forward, "x" in uses, "y" in uses, tuple(params))
    namespace = {
        "forward": _keeping_input_dtype(forward_method) if _LEGACY_PROMOTION else forward_method,
        "backward": _backward_method(backward, "x" in uses, "y" in uses, tuple(params)),
        "param_names": tuple(params),
        "uses": uses,
        "__module__": sys._getframe(1).f_globals["__name__"],  # the module defining the op, for repr/pickle
        "__qualname__": name,
    }
    if params:  # (a row without params keeps object's __init__, which costs nothing)
        namespace["__init__"] = _init_method(name, tuple(params), dict(defaults or {}))
    return type(name, (UnaryElementwise,), namespace)


# The methods are made per row, for what it keeps and how many params it has, rather than read from the
# node's attributes: a row then costs one call of its forward and one of its backward beyond a hand-written
# node, which keeps `x * 0.5` and `tanh` as cheap as the nodes they replace (benchmarks.overhead). For the
# same reason a row of one param gets it as a plain argument, not through `*params` (three times slower), and
# the rows of the hot `x * c`, `x + c` (one param, nothing kept) get methods without the branches of the rest.

def _init_method(name: str, param_names: tuple[str, ...], defaults: dict[str, Any]) -> Callable[..., None]:
    def bind(self, *args, **kwargs):  # the params by position or name, as a hand-written __init__ takes them
        if len(args) > len(param_names):
            raise TypeError(f"{name} takes {len(param_names)} argument(s) {param_names}, got {len(args)}")
        values = dict(zip(param_names, args))
        for param, value in kwargs.items():
            if param not in param_names or param in values:
                raise TypeError(f"{name} got an unexpected or repeated argument {param!r}")
            values[param] = value
        missing = [param for param in param_names if param not in values and param not in defaults]
        if missing:
            raise TypeError(f"{name} is missing the argument(s) {tuple(missing)}")
        for param in param_names:
            setattr(self, param, values.get(param, defaults.get(param)))

    if len(param_names) != 1:
        return bind
    param, = param_names
    if param == "c" and not defaults:  # the arithmetic with a Python scalar, made at every `x * c`: no checks
        def with_constant(self, c):
            self.c = c
        with_constant.__qualname__ = f"{name}.__init__"  # Python's errors for a wrong call name the node
        return with_constant

    def __init__(self, value=_UNSET, /, **kwargs):  # the common case, one param by position: set without binding
        if value is _UNSET or kwargs:
            bind(self, **kwargs) if value is _UNSET else bind(self, value, **kwargs)
        else:
            setattr(self, param, value)
    return __init__


def _forward_method(function: Forward, keeps_x: bool, keeps_y: bool,
                    param_names: tuple[str, ...]) -> Callable[..., Any]:
    ufunc = function if isinstance(function, str) else None
    keeps = keeps_x or keeps_y
    one = param_names[0] if len(param_names) == 1 else None
    # params are read with attrgetter: touching self.__dict__ would cost every later attribute access of the
    # node (CPython then drops the instance's inline attribute values): measured +10 % per `x * c` node applied
    get_param = operator.attrgetter(one) if one is not None else None
    get_params = operator.attrgetter(*param_names) if len(param_names) > 1 else None
    if one is not None and not keeps:  # x + c, x * c, x / c, c - x: nothing kept, one param

        if ufunc is not None:  # x + c as numpy.add(x, c): no lambda's frame (3 % of the
            # benchmarks.overhead chain, measured with benchmarks.overhead_floor in alternated processes)
            numpy_ufunc = getattr(numpy, ufunc)

            def forward_with_ufunc(self, inputs):
                x = inputs[0]
                if x.__class__ is numpy.ndarray:
                    return numpy_ufunc(x, get_param(self)),
                return getattr(get_array_module(x), ufunc)(x, get_param(self)),
            return forward_with_ufunc

        def forward_with_constant(self, inputs):
            x = inputs[0]
            return function(numpy if x.__class__ is numpy.ndarray else get_array_module(x), x, get_param(self)),

        return forward_with_constant

    if ufunc is not None and not param_names:  # tanh, exp...: the ufunc looked up once (benchmarks.overhead)
        numpy_ufunc = getattr(numpy, ufunc)

        def forward_with_ufunc_alone(self, inputs):
            x, = inputs
            if keeps_x:
                self.retain_inputs((0,))
            if keeps_y:
                self.retain_outputs((0,))
            return (numpy_ufunc(x) if x.__class__ is numpy.ndarray else getattr(get_array_module(x), ufunc)(x)),
        return forward_with_ufunc_alone

    def forward(self, inputs):
        x, = inputs
        if keeps:
            if keeps_x:
                self.retain_inputs((0,))
            if keeps_y:
                self.retain_outputs((0,))
        xp = numpy if x.__class__ is numpy.ndarray else get_array_module(x)  # (a NumPy array: no lookup)
        if ufunc is not None:
            return getattr(xp, ufunc)(x, *(get_params(self) if get_params else (get_param(self),) if one else ())),
        if one is not None:
            return function(xp, x, get_param(self)),
        if not param_names:
            return function(xp, x),
        return function(xp, x, *get_params(self)),

    return forward


def _backward_method(function: Backward, keeps_x: bool, keeps_y: bool,
                     param_names: tuple[str, ...]) -> Callable[..., Any]:
    one = param_names[0] if len(param_names) == 1 else None
    # params are read with attrgetter: touching self.__dict__ would cost every later attribute access of the
    # node (CPython then drops the instance's inline attribute values): measured +10 % per `x * c` node applied
    get_param = operator.attrgetter(one) if one is not None else None
    get_params = operator.attrgetter(*param_names) if len(param_names) > 1 else None
    if one is not None and not keeps_x and not keeps_y:

        def backward_with_constant(self, indexes, grad_outputs):
            return function(grad_outputs[0], None, None, get_param(self)),

        return backward_with_constant

    def backward(self, indexes, grad_outputs):
        x = self.get_retained_inputs()[0] if keeps_x else None
        y = self.get_retained_outputs()[0] if keeps_y else None
        if one is not None:
            return function(grad_outputs[0], x, y, get_param(self)),
        if not param_names:
            return function(grad_outputs[0], x, y),
        return function(grad_outputs[0], x, y, *get_params(self)),

    return backward


def _keeping_input_dtype(forward: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(self, inputs):
        y, = forward(self, inputs)
        return (y if y.dtype == inputs[0].dtype else y.astype(inputs[0].dtype)),

    return wrapped
