"""minigrad.utils.WalkerAlias: its samples follow probs (chi-square on a large seeded sample), devices, errors."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.testing import cupy_sim
from minigrad.utils import WalkerAlias


@pytest.fixture
def seeded():
    state = np.random.get_state()
    np.random.seed(1234)
    yield
    np.random.set_state(state)


def _chi_square(draws, probs):
    probs = np.asarray(probs, dtype=np.float64) / np.sum(probs)
    observed = np.bincount(draws.ravel(), minlength=len(probs))
    expected = probs * draws.size
    support = expected > 0
    assert observed[~support].sum() == 0, "drew a value whose probability is 0"
    return float((((observed - expected) ** 2)[support] / expected[support]).sum()), int(support.sum()) - 1


@pytest.mark.parametrize("probs", [[5, 3, 4, 1, 2], [1.0], [0.0, 2.0, 0.0, 1e-3, 7.0], np.arange(1, 40) ** 0.75])
def test_samples_follow_probs(seeded, probs):
    draws = WalkerAlias(probs).sample((400, 500))
    assert draws.shape == (400, 500) and draws.dtype == np.int32
    statistic, dof = _chi_square(draws, probs)
    # mean dof, sd sqrt(2 dof): 6 sd above is never reached by a correct sampler with this seed (or almost any)
    assert statistic <= dof + 6 * np.sqrt(2 * max(dof, 1)), (statistic, dof)


def test_a_skewed_sampler_is_caught_by_the_same_test(seeded):
    """The chi-square bound can fail: draws from slightly different probabilities exceed it."""
    draws = WalkerAlias([5, 3, 4, 1, 2.2]).sample((400, 500))
    statistic, dof = _chi_square(draws, [5, 3, 4, 1, 2])
    assert statistic > dof + 6 * np.sqrt(2 * dof)


def test_seeding_numpy_repeats_the_draws():
    sampler = WalkerAlias([1, 2, 3])
    state = np.random.get_state()
    try:
        np.random.seed(7)
        first = sampler.sample((3, 4))
        np.random.seed(7)
        np.testing.assert_array_equal(sampler.sample((3, 4)), first)
    finally:
        np.random.set_state(state)


def test_int_shape_and_empty_shape():
    sampler = WalkerAlias([1, 1])
    assert sampler.sample(5).shape == (5,)
    assert sampler.sample((0, 3)).shape == (0, 3)


def test_to_gpu_draws_cupy_arrays_and_to_cpu_back():
    sampler = WalkerAlias([1.0, 0.0, 3.0])
    with cupy_sim.install() as cp:
        assert sampler.to_gpu() is sampler and sampler.use_gpu
        draws = sampler.sample((2000,))
        assert isinstance(draws, cp.ndarray) and draws.dtype == np.int32
        host = cp.asnumpy(draws)
        assert set(host.tolist()) <= {0, 2}
        assert abs((host == 2).mean() - 0.75) < 0.05
        sampler.to_cpu()
    assert not sampler.use_gpu and isinstance(sampler.sample((3,)), np.ndarray)


def test_device_and_to_device_as_chainers_device_resident():
    import minigrad as mg

    sampler = WalkerAlias([1.0, 0.0, 3.0])
    assert sampler.device == mg.get_device("@numpy")
    with cupy_sim.install() as cp:
        assert sampler.to_device("@cupy:0") is sampler and sampler.use_gpu
        assert sampler.device == mg.get_device("@cupy:0") and isinstance(sampler.sample((2,)), cp.ndarray)
        sampler.to_device(-1)
    assert not sampler.use_gpu and sampler.device == mg.get_device("@numpy")


@pytest.mark.parametrize("probs, error, message", [
    ("abc", TypeError, "WalkerAlias: probs must be a list or a 1-D array of weights, got str"),
    (3.0, TypeError, "WalkerAlias: probs must be a list or a 1-D array of weights, got float"),
    ([], ValueError, r"WalkerAlias: probs must be a non-empty 1-D sequence, got shape \(0,\)"),
    ([[1, 2]], ValueError, r"WalkerAlias: probs must be a non-empty 1-D sequence, got shape \(1, 2\)"),
    ([1, -1], ValueError, "WalkerAlias: probs must be finite and non-negative"),
    ([1, np.nan], ValueError, "WalkerAlias: probs must be finite and non-negative"),
    ([0, 0], ValueError, "WalkerAlias: probs must not all be zero"),
])
def test_bad_probs(probs, error, message):
    with pytest.raises(error, match=message):
        WalkerAlias(probs)
