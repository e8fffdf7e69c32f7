"""Initializers: the distributions they promise, seeding through numpy.random.Generator, dtype handling."""

import math

import numpy as np
import pytest

import minigrad as mg
from minigrad import backend, initializers
from minigrad.testing import cupy_sim

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
        fill(initializers.Normal(), (2,), np.int32)
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator, a RandomState, an int seed or None"):
        initializers.Normal(rng=[0])
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


# --- Chainer's rng (a RandomState) and the initializers ported in issue 31 -------------------------
# references written from Chainer 7.8.1's formulas; the same RandomState gives Chainer's values exactly
# (checked beside Chainer 7.8.1 when they were written)

def _drawn(initializer, shape):
    a = np.empty(shape)
    initializer(a)
    return a


@pytest.mark.parametrize("make, reference, shape", [
    (lambda r: initializers.Normal(0.5, rng=r), lambda r, s: r.normal(0.0, 0.5, s), (2, 3)),
    (lambda r: initializers.LeCunUniform(rng=r), lambda r, s: r.uniform(-np.sqrt(3 / 4), np.sqrt(3 / 4), s), (3, 4)),
    (lambda r: initializers.GlorotNormal(2.0, rng=r), lambda r, s: r.normal(0, 2 * np.sqrt(2 / (8 + 6)), s), (3, 4, 2)),
    (lambda r: initializers.HeUniform(rng=r), lambda r, s: r.uniform(-np.sqrt(3.0), np.sqrt(3.0), s), (5, 2)),
])
def test_a_randomstate_rng_draws_what_chainer_draws_from_it(make, reference, shape):
    got = _drawn(make(np.random.RandomState(3)), shape)
    np.testing.assert_allclose(got, reference(np.random.RandomState(3), shape), rtol=1e-12)


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 2), (3, 3)])
def test_orthogonal_rows_or_columns_are_orthonormal_times_scale(shape):
    w = _drawn(initializers.Orthogonal(scale=2.0, rng=np.random.RandomState(0)), shape).reshape(shape[0], -1)
    gram = w @ w.T if w.shape[0] <= w.shape[1] else w.T @ w
    np.testing.assert_allclose(gram, 4.0 * np.eye(min(w.shape)), atol=1e-12)
    a = np.random.RandomState(0).normal(size=w.shape)
    q, r = np.linalg.qr(a if w.shape[0] >= w.shape[1] else a.T)
    expected = q * np.copysign(2.0, np.diag(r))
    np.testing.assert_allclose(w, expected if w.shape[0] >= w.shape[1] else expected.T, atol=1e-12)


def test_orthogonal_modes_and_the_0d_case():
    with pytest.raises(ValueError, match="Orthogonal: cannot make an orthogonal projection of shape"):
        _drawn(initializers.Orthogonal(mode="projection"), (5, 3))
    with pytest.raises(ValueError, match="cannot make an orthogonal embedding"):
        _drawn(initializers.Orthogonal(mode="embedding"), (3, 5))
    with pytest.raises(ValueError, match="mode must be one of"):
        initializers.Orthogonal(mode="square")
    assert abs(float(_drawn(initializers.Orthogonal(rng=np.random.RandomState(1)), ()))) == pytest.approx(1.1)


def test_identity_and_its_shape_check():
    np.testing.assert_array_equal(_drawn(initializers.Identity(0.5), (2, 2)), [[0.5, 0.0], [0.0, 0.5]])
    with pytest.raises(ValueError, match=r"Identity: can only fill a square 2-d array, got shape \(2, 3\)"):
        _drawn(initializers.Identity(), (2, 3))


def test_sampling_filters_are_the_bilinear_kernels_on_the_channel_diagonal():
    up = _drawn(initializers.UpsamplingDeconvFilter(), (2, 2, 4, 4))
    line = np.array([0.25, 0.75, 0.75, 0.25])  # factor 2, center 1.5: 1 - |i - 1.5| / 2
    np.testing.assert_allclose(up[0, 0], np.outer(line, line))
    np.testing.assert_array_equal(up[0, 1], 0)
    down = _drawn(initializers.DownsamplingConvFilter(), (3, 1, 3, 3, 3))
    line = np.array([0.5, 1.0, 0.5])
    np.testing.assert_allclose(down[2, 0], np.einsum("i,j,k->ijk", line, line, line) / 8.0)
    with pytest.raises(ValueError, match="UpsamplingDeconvFilter: the array must be"):
        _drawn(initializers.UpsamplingDeconvFilter(), (2, 3, 4, 4))
    with pytest.raises(ValueError, match="interpolation must be 'linear'"):
        initializers.DownsamplingConvFilter("cubic")


def test_rng_refuses_what_cannot_draw():
    with pytest.raises(TypeError, match="Normal: rng must be a numpy.random.Generator, a RandomState"):
        initializers.Normal(rng="seed")


def test_generate_array_on_a_device_and_with_a_dtype():
    from minigrad.initializers import generate_array
    with mg.using_config("dtype", np.float16):
        assert generate_array(initializers.Zero(), (), device="@numpy").dtype == np.float16
        assert generate_array(initializers.Zero("float64"), (2,), device=mg.get_device(-1)).dtype == np.float64
    with pytest.raises(ValueError, match="dtype float32 was asked for, but the initializer Zero makes float64"):
        generate_array(initializers.Zero("float64"), (2,), dtype="float32")
    with cupy_sim.install() as cp:
        array = generate_array(initializers.One(), (2,), device="@cupy:0")
        assert isinstance(array, cp.ndarray) and float(array.sum()) == 2.0


def test_chainers_module_paths():
    from minigrad.initializers import constant, normal, orthogonal, sampling, uniform
    assert initializers.constant.Zero is constant.Zero is initializers.Zero
    assert (normal.HeNormal, uniform.GlorotUniform, orthogonal.Orthogonal, sampling.UpsamplingDeconvFilter) == (
        initializers.HeNormal, initializers.GlorotUniform, initializers.Orthogonal, initializers.UpsamplingDeconvFilter)


# --- get_initializer: what a link's initialW-style argument means ---------------------------------------------------

def test_get_initializer_reads_none_scalars_arrays_and_callables():
    zero = initializers.Zero()
    assert initializers.get_initializer(None, zero) is zero
    assert type(initializers.get_initializer(None)) is initializers.LeCunNormal  # Chainer's default
    assert initializers.get_initializer(np.sin) is np.sin
    np.testing.assert_array_equal(initializers.generate_array(initializers.get_initializer(2), (3,)), [2, 2, 2])
    filled = initializers.generate_array(initializers.get_initializer(np.arange(3, dtype=np.float16)), (3,))
    assert filled.dtype == np.float32 and filled.tolist() == [0, 1, 2]  # config.dtype, as in Chainer
    assert initializers._get_initializer is initializers.get_initializer  # the name links ported from Chainer call


@pytest.mark.parametrize("value, name", [(True, "bool"), ("ones", "str"), ([1.0], "list")])
def test_get_initializer_refuses_what_is_no_initializer(value, name):
    with pytest.raises(TypeError, match=f"an initializer must be None, a scalar, an array or a callable "
                                        rf"init\(array\), got {name}$"):
        initializers.get_initializer(value)


def test_a_constant_fills_an_integer_array_as_chainers_does():
    np.testing.assert_array_equal(fill(initializers.One(), (2,), np.int32), np.ones(2, np.int32))
    np.testing.assert_array_equal(fill(initializers.get_initializer(np.array([1, 2, 3])), (3,), np.int32), [1, 2, 3])


def test_an_array_initializer_fills_the_dtype_asked_for_else_config_dtype_as_chainers_does():
    init = initializers.get_initializer(np.array([1.0, 2.0], dtype=np.float64))
    assert init.dtype is None
    assert initializers.generate_array(init, (2,)).dtype == np.float32  # config.dtype, not the array's
    with mg.using_config("dtype", np.float64):
        assert initializers.generate_array(init, (2,)).dtype == np.float64
    asked = initializers.generate_array(init, (2,), dtype=np.float16)  # a link's dtype=
    assert asked.dtype == np.float16
    np.testing.assert_array_equal(asked, [1.0, 2.0])
    with pytest.raises(ValueError, match="dtype float16 was asked for, but the initializer Normal makes float32"):
        initializers.generate_array(initializers.Normal(dtype=np.float32), (2,), dtype=np.float16)


def test_a_float64_bias_array_does_not_make_a_float64_bias_as_chainers_does_not():
    # the ported idiom initial_bias=np.zeros(n) (float64): the bias is float32 and float32 inputs go through
    layer = mg.links.Linear(3, 2, initialW=np.ones((2, 3)), initial_bias=np.zeros(2))
    assert layer.W.dtype == layer.b.dtype == np.float32
    assert layer(np.ones((1, 3), dtype=np.float32)).dtype == np.float32
