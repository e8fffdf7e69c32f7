"""transpose_sequence: time steps built by hand, its own inverse, and its argument errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def _sequences(lengths, width=2):
    rng = np.random.default_rng(0)
    return [rng.standard_normal((n, width)).astype(np.float32) for n in lengths]


def test_step_t_stacks_row_t_of_each_long_enough_sequence():
    xs = _sequences((4, 2, 2, 0))
    steps = F.transpose_sequence(xs)
    assert len(steps) == 4
    for t, y in enumerate(steps):
        expected = np.stack([x[t] for x in xs if len(x) > t])
        np.testing.assert_array_equal(y.array, expected)


def test_applied_twice_it_gives_the_sequences_back_and_gradients_flow_to_each():
    xs = [mg.Variable(x) for x in _sequences((3, 3, 1))]
    back = F.transpose_sequence(F.transpose_sequence(xs))
    assert len(back) == 2 + 1  # the empty tail is not a sequence: three in, three out
    for x, y in zip(xs, back):
        np.testing.assert_array_equal(y.array, x.array)
    F.sum(sum((F.sum(y * y) for y in back), start=F.sum(back[0] * 0))).backward()
    for x in xs:
        np.testing.assert_allclose(x.grad, 2 * x.array)


def test_a_non_contiguous_sequence_is_read_by_value():
    base = np.arange(12.0).reshape(2, 6)
    first, second = base.T[::2, :1], base.T[1:2, :1]  # column 0 of rows 0, 2, 4 and of row 1: strided views
    assert not first.flags.c_contiguous
    steps = F.transpose_sequence([first, second])
    np.testing.assert_array_equal(steps[0].array, [[0.0], [1.0]])
    np.testing.assert_array_equal(steps[1].array, [[2.0]])
    np.testing.assert_array_equal(steps[2].array, [[4.0]])


@pytest.mark.parametrize("xs", [[], [np.zeros((0, 2))]], ids=["no sequences", "all empty"])
def test_nothing_to_transpose_gives_no_steps(xs):
    assert F.transpose_sequence(xs) == ()


@pytest.mark.parametrize("xs, message", [
    (np.zeros((2, 3)), "must be a list or a tuple"),
    ([np.zeros((1, 2)), np.zeros((2, 2))], "longest first; xs[1] has length 2 after xs[0] of length 1"),
    ([np.zeros((2, 2)), np.zeros((1, 3))], "xs[1] has shape (1, 3)"),
    ([np.zeros((2, 2)), np.zeros((1, 2), np.float32)], "dtype float32"),
    ([np.zeros(())], "xs[0] must have a time axis"),
])
def test_bad_sequences_are_refused_naming_the_function(xs, message):
    with pytest.raises((TypeError, ValueError), match="transpose_sequence") as info:
        F.transpose_sequence(xs)
    assert message in str(info.value)
