"""L.NegativeSampling and L.BlackOut: W's shape and init, samplers drawn from the counts, devices, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import cupy_sim

COUNTS = [10, 1, 4, 0, 25, 7]


@pytest.fixture
def seeded():
    state = np.random.get_state()
    np.random.seed(99)
    yield
    np.random.set_state(state)


def _frequencies(sampler, n=200_000):
    return np.bincount(sampler.sample((n,)), minlength=len(COUNTS)) / n


def test_negative_sampling_w_is_zeros_of_vocab_by_in_size_in_dtype():
    link = L.NegativeSampling(3, COUNTS, sample_size=4)
    assert link.W.shape == (6, 3) and link.W.dtype == np.float32
    np.testing.assert_array_equal(link.W.array, 0)
    assert [name for name, _ in link.namedparams()] == ["/W"]
    assert L.NegativeSampling(3, COUNTS, 4, dtype=np.float64).W.dtype == np.float64
    with mg.using_config("dtype", np.dtype(np.float16)):
        assert L.NegativeSampling(3, COUNTS, 4).W.dtype == np.float16


@pytest.mark.parametrize("power", [0.75, 1.0, 0.3])
def test_negative_sampling_sampler_draws_from_counts_to_the_power(seeded, power):
    link = L.NegativeSampling(3, COUNTS, sample_size=2, power=power)
    expected = np.power(COUNTS, power) / np.power(COUNTS, power).sum()
    np.testing.assert_allclose(_frequencies(link.sampler), expected, atol=4e-3)
    assert abs(expected[4] - np.array(COUNTS)[4] / sum(COUNTS)) > 0.02 or power == 1.0  # the power matters


def test_negative_sampling_forward_is_the_function_with_the_links_samples(seeded):
    link = L.NegativeSampling(4, COUNTS, sample_size=3)
    link.W.array[...] = np.random.uniform(-1, 1, link.W.shape)
    x, t = np.random.uniform(-1, 1, (5, 4)).astype(np.float32), np.array([0, 4, 2, 5, 1])
    loss, samples = link(x, t, reduce="no", return_samples=True)
    assert samples.shape == (5, 4) and (samples[:, 0] == t).all()
    again = F.negative_sampling(x, t, link.W, lambda shape: samples.copy(), 3, reduce="no")
    np.testing.assert_array_equal(loss.array, again.array)
    assert (samples[:, 1:] != 3).all()  # count 0 is never drawn
    loss = link(x, t)
    assert loss.shape == ()
    loss.backward()
    assert link.W.grad.shape == (6, 4)


def test_black_out_w_shape_and_sampler_from_the_counts_unpowered(seeded):
    link = L.BlackOut(3, COUNTS, sample_size=2)
    assert link.W.shape == (6, 3)
    assert np.isnan(link.W.array).all()  # no initializer, as in Chainer: fill it before use
    np.testing.assert_allclose(_frequencies(link.sampler), np.array(COUNTS) / sum(COUNTS), atol=4e-3)


def test_black_out_forward_uses_sample_size_negatives_per_row(seeded):
    link = L.BlackOut(4, COUNTS, sample_size=3)
    link.W.array[...] = np.random.uniform(-1, 1, link.W.shape)
    x, t = np.random.uniform(-1, 1, (5, 4)).astype(np.float32), np.array([0, 4, 2, 5, 1])
    state = np.random.get_state()
    loss = link(x, t)
    np.random.set_state(state)
    samples = link.sampler.sample((5, 3))  # the same draws the link made
    np.testing.assert_array_equal(loss.array, F.black_out(x, t, link.W, samples).array)
    link.cleargrads()  # a new parameter's gradient is NaN until cleared, as in Chainer
    loss.backward()
    assert np.isfinite(link.W.grad).all()


def test_black_out_uses_sample_data_when_set_as_chainers_does(seeded):
    link = L.BlackOut(4, COUNTS, sample_size=3)
    link.W.array[...] = np.random.uniform(-1, 1, link.W.shape)
    x, t = np.random.uniform(-1, 1, (2, 4)).astype(np.float32), np.array([0, 4])
    link.sample_data = np.array([[1, 2, 3], [5, 5, 0]])
    np.testing.assert_array_equal(link(x, t).array, F.black_out(x, t, link.W, link.sample_data).array)
    link.sample_data = np.array([[3, 3, 3], [3, 3, 3]])
    np.testing.assert_array_equal(link(x, t).array, F.black_out(x, t, link.W, link.sample_data).array)


@pytest.mark.parametrize("make", [lambda: L.NegativeSampling(2, COUNTS, 2), lambda: L.BlackOut(2, COUNTS, 2)],
                         ids=["NegativeSampling", "BlackOut"])
def test_to_gpu_and_to_cpu_move_the_sampler_too(make):
    link = make()
    link.W.array[...] = 0.5
    with cupy_sim.install() as cp:
        link.to_device("@cupy:0")
        assert link.sampler.use_gpu and isinstance(link.sampler.sample((2,)), cp.ndarray)
        loss = link(cp.ones((3, 2), np.float32), cp.asarray([0, 1, 2]))
        assert isinstance(loss.array, cp.ndarray)
        link.to_device("@numpy")
    assert not link.sampler.use_gpu and isinstance(link.sampler.sample((2,)), np.ndarray)


@pytest.mark.parametrize("call, error, message", [
    (lambda: L.NegativeSampling(0, COUNTS, 2), ValueError, "NegativeSampling: in_size must be positive, got 0"),
    (lambda: L.NegativeSampling(3, COUNTS, 0), ValueError, "NegativeSampling: sample_size must be positive, got 0"),
    (lambda: L.NegativeSampling(3, COUNTS, 2, dtype=np.int32), TypeError,
     "NegativeSampling: dtype must be a floating-point dtype, got int32"),
    (lambda: L.NegativeSampling(3, [1, -2], 2), ValueError,
     r"NegativeSampling: counts must be a 1-D sequence of non-negative numbers, got shape \(2,\) "
     r"with values \[1.0, -2.0\]"),
    (lambda: L.NegativeSampling(3, [0, 0], 2), ValueError, "WalkerAlias: probs must not all be zero"),
    (lambda: L.BlackOut(3, COUNTS, 0), ValueError, "BlackOut: sample_size must be positive, got 0"),
    (lambda: L.BlackOut(3.5, COUNTS, 2), TypeError, "BlackOut: in_size must be a positive int, got 3.5"),
    (lambda: L.BlackOut(3, [], 2), ValueError, "WalkerAlias: probs must be a non-empty 1-D sequence"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_the_link_calls_the_function_through_its_module_as_chainers_does():
    # Chainer's link tests patch chainer.functions.loss.negative_sampling.negative_sampling and count the calls
    from unittest import mock
    link = L.NegativeSampling(3, [5, 2, 3], 2)
    x, t = np.ones((2, 3), np.float32), np.array([0, 1], np.int32)
    with mock.patch("minigrad.functions.loss.negative_sampling.negative_sampling",
                    wraps=F.negative_sampling) as spy:
        link(x, t)
    assert spy.call_count == 1
