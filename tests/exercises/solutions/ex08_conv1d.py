"""Reference solution of exercise 8."""

import minigrad as mg
import minigrad.functions as F


class Conv1d(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        m = x.shape[0] - w.shape[0] + 1
        return sum(x[k:k + m] * w[k] for k in range(w.shape[0])),

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        K, m = w.shape[0], gy.shape[0]
        gx = sum(F.pad(gy * w[k], (k, K - 1 - k), "constant") for k in range(K))
        gw = F.stack([F.sum(x[k:k + m] * gy) for k in range(K)])
        return gx, gw


def conv1d(x, w):
    return Conv1d().apply((x, w))[0]
