"""Reference solution of exercise 7."""

import minigrad as mg
import minigrad.functions as F


class MatMul(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs
        return x @ W,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        return F.matmul(gy, W.T), F.matmul(x.T, gy)


def matmul(x, W):
    return MatMul().apply((x, W))[0]
