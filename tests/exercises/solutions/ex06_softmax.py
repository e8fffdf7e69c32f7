"""Reference solution of exercise 6."""

import minigrad as mg
import minigrad.functions as F
from minigrad.backend import get_array_module


class Softmax(mg.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        xp = get_array_module(x)
        e = xp.exp(x - x.max(axis=-1, keepdims=True))
        self.retain_outputs((0,))
        return e / e.sum(axis=-1, keepdims=True),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return y * (gy - F.sum(gy * y, axis=-1, keepdims=True)),


def softmax(x):
    return Softmax().apply((x,))[0]
