"""stack, hstack, vstack: semantics vs NumPy, gradients, bad-input errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_stack_matches_numpy(axis):
    arrays = [np.random.default_rng(i).standard_normal((2, 3)) for i in range(3)]
    np.testing.assert_array_equal(F.stack(arrays, axis=axis).array, np.stack(arrays, axis=axis))


@pytest.mark.parametrize("shapes", [[(), ()], [(2,), (3,)], [(2, 1), (2, 3)], [(2, 1, 4), (2, 2, 4)]])
def test_hstack_matches_numpy(shapes):
    arrays = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    np.testing.assert_array_equal(F.hstack(arrays).array, np.hstack(arrays))


@pytest.mark.parametrize("shapes", [[(), ()], [(3,), (3,)], [(1, 3), (3,)], [(2, 3), (1, 3)], [(1, 2, 4), (2, 2, 4)]])
def test_vstack_matches_numpy(shapes):
    arrays = [np.random.default_rng(i).standard_normal(s) for i, s in enumerate(shapes)]
    np.testing.assert_array_equal(F.vstack(arrays).array, np.vstack(arrays))


def test_stack_gradient_is_each_slice():
    a, b = mg.Variable(np.zeros(3)), mg.Variable(np.zeros(3))
    y = F.stack((a, b), axis=1)
    y.grad = np.arange(6.0).reshape(3, 2)
    y.backward()
    np.testing.assert_array_equal(a.grad, [0.0, 2.0, 4.0])
    np.testing.assert_array_equal(b.grad, [1.0, 3.0, 5.0])


def test_vstack_of_vectors_gradient_keeps_shape():
    a = mg.Variable(np.zeros(3))
    y = F.vstack((a, np.ones(3)))
    y.grad = np.arange(6.0).reshape(2, 3)
    y.backward()
    np.testing.assert_array_equal(a.grad, [0.0, 1.0, 2.0])


def test_stack_errors():
    with pytest.raises(ValueError, match=r"stack: xs\[1\] has shape \(2,\) but xs\[0\] has shape \(3,\)"):
        F.stack([np.zeros(3), np.zeros(2)])
    with pytest.raises(ValueError, match=r"stack: axis=2 is out of range for an input of shape \(3,\)"):
        F.stack([np.zeros(3), np.zeros(3)], axis=2)
    with pytest.raises(TypeError, match="stack: every array in xs must have the same dtype"):
        F.stack([np.zeros(3), np.zeros(3, np.float32)])
    with pytest.raises(ValueError, match="stack: xs is empty"):
        F.stack(())


def test_hstack_vstack_errors():
    with pytest.raises(ValueError, match=r"hstack: xs\[1\] has shape \(3, 3\).*xs\[0\] of shape \(2, 3\).*axis 1"):
        F.hstack([np.zeros((2, 3)), np.zeros((3, 3))])
    with pytest.raises(ValueError, match=r"hstack: xs\[1\] has shape \(2, 2\)"):
        F.hstack([np.zeros(3), np.zeros((2, 2))])
    with pytest.raises(ValueError, match=r"vstack: xs\[1\] has shape \(1, 2\).*xs\[0\] of shape \(2, 3\).*axis 0"):
        F.vstack([np.zeros((2, 3)), np.zeros(2)])
    with pytest.raises(TypeError, match="vstack: xs must be a list or tuple"):
        F.vstack(np.zeros((2, 3)))
