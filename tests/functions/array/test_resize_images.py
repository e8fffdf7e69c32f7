"""resize_images: against dense interpolation matrices built from Chainer's rules, identities, errors."""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def _matrix(n_in, n_out, mode, align_corners):
    """The (n_out, n_in) interpolation matrix of one axis, from the documented position formulas."""
    m = np.zeros((n_out, n_in))
    for i in range(n_out):
        if mode == "nearest":
            m[i, min(math.floor(i * n_in / n_out), n_in - 1)] = 1.0
            continue
        if align_corners:
            v = 0.0 if n_out == 1 else i * (n_in - 1) / (n_out - 1)
        else:
            v = max((i + 0.5) * n_in / n_out - 0.5, 0.0)
        low = math.floor(v)
        m[i, low] += 1 - (v - low)
        m[i, min(low + 1, n_in - 1)] += v - low
    return m


CASES = [((3, 4), (5, 7), "bilinear", True), ((4, 5), (2, 3), "bilinear", True),
         ((2, 3), (5, 8), "bilinear", False), ((6, 5), (4, 2), "bilinear", False),
         ((3, 4), (7, 5), "nearest", True), ((5, 6), (2, 4), "nearest", False)]


@pytest.mark.parametrize("in_hw, out_hw, mode, align_corners", CASES)
def test_forward_and_gradient_against_dense_matrices(in_hw, out_hw, mode, align_corners):
    rng = np.random.default_rng(4)
    mv, mu = _matrix(in_hw[0], out_hw[0], mode, align_corners), _matrix(in_hw[1], out_hw[1], mode, align_corners)
    x = mg.Variable(rng.standard_normal((2, 3) + in_hw))
    y = F.resize_images(x, out_hw, mode=mode, align_corners=align_corners)
    np.testing.assert_allclose(y.array, np.einsum("ih,nchw,jw->ncij", mv, x.array, mu), rtol=1e-12, atol=1e-12)
    gy = rng.standard_normal(y.shape)
    F.sum(y * gy).backward()
    np.testing.assert_allclose(x.grad, np.einsum("ih,ncij,jw->nchw", mv, gy, mu), rtol=1e-12, atol=1e-12)


def test_worked_values():
    row = np.array([[[[0.0, 4.0]]]])
    np.testing.assert_allclose(F.resize_images(row, (1, 4), align_corners=False).array[0, 0, 0],
                               [0.0, 1.0, 3.0, 4.0])  # positions 0 (clamped), 0.25, 0.75, 1.25 (past the end)
    np.testing.assert_allclose(F.resize_images(row, (1, 3)).array[0, 0, 0], [0.0, 2.0, 4.0])
    column = np.array([0.0, 1.0, 2.0]).reshape(1, 1, 3, 1)
    np.testing.assert_array_equal(F.resize_images(column, (5, 1), mode="nearest").array.ravel(), [0, 0, 1, 1, 2])


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_same_size_is_the_identity(mode):
    x = np.random.default_rng(5).standard_normal((2, 3, 4, 5)).astype(np.float32)
    y = F.resize_images(x, (4, 5), mode=mode, align_corners=True)
    assert y.dtype == np.float32
    np.testing.assert_array_equal(y.array, x)


def test_float16_and_non_contiguous_input():
    base = np.random.default_rng(6).standard_normal((1, 2, 5, 4))
    view = base.transpose(0, 1, 3, 2)[:, :, :, ::2]  # (1, 2, 4, 3), strided
    y = F.resize_images(view.astype(np.float16), (3, 5))
    assert y.dtype == np.float16
    mv, mu = _matrix(4, 3, "bilinear", True), _matrix(3, 5, "bilinear", True)
    np.testing.assert_allclose(y.array, np.einsum("ih,nchw,jw->ncij", mv, view, mu), atol=5e-3, rtol=5e-3)


@pytest.mark.parametrize("x, kwargs, error, words", [
    (np.ones((1, 1, 2, 2)), {"output_shape": (3, 3), "mode": "bicubic"}, ValueError, ["resize_images", "bicubic"]),
    (np.ones((1, 1, 2, 2)), {"output_shape": (3,)}, ValueError, ["resize_images", "(3,)", "(1, 1, 2, 2)"]),
    (np.ones((1, 1, 2, 2)), {"output_shape": (0, 3)}, ValueError, ["resize_images", "positive"]),
    (np.ones((1, 1, 2, 2)), {"output_shape": (2.0, 3)}, ValueError, ["resize_images", "output_shape"]),
    (np.ones((1, 2, 2)), {"output_shape": (3, 3)}, ValueError, ["resize_images", "4 dimensions", "(1, 2, 2)"]),
    (np.ones((1, 1, 0, 2)), {"output_shape": (3, 3)}, ValueError, ["resize_images", "(1, 1, 0, 2)"]),
    (np.ones((1, 1, 2, 2), np.int32), {"output_shape": (3, 3)}, TypeError, ["resize_images", "int32"]),
    (np.ones((1, 1, 2, 2)), {"output_shape": (3, 3), "align_corners": "yes"}, TypeError,
     ["resize_images", "align_corners"]),
])
def test_bad_arguments_name_the_function_and_the_shapes(x, kwargs, error, words):
    with pytest.raises(error) as info:
        F.resize_images(x, **kwargs)
    for word in words:
        assert word in str(info.value)
