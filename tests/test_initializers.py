"""Initializers: the distributions they promise, seeding through numpy.random.Generator, dtype handling."""

import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import backend, initializers

RANDOM = [
    lambda rng: initializers.Normal(0.5, rng=rng),
    lambda rng: initializers.Uniform(0.5, rng=rng),
    lambda rng: initializers.LeCunNormal(rng=rng),
    lambda rng: initializers.GlorotUniform(rng=rng),
    lambda rng: initializers.HeNormal(rng=rng),
]


def fill(init, shape, dtype=np.float64):
    a = np.empty(shape, dtype=dtype)
    init(a)
    return a


@pytest.mark.parametrize("make", RANDOM)
def test_same_seed_same_values_and_generators_advance(make):
    a = fill(make(np.random.default_rng(42)), (6, 5))
    b = fill(make(42), (6, 5))  # an int seed is turned into a Generator
    np.testing.assert_array_equal(a, b)
    rng = np.random.default_rng(42)
    init = make(rng)
    first, second = fill(init, (6, 5)), fill(init, (6, 5))
    np.testing.assert_array_equal(first, a)
    assert not np.array_equal(first, second)
    assert not np.array_equal(a, fill(make(43), (6, 5)))


@pytest.mark.parametrize("make", RANDOM)
def test_default_rng_makes_unseeded_initializers_reproducible(make):
    initializers.set_default_rng(7)
    a = fill(make(None), (4, 3))
    initializers.set_default_rng(np.random.default_rng(7))
    b = fill(make(None), (4, 3))
    np.testing.assert_array_equal(a, b)


def test_distributions_have_the_promised_scale():
    shape = (400, 250)  # fan_in 250, fan_out 400
    n = fill(initializers.Normal(0.3, rng=0), shape)
    assert abs(n.mean()) < 0.01 and abs(n.std() - 0.3) < 0.01
    u = fill(initializers.Uniform(0.3, rng=0), shape)
    assert u.min() >= -0.3 and u.max() <= 0.3 and abs(u.std() - 0.3 / math.sqrt(3)) < 0.005
    lecun = fill(initializers.LeCunNormal(2.0, rng=0), shape)
    assert abs(lecun.std() - 2.0 / math.sqrt(250)) < 0.003
    glorot = fill(initializers.GlorotUniform(rng=0), shape)
    bound = math.sqrt(6 / (250 + 400))
    assert abs(glorot).max() <= bound and abs(glorot).max() > 0.99 * bound
    he_in = fill(initializers.HeNormal(rng=0), shape)
    assert abs(he_in.std() - math.sqrt(2 / 250)) < 0.002
    he_out = fill(initializers.HeNormal(fan_option="fan_out", rng=0), shape)
    assert abs(he_out.std() - math.sqrt(2 / 400)) < 0.002


def test_fans_of_convolution_weights():
    assert initializers.get_fans((8, 3, 5, 5)) == (75, 200)
    with pytest.raises(ValueError, match=r"at least 2 axes .* got \(5,\)"):
        initializers.get_fans((5,))
    with pytest.raises(ValueError, match="at least 2 axes"):
        fill(initializers.LeCunNormal(rng=0), (5,))


def test_constants():
    np.testing.assert_array_equal(fill(initializers.Zero(), (2, 2)), np.zeros((2, 2)))
    np.testing.assert_array_equal(fill(initializers.One(), (3,)), np.ones(3))
    np.testing.assert_array_equal(fill(initializers.Constant(np.array([1.0, 2.0])), (2, 2)), [[1, 2], [1, 2]])
    with pytest.raises(ValueError, match=r"shape \(3,\) cannot fill shape \(2, 2\)"):
        fill(initializers.Constant(np.ones(3)), (2, 2))


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_keeps_the_array_dtype(dtype):
    a = fill(initializers.HeNormal(rng=0), (3, 4), dtype)
    assert a.dtype == dtype and np.isfinite(a).all()
    expected = fill(initializers.HeNormal(rng=0), (3, 4)).astype(dtype)  # drawn in float64, then cast
    np.testing.assert_array_equal(a, expected)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="made for float64"):
        fill(initializers.Normal(dtype=np.float64), (2,), np.float32)
    with pytest.raises(TypeError, match="can only fill floating point arrays, got dtype int32"):
        fill(initializers.One(), (2,), np.int32)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator, an int seed or None, got RandomState"):
        initializers.Normal(rng=np.random.RandomState(0))
    with pytest.raises(ValueError, match="fan_option must be 'fan_in' or 'fan_out'"):
        initializers.HeNormal(fan_option="fan")
    with pytest.raises(TypeError, match="got None"):
        initializers.set_default_rng(None)


def test_parameter_uses_the_initializer_and_its_dtype():
    p = mg.Parameter(initializers.Constant(2.0, dtype=np.float64), (2,))
    assert p.dtype == np.float64 and (p.array == 2).all()
    q = mg.Parameter(initializers.One(), (2,))
    assert q.dtype == np.float32


def test_generate_array():
    a = initializers.generate_array(initializers.Normal(rng=0), (3, 2))
    assert a.shape == (3, 2) and a.dtype == np.float32
    assert initializers.generate_array(initializers.One(), (2,), dtype=np.float16).dtype == np.float16


def test_same_values_on_the_gpu():
    if not backend.is_cupy_available():
        with pytest.raises(RuntimeError, match="needs CuPy"):
            backend.to_gpu(np.ones(1))
        return
    import cupy

    gpu = cupy.empty((4, 3), dtype=cupy.float32)
    initializers.GlorotUniform(rng=3)(gpu)
    np.testing.assert_array_equal(gpu.get(), fill(initializers.GlorotUniform(rng=3), (4, 3), np.float32))
