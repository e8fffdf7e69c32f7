"""Reference solution of exercise 5."""

import minigrad as mg
from minigrad.backend import get_array_module


class Exp(mg.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        self.retain_outputs((0,))
        return get_array_module(x).exp(x),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * y,


def exp(x):
    return Exp().apply((x,))[0]
