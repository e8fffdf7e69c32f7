"""Reference solution of exercise 4."""

import minigrad as mg
import minigrad.functions as F


def _sum_back(g, shape):
    """Sum g over the axes broadcasting added (leading) or stretched (size 1 in shape)."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(shape) if n == 1 and g.shape[lead + i] != 1)
    if axes:
        g = F.sum(g, axis=axes, keepdims=True)
    return F.reshape(g, shape) if g.shape != shape else g


class Add(mg.FunctionNode):
    def forward(self, inputs):
        x0, x1 = inputs
        self.shapes = x0.shape, x1.shape
        return x0 + x1,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        return tuple(_sum_back(gy, shape) for shape in self.shapes)


def add(x0, x1):
    return Add().apply((x0, x1))[0]
