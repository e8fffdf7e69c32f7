"""Exercise 8: the backward of a 1-D convolution (tutorial step 7).

y[i] = sum_k x[i + k] * w[k] for i = 0 .. n - K (a "valid" cross-correlation, as deep learning calls a
convolution), x of shape (n,), w of shape (K,). Write ``backward``:

- the gradient for w[k] is sum_i x[i + k] * gy[i]: the slice of x that w[k] met, times gy;
- the gradient for x: w[k] * gy[i] goes to x[i + k], for every k -- a shifted copy of gy * w[k] per k, added up
  (``F.pad`` shifts: ``F.pad(v, (k, K - 1 - k), "constant")``).

Use Variable operators and minigrad.functions (slices ``x[k:k + m]`` of a Variable are Variables; ``F.stack``
joins scalars into a vector), so that the gradient can be differentiated again.

Grade it:  python -m minigrad exercise 8 this_file.py
"""

import minigrad as mg
import minigrad.functions as F  # noqa: F401  (you will want it)


class Conv1d(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        m = x.shape[0] - w.shape[0] + 1
        return sum(x[k:k + m] * w[k] for k in range(w.shape[0])),

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        raise NotImplementedError("exercise 8: write Conv1d.backward: return (gradient for x, gradient for w)")


def conv1d(x, w):
    return Conv1d().apply((x, w))[0]
