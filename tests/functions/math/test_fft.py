"""F.fft / F.ifft: against numpy.fft on (real, imag) pairs, the round trip, gradients, errors."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(7,), (2, 3, 8)])
def test_matches_numpy_fft_and_ifft(shape):
    a, b = RNG.standard_normal(shape), RNG.standard_normal(shape)
    for ours, theirs in ((F.fft, np.fft.fft), (F.ifft, np.fft.ifft)):
        re, im = ours((a, b))
        expected = theirs(a + 1j * b)
        np.testing.assert_allclose(re.array, expected.real, atol=1e-12)
        np.testing.assert_allclose(im.array, expected.imag, atol=1e-12)


def test_float32_stays_float32_and_the_round_trip_is_the_identity():
    a, b = RNG.standard_normal((2, 6)).astype(np.float32), RNG.standard_normal((2, 6)).astype(np.float32)
    re, im = F.ifft(F.fft((a, b)))
    assert re.dtype == im.dtype == np.float32
    np.testing.assert_allclose(re.array, a, atol=1e-5)
    np.testing.assert_allclose(im.array, b, atol=1e-5)


def test_gradients_against_numerical_ones():
    args = (RNG.standard_normal((2, 5)), RNG.standard_normal((2, 5)))
    gys = (RNG.standard_normal((2, 5)), RNG.standard_normal((2, 5)))
    check_backward(lambda a, b: F.fft((a, b)), args, gys)
    check_double_backward(lambda a, b: F.ifft((a, b)), args, gys, gys)


@pytest.mark.parametrize("call, error, message", [
    (lambda: F.fft(np.ones(3)), TypeError, r"fft: x must be a pair \(real, imag\)"),
    (lambda: F.ifft((np.ones(3), np.ones(4))), ValueError, "ifft: real and imag must have one shape"),
    (lambda: F.fft((np.ones(3, np.float32), np.ones(3))), ValueError, "one dtype"),
])
def test_bad_arguments(call, error, message):
    with pytest.raises(error, match=message):
        call()
