"""separate: semantics vs indexing, unused outputs, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_separate_matches_indexing(axis):
    a = np.arange(24.0).reshape(2, 3, 4)
    ys = F.separate(a, axis)
    assert len(ys) == a.shape[axis]
    for i, y in enumerate(ys):
        np.testing.assert_array_equal(y.array, np.take(a, i, axis=axis))


def test_separate_length_one_and_zero():
    assert [y.shape for y in F.separate(np.zeros((1, 3)))] == [(3,)]
    assert F.separate(np.zeros((0, 3))) == ()


def test_unused_outputs_get_zero_gradient():
    x = mg.Variable(np.zeros((3, 2)))
    _, y, _ = F.separate(x)
    y.grad = np.array([1.0, 2.0])
    y.backward()
    np.testing.assert_array_equal(x.grad, [[0.0, 0.0], [1.0, 2.0], [0.0, 0.0]])


def test_separate_errors():
    with pytest.raises(ValueError, match=r"separate: axis=2 is out of range for an input of shape \(2, 3\)"):
        F.separate(np.zeros((2, 3)), 2)
    with pytest.raises(ValueError, match=r"separate: axis=0 is out of range for an input of shape \(\)"):
        F.separate(np.zeros(()))
