"""Reference solution of exercise 10."""

import minigrad as mg
from minigrad.backend import get_array_module


class Sigmoid(mg.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        xp = get_array_module(x)
        self.retain_outputs((0,))
        return xp.tanh(x * x.dtype.type(0.5)) * x.dtype.type(0.5) + x.dtype.type(0.5),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * y * (1 - y),


def sigmoid(x):
    return Sigmoid().apply((x,))[0]
