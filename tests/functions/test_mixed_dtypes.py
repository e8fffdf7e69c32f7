"""Mixed input dtypes, as in Chainer: batch and group normalization, linear, convolution and deconvolution,
simplified_dropconnect.

x may have another float dtype than the parameters (float16 x with float32 gamma under ``mixed16``). The op
computes in the promoted dtype, returns x's dtype, and hands each input its gradient in its own dtype. The
registry's ``[... float32]`` / ``[... float16]`` specs check the gradients numerically (first and second
order); these tests hold the dtype rules, the values against a float64 NumPy reference, and the refusals.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import check_backward, check_double_backward

DTYPES = (np.float16, np.float32, np.float64)
PAIRS = [(a, b) for a, b in itertools.product(DTYPES, DTYPES) if a != b]
TOLERANCE = {np.float16: 5e-3, np.float32: 1e-5, np.float64: 1e-12}


def _batch_norm(x, gamma, beta):
    mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
    return (gamma[:, None] * (x - mean[:, None]) / np.sqrt(var[:, None] + 2e-5) + beta[:, None],)


def _fixed_batch_norm(x, gamma, beta, mean, var):
    return (gamma[:, None] * (x - mean[:, None]) / np.sqrt(var[:, None] + 2e-5) + beta[:, None],)


def _conv1d(x, W, b):
    y = np.zeros((x.shape[0], W.shape[0], x.shape[2] - W.shape[2] + 1))
    for i in range(y.shape[2]):
        y[:, :, i] = np.einsum("nck,ock->no", x[:, :, i:i + W.shape[2]], W)
    return (y + b[:, None],)


def _deconv1d(x, W, b):
    y = np.zeros((x.shape[0], W.shape[1], x.shape[2] + W.shape[2] - 1))
    for i in range(x.shape[2]):
        y[:, :, i:i + W.shape[2]] += np.einsum("nc,cok->nok", x[:, :, i], W)
    return (y + b[:, None],)


def _group_norm(x, gamma, beta):  # two groups of the four channels
    blocks = x.reshape(x.shape[0], 2, -1)
    blocks = (blocks - blocks.mean(axis=2, keepdims=True)) / np.sqrt(blocks.var(axis=2, keepdims=True) + 1e-5)
    return (blocks.reshape(x.shape) * gamma[:, None] + beta[:, None],)


# op, (x shape, shapes of the other inputs), the inputs that follow x's dtype, the float64 reference
CASES = {
    "batch_normalization": (F.batch_normalization, ((4, 3, 2), (3,), (3,)), (), _batch_norm),
    "fixed_batch_normalization": (F.fixed_batch_normalization, ((4, 3, 2), (3,), (3,), (3,), (3,)), (),
                                  _fixed_batch_norm),
    "group_normalization": (lambda x, gamma, beta: F.group_normalization(x, 2, gamma, beta),
                            ((3, 4, 2), (4,), (4,)), (), _group_norm),
    "linear": (F.linear, ((3, 4), (2, 4), (2,)), (2,), lambda x, W, b: (x @ W.T + b,)),
    "convolution_2d": (lambda x, W, b: F.convolution_2d(x[..., None], W[..., None], b)[..., 0],
                       ((2, 3, 5), (2, 3, 2), (2,)), (2,), _conv1d),
    "convolution_nd": (F.convolution_nd, ((2, 3, 5), (2, 3, 2), (2,)), (), _conv1d),
    "deconvolution_2d": (lambda x, W, b: F.deconvolution_2d(x[..., None], W[..., None], b)[..., 0],
                         ((2, 3, 4), (3, 2, 2), (2,)), (2,), _deconv1d),
    "deconvolution_nd": (F.deconvolution_nd, ((2, 3, 4), (3, 2, 2), (2,)), (), _deconv1d),
    "simplified_dropconnect": (lambda x, W, b: F.simplified_dropconnect(x, W, b, mask=np.ones((3, 2, 4)),
                                                                        ratio=0.5),
                               ((3, 4), (2, 4), (2,)), (2,), lambda x, W, b: (2 * x @ W.T + b,)),
}


def _inputs(name, x_dtype, other_dtype, seed=0):
    _, shapes, follow_x, _ = CASES[name]
    rng = np.random.default_rng(seed)
    arrays = [rng.uniform(0.5, 1.5, s) for s in shapes]  # positive: var (and gamma) stay valid
    arrays[0] = rng.uniform(-1, 1, shapes[0])
    return [a.astype(x_dtype if i == 0 or i in follow_x else other_dtype) for i, a in enumerate(arrays)]


@pytest.mark.parametrize("x_dtype,other_dtype", PAIRS, ids=[f"x {a.__name__}, W {b.__name__}" for a, b in PAIRS])
@pytest.mark.parametrize("name", list(CASES))
def test_output_in_x_dtype_computed_in_the_promoted_one_gradients_in_their_own(name, x_dtype, other_dtype):
    op, _, _, reference = CASES[name]
    arrays = _inputs(name, x_dtype, other_dtype)
    variables = [mg.Variable(a) for a in arrays]
    y = op(*variables)
    assert y.dtype == x_dtype
    expected, = reference(*(a.astype(np.float64) for a in arrays))
    np.testing.assert_allclose(y.array, expected, atol=TOLERANCE[x_dtype], rtol=TOLERANCE[x_dtype])
    F.sum(y * y.array).backward()
    for v, a in zip(variables, arrays):
        assert v.grad is not None and v.grad.dtype == a.dtype, (v.grad, a.dtype)


@pytest.mark.parametrize("name", list(CASES))
def test_float16_x_with_float32_parameters_checks_to_second_order(name):
    """The mixed16 case, gradients against numerical derivatives (the registry covers the other dtype pairs)."""
    op, _, _, _ = CASES[name]
    arrays = _inputs(name, np.float16, np.float32, seed=1)
    rng = np.random.default_rng(2)
    gy = rng.uniform(-1, 1, op(*arrays).shape).astype(np.float16)
    check_backward(op, arrays, gy, dtype=np.float64)
    check_double_backward(op, arrays, gy, [rng.uniform(-1, 1, a.shape).astype(a.dtype) for a in arrays],
                          dtype=np.float64)


def test_running_statistics_are_updated_in_their_own_dtype():
    rng = np.random.default_rng(3)
    x = rng.uniform(-1, 1, (6, 3)).astype(np.float16)
    running_mean, running_var = np.zeros(3, np.float32), np.ones(3, np.float32)
    F.batch_normalization(x, np.ones(3, np.float32), np.zeros(3, np.float32), running_mean=running_mean,
                          running_var=running_var, decay=0.5)
    x64 = x.astype(np.float64)
    assert running_mean.dtype == running_var.dtype == np.float32
    np.testing.assert_allclose(running_mean, 0.5 * x64.mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(running_var, 0.5 + 0.5 * x64.var(axis=0, ddof=1), rtol=1e-5)


def test_what_must_share_a_dtype_still_does():
    x, half = np.zeros((4, 3)), np.ones(3, np.float16)
    with pytest.raises(TypeError, match="batch_normalization: beta has dtype float64, but gamma has dtype float16"):
        F.batch_normalization(x, half, np.zeros(3))
    with pytest.raises(TypeError, match="fixed_batch_normalization: var has dtype float64, but gamma has dtype"):
        F.fixed_batch_normalization(x, half, half, half, np.ones(3))
    with pytest.raises(TypeError, match="group_normalization: beta has dtype float64, but gamma has dtype float16"):
        F.group_normalization(np.zeros((2, 3, 2)), 3, half, np.zeros(3))
    with pytest.raises(TypeError, match="linear: b has dtype float16, but x has dtype float64"):
        F.linear(x, np.ones((2, 3), np.float32), np.ones(2, np.float16))
    with pytest.raises(TypeError, match="simplified_dropconnect: b has dtype float16, but x has dtype float64"):
        F.simplified_dropconnect(x, np.ones((2, 3), np.float32), np.ones(2, np.float16))
    image, filters = np.zeros((1, 3, 4, 4)), np.ones((2, 3, 2, 2), np.float32)
    for op, W in ((F.convolution_2d, filters), (F.deconvolution_2d, np.ones((3, 2, 2, 2), np.float32))):
        with pytest.raises(TypeError, match=f"{op.__name__}: b has dtype float32, but x has dtype float64"):
            op(image, W, np.ones(2, np.float32))
    # Chainer's N-d ops take a bias of any float dtype
    assert F.convolution_nd(image, filters, np.ones(2, np.float16)).dtype == np.float64
    with pytest.raises(TypeError, match="linear: W must have a floating-point dtype, got int64"):
        F.linear(x, np.ones((2, 3), np.int64))


@pytest.mark.parametrize("size", [4, None])
def test_group_normalization_link_keeps_float32_parameters_under_mixed16(size):
    with mg.using_config("dtype", mg.mixed16):
        gn = L.GroupNormalization(2, size)
    x = mg.Variable(np.random.default_rng(6).uniform(-1, 1, (3, 4, 2)).astype(np.float16))
    y = gn(x)
    assert gn.gamma.dtype == gn.beta.dtype == np.float32 and y.dtype == np.float16
    np.testing.assert_allclose(y.array, _group_norm(x.array.astype(np.float64), np.ones(4), np.zeros(4))[0],
                               atol=5e-3, rtol=5e-3)
    F.sum(y * y.array).backward()
    assert x.grad.dtype == np.float16 and gn.gamma.grad.dtype == np.float32


class TestBatchNormalizationLinkUnderMixed16:
    """``config.dtype = mixed16``: float16 activations, float32 gamma, beta and statistics (Chainer's rule)."""

    def _link(self, lazy=False):
        with mg.using_config("dtype", mg.mixed16):
            return L.BatchNormalization(axis=(0, 2)) if lazy else L.BatchNormalization(3)

    @pytest.mark.parametrize("lazy", [False, True])
    def test_training_step(self, lazy):
        bn = self._link(lazy)
        rng = np.random.default_rng(4)
        x = mg.Variable(rng.uniform(-1, 1, (5, 3, 2)).astype(mg.mixed16))
        y = bn(x)
        assert x.dtype == y.dtype == np.float16
        assert bn.gamma.dtype == bn.beta.dtype == bn.avg_mean.dtype == bn.avg_var.dtype == np.float32
        expected, = _batch_norm(x.array.astype(np.float64), np.ones(3), np.zeros(3))
        np.testing.assert_allclose(y.array, expected, atol=5e-3, rtol=5e-3)
        F.sum(y * rng.uniform(-1, 1, y.shape)).backward()
        assert x.grad.dtype == np.float16 and bn.gamma.grad.dtype == bn.beta.grad.dtype == np.float32

    def test_gradients_with_respect_to_input_and_parameters(self):
        bn = self._link()
        rng = np.random.default_rng(5)
        x = rng.uniform(-1, 1, (5, 3)).astype(np.float16)
        gy = rng.uniform(-1, 1, (5, 3)).astype(np.float16)
        check_backward(bn, (x,), gy, params=(bn.gamma, bn.beta), dtype=np.float64)

    def test_inference_uses_the_float32_statistics(self):
        bn = self._link()
        bn.avg_mean[...] = [0.5, -0.5, 0.0]
        bn.avg_var[...] = [4.0, 0.25, 1.0]
        x = np.array([[1.5, 0.0, 2.0]], np.float16)
        with mg.using_config("train", False):
            y = bn(x)
        assert y.dtype == np.float16
        np.testing.assert_allclose(y.array, [[0.5, 1.0, 2.0]], rtol=1e-3)

    def test_a_lazily_sized_layer_follows_config_dtype_like_a_sized_one(self):
        bn = L.BatchNormalization()
        y = bn(np.ones((2, 4, 3, 3)))  # float64 input, float32 (config.dtype) parameters, as in Chainer
        assert bn.gamma.dtype == bn.avg_var.dtype == np.float32 and y.dtype == np.float64
