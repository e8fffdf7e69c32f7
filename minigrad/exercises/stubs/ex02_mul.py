"""Exercise 2: the backward of multiplication (tutorial step 2).

``forward`` is written. Write ``backward``: given ``gy``, the gradient of the loss with respect to ``y = x0 * x1``,
return the gradients with respect to ``x0`` and ``x1``, as Variables (compute with Variable operators, so that
the gradient can be differentiated again).

Grade it:  python -m minigrad exercise 2 this_file.py
"""

import minigrad as mg


class Mul(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x0, x1 = inputs
        return x0 * x1,

    def backward(self, indexes, grad_outputs):
        x0, x1 = self.get_retained_inputs()
        gy, = grad_outputs
        raise NotImplementedError("exercise 2: write Mul.backward: return (gradient for x0, gradient for x1)")


def mul(x0, x1):
    return Mul().apply((x0, x1))[0]
