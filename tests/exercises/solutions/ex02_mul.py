"""Reference solution of exercise 2."""

import minigrad as mg


class Mul(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 * x1,

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * x1, gy * x0


def mul(x0, x1):
    return Mul().apply((x0, x1))[0]
