"""Nodes with a switchable mistake: the wrong ops of the gradient checker's quality suite.

Each ``FunctionNode`` here computes a known function; a constructor argument
plants one mistake in its backward (a scaled gradient, a sign, a transposed
product, a reduction along the wrong axis, a graph cut one order up, a wrong
slope next to a kink). ``gradcheck_cases`` builds the problems from them.

Example:
    >>> import numpy as np, minigrad as mg
    >>> from minigrad.testing.gradcheck_nodes import Exp
    >>> x = mg.Variable(np.zeros(2))
    >>> y, = Exp(factor=1.5).apply((x,))
    >>> y.grad = np.ones(2)
    >>> y.backward()
    >>> x.grad                      # exp'(0) = 1, planted 1.5 times too large
    array([1.5, 1.5])
"""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import constant
from minigrad.variable import Variable


class Exp(FunctionNode):
    """exp; ``factor`` scales the gradient, ``element`` makes one flat element 1 % off."""

    def __init__(self, factor: float = 1.0, element: int | None = None, only_dtype: str | None = None):
        self.factor, self.element, self.only_dtype = factor, element, only_dtype

    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gx = grad_outputs[0] * y
        if self.only_dtype is None or y.dtype == numpy.dtype(self.only_dtype):
            if self.factor != 1.0:
                gx = gx * self.factor
        if self.element is not None:
            mask = numpy.ones(y.shape, dtype=y.dtype)
            mask.reshape(-1)[self.element] = y.dtype.type(1.01)
            gx = gx * constant(mask)
        return gx,


class Tanh(FunctionNode):
    def __init__(self, factor: float = 1.0):
        self.factor = factor

    def forward(self, inputs):
        self.retain_outputs((0,))
        return numpy.tanh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gx = grad_outputs[0] * (1 - y * y)
        return (gx * self.factor if self.factor != 1.0 else gx),


class Mul(FunctionNode):
    """x0 * x1; ``factor1`` scales x1's gradient; ``drop1`` returns no gradient for x1."""

    def __init__(self, factor1: float = 1.0, drop1: bool = False):
        self.factor1, self.drop1 = factor1, drop1

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] * inputs[1],

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        g1 = None if self.drop1 else gy * x0 * self.factor1 if self.factor1 != 1.0 else gy * x0
        return gy * x1, g1


class Sub(FunctionNode):
    def __init__(self, sign_error: bool = False):
        self.sign_error = sign_error

    def forward(self, inputs):
        return inputs[0] - inputs[1],

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return gy, (gy if self.sign_error else -gy)


class Sin(FunctionNode):
    """sin; mistakes: ``sign`` (first order), ``raw`` (backward on raw arrays),
    ``inner`` (backward uses a cos whose own derivative is wrong), ``gy_constant``."""

    def __init__(self, mistake: str | None = None):
        self.mistake = mistake

    def forward(self, inputs):
        self.retain_inputs((0,))
        return numpy.sin(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if self.mistake == "sign":
            return -gy * Cos().apply((x,))[0],
        if self.mistake == "raw":
            return Variable(gy.array * numpy.cos(x.array)),
        if self.mistake == "inner":
            return gy * Cos(wrong=True).apply((x,))[0],
        if self.mistake == "gy_constant":
            return constant(gy.array) * Cos().apply((x,))[0],
        return gy * Cos().apply((x,))[0],


class Cos(FunctionNode):
    def __init__(self, wrong: bool = False):
        self.wrong = wrong

    def forward(self, inputs):
        self.retain_inputs((0,))
        return numpy.cos(inputs[0]),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        s = Sin().apply((x,))[0]
        return (grad_outputs[0] * s if self.wrong else -grad_outputs[0] * s),


class MatMul(FunctionNode):
    """x @ W; ``mistake``: "no_transpose" (gx = gy @ W), "scale_w" (gW * factor)."""

    def __init__(self, mistake: str | None = None, factor: float = 1.0):
        self.mistake, self.factor = mistake, factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        return inputs[0] @ inputs[1],

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        gx = F.matmul(gy, W) if self.mistake == "no_transpose" else F.matmul(gy, W, transb=True)
        gW = F.matmul(x, gy, transa=True)
        if self.mistake == "scale_w":
            gW = gW * self.factor
        return gx, gW


class AddBias(FunctionNode):
    """x (n, m) + b (m,) broadcast over rows; ``mistake`` in the reduction of b's gradient."""

    def __init__(self, mistake: str | None = None):
        self.mistake = mistake

    def forward(self, inputs):
        return inputs[0] + inputs[1],

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        if self.mistake == "wrong_axis":
            gb = F.sum(gy, axis=1)
        elif self.mistake == "missing":
            gb = gy[0]
        elif self.mistake == "mean":
            gb = F.sum(gy, axis=0) * (1.0 / gy.shape[0])
        else:
            gb = F.sum(gy, axis=0)
        return gy, gb


class SumAxis1(FunctionNode):
    """sum over axis 1 of a square matrix; ``wrong`` broadcasts the gradient along axis 0."""

    def __init__(self, wrong: bool = False):
        self.wrong = wrong

    def forward(self, inputs):
        self.shape = inputs[0].shape
        return inputs[0].sum(axis=1),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        n, m = self.shape
        row = F.reshape(gy, (1, n)) if self.wrong else F.reshape(gy, (n, 1))
        return F.broadcast_to(row, self.shape),


class Transpose(FunctionNode):
    def __init__(self, axes: tuple[int, ...], wrong: bool = False):
        self.axes, self.wrong = axes, wrong

    def forward(self, inputs):
        return inputs[0].transpose(self.axes),

    def backward(self, indexes, grad_outputs):
        inverse = self.axes if self.wrong else tuple(numpy.argsort(self.axes))
        return F.transpose(grad_outputs[0], inverse),


class SinCos(FunctionNode):
    """(sin x, cos x); ``ignore`` = 0 or 1 drops that output's gradient."""

    def __init__(self, ignore: int | None = None):
        self.ignore = ignore

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return numpy.sin(x), numpy.cos(x)

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        g0, g1 = grad_outputs
        gx = None
        if g0 is not None and self.ignore != 0:
            gx = g0 * F.cos(x)
        if g1 is not None and self.ignore != 1:
            term = -g1 * F.sin(x)
            gx = term if gx is None else gx + term
        return gx,


class Linear(FunctionNode):
    """x @ W.T + b; ``mistake``: "w_transposed", "b_scaled" (factor), "b_missing"."""

    def __init__(self, mistake: str | None = None, factor: float = 1.0):
        self.mistake, self.factor = mistake, factor

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W, b = inputs
        return x @ W.T + b,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        gx = F.matmul(gy, W)
        gW = F.matmul(gy, x, transa=True)
        if self.mistake == "w_transposed":
            gW = F.transpose(gW)
        gb = None if self.mistake == "b_missing" else F.sum(gy, axis=0)
        if self.mistake == "b_scaled":
            gb = gb * self.factor
        return gx, gW, gb


class MSE(FunctionNode):
    """mean((x0 - x1)**2); ``mistake``: "no_mean" (forgets 1/N), "no_two" (forgets the 2)."""

    def __init__(self, mistake: str | None = None):
        self.mistake = mistake

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        d = inputs[0] - inputs[1]
        return numpy.asarray((d * d).sum() / d.size, dtype=d.dtype),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        d = x0 - x1
        coefficient = {"no_mean": 2.0, "no_two": 1.0 / d.size}.get(self.mistake, 2.0 / d.size)
        gx = F.broadcast_to(gy, d.shape) * d * coefficient
        return gx, -gx


# --- next to kinks ---------------------------------------------------------------------------

class Kinked(FunctionNode):
    """relu, abs or leaky relu; ``factor`` scales the gradient (the mistake)."""

    def __init__(self, op: str, factor: float = 1.0):
        self.op, self.factor = op, factor

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        if self.op == "relu":
            return numpy.maximum(x, 0),
        if self.op == "abs":
            return numpy.abs(x),
        return numpy.where(x > 0, x, x * x.dtype.type(0.2)),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        a = x.array
        slope = {"relu": (a > 0).astype(a.dtype), "abs": numpy.sign(a).astype(a.dtype),
                 "leaky": numpy.where(a > 0, 1.0, 0.2).astype(a.dtype)}[self.op]
        if self.factor != 1.0:
            slope = slope * a.dtype.type(self.factor)
        return grad_outputs[0] * constant(slope),


class SquaredReLU(FunctionNode):
    """relu(x)**2, whose first-order gradient 2 relu(x) has a kink at 0; ``factor`` scales the
    derivative of that gradient (a wrong second order, a right first order)."""

    def __init__(self, factor: float = 1.0):
        self.factor = factor

    def forward(self, inputs):
        self.retain_inputs((0,))
        r = numpy.maximum(inputs[0], 0)
        return r * r,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * Kinked("relu", self.factor).apply((x,))[0] * 2.0,
