"""get_dtype and mixed16: Chainer's default-dtype resolution."""

import pickle

import numpy as np
import pytest

import minigrad as mg


def test_get_dtype_resolves_none_to_config_dtype_and_mixed16_to_float16_or_the_mapping():
    assert mg.get_dtype() == np.float32
    assert mg.get_dtype("float64") == np.float64
    with mg.using_config("dtype", np.dtype(np.float16)):
        assert mg.get_dtype() == np.float16
        assert mg.get_dtype(map_mixed16=np.float32) == np.float16  # the mapping is for mixed16 only
    with mg.using_config("dtype", mg.mixed16):
        assert mg.get_dtype() == np.float16
        assert mg.get_dtype(map_mixed16=np.float32) == np.float32
        assert mg.links.Linear(2, 3).W.dtype == np.float16  # parameters are stored in float16
        assert mg.initializers.generate_array(mg.initializers.One(), (2,)).dtype == np.float16


def test_mixed16_is_a_singleton_that_survives_pickling():
    assert pickle.loads(pickle.dumps(mg.mixed16)) is mg.mixed16
    assert repr(mg.mixed16) == "mixed16"


def test_a_bad_dtype_names_get_dtype():
    with pytest.raises(TypeError, match="get_dtype: 'float99' is not a dtype"):
        mg.get_dtype("float99")


def test_numpy_reads_mixed16_as_its_float16_storage_as_chainers():
    assert np.dtype(mg.mixed16) == np.float16
    assert np.ones(2).astype(mg.mixed16).dtype == np.float16  # (Chainer's link tests draw inputs this way)
