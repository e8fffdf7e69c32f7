"""What the stateful recurrent links (L.LSTM, L.GRU) share: their state moves with to_gpu / to_cpu."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad import backend


@pytest.mark.parametrize("make, x_shape", [(lambda: L.LSTM(2, 3), (2, 2)), (lambda: L.GRU(3, 2), (1, 3))],
                         ids=["LSTM", "GRU"])
def test_to_gpu_and_to_cpu_move_the_state_too(make, x_shape):
    link = make()
    link(np.ones(x_shape, np.float32))
    states = link.state_names
    if not backend.is_cupy_available():
        with pytest.raises(RuntimeError, match="needs CuPy and a GPU"):
            link.to_device("@cupy:0")
        assert all(isinstance(getattr(link, name).array, np.ndarray) for name in states)
        return
    import cupy

    link.to_device("@cupy:0")
    assert all(isinstance(getattr(link, name).array, cupy.ndarray) for name in states)
    assert isinstance(link(cupy.ones(x_shape, np.float32)).array, cupy.ndarray)  # the next step runs on the GPU
    link.to_device("@numpy")
    assert all(isinstance(getattr(link, name).array, np.ndarray) for name in states)
