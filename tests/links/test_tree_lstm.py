"""L.ChildSumTreeLSTM and L.NaryTreeLSTM: checked as layers (forward against NumPy, first and second order
through every parameter), the child order (irrelevant for Child-Sum, relevant for N-ary), None children and
input, and the argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.links as L
from minigrad.testing import LinkTestCase


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _cell(a, i, o, forget, cells):
    c = np.tanh(a) * _sigmoid(i) + sum(_sigmoid(f) * cell for f, cell in zip(forget, cells))
    return c, _sigmoid(o) * np.tanh(c)


class TestChildSumTreeLSTM(LinkTestCase):
    param_names = ("W_x/W", "W_x/b", "W_h_aio/W", "W_h_f/W")

    def create_link(self, initializers):
        return L.ChildSumTreeLSTM(3, 2)

    def generate_inputs(self):
        return tuple(self.rng.uniform(-1, 1, s).astype(self.dtype) for s in ((2, 2),) * 4 + ((2, 3),))

    def forward_expected(self, link, inputs):
        c1, c2, h1, h2, x = inputs
        Wx, bx = link.W_x.W.array.astype(np.float64), link.W_x.b.array.astype(np.float64)
        Waio, Wf = link.W_h_aio.W.array.astype(np.float64), link.W_h_f.W.array.astype(np.float64)
        from_x = x @ Wx.T + bx
        aio = from_x[:, :6] + (h1 + h2) @ Waio.T
        forget = [from_x[:, 6:] + h @ Wf.T for h in (h1, h2)]
        return _cell(aio[:, :2], aio[:, 2:4], aio[:, 4:], forget, (c1, c2))


class TestNaryTreeLSTM(LinkTestCase):
    def create_link(self, initializers):
        return L.NaryTreeLSTM(3, 2, n_ary=2)

    def generate_inputs(self):
        return tuple(self.rng.uniform(-1, 1, s).astype(self.dtype) for s in ((2, 2),) * 4 + ((2, 3),))

    def forward_expected(self, link, inputs):
        c1, c2, h1, h2, x = inputs
        gates = x @ link.W_x.W.array.T.astype(np.float64) + link.W_x.b.array.astype(np.float64)
        gates = gates + h1 @ link.W_h1.W.array.T.astype(np.float64) + h2 @ link.W_h2.W.array.T.astype(np.float64)
        blocks = [gates[:, 2 * k:2 * k + 2] for k in range(5)]
        return _cell(blocks[0], blocks[1], blocks[2], blocks[3:], (c1, c2))


def test_child_order_and_missing_children():
    rng = np.random.default_rng(0)
    c1, c2, h1, h2 = (rng.uniform(-1, 1, (2, 3)).astype(np.float32) for _ in range(4))
    x = rng.uniform(-1, 1, (2, 4)).astype(np.float32)
    child_sum = L.ChildSumTreeLSTM(4, 3)
    for a, b in zip(child_sum(c1, c2, h1, h2, x), child_sum(c2, c1, h2, h1, x)):
        # the children's sums are summed in another order: float32 rounding only
        np.testing.assert_allclose(a.array, b.array, rtol=1e-5, atol=1e-6)
    nary = L.NaryTreeLSTM(4, 3, n_ary=2)
    assert not np.allclose(nary(c1, c2, h1, h2, x)[0].array, nary(c2, c1, h2, h1, x)[0].array)
    # None is a zero state, and a None x is zeros
    for a, b in zip(nary(None, c2, None, h2, x), nary(np.zeros_like(c1), c2, np.zeros_like(h1), h2, x)):
        np.testing.assert_array_equal(a.array, b.array)
    for a, b in zip(child_sum(c1, h1, None), child_sum(c1, h1, np.zeros((2, 4), np.float32))):
        np.testing.assert_array_equal(a.array, b.array)
    c, h = child_sum(x)  # a leaf
    assert c.shape == h.shape == (2, 3)


@pytest.mark.parametrize("call, error, message", [
    (lambda: L.NaryTreeLSTM(3, 2, n_ary=2)(None, None, None), TypeError, "NaryTreeLSTM: takes 5 arguments"),
    (lambda: L.ChildSumTreeLSTM(3, 2)(None, None), TypeError, "an odd number of arguments"),
    (lambda: L.NaryTreeLSTM(3, 2, n_ary=1)(None, None, None), ValueError, "all inputs .* are None"),
    (lambda: L.NaryTreeLSTM(3, 2, n_ary=0), ValueError, "n_ary must be positive"),
    (lambda: L.ChildSumTreeLSTM(3, 2.5), TypeError, "out_size must be a positive int"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
