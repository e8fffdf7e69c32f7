"""Inputs with no elements: a clear ValueError where a mean of nothing is asked, and what an empty batch leaves.

The empty inputs an op must take (an empty batch, an axis of length 0, no
channels) are cases its OpSpec derives (``kind``) or lists (``variants``):
``minigrad.testing.spec_variants``, run by ``python -m minigrad check`` and
``tests/functions/test_op_registry.py``. Here are the refusals.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

f32 = np.float32


@pytest.mark.parametrize("call, message", [
    (lambda e: F.mean(e), "mean: cannot average over an empty axis"),
    (lambda e: F.average(e, axis=0, weights=np.ones(0, f32)), "average: cannot average over an empty axis"),
    (lambda e: F.mean_squared_error(e, e), "mean_squared_error: cannot average over an empty input"),
    (lambda e: F.mean_absolute_error(e, e), "mean_absolute_error: cannot average over an empty input"),
    (lambda e: F.batch_normalization(e, np.ones(4, f32), np.zeros(4, f32)), "batch_normalization: no samples"),
    (lambda e: F.max(e), "max: cannot reduce over an empty axis"),
    (lambda e: F.accuracy(np.zeros((2, 0), f32), np.zeros(2, np.int32)), "accuracy: y must have shape"),
])
def test_a_mean_or_extreme_of_nothing_is_a_value_error_naming_the_op(call, message):
    with pytest.raises(ValueError, match=message):
        call(np.zeros((0, 4), f32))


@pytest.mark.parametrize("ignore_label", [None, -1])
def test_the_accuracy_of_an_empty_batch_is_zero_as_when_every_label_is_ignored(ignore_label):
    empty = F.accuracy(np.zeros((0, 3), f32), np.zeros(0, np.int32), ignore_label=ignore_label)
    all_ignored = F.accuracy(np.ones((2, 3), f32), np.array([-1, -1], np.int32), ignore_label=-1)
    assert (empty.dtype, float(empty.array)) == (np.dtype(f32), 0.0) == (all_ignored.dtype, float(all_ignored.array))


def test_an_empty_batch_leaves_the_batch_normalization_link_unchanged():
    bn = mg.links.BatchNormalization(4)
    bn(np.ones((3, 4), f32), finetune=True)
    before = (bn.N, bn.avg_mean.copy(), bn.avg_var.copy())
    with pytest.raises(ValueError, match="no samples"):
        bn(np.zeros((0, 4), f32), finetune=True)
    assert bn.N == before[0] == 1
    np.testing.assert_array_equal(bn.avg_mean, before[1])
    np.testing.assert_array_equal(bn.avg_var, before[2])
