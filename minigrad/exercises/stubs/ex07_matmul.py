"""Exercise 7: the backward of a matrix product (tutorial step 7).

y = x @ W with x of shape (n, k) and W of shape (k, m). Write ``backward``: the gradients for x (shape (n, k))
and W (shape (k, m)) from gy (shape (n, m)), with ``F.matmul`` and ``.T``. Let the shapes guide you.

Grade it:  python -m minigrad exercise 7 this_file.py
"""

import minigrad as mg
import minigrad.functions as F  # noqa: F401  (you will want it)


class MatMul(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, W = inputs
        return x @ W,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        gy, = grad_outputs
        raise NotImplementedError("exercise 7: write MatMul.backward: return (gradient for x, gradient for W)")


def matmul(x, W):
    return MatMul().apply((x, W))[0]
