"""Links check their sizes and hyperparameters when they are built (issue 27): before, a huge size tried to
allocate terabytes (MemoryError after minutes, or the machine's memory), a zero kernel divided by zero in the
initializer, a size of 0 or -1 gave an empty or a bare NumPy error, and a NaN eps was accepted."""

from __future__ import annotations

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L

CASES = [
    (lambda: L.Convolution2D(1, 2, 0), ValueError, "Convolution2D: ksize must be positive, got 0"),
    (lambda: L.Convolution2D(1, 2, (3, -1)), ValueError, "Convolution2D: ksize must be positive, got -1"),
    (lambda: L.Deconvolution2D(1, 2, 0), ValueError, "Deconvolution2D: ksize must be positive, got 0"),
    (lambda: L.ConvolutionND(3, 1, 2, (2, 0, 2)), ValueError, "ConvolutionND: ksize must be positive, got 0"),
    (lambda: L.Convolution2D(2 ** 40, 2, 3), ValueError, r"in_channels=1099511627776 is larger than the size limit"),
    (lambda: L.Convolution2D(2 ** 16, 2 ** 16, 3), ValueError,
     r"Parameter 'W': shape would make an array of shape \(65536, 65536, 3, 3\)"),
    (lambda: L.EmbedID(2 ** 20, 2 ** 20), ValueError, r"shape would make an array of shape \(1048576, 1048576\)"),
    (lambda: L.EmbedID(5, 2 ** 40), ValueError, "EmbedID: out_size=1099511627776 is larger than the size limit"),
    (lambda: L.BatchNormalization(0), ValueError, "BatchNormalization: size must be positive, got 0"),
    (lambda: L.BatchNormalization(-1), ValueError, "BatchNormalization: size must be positive, got -1"),
    (lambda: L.BatchNormalization(2.5), TypeError, "BatchNormalization: size must be a positive int, got 2.5"),
    (lambda: L.BatchNormalization(2 ** 40), ValueError, "BatchNormalization: size=1099511627776 is larger than"),
    (lambda: L.BatchNormalization(3, eps=math.nan), ValueError, "BatchNormalization: eps must be a positive number"),
    (lambda: L.BatchNormalization(3, decay=math.nan), ValueError, "BatchNormalization: decay must be a finite"),
    (lambda: L.BatchNormalization(3, eps="x"), TypeError, "BatchNormalization: eps must be a real number"),
    (lambda: L.LayerNormalization(3, eps=math.inf), ValueError, "LayerNormalization: eps must be a positive number"),
    (lambda: L.GroupNormalization(1, 3, eps=math.nan), ValueError, "GroupNormalization: eps must be a positive"),
    (lambda: L.LayerNormalization(2 ** 40), ValueError, "LayerNormalization: size=1099511627776 is larger than"),
    (lambda: mg.Parameter(mg.initializers.One(), (2.5, 3)), TypeError, r"Parameter: .*2\.5"),
    (lambda: mg.Parameter(mg.initializers.One(), (-1, 3)), ValueError, "Parameter: shape .* has a negative size"),
]


@pytest.mark.parametrize("build, error, message", CASES, ids=[m[:40] for _, _, m in CASES])
def test_a_bad_size_or_hyperparameter_is_refused_before_anything_is_allocated(build, error, message):
    with pytest.raises(error, match=message):
        build()


def test_valid_arguments_still_build_and_run():
    x = np.ones((2, 1, 5, 5), np.float32)
    assert L.Convolution2D(1, 2, (3, 1))(x).shape == (2, 2, 3, 5)
    assert L.BatchNormalization(3, eps=1e-3, decay=0.5)(np.ones((4, 3), np.float32)).shape == (4, 3)
    assert L.BatchNormalization((2, 3))(np.ones((4, 2, 3), np.float32)).shape == (4, 2, 3)
    assert L.EmbedID(5, 2)(np.array([0, 4], np.int32)).shape == (2, 2)
    assert mg.Parameter(mg.initializers.One(), 3).shape == (3,)
