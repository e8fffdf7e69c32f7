"""L.BatchNormalization: batch statistics in training, running averages in inference, gradients, persistence."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


def normalize(x, gamma, beta, mean, var, eps, axes):
    shape = [1 if i in axes else n for i, n in enumerate(x.shape)]
    return gamma.reshape(shape) * (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) + beta.reshape(shape)


class TestBatchNormalizationTrain(LinkTestCase):
    check_backward_options = {"float16": {"atol": 1e-2, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 1e-2, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(0.5, 1.5, 3), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        gamma, beta = initializers
        return L.BatchNormalization(3, eps=1e-3, initial_gamma=gamma, initial_beta=beta, dtype=self.dtype)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3, 2)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        mean, var = x.mean(axis=(0, 2)), x.var(axis=(0, 2))
        return normalize(x, link.gamma.array.astype(np.float64), link.beta.array.astype(np.float64),
                         mean, var, 1e-3, (0, 2)),


class TestBatchNormalizationInference(LinkTestCase):
    """``config.train = False``: a fixed affine map built from avg_mean / avg_var."""

    def generate_params(self):
        return self.rng.uniform(0.5, 1.5, 3), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        gamma, beta = initializers
        link = L.BatchNormalization(3, initial_gamma=gamma, initial_beta=beta, dtype=self.dtype,
                                    initial_avg_mean=self.rng.uniform(-1, 1, 3).astype(self.dtype),
                                    initial_avg_var=self.rng.uniform(0.5, 2, 3).astype(self.dtype))
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype),

    def forward(self, link, inputs):
        with mg.using_config("train", False):
            return link(*inputs)

    def forward_expected(self, link, inputs):
        x, = inputs
        as64 = [a.astype(np.float64) for a in (link.gamma.array, link.beta.array, link.avg_mean, link.avg_var)]
        return normalize(x, *as64, 2e-5, (0,)),


def test_running_statistics_follow_the_decay_rule():
    rng = np.random.default_rng(0)
    bn = L.BatchNormalization(2, decay=0.8)
    mean, var = np.zeros(2), np.ones(2)
    for _ in range(3):
        x = rng.standard_normal((5, 2)).astype(np.float32)
        bn(x)
        mean = 0.8 * mean + 0.2 * x.mean(axis=0)
        var = 0.8 * var + 0.2 * x.var(axis=0, ddof=1)
    np.testing.assert_allclose(bn.avg_mean, mean, rtol=1e-5)
    np.testing.assert_allclose(bn.avg_var, var, rtol=1e-5)


def test_inference_uses_running_statistics_and_leaves_them_alone():
    bn = L.BatchNormalization(2, initial_avg_mean=np.array([1.0, 2.0], np.float32),
                              initial_avg_var=np.array([4.0, 9.0], np.float32), eps=1e-8)
    x = np.array([[3.0, 5.0]], dtype=np.float32)  # a batch of one: batch statistics would be degenerate
    with mg.using_config("train", False):
        y = bn(x)
    np.testing.assert_allclose(y.array, [[1.0, 1.0]], rtol=1e-5)
    np.testing.assert_array_equal(bn.avg_mean, [1.0, 2.0])
    train_y = bn(np.array([[3.0, 5.0], [5.0, 5.0]], dtype=np.float32))
    assert not np.allclose(train_y.array[0], [1.0, 1.0])
    assert not np.array_equal(bn.avg_mean, [1.0, 2.0])


def test_finetune_averages_all_batches_equally():
    bn = L.BatchNormalization(1)
    batches = [np.array([[1.0], [3.0]], np.float32), np.array([[5.0], [9.0]], np.float32)]
    for x in batches:
        bn(x, finetune=True)
    assert bn.N == 2
    np.testing.assert_allclose(bn.avg_mean, [np.mean([2.0, 7.0])])
    bn.start_finetuning()
    assert bn.N == 0


def test_lazy_size_axis_and_fixed_gamma_beta():
    bn = L.BatchNormalization()
    bn(np.ones((2, 4, 3, 3), np.float32))
    assert bn.gamma.shape == (4,) and bn.avg_var.shape == (4,)
    per_feature = L.BatchNormalization((3, 2), axis=0)
    assert per_feature(np.random.default_rng(0).standard_normal((5, 3, 2)).astype(np.float32)).shape == (5, 3, 2)
    plain = L.BatchNormalization(2, use_gamma=False, use_beta=False)
    assert [name for name, _ in plain.namedparams()] == []
    y = plain(np.array([[0.0, 2.0], [2.0, 6.0]], dtype=np.float32))
    np.testing.assert_allclose(y.array, [[-1, -1], [1, 1]], atol=1e-4)


def test_persistents_are_registered():
    bn = L.BatchNormalization(3)
    assert bn._persistent == ["avg_mean", "avg_var", "N"]


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"decay must be in \[0, 1\], got 1.5"):
        L.BatchNormalization(3, decay=1.5)
    with pytest.raises(ValueError, match="eps must be a positive number"):
        L.BatchNormalization(3, eps=0)
    with pytest.raises(ValueError, match=r"batch_normalization: gamma must have shape \(4,\)"):
        L.BatchNormalization(3)(np.ones((2, 4), dtype=np.float32))


@pytest.mark.parametrize("dtype", [np.float16, np.float64])
def test_the_parameters_follow_config_dtype_as_in_chainer(dtype):
    with mg.using_config("dtype", np.dtype(dtype)):
        bn = L.BatchNormalization(3)
    for array in (bn.gamma.array, bn.beta.array, bn.avg_mean, bn.avg_var):
        assert array.dtype == dtype
    with mg.using_config("dtype", mg.mixed16):  # Chainer keeps normalizations in float32 under mixed16
        assert L.BatchNormalization(3).gamma.dtype == np.float32
    assert L.BatchNormalization(3, dtype=np.float64).avg_mean.dtype == np.float64


@pytest.mark.parametrize("finetune", [False, True])
def test_under_forget_the_running_statistics_are_updated_once(finetune):
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    plain, forgotten = L.BatchNormalization(3), L.BatchNormalization(3)
    F.sum(plain(x, finetune=finetune) ** 2).backward()
    xv = mg.Variable(x.copy())
    F.sum(F.forget(lambda v: forgotten(v, finetune=finetune), xv) ** 2).backward()
    np.testing.assert_allclose(forgotten.avg_mean, plain.avg_mean)  # Chainer 7.8.1: [0.45, 0.55, 0.65]
    np.testing.assert_allclose(forgotten.avg_var, plain.avg_var)
    assert forgotten.N == plain.N
    np.testing.assert_allclose(forgotten.gamma.grad, plain.gamma.grad, rtol=1e-5)


def test_batch_renormalization_under_forget_recomputes_with_the_statistics_of_the_first_call():
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    plain, forgotten = L.BatchRenormalization(3, rmax=1.5, dmax=0.5), L.BatchRenormalization(3, rmax=1.5, dmax=0.5)
    xa, xb = mg.Variable(x.copy()), mg.Variable(x.copy())
    F.sum(plain(xa) ** 2).backward()
    F.sum(F.forget(forgotten, xb) ** 2).backward()
    np.testing.assert_allclose(forgotten.avg_var, plain.avg_var)
    np.testing.assert_allclose(xb.grad, xa.grad, rtol=1e-5)


def test_an_initial_array_of_another_dtype_is_cast_to_the_links_dtype_as_in_chainer():
    gamma = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    link = L.BatchNormalization(3, dtype=np.float16, initial_gamma=gamma, initial_beta=gamma * 0)
    assert link.gamma.dtype == link.beta.dtype == link.avg_mean.dtype == np.float16
    np.testing.assert_array_equal(link.gamma.array, gamma)


def test_finetune_is_keyword_only_and_chainer_1s_test_argument_is_refused_as_in_chainer():
    link, x = L.BatchNormalization(3), np.ones((2, 3), np.float32)
    with pytest.raises(TypeError):
        link(x, True)
    with pytest.raises(ValueError, match="test argument is not supported anymore.*using_config"):
        link(x, test=True)
    with pytest.raises(TypeError, match="unknown_argument"):
        link(x, unknown_argument=1)
    assert L.BatchRenormalization(3)(x, True).shape == (2, 3)  # Chainer's renormalization takes it positionally
