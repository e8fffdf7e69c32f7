"""minigrad.utils.conv and conv_nd (Chainer's chainer.utils.conv / conv_nd) against plain loops."""

import itertools

import numpy as np
import pytest

from minigrad.testing import cupy_sim
from minigrad.utils import conv, conv_nd


def loop_outsize(size, k, s, p, cover_all, d):
    """Count the windows by walking them: those that fit, or (cover_all) until one reaches the padded end."""
    span, total = d * (k - 1) + 1, size + 2 * p
    if cover_all:
        count, end = 1, span
        while end < total:
            count, end = count + 1, end + s
        return count
    count, start = 0, 0
    while start + span <= total:
        count, start = count + 1, start + s
    return count


@pytest.mark.parametrize("size, k, s, p, d", [(5, 3, 1, 0, 1), (5, 2, 2, 0, 1), (7, 3, 2, 1, 2), (4, 4, 3, 1, 1)])
def test_output_sizes(size, k, s, p, d):
    for cover_all in (False, True):
        out = conv.get_conv_outsize(size, k, s, p, cover_all, d)
        assert out == loop_outsize(size, k, s, p, cover_all, d)
        if not cover_all:  # the deconvolution of that output gives back an input that yields it
            back = conv.get_deconv_outsize(out, k, s, p, d=d)
            assert conv.get_conv_outsize(back, k, s, p, d=d) == out and back <= size


def loop_im2col(img, ksize, stride, pad, dilate, pval, cover_all):
    dims = img.shape[2:]
    outs = [conv.get_conv_outsize(n, k, s, p, cover_all, d) for n, k, s, p, d in zip(dims, ksize, stride, pad, dilate)]
    col = np.empty(img.shape[:2] + tuple(ksize) + tuple(outs))
    for ks in itertools.product(*map(range, ksize)):
        for os in itertools.product(*map(range, outs)):
            at = [o * s + k * d - p for o, s, k, d, p in zip(os, stride, ks, dilate, pad)]
            inside = all(0 <= a < n for a, n in zip(at, dims))
            col[(slice(None), slice(None)) + ks + os] = img[(slice(None), slice(None)) + tuple(at)] if inside else pval
    return col


@pytest.mark.parametrize("cover_all", [False, True])
def test_im2col_and_col2im_against_loops(cover_all):
    rng = np.random.default_rng(0)
    img = rng.standard_normal((2, 3, 5, 6))
    col = conv.im2col_cpu(img, 3, 2, 2, 1, 1, 0, pval=-7.0, cover_all=cover_all, dy=1, dx=2)
    np.testing.assert_array_equal(col, loop_im2col(img, (3, 2), (2, 1), (1, 0), (1, 2), -7.0, cover_all))
    col[...] = 1  # a new, writable array
    # col2im is the adjoint of im2col (padding 0): <im2col(x), c> == <x, col2im(c)>
    c = rng.standard_normal(col.shape)
    x_dot = np.sum(conv.im2col(img, 3, 2, 2, 1, 1, 0, cover_all=cover_all, dy=1, dx=2) * c)
    np.testing.assert_allclose(x_dot, np.sum(img * conv.col2im_cpu(c, 2, 1, 1, 0, 5, 6, dy=1, dx=2)))
    assert conv.im2col_gpu(img, 3, 2, 2, 1, 1, 0, cover_all, 1, 2).shape == col.shape  # Chainer's order: no pval


def test_nd_forms_against_loops_and_each_other():
    rng = np.random.default_rng(1)
    img = rng.standard_normal((1, 2, 4, 5, 3))
    col = conv_nd.im2col_nd_cpu(img, (2, 3, 2), (2, 1, 1), (1, 0, 1), pval=0.5, dilate=(1, 1, 2))
    np.testing.assert_array_equal(col, loop_im2col(img, (2, 3, 2), (2, 1, 1), (1, 0, 1), (1, 1, 2), 0.5, False))
    c = rng.standard_normal(col.shape)
    zero_pad = conv_nd.im2col_nd_gpu(img, (2, 3, 2), (2, 1, 1), (1, 0, 1), False, (1, 1, 2))
    np.testing.assert_allclose(np.sum(zero_pad * c),
                               np.sum(img * conv_nd.col2im_nd_cpu(c, (2, 1, 1), (1, 0, 1), (4, 5, 3), (1, 1, 2))))
    flat = rng.standard_normal((2, 3, 6, 7))
    np.testing.assert_array_equal(conv_nd.im2col_nd(flat, (3, 2), (2, 2), (1, 0)), conv.im2col(flat, 3, 2, 2, 2, 1, 0))


def test_errors_and_cupy():
    with pytest.raises(ValueError, match="im2col: the output would be 0 x 1"):
        conv.im2col(np.ones((1, 1, 2, 2)), 3, 2, 1, 1, 0, 0)
    with pytest.raises(ValueError, match="as_tuple: expected 2 values, got 3"):
        conv_nd.as_tuple((1, 2, 3), 2)
    with cupy_sim.install() as cp:
        col = conv.im2col_gpu(cp.ones((1, 1, 3, 3)), 2, 2, 1, 1, 0, 0)
        assert isinstance(col, cp.ndarray) and col.shape == (1, 1, 2, 2, 2, 2)
