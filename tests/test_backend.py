"""backend: array-module selection and device transfers without CuPy."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minigrad as mg
from minigrad import backend


def test_get_array_module_over_arrays_variables_and_scalars():
    assert backend.get_array_module(np.ones(1), mg.Variable(np.ones(1)), 3.0) is np
    assert backend.get_array_module() is np


def test_scatter_add_sums_repeated_indices():
    a = np.zeros(4)
    backend.scatter_add(a, (np.array([1, 1, 3]),), np.array([1.0, 2.0, 5.0]))
    np.testing.assert_array_equal(a, [0.0, 3.0, 0.0, 5.0])


def test_to_cpu_of_arrays_and_variables():
    a = np.ones(2)
    assert backend.to_cpu(a) is a
    x = mg.Variable(a)
    assert backend.to_cpu(x) is x and x.array is a


@pytest.mark.skipif(backend.is_cupy_available(), reason="checks the error raised without CuPy")
def test_to_gpu_without_cupy_says_how_to_install_it():
    with pytest.raises(RuntimeError, match=r"minigrad\[cuda\]"):
        backend.to_gpu(np.ones(2))


@pytest.mark.gpu
def test_round_trip_through_the_gpu():
    x = mg.Variable(np.arange(3.0))
    x.to_gpu()
    assert backend.get_array_module(x) is not np
    y = mg.functions.sum(x * x)
    y.backward()
    x.to_cpu()
    np.testing.assert_array_equal(x.grad, [0.0, 2.0, 4.0])


def test_import_minigrad_is_light():
    import subprocess
    import sys

    code = ("import sys, minigrad; heavy = [m for m in ('pytest', 'hypothesis', 'sphinx', 'matplotlib', 'cupy', "
            "'scipy', 'sklearn', 'minigrad.testing') if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_using_cupy_swaps_the_cupy_module_for_the_block_only():
    before = backend.cupy_or_none()
    stand_in = type(sys)("stand_in")
    with backend.using_cupy(stand_in):
        assert backend.cupy_or_none() is stand_in and backend.is_cupy_available()
        with backend.using_cupy(None):
            assert not backend.is_cupy_available()
        assert backend.cupy_or_none() is stand_in
    assert backend.cupy_or_none() is before
