"""Exercise 3: the backward of a sum over an axis (tutorial step 3).

``y = x.sum(axis)`` has fewer dimensions than ``x``: every element of ``x`` contributed once to one element of
``y``. Write ``backward``: spread ``gy`` back to ``x``'s shape (minigrad.functions has ``expand_dims`` and
``broadcast_to``). ``axis`` is an int or None (sum of everything: ``gy`` is then 0-dim).

Grade it:  python -m minigrad exercise 3 this_file.py
"""

import minigrad as mg
import minigrad.functions as F  # noqa: F401  (you will want it)


class Sum(mg.FunctionNode):
    def __init__(self, axis=None):
        self.axis = axis

    def forward(self, inputs):
        x, = inputs
        self.x_shape = x.shape
        return x.sum(axis=self.axis),

    def backward(self, indexes, grad_outputs):
        gy, = grad_outputs
        raise NotImplementedError("exercise 3: write Sum.backward: broadcast gy back to self.x_shape")


def sum_(x, axis=None):
    return Sum(axis).apply((x,))[0]
