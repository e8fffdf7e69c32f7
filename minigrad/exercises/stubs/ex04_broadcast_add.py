"""Exercise 4: the backward of an addition that broadcasts (tutorial step 3).

``y = x0 + x1`` broadcasts like NumPy: ``x1`` of shape (3,) or (2, 1) is repeated along the axes it lacks or has
as 1. Each copy sends its gradient back, and the copies' gradients add up (the sum over paths of step 3). Write
``backward``: return ``gy`` summed back to each input's shape, with ``F.sum`` (``axis=..., keepdims=True``) and
``F.reshape`` -- not with ``F.sum_to``, which is the answer.

Grade it:  python -m minigrad exercise 4 this_file.py
"""

import minigrad as mg
import minigrad.functions as F  # noqa: F401  (you will want it)


class Add(mg.FunctionNode):
    def forward(self, inputs):
        x0, x1 = inputs
        self.shapes = x0.shape, x1.shape
        return x0 + x1,

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        raise NotImplementedError("exercise 4: write Add.backward: sum gy back to each of self.shapes")


def add(x0, x1):
    return Add().apply((x0, x1))[0]
