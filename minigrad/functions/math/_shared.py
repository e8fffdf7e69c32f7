"""Skeletons shared by the math ops; with them each unary elementwise op is one line of a table.

``elementwise("Sin", "sin", lambda x, y: cos(x))`` makes a FunctionNode whose
forward is ``xp.sin(x)`` and whose backward is ``gy * cos(x)``: the derivative
``dy/dx`` is written with minigrad functions of the input ``x`` (and of the
output ``y`` when ``uses_output=True``), so it is differentiable again.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from minigrad.backend import get_array_module
from minigrad.configuration import no_backprop_mode
from minigrad.function_node import FunctionNode
from minigrad.functions.array.broadcast import broadcast_operands
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

Forward = str | Callable[[Any, Any], Any]  # a ufunc name of the array module, or f(xp, x)
Derivative = Callable[[Variable, Variable | None], Variable]


class UnaryElementwise(FunctionNode):
    """``y = f(x)`` elementwise, with ``gx = gy * f'(x)``; made by ``elementwise``."""

    function: Forward
    derivative: Derivative
    uses_output: bool = False

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        if self.uses_output:
            self.retain_outputs((0,))
        xp = get_array_module(x)
        return (getattr(xp, self.function)(x) if isinstance(self.function, str) else self.function(xp, x)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        y = self.get_retained_outputs()[0] if self.uses_output else None
        return grad_outputs[0] * self.derivative(x, y),


def elementwise(name: str, function: Forward, derivative: Derivative,
                uses_output: bool = False) -> type[UnaryElementwise]:
    """A ``UnaryElementwise`` subclass called ``name`` computing ``function`` with ``derivative``."""
    namespace = {
        "function": function if isinstance(function, str) else staticmethod(function),
        "derivative": staticmethod(derivative),
        "uses_output": uses_output,
        "__module__": sys._getframe(1).f_globals["__name__"],  # the module defining the op, for repr/pickle
        "__qualname__": name,
    }
    return type(name, (UnaryElementwise,), namespace)


def apply_nondifferentiable(node: FunctionNode, x: Variable) -> Variable:
    """Apply a node that has no gradient (sign, floor, argmax): its output is a constant, never in a graph."""
    with no_backprop_mode():
        return node.apply((x,))[0]


def apply_binary(node_class: type[FunctionNode], op: str, x0: Any, x1: Any) -> Variable:
    """Apply a two-input elementwise op: scalars take the other operand's dtype, then both broadcast."""
    x0 = as_input(op, x0, "x0", like=x1)
    x1 = as_input(op, x1, "x1", like=x0)
    return node_class().apply(broadcast_operands(op, (x0, x1)))[0]
