"""bilinear: the all-or-none rule for V1, V2, b, flattening of e1/e2, cross-check with einsum, errors."""

from __future__ import annotations

import numpy
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L


def test_matches_einsum_and_flattens_trailing_axes():
    rng = numpy.random.default_rng(0)
    e1, e2 = rng.uniform(-1, 1, (3, 2, 2)), rng.uniform(-1, 1, (3, 5))
    W, V1, V2, b = (rng.uniform(-1, 1, s) for s in ((4, 5, 2), (4, 2), (5, 2), (2,)))
    flat = e1.reshape(3, 4)
    expected = numpy.einsum("nj,nk,jkl->nl", flat, e2, W) + flat @ V1 + e2 @ V2 + b
    numpy.testing.assert_allclose(F.bilinear(e1, e2, W, V1, V2, b).array, expected, rtol=1e-12)
    numpy.testing.assert_allclose(F.bilinear(e1, e2, W).array, numpy.einsum("nj,nk,jkl->nl", flat, e2, W),
                                  rtol=1e-12)


def test_gradient_of_e1_is_W_contracted_with_e2():
    rng = numpy.random.default_rng(1)
    e1, e2, W = mg.Variable(rng.uniform(-1, 1, (2, 3))), rng.uniform(-1, 1, (2, 4)), rng.uniform(-1, 1, (3, 4, 2))
    F.sum(F.bilinear(e1, e2, W)).backward()
    numpy.testing.assert_allclose(e1.grad, numpy.einsum("nk,jkl->nj", e2, W), rtol=1e-12)


def test_keeps_float16():
    ones = numpy.ones
    assert F.bilinear(ones((2, 3), numpy.float16), ones((2, 2), numpy.float16),
                      ones((3, 2, 1), numpy.float16)).dtype == numpy.float16


@pytest.mark.parametrize("shapes, error, words", [
    (((2, 3), (2, 2), (3, 2, 1), (3, 1), None, None), ValueError, ["bilinear", "all given or all None", "V1"]),
    (((2, 3), (2, 2), (4, 2, 1)), ValueError, ["bilinear", "(4, 2, 1)", "(2, 3)"]),
    (((2, 3), (3, 2), (3, 2, 1)), ValueError, ["bilinear", "(2, 3)", "(3, 2)"]),
    (((3,), (3,), (3, 3, 1)), ValueError, ["bilinear", "batches"]),
    (((2, 3), (2, 2), (3, 2)), ValueError, ["bilinear", "W", "3 dimensions"]),
    (((2, 3), (2, 2), (3, 2, 1), (3, 2), (2, 1), (1,)), ValueError, ["bilinear", "V1", "(3, 1)", "(3, 2)"]),
])
def test_bad_arguments(shapes, error, words):
    arrays = [None if s is None else numpy.ones(s) for s in shapes]
    with pytest.raises(error) as info:
        F.bilinear(*arrays)
    for word in words:
        assert word in str(info.value)


def test_mixed_dtypes_are_refused():
    with pytest.raises(TypeError, match="bilinear: e2 has dtype float32, but W has dtype float64"):
        F.bilinear(numpy.ones((2, 3)), numpy.ones((2, 2), numpy.float32), numpy.ones((3, 2, 1)))


def test_link_parameters_and_forward():
    layer = L.Bilinear(3, 2, 4, initial_bias=(numpy.ones((3, 4), numpy.float32), numpy.zeros((2, 4), numpy.float32),
                                                numpy.full(4, 2.0, numpy.float32)))
    assert (layer.W.shape, layer.V1.shape, layer.V2.shape, layer.b.shape) == ((3, 2, 4), (3, 4), (2, 4), (4,))
    e1, e2 = numpy.ones((5, 3), numpy.float32), numpy.ones((5, 2), numpy.float32)
    expected = numpy.einsum("nj,nk,jkl->nl", e1, e2, layer.W.array) + 3.0 + 2.0
    numpy.testing.assert_allclose(layer(e1, e2).array, expected, rtol=1e-6)
    assert sorted(name for name, _ in layer.namedparams()) == ["/V1", "/V2", "/W", "/b"]
    bare = L.Bilinear(3, 2, 4, nobias=True)
    assert bare.V1 is None and bare.V2 is None and bare.b is None
    assert [name for name, _ in bare.namedparams()] == ["/W"]
    assert bare(e1, e2).shape == (5, 4)


def test_link_bad_arguments():
    with pytest.raises(ValueError, match="Bilinear: initial_bias must be a tuple of three"):
        L.Bilinear(3, 2, 4, initial_bias=0.0)
    with pytest.raises(ValueError, match="nobias=False"):
        L.Bilinear(3, 2, 4, nobias=True, initial_bias=(0, 0, 0))
    with pytest.raises(ValueError, match="Bilinear: out_size must be positive"):
        L.Bilinear(3, 2, 0)
