"""save_hdf5 / load_hdf5 (h5py, an optional extra): round trips, checks before writing, and without h5py a
RuntimeError that says how to get it; ``import minigrad`` never imports h5py."""

import subprocess
import sys

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad import optimizers, serializers
from minigrad.serializers import hdf5


def test_without_h5py_every_name_says_how_to_get_it(monkeypatch):
    monkeypatch.setattr(hdf5, "_available", False)
    for call in (lambda: serializers.save_hdf5("x.h5", L.Linear(2, 2)), lambda: serializers.load_hdf5("x.h5", None),
                 lambda: serializers.HDF5Serializer(None), lambda: serializers.HDF5Deserializer(None)):
        with pytest.raises(RuntimeError, match=r"h5py is not installed.*minigrad\[hdf5\]"):
            call()


def test_import_minigrad_does_not_import_h5py():
    code = "import sys, minigrad, minigrad.serializers; print('h5py' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


h5py = pytest.importorskip("h5py")


class Model(mg.Chain):
    def __init__(self, n_out=3):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, 5)
            self.bn = L.BatchNormalization(5)
            self.l2 = L.Linear(5, n_out)
            self.lazy = mg.Parameter(shape=None)


def test_a_model_and_its_optimizer_round_trip(tmp_path):
    source, target = Model(), Model()
    optimizer = optimizers.Adam()
    optimizer.setup(source)
    x = np.ones((2, 4), dtype=np.float32)
    source.cleargrads()
    mg.functions.sum(source.l2(source.bn(source.l1(x)))).backward()
    optimizer.update()
    serializers.save_hdf5(tmp_path / "model.h5", source)
    serializers.save_hdf5(tmp_path / "state.h5", optimizer)
    serializers.load_hdf5(tmp_path / "model.h5", target)
    for (name, a), (_, b) in zip(sorted(source.namedparams()), sorted(target.namedparams())):
        if a.array is not None:
            np.testing.assert_array_equal(a.array, b.array, err_msg=name)
    np.testing.assert_array_equal(source.bn.avg_mean, target.bn.avg_mean)
    restored = optimizers.Adam()
    restored.setup(target)
    serializers.load_hdf5(tmp_path / "state.h5", restored)
    assert restored.t == 1
    np.testing.assert_array_equal(restored.target.l1.W.update_rule.state["m"], source.l1.W.update_rule.state["m"])
    with h5py.File(tmp_path / "model.h5", "r") as file:
        assert set(file.keys()) == {"l1", "bn", "l2", "lazy"} and file["lazy"].shape is None


def test_a_file_of_another_model_leaves_the_target_untouched(tmp_path):
    serializers.save_hdf5(tmp_path / "small.h5", Model(n_out=2))
    target = Model()
    before = target.l1.W.array.copy()
    with pytest.raises(ValueError, match="entry 'W' has shape \\(2, 5\\), but the target's array has shape \\(3, 5\\)"):
        serializers.load_hdf5(tmp_path / "small.h5", target)
    np.testing.assert_array_equal(target.l1.W.array, before)  # l1 comes before l2: a one-pass load would write it


def test_missing_entries_and_wrong_kinds(tmp_path):
    serializers.save_hdf5(tmp_path / "stats.h5", {"W": np.zeros((2, 2)), "t": np.float32(1.5)})
    with h5py.File(tmp_path / "stats.h5", "r") as file:
        strict, lenient = serializers.HDF5Deserializer(file), serializers.HDF5Deserializer(file, strict=False)
        with pytest.raises(KeyError, match="no entry 'b'"):
            strict("b", np.zeros(2))
        kept = np.ones(2)
        assert lenient("b", kept) is kept and lenient["child"]("W", kept) is kept
        with pytest.raises(TypeError, match="entry 't' has dtype float32, which cannot fill a int"):
            strict("t", 3)
        y = np.empty((2, 2), dtype=np.float16)
        assert strict("W", y) is y and not y.any()
