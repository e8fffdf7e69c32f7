"""classification_summary, precision, recall, f1_score and r2_score: hand-checked values, NaN rules, errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F

# predictions argmax: 0, 1, 0, 0, 2 ; labels: 0, 1, 1, 1, 0
_Y = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.7, 0.3, 0.0], [0.6, 0.4, 0.0], [0.1, 0.2, 0.7]])
_T = np.array([0, 1, 1, 1, 0])


def test_summary_by_hand():
    # class 0: tp 1, predicted 3, support 2; class 1: tp 1, predicted 1, support 3;
    # class 2: tp 0, predicted 1, support 0
    p, r, f, s = F.classification_summary(_Y, _T, label_num=3)
    np.testing.assert_allclose(p.array, [1 / 3, 1.0, 0.0])
    np.testing.assert_allclose(r.array, [1 / 2, 1 / 3, np.nan])
    np.testing.assert_allclose(f.array, [2 * (1 / 3) * 0.5 / (1 / 3 + 0.5), 2 * (1 / 3) / (1 + 1 / 3), np.nan])
    np.testing.assert_array_equal(s.array, [2, 3, 0])
    assert s.dtype.kind == "i"
    assert not any(v.requires_grad for v in (p, r, f, s))


def test_beta_weighs_recall():
    p, r, f, _ = F.classification_summary(_Y, _T, label_num=2, beta=2.0)
    expected = [(1 + 4) * a * b / (4 * a + b) for a, b in zip(p.array, r.array)]
    np.testing.assert_allclose(f.array, expected)
    np.testing.assert_allclose(f.array[0], 5 * (1 / 3) * 0.5 / (4 / 3 + 0.5))


def test_nan_for_a_class_never_predicted_or_absent_and_for_zero_precision_and_recall():
    y = np.array([[0.9, 0.1, 0.0], [0.8, 0.2, 0.0]])  # predicts 0 twice
    t = np.array([1, 2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning from 0 / 0
        p, r, f, s = F.classification_summary(y, t, label_num=4)
    np.testing.assert_array_equal(np.isnan(p.array), [False, True, True, True])  # class 0 predicted, never right
    assert p.array[0] == 0.0
    np.testing.assert_array_equal(np.isnan(r.array), [True, False, False, True])  # classes 0 and 3 have no support
    np.testing.assert_array_equal(r.array[1:3], [0.0, 0.0])
    assert np.isnan(f.array).all()  # 0 / 0 where P = R = 0, NaN where either is NaN (as in Chainer)
    np.testing.assert_array_equal(s.array, [0, 1, 1, 0])


def test_wrappers_return_the_summary_entry_and_support():
    p, r, f, s = F.classification_summary(_Y, _T)
    for fn, expected in ((F.precision, p), (F.recall, r), (F.f1_score, f)):
        value, support = fn(_Y, _T)
        np.testing.assert_array_equal(value.array, expected.array)
        np.testing.assert_array_equal(support.array, s.array)


def test_label_num_defaults_to_max_label_plus_one_and_ignore_label_is_left_out():
    p, r, f, s = F.classification_summary(_Y, _T)
    assert p.shape == (2,)  # max(t) = 1, although y has three columns; the prediction of class 2 counts for none
    np.testing.assert_allclose(p.array, [1 / 3, 1.0])
    t = np.array([0, 1, -1, 1, -1])
    p, r, f, s = F.classification_summary(_Y, t)
    np.testing.assert_allclose(p.array, [0.5, 1.0])  # positions 2 and 4 are not counted at all
    np.testing.assert_allclose(r.array, [1.0, 0.5])
    np.testing.assert_array_equal(s.array, [1, 2])
    p, _, _, s = F.classification_summary(_Y, np.array([0, 1, 7, 1, 7]), label_num=2, ignore_label=7)
    np.testing.assert_array_equal(s.array, [1, 2])


def test_an_ignore_label_that_is_a_class_leaves_its_positions_out():
    # labels 0, 1, 1, 1, 0 with class 0 ignored: positions 1-3 count (predicted 1, 0, 0; true 1, 1, 1)
    p, r, f, s = F.classification_summary(_Y, _T, label_num=3, ignore_label=0)
    np.testing.assert_array_equal(s.array, [0, 3, 0])
    np.testing.assert_allclose(p.array, [0.0, 1.0, np.nan])  # class 0 predicted twice, never right
    np.testing.assert_allclose(r.array, [np.nan, 1 / 3, np.nan])


def test_nd_labels_and_dtype():
    y = np.moveaxis(_Y.reshape(5, 1, 3), 2, 1).astype(np.float16)  # (5, 3, 1)
    p, r, f, s = F.classification_summary(y, _T.reshape(5, 1), label_num=3)
    assert p.dtype == r.dtype == f.dtype == np.float16
    expected = F.classification_summary(_Y, _T, label_num=3)
    np.testing.assert_allclose(p.array, expected[0].array, rtol=1e-3)
    np.testing.assert_array_equal(s.array, expected[3].array)
    trailing = F.classification_summary(_Y.reshape(5, 3, 1, 1), _T, label_num=3)  # extra axes of length 1
    np.testing.assert_array_equal(trailing[3].array, expected[3].array)


def test_empty_batch_with_label_num():
    p, r, f, s = F.classification_summary(np.zeros((0, 2)), np.zeros(0, dtype=np.int32), label_num=2)
    assert np.isnan(p.array).all() and np.isnan(r.array).all()
    np.testing.assert_array_equal(s.array, [0, 0])


def test_r2_score_by_hand():
    true = np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 9.0]])
    pred = np.array([[1.5, 2.0], [2.0, 5.0], [2.0, 9.0]])
    # column 0: mean 2, SS_tot 2, SS_res 0.25 + 0 + 1; column 1: mean 5, SS_tot 9 + 1 + 16, SS_res 1
    raw = F.r2_score(pred, true, multioutput="raw_values")
    np.testing.assert_allclose(raw.array, [1 - 1.25 / 2, 1 - 1 / 26])
    np.testing.assert_allclose(F.r2_score(pred, true).array, (1 - 1.25 / 2 + 1 - 1 / 26) / 2)
    assert not raw.requires_grad
    assert F.r2_score(mg.Variable(pred), true).requires_grad is False
    # a constant column scores 0, even when predicted exactly (Chainer's rule), and a 1-D input is one output
    np.testing.assert_array_equal(F.r2_score(np.ones((3, 1)), np.ones((3, 1)), multioutput="raw_values").array, [0.0])
    np.testing.assert_allclose(F.r2_score(pred[:, 0], true[:, 0]).array, 1 - 1.25 / 2)
    assert F.r2_score(pred.astype(np.float16), true.astype(np.float16)).dtype == np.float16


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.classification_summary(_Y, np.array([0, 1, 5, 1, 0]), label_num=3), ValueError,
     r"classification_summary: t has labels outside \[0, 3\) or ignore_label=-1: \[5\]"),
    (lambda: F.classification_summary(_Y, np.array([0, 1, -2, 1, 0])), ValueError,
     r"classification_summary: t has labels outside \[0, 2\) or ignore_label=-1: \[-2\]"),
    (lambda: F.classification_summary(_Y, _T.astype(np.float32)), TypeError,
     r"classification_summary: t must hold integer class labels, got dtype float32"),
    (lambda: F.classification_summary(_Y, _T[:4]), ValueError,
     r"classification_summary: y of shape \(N, C, d1, ...\) needs t of shape \(N, d1, ...\).*\(5, 3\).*\(4,\)"),
    (lambda: F.classification_summary(_Y.reshape(5, 3, 1), _T.reshape(5, 1, 1)), ValueError,
     r"classification_summary: y of shape"),
    (lambda: F.classification_summary(_Y, _T, label_num=2.0), TypeError,
     r"classification_summary: label_num must be an int or None, got float"),
    (lambda: F.classification_summary(_Y, _T, label_num=0), ValueError,
     r"classification_summary: label_num must be >= 1, got 0"),
    (lambda: F.classification_summary(_Y, _T, beta="1"), TypeError, r"classification_summary: beta must be a real"),
    (lambda: F.classification_summary(np.zeros((0, 2)), np.zeros(0, dtype=np.int32)), ValueError,
     r"classification_summary: label_num=None takes max\(t\) \+ 1, but t is empty"),
    (lambda: F.precision(_Y.astype(np.int32), _T), TypeError, r"precision: y must have a floating-point dtype"),
    (lambda: F.recall(_Y, _T, label_num=1), ValueError, r"recall: t has labels outside \[0, 1\)"),
    (lambda: F.f1_score(_Y, _T, ignore_label=None), TypeError, r"f1_score: ignore_label must be an int"),
    (lambda: F.r2_score(np.ones((3, 2)), np.ones((3, 1))), ValueError,
     r"r2_score: pred and true must have the same shape, got \(3, 2\) and \(3, 1\)"),
    (lambda: F.r2_score(np.ones(3), np.ones(3, dtype=np.float32)), TypeError,
     r"r2_score: pred and true must have the same dtype"),
    (lambda: F.r2_score(np.ones(3), np.ones(3), multioutput="variance_weighted"), ValueError,
     r"r2_score: multioutput must be one of 'uniform_average', 'raw_values', got 'variance_weighted'"),
    (lambda: F.r2_score(np.ones(3), np.ones(3), sample_weight=np.ones(3)), NotImplementedError,
     r"r2_score: sample_weight is not supported"),
    (lambda: F.r2_score(np.ones((0, 2)), np.ones((0, 2))), ValueError,
     r"r2_score: pred must hold at least one sample along axis 0, got shape \(0, 2\)"),
    (lambda: F.r2_score(np.ones((2, 0)), np.ones((2, 0))), ValueError,
     r"r2_score: multioutput='uniform_average' needs at least one output"),
])
def test_bad_input(call, error, message):
    with pytest.raises(error, match=message):
        call()
