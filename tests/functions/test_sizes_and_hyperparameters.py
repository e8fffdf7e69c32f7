"""Issue 27: sizes and hyperparameters are validated where they are read. A size whose result would pass
``checks.MAX_SIZE`` is refused, naming the argument, before anything is allocated; loops whose length depends
on an argument are bounded; fractional sizes are refused, not truncated; negative constants are refused."""

from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

import minigrad.functions as F
import minigrad.links as L
from minigrad.functions import checks

BIG = 2 ** 31


def image(channels=1, size=3):
    return np.ones((1, channels, size, size), np.float32)


def refused_quickly(call, error, match):
    """``call`` raises ``error`` (matching ``match``) in well under a second and allocates under 1 MiB."""
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(error, match=match):
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 1.0
    assert peak < 2 ** 20


@pytest.mark.parametrize("call, match", [
    (lambda: F.repeat(np.ones(2, np.float32), BIG), r"repeat: repeats=2147483648 is larger than the size limit"),
    (lambda: F.repeat(np.ones(4, np.float32), 2 ** 30), r"repeat: repeats would make an array of shape "
                                                        r"\(4294967296,\)"),
    (lambda: F.convolution_2d(image(), np.ones((1, 1, 1, 1), np.float32), pad=BIG), r"convolution_2d: pad=2147483648"),
    (lambda: F.convolution_2d(image(), np.ones((1, 1, 1, 1), np.float32), pad=2 ** 20),
     r"convolution_2d: pad would make an array of shape \(1, 1, 2097155, 2097155\)"),
    (lambda: F.convolution_2d(image(), np.ones((1, 1, 1, 1), np.float32), stride=BIG),
     r"convolution_2d: stride=2147483648"),
    (lambda: F.max_pooling_2d(image(), BIG), r"max_pooling_2d: ksize=2147483648"),
    (lambda: F.average_pooling_2d(image(), 2, stride=BIG), r"average_pooling_2d: stride=2147483648"),
    (lambda: F.local_response_normalization(image(3), n=BIG), r"local_response_normalization: n=2147483648"),
    (lambda: L.Linear(2 ** 17, 2 ** 17), r"Linear: in_size, out_size would make an array of shape \(131072, 131072\)"),
    (lambda: F.resize_images(image(), (2 ** 63, 2 ** 63)), r"resize_images: output_shape would make an array"),
    (lambda: F.broadcast_to(np.ones(1, np.float32), (2 ** 20, 2 ** 20)), r"broadcast_to: shape would make an array"),
], ids=["repeat", "repeat-result", "conv-pad", "conv-pad-result", "conv-stride", "max-pool-ksize",
        "avg-pool-stride", "lrn-n", "linear", "resize-images", "broadcast-to"])
def test_absurd_sizes_are_refused_before_allocation(call, match):
    refused_quickly(call, ValueError, match + r".*MAX_SIZE")


def test_the_size_limit_is_documented_and_sizes_below_it_work():
    assert checks.MAX_SIZE == 2 ** 31 - 1 and "MAX_SIZE" in checks.__all__
    assert F.repeat(np.ones(1, np.float32), 3).shape == (3,)
    assert F.local_response_normalization(image(3), n=1001).shape == (1, 3, 3, 3)  # (window wider than C)
    np.testing.assert_allclose(F.local_response_normalization(image(3), n=1001, k=1.0, alpha=1.0, beta=1.0).array,
                               F.local_response_normalization(image(3), n=5, k=1.0, alpha=1.0, beta=1.0).array)


def test_polygamma_of_a_huge_order_is_refused_at_once():
    refused_quickly(lambda: F.polygamma(10 ** 6, np.ones(2)), ValueError,
                    r"polygamma: n must be at most 150 .*got a maximum of 1000000")
    refused_quickly(lambda: F.polygamma(1, np.array([-1e12, 1.0])), ValueError,
                    r"polygamma: x must be >= -10000 for n >= 1")
    assert np.isfinite(F.polygamma(150, np.array([0.5])).array).all()  # (the largest order is still finite)
    with pytest.raises(ValueError, match="at most 150"):  # (151 gave NaN, 152 a bare OverflowError)
        F.polygamma(151, np.array([0.5]))
    assert np.isfinite(F.polygamma(1, np.array([-9999.5])).array).all()


def test_erfinv_is_bounded_on_extreme_inputs():
    x = np.array([np.nextafter(1.0, 0), -np.nextafter(1.0, 0), 5e-324, 0.0, np.nan, 1.0, -1.0])
    start = time.perf_counter()
    y = F.erfinv(x).array
    assert time.perf_counter() - start < 1.0
    assert np.isinf(y[-2:]).all() and np.isnan(y[4])


@pytest.mark.parametrize("call", [
    lambda: F.broadcast_to(np.ones(1, np.float32), (2.5, 3.9, 1)),
    lambda: F.broadcast_to(np.ones(1, np.float32), (2.0, 3)),
    lambda: F.reshape(np.ones(6, np.float32), (2.5, 2)),
    lambda: F.repeat(np.ones(2, np.float32), 2.5),
    lambda: F.max_pooling_2d(image(), 2.5),
    lambda: F.local_response_normalization(image(3), n=2.5),
], ids=["broadcast_to", "broadcast_to-float", "reshape", "repeat", "max_pooling_2d", "lrn"])
def test_fractional_sizes_are_refused_not_truncated(call):
    with pytest.raises(TypeError, match="int"):
        call()


@pytest.mark.parametrize("name, value", [("k", -1.0), ("alpha", -1e-4), ("k", float("nan")), ("beta", "0.75")])
def test_lrn_constants_are_checked(name, value):
    with pytest.raises((ValueError, TypeError), match=f"local_response_normalization: {name} must be"):
        F.local_response_normalization(image(3), **{name: value})


def test_a_zero_width_kernel_is_refused():
    with pytest.raises(ValueError, match=r"convolution_2d: W of shape \(1, 1, 0, 1\) has an empty kernel"):
        F.convolution_2d(image(), np.ones((1, 1, 0, 1), np.float32))


def test_require_flag_refuses_strings_and_ints():
    assert checks.require_flag("op", np.bool_(True), "flag") is True
    for bad in ("False", 0, None, 1.0):
        with pytest.raises(TypeError, match="op: flag must be a bool"):
            checks.require_flag("op", bad, "flag")


X4 = np.ones((2, 3, 4, 4), np.float32)
C3 = np.ones(3, np.float32)


@pytest.mark.parametrize("call, op, flag", [
    (lambda v: F.sum(X4, axis=0, keepdims=v), "sum", "keepdims"),
    (lambda v: F.max(X4, axis=0, keepdims=v), "max", "keepdims"),
    (lambda v: F.min(X4, axis=0, keepdims=v), "min", "keepdims"),
    (lambda v: F.prod(X4, axis=0, keepdims=v), "prod", "keepdims"),
    (lambda v: F.mean(X4, axis=0, keepdims=v), "sum", "keepdims"),
    (lambda v: F.matmul(np.ones((2, 2)), np.ones((2, 2)), transa=v), "matmul", "transa"),
    pytest.param(lambda v: F.batch_matmul(np.ones((1, 2, 2)), np.ones((1, 2, 2)), transb=v), "batch_matmul", "transb",
                 marks=pytest.mark.filterwarnings("ignore:batch_matmul is deprecated")),
    (lambda v: F.max_pooling_2d(X4, 2, cover_all=v), "max_pooling_2d", "cover_all"),
    (lambda v: F.convolution_2d(X4, np.ones((1, 3, 1, 1), np.float32), cover_all=v), "convolution_2d", "cover_all"),
    (lambda v: F.sigmoid_cross_entropy(np.zeros((2, 3), np.float32), np.zeros((2, 3), np.int32), normalize=v),
     "sigmoid_cross_entropy", "normalize"),
    (lambda v: F.softmax_cross_entropy(np.zeros((2, 3), np.float32), np.zeros(2, np.int32), normalize=v),
     "softmax_cross_entropy", "normalize"),
], ids=["sum", "max", "min", "prod", "mean", "matmul", "batch_matmul", "max_pooling_2d", "convolution_2d",
        "sigmoid_cross_entropy", "softmax_cross_entropy"])
def test_the_string_false_is_not_a_flag(call, op, flag):
    with pytest.raises(TypeError, match=f"{op}: {flag} must be a bool, got str 'False'"):
        call("False")
    call(False)  # (a real bool still works)
    call(np.bool_(True))


@pytest.mark.parametrize("call, op", [
    (lambda eps: F.batch_normalization(X4, C3, C3 * 0, eps=eps), "batch_normalization"),
    (lambda eps: F.fixed_batch_normalization(X4, C3, C3 * 0, C3 * 0, C3, eps=eps), "fixed_batch_normalization"),
    (lambda eps: F.layer_normalization(np.ones((2, 3), np.float32), C3, C3 * 0, eps=eps), "layer_normalization"),
    (lambda eps: F.group_normalization(X4, 3, C3, C3 * 0, eps=eps), "group_normalization"),
    (lambda eps: F.normalize(np.zeros((2, 3), np.float32), eps=eps), "normalize"),
], ids=["batch", "fixed_batch", "layer", "group", "normalize"])
def test_a_negative_eps_is_refused_not_a_nan(call, op):
    with pytest.raises(ValueError, match=f"{op}: eps must be a non-negative number, got -1.0"):
        call(-1.0)
    with pytest.raises(TypeError, match=f"{op}: eps must be a real number, got str"):
        call("1e-5")
    assert np.isfinite(call(1e-5).array).all()
