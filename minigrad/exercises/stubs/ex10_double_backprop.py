"""Exercise 10: make a backward differentiable, so that double backprop works (tutorial steps 5 and 8).

This sigmoid's first derivative is right: ``check_backward`` passes. But its backward computes with raw arrays
(``.array``), so the gradient it returns has no graph, and its second derivative comes out as zero. Rewrite
``backward`` with Variable operators so that ``check_double_backward`` passes too.

Grade it:  python -m minigrad exercise 10 this_file.py
"""

import minigrad as mg
from minigrad.backend import get_array_module


class Sigmoid(mg.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        xp = get_array_module(x)
        self.retain_outputs((0,))
        return xp.tanh(x * x.dtype.type(0.5)) * x.dtype.type(0.5) + x.dtype.type(0.5),  # 1 / (1 + exp(-x))

    def backward(self, indexes, grad_outputs):
        y = self.get_retained_outputs()[0].array          # a raw array: no graph from here on
        gy, = grad_outputs
        slope = mg.Variable(y * (1 - y), requires_grad=False)
        return gy * slope,


def sigmoid(x):
    return Sigmoid().apply((x,))[0]
