"""F.zoneout: each element from h with probability ratio in training, x in test mode, gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def test_each_element_comes_from_h_with_probability_ratio():
    np.random.seed(0)
    h, x = np.zeros(40000), np.ones(40000)
    y, mask = F.zoneout(h, x, ratio=0.3, return_mask=True)
    np.testing.assert_array_equal(y.array, mask)  # 1 where x was taken
    assert abs((1 - mask).mean() - 0.3) < 0.01


def test_gradients_go_to_the_state_each_element_came_from():
    h, x = mg.Variable(np.full(4, 2.0, np.float32)), mg.Variable(np.full(4, 3.0, np.float32))
    mask = np.array([1, 0, 0, 1], np.float32)
    y = F.zoneout(h, x, mask=mask)
    np.testing.assert_array_equal(y.array, [3.0, 2.0, 2.0, 3.0])
    F.sum(y * y).backward()
    np.testing.assert_array_equal(x.grad, 2 * y.array * mask)
    np.testing.assert_array_equal(h.grad, 2 * y.array * (1 - mask))


def test_test_mode_returns_x():
    x = mg.Variable(np.ones(3))
    with mg.using_config("train", False):
        assert F.zoneout(np.zeros(3), x) is x
        assert F.zoneout(np.zeros(3), x, return_mask=True) == (x, None)


@pytest.mark.parametrize("call, error, message", [
    (lambda h, x: F.zoneout(h, x[:2]), ValueError, "zoneout: h and x must have the same shape"),
    (lambda h, x: F.zoneout(h, x.astype(np.float32)), TypeError, "zoneout: h and x must have the same dtype"),
    (lambda h, x: F.zoneout(h, x, ratio=1.5), ValueError, r"zoneout: ratio must be in \[0, 1\], got 1.5"),
    (lambda h, x: F.zoneout(h, x, mask=np.ones(2)), ValueError, r"zoneout: mask must be an array of x's shape"),
    (lambda h, x: F.zoneout(h, x, train=False), TypeError, r"zoneout: unexpected keyword argument\(s\) \['train'\]"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call(np.zeros(3), np.ones(3))
