"""How the math ops apply their nodes: one without a gradient, and one of two broadcast inputs.

(An op of one input is a row of a table: ``minigrad.functions._elementwise``.)
"""

from __future__ import annotations

from typing import Any

from minigrad.configuration import no_backprop_mode
from minigrad.function_node import FunctionNode
from minigrad.functions.array.broadcast import broadcast_operands
from minigrad.functions.checks import as_input
from minigrad.variable import Variable


def apply_nondifferentiable(node: FunctionNode, x: Variable) -> Variable:
    """Apply a node that has no gradient (sign, floor, argmax): its output is a constant, never in a graph."""
    with no_backprop_mode():
        return node.apply((x,))[0]


def apply_binary(node_class: type[FunctionNode], op: str, x0: Any, x1: Any) -> Variable:
    """Apply a two-input elementwise op: scalars take the other operand's dtype, then both broadcast."""
    x0 = as_input(op, x0, "x0", like=x1)
    x1 = as_input(op, x1, "x1", like=x0)
    return node_class().apply(broadcast_operands(op, (x0, x1)))[0]
