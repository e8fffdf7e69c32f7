"""Arithmetic: add, sub, mul, div, neg, pow, absolute, linear_interpolate, and the Variable operators.

Operands are made Variables (``as_input``) and broadcast by ``broadcast_operands`` first, so
every node here sees inputs of one shape and dtype (constants that need no
gradient may still be smaller) and its backward needs no reduction.
A Python scalar takes the dtype of the Variable it meets: ``x * 2.0`` on
float32 stays float32.
"""

from __future__ import annotations

import math
from typing import Any

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.function_node import FunctionNode
from minigrad.functions._elementwise import elementwise
from minigrad.functions.checks import as_input, constant
from minigrad.functions.math._shared import apply_binary
from minigrad.variable import Variable

__all__ = ["Add", "Sub", "Mul", "Div", "Neg", "Pow", "Absolute", "AddConstant", "SubFromConstant", "MulConstant",
           "DivByConstant", "DivFromConstant", "PowVarConstant", "PowConstantVar",
           "add", "sub", "mul", "div", "neg", "pow", "absolute", "linear_interpolate"]


class Add(FunctionNode):
    def forward(self, inputs):
        return (inputs[0] + inputs[1]),

    def backward(self, indexes, grad_outputs):
        return tuple(grad_outputs[0] for _ in indexes)


class Sub(FunctionNode):
    def forward(self, inputs):
        return (inputs[0] - inputs[1]),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return tuple(gy if i == 0 else -gy for i in indexes)


class Mul(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return (inputs[0] * inputs[1]),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple(gy * x1 if i == 0 else gy * x0 for i in indexes)


class Div(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return (inputs[0] / inputs[1]),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        gx0 = gy / x1
        return tuple(gx0 if i == 0 else -gx0 * x0 / x1 for i in indexes)


class Pow(FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return (inputs[0] ** inputs[1]),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        base = x0 if x0.dtype.kind == "f" else F.cast(x0, gy.dtype)  # an integer base (a constant): log in floats
        return tuple(
            gy * x1 * x0 ** (x1 - 1) if i == 0 else gy * x0 ** x1 * F.log(base) for i in indexes
        )


# --- one input: a row each (forward, backward, what the backward reads), see functions/_elementwise.py ---
Neg = elementwise("Neg", lambda xp, x: -x, lambda gy, x, y: -gy, uses="")
Absolute = elementwise("Absolute", lambda xp, x: abs(x),
                       lambda gy, x, y: gy * constant(x.xp.sign(x.array)))  # derivative 0 at 0, a.e. exact

# A Python scalar on one side: the constant ``c`` is the node's param, not an input (no array, no broadcasting).
AddConstant = elementwise("AddConstant", "add", lambda gy, x, y, c: gy, uses="", params=("c",))
SubFromConstant = elementwise("SubFromConstant", lambda xp, x, c: c - x, lambda gy, x, y, c: -gy,  # c - x
                              uses="", params=("c",))
MulConstant = elementwise("MulConstant", "multiply", lambda gy, x, y, c: gy * c, uses="", params=("c",))
DivByConstant = elementwise("DivByConstant", "divide", lambda gy, x, y, c: gy / c,  # x / c
                            uses="", params=("c",))
DivFromConstant = elementwise("DivFromConstant", lambda xp, x, c: c / x, lambda gy, x, y, c: -gy * y / x,  # c / x
                              uses="xy", params=("c",))
PowVarConstant = elementwise("PowVarConstant", lambda xp, x, c: x ** c,  # x ** c
                             lambda gy, x, y, c: gy * c * x ** (c - 1), params=("c",))
PowConstantVar = elementwise("PowConstantVar", lambda xp, x, c: c ** x,  # c ** x, c > 0
                             lambda gy, x, y, c: gy * y * math.log(c), uses="y", params=("c",))


# op -> (node for Variable <op> scalar, node for scalar <op> Variable)
_CONSTANT_NODES: dict[str, tuple[Any, Any]] = {
    "add": (AddConstant, AddConstant),
    "sub": (lambda c: AddConstant(-c), SubFromConstant),
    "mul": (MulConstant, MulConstant),
    "div": (DivByConstant, DivFromConstant),
    "pow": (PowVarConstant, PowConstantVar),
}
_PYTHON_SCALARS = (int, float)


def _arithmetic(node_class: type[FunctionNode], op: str, x0: Any, x1: Any) -> Variable:
    """A float Variable meeting a Python scalar keeps the scalar in the node (the per-op
    overhead of ``x * 2.0`` matters in long chains); everything else goes through
    ``apply_binary`` (operands made Variables, then broadcast)."""
    if type(x1) in _PYTHON_SCALARS and isinstance(x0, Variable) and x0.array.dtype.kind == "f":
        return _CONSTANT_NODES[op][0](x1).apply((x0,))[0]
    if (type(x0) in _PYTHON_SCALARS and isinstance(x1, Variable) and x1.array.dtype.kind == "f"
            and not (op == "pow" and x0 <= 0)):  # F.log(c) undefined: general path, NaN like NumPy
        return _CONSTANT_NODES[op][1](x0).apply((x1,))[0]
    return apply_binary(node_class, op, x0, x1)


def add(*xs: Any) -> Variable:
    """Elementwise sum of any number of inputs, with NumPy broadcasting (also ``x0 + x1`` on Variables).

    As in Chainer, ``add(x0, x1, x2, ...)`` sums them all; one input is returned as a Variable.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> F.add(mg.Variable(np.array([1.0, 2.0])), 1.0).array
        array([2., 3.])
        >>> F.add(np.ones(2), np.ones(2), mg.Variable(np.ones(2))).array
        array([3., 3.])
    """
    if len(xs) == 2:
        return _arithmetic(Add, "add", xs[0], xs[1])
    if not xs:
        raise TypeError("add: needs at least one input")
    total = as_input("add", xs[0], "xs[0]") if len(xs) == 1 else xs[0]
    for x in xs[1:]:
        total = _arithmetic(Add, "add", total, x)
    return total


def sub(x0: Any, x1: Any) -> Variable:
    """Elementwise ``x0 - x1`` with NumPy broadcasting.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.sub(np.array([3.0]), np.array([1.0])).array
        array([2.])
    """
    return _arithmetic(Sub, "sub", x0, x1)


def mul(x0: Any, x1: Any) -> Variable:
    """Elementwise ``x0 * x1`` with NumPy broadcasting.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.mul(np.array([3.0]), np.array([2.0])).array
        array([6.])
    """
    return _arithmetic(Mul, "mul", x0, x1)


def div(x0: Any, x1: Any) -> Variable:
    """Elementwise true division ``x0 / x1`` with NumPy broadcasting.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.div(np.array([3.0]), np.array([2.0])).array
        array([1.5])
    """
    return _arithmetic(Div, "div", x0, x1)


def pow(x0: Any, x1: Any) -> Variable:
    """Elementwise ``x0 ** x1``; either side may be a Variable, an array or a scalar.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.pow(np.array([3.0]), 2.0).array
        array([9.])
    """
    return _arithmetic(Pow, "pow", x0, x1)


def neg(x: Any) -> Variable:
    """Elementwise ``-x``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.neg(np.array([3.0])).array
        array([-3.])
    """
    return Neg().apply((as_input("neg", x),))[0]


def absolute(x: Any) -> Variable:
    """Elementwise ``|x|``; the gradient at 0 is taken as 0.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.absolute(np.array([-3.0])).array
        array([3.])
    """
    return Absolute().apply((as_input("absolute", x),))[0]


def linear_interpolate(p: Any, x: Any, y: Any) -> Variable:
    """Elementwise ``p * x + (1 - p) * y`` with NumPy broadcasting (Chainer's ``F.linear_interpolate``).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> F.linear_interpolate(np.array([0.25]), np.array([4.0]), np.array([0.0])).array
        array([1.])
    """
    p = as_input("linear_interpolate", p, "p", float_only=True)
    return add(mul(p, as_input("linear_interpolate", x, "x")), mul(1.0 - p, as_input("linear_interpolate", y, "y")))


def _operator(op: str, function: Any, reflected: bool = False) -> Any:
    """``Variable.__<op>__`` (or ``__r<op>__``): ``_arithmetic``'s scalar fast path inlined, since
    ``h * 0.5`` in a loop pays for every call level; anything else goes to ``function``."""
    constant_node = _CONSTANT_NODES[op][reflected]

    def method(self: Variable, other: Any) -> Variable:
        if (other.__class__ is float or other.__class__ is int) and self.array.dtype.kind == "f":
            return constant_node(other).apply((self,))[0]
        return function(other, self) if reflected else function(self, other)

    method.__name__ = f"__{'r' if reflected else ''}{op}__"
    return method


def install_variable_operators() -> None:
    """Give Variable its arithmetic operators (called once by ``minigrad.functions``)."""
    def reshape_method(self: Variable, *shape: Any) -> Variable:
        return F.reshape(self, shape[0] if len(shape) == 1 and not isinstance(shape[0], int) else shape)

    def transpose_method(self: Variable, *axes: Any) -> Variable:
        if len(axes) == 1 and (axes[0] is None or not isinstance(axes[0], int)):
            axes = axes[0]
        return F.transpose(self, axes or None)

    def mean_method(self: Variable, axis: Any = None, *, weights: Any = None, keepdims: bool = False) -> Variable:
        return F.average(self, axis=axis, weights=weights, keepdims=keepdims)

    operators = {
        "__add__": _operator("add", add),
        "__radd__": _operator("add", add, reflected=True),
        "__sub__": _operator("sub", sub),
        "__rsub__": _operator("sub", sub, reflected=True),
        "__mul__": _operator("mul", mul),
        "__rmul__": _operator("mul", mul, reflected=True),
        "__truediv__": _operator("div", div),
        "__rtruediv__": _operator("div", div, reflected=True),
        "__floordiv__": lambda self, other: F.floor(div(self, other)),  # as Chainer: floor of the true quotient
        "__rfloordiv__": lambda self, other: F.floor(div(other, self)),
        "__pow__": _operator("pow", pow),
        "__rpow__": lambda self, other: pow(other, self),  # 2 ** x needs the check in _arithmetic
        "__matmul__": F.matmul,
        "__rmatmul__": lambda self, other: F.matmul(other, self),
        "__neg__": neg,
        "__abs__": absolute,
        "__getitem__": F.get_item,
        "reshape": reshape_method,
        "transpose": transpose_method,
        "mean": mean_method,
        "T": property(lambda self: F.transpose(self)),
    }
    for name, function in operators.items():
        setattr(Variable, name, function)
