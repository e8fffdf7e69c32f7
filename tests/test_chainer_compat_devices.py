"""Chainer v7 parity of devices, as far as NumPy and CuPy go (chainer.get_device, chainer.using_device,
chainer.backend.get_device_from_array, CpuDevice/GpuDevice, Variable.device/to_device)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import backend
from minigrad.testing import cupy_sim

needs_gpu = pytest.mark.skipif(not backend.is_cupy_available(), reason="needs CuPy and a GPU")


@pytest.mark.parametrize("spec", ["@numpy", -1, -5, "-1", np, np.int64(-1), backend.CpuDevice()])
def test_host_specifiers(spec):
    device = mg.get_device(spec)
    assert isinstance(device, backend.CpuDevice) and device.xp is np and device.name == "@numpy"
    assert device == backend.CpuDevice() and repr(device) == "<CpuDevice (numpy)>"


@pytest.mark.parametrize("spec, kind", [("native", "ChainerX"), ("native:0", "ChainerX"), ("cuda:0", "ChainerX"),
                                        ("@intel64", "iDeep")])
def test_chainerx_and_ideep_specifiers_are_clear_errors(spec, kind):
    with pytest.raises(ValueError, match=f"{kind} device"):
        mg.get_device(spec)


@pytest.mark.parametrize("spec, error", [("@cupy:x", ValueError), ("gpu", ValueError), (1.5, TypeError),
                                         (True, TypeError), (None, TypeError)])
def test_malformed_specifiers(spec, error):
    with pytest.raises(error):
        mg.get_device(spec)


def test_get_device_from_array():
    assert backend.get_device_from_array(np.zeros(2)) == backend.CpuDevice()
    with pytest.raises(ValueError, match="get_device_from_array"):
        backend.get_device_from_array([1.0])
    assert backend.get_device_from_array(mg.Variable(np.ones(1))) == backend.CpuDevice()  # (Chainer: arrays only)
    with cupy_sim.install() as cp:
        on_gpu = mg.Variable(cp.ones(1))
        assert backend.get_device_from_array(np.ones(1), on_gpu) == mg.get_device("@cupy:0")  # the first off the host


def test_using_the_host_device():
    with mg.using_device("@numpy") as device:
        assert device == backend.CpuDevice()
    with mg.using_device(-1):
        pass


def test_variable_device_and_to_device_on_the_host():
    x = mg.Variable(np.ones(2), grad=np.ones(2))
    assert x.device == backend.CpuDevice() and mg.Variable().device == backend.CpuDevice()
    array = x.array
    x.to_device("@numpy")
    assert x.array is array  # already there: no copy
    with pytest.raises(ValueError, match="ChainerX"):
        x.to_device("native:0")


def test_uninitialized_parameter_remembers_its_device():
    p = mg.Parameter(mg.initializers.One())
    p.to_device(-1)
    assert p.device == backend.CpuDevice()
    p.initialize((2,))
    assert isinstance(p.array, np.ndarray)


@pytest.mark.skipif(backend.is_cupy_available(), reason="checks the message shown without CuPy")
def test_gpu_specifiers_without_cupy_say_how_to_install_it():
    for spec in ("@cupy:0", 0):
        with pytest.raises(RuntimeError, match="pip install minigrad\\[cuda\\]"):
            mg.get_device(spec)


@needs_gpu
def test_gpu_device_round_trip():
    import cupy

    for spec in ("@cupy:0", 0, cupy.cuda.Device(0), cupy):
        device = mg.get_device(spec)
        assert isinstance(device, backend.GpuDevice) and device.name == "@cupy:0" and device.xp is cupy
    x = mg.Variable(np.arange(3.0), grad=np.ones(3))
    x.to_device("@cupy:0")
    assert isinstance(x.array, cupy.ndarray) and isinstance(x.grad, cupy.ndarray)
    assert x.device == backend.GpuDevice.from_device_id(0) == backend.get_device_from_array(x.array)
    with mg.using_device(0):
        assert cupy.cuda.Device().id == 0
    x.to_device(-1)
    assert isinstance(x.array, np.ndarray) and isinstance(x.grad, np.ndarray)
    p = mg.Parameter(mg.initializers.One())
    p.to_device("@cupy:0")
    p.initialize((2,))
    assert isinstance(p.array, cupy.ndarray) and isinstance(p.grad, cupy.ndarray)
    link = mg.links.Linear(2, 2).to_device(0)
    assert link.xp is cupy and isinstance(link.W.array, cupy.ndarray)


def test_send_array_sends_one_array_like_send():
    device = backend.CpuDevice()
    a = np.ones(2)
    assert device.send_array(a) is a
    np.testing.assert_array_equal(device.send_array([1.0, 2.0]), [1.0, 2.0])


def test_get_array_types_is_numpys_and_cupys_when_cupy_is_there():
    if backend.cupy_or_none() is None:
        assert mg.get_array_types() == (np.ndarray,)
    with cupy_sim.install() as cp:
        assert mg.get_array_types() == (np.ndarray, cp.ndarray)
        assert isinstance(cp.zeros(2), mg.get_array_types())
