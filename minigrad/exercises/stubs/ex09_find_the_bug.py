"""Exercise 9: find and fix the bug (tutorial step 8).

``hypot(x0, x1) = sqrt(x0 ** 2 + x1 ** 2)`` below runs, and its gradient looks plausible, but one of its two
gradients is wrong. Grade this file as it is and read the checker's report: which input is wrong, and at which
elements? Then fix ``backward``.

Grade it:  python -m minigrad exercise 9 this_file.py
"""

import minigrad as mg
from minigrad.backend import get_array_module


class Hypot(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        self.retain_outputs((0,))
        x0, x1 = inputs
        return get_array_module(x0).sqrt(x0 * x0 + x1 * x1),

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * x0 / y, gy * x0 / y


def hypot(x0, x1):
    return Hypot().apply((x0, x1))[0]
