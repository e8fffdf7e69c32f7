"""Save and load links and optimizers: ``.npz`` archives (:mod:`~minigrad.serializers.npz`) and, with h5py
installed, HDF5 files (:mod:`~minigrad.serializers.hdf5`), under Chainer's names.

The HDF5 names are looked up on first use, so ``import minigrad`` never loads h5py.

Example:
    >>> import io, numpy as np, minigrad as mg
    >>> from minigrad import serializers
    >>> a, b = mg.links.Linear(3, 2), mg.links.Linear(3, 2)
    >>> buffer = io.BytesIO()
    >>> serializers.save_npz(buffer, a)
    >>> _ = buffer.seek(0)
    >>> serializers.load_npz(buffer, b)
    >>> bool((a.W.array == b.W.array).all())
    True
"""

from __future__ import annotations

import importlib
from typing import Any

from minigrad.serializers.npz import DictionarySerializer, NpzDeserializer, load_npz, save_npz

__all__ = ["DictionarySerializer", "NpzDeserializer", "save_npz", "load_npz",
           "HDF5Serializer", "HDF5Deserializer", "save_hdf5", "load_hdf5"]

_HDF5_NAMES = {"HDF5Serializer", "HDF5Deserializer", "save_hdf5", "load_hdf5"}


def __getattr__(name: str) -> Any:
    if name in _HDF5_NAMES or name == "hdf5":
        hdf5 = importlib.import_module("minigrad.serializers.hdf5")
        return hdf5 if name == "hdf5" else getattr(hdf5, name)
    raise AttributeError(f"module 'minigrad.serializers' has no attribute {name!r}")
