"""Reference solution of exercise 3."""

import minigrad as mg
import minigrad.functions as F


class Sum(mg.FunctionNode):
    def __init__(self, axis=None):
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        self.x_shape = x.shape
        return x.sum(axis=self.axis),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        if self.axis is not None:
            gy = F.expand_dims(gy, self.axis)
        return F.broadcast_to(gy, self.x_shape),


def sum_(x, axis=None):
    return Sum(axis).apply((x,))[0]
