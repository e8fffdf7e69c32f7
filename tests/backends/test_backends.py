"""minigrad.backends: Chainer's chainer.backends paths (cuda, cpu/_cpu, intel64) over minigrad.backend."""

import subprocess
import sys

import numpy as np
import pytest

from minigrad import backend
from minigrad.backends import _cpu, cpu, cuda, intel64
from minigrad.testing import cupy_sim


def test_importing_them_loads_no_cupy():
    code = "import sys, minigrad.backends.cuda, minigrad.backends.intel64; print('cupy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_without_a_gpu_the_host_helpers_work_and_the_gpu_ones_say_why():
    with backend.using_cupy(None):
        assert cuda.available is False and cuda.cupy is None and cuda.cudnn_enabled is False
        assert not isinstance(np.ones(2), cuda.ndarray)
        assert cuda.get_device_from_id(None) is cuda.DummyDevice and cuda.get_device_from_id(-1) is cuda.DummyDevice
        assert cuda.get_device_from_array(np.ones(2)) is cuda.DummyDevice and int(cuda.DummyDevice) == -1
        with cuda.DummyDevice as device:
            assert device == cuda.DummyDevice
        x = np.ones(2)
        assert cuda.to_cpu(x) is x and cuda.to_cpu(None) is None
        assert cuda.get_array_module(x) is np
        for call in (lambda: cuda.to_gpu(x), lambda: cuda.get_device_from_id(0), lambda: cuda.copy(x),
                     cuda.check_cuda_available):
            with pytest.raises(RuntimeError, match="CUDA is not available.*pip install minigrad\\[cuda\\]"):
                call()


def test_with_cupy_they_move_arrays():
    with cupy_sim.install() as cp:
        assert cuda.available is True and cuda.cupy is cp and cuda.ndarray is cp.ndarray
        xs = cuda.to_gpu([np.arange(3.0), None])
        assert isinstance(xs, list) and isinstance(xs[0], cp.ndarray) and xs[1] is None
        assert cuda.get_device_from_array(xs[0]).id == 0 and cuda.get_device_from_id(0).id == 0
        y = cuda.copy(xs[0])
        assert y is not xs[0]
        np.testing.assert_array_equal(cuda.to_cpu(y), [0.0, 1.0, 2.0])


def test_cpu_and_intel64():
    assert cpu.CpuDevice is _cpu.CpuDevice is backend.CpuDevice
    assert intel64.is_ideep_available() is False and intel64.should_use_ideep("always") is False
    assert not intel64.inputs_all_ready((np.ones((2, 2)),)) and not isinstance(np.ones(2), intel64.mdarray)
    with pytest.raises(RuntimeError, match="no iDeep backend"):
        intel64.check_ideep_available()
