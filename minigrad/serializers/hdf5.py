"""The HDF5 format: ``save_hdf5`` / ``load_hdf5`` and their serializers (Chainer's ``serializers.hdf5``).

HDF5 needs h5py, an optional extra (``pip install minigrad[hdf5]``); without
it every name here raises ``RuntimeError`` saying so, and ``_available`` is
False (as in Chainer). h5py is imported on first use, never by ``import
minigrad``. A Link's hierarchy becomes HDF5 groups (``child/linear/W``), each
value one dataset; ``None`` (an uninitialized parameter) is an empty dataset.

Loading checks every entry (present, same shape, a dtype of the same kind)
before it writes any, as ``load_npz`` does, so a file from another model leaves
the target untouched. HDF5 datasets hold plain arrays: nothing is unpickled.

Example:
    >>> import os, tempfile, numpy as np, minigrad as mg
    >>> from minigrad.serializers import hdf5
    >>> if hdf5._available:
    ...     a, b = mg.links.Linear(3, 2), mg.links.Linear(3, 2)
    ...     path = os.path.join(tempfile.mkdtemp(), "model.h5")
    ...     hdf5.save_hdf5(path, a)
    ...     hdf5.load_hdf5(path, b)
    ...     assert (a.W.array == b.W.array).all()
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import numpy

from minigrad import backend
from minigrad.serializers.npz import _check_scalar_cast

__all__ = ["HDF5Serializer", "HDF5Deserializer", "save_hdf5", "load_hdf5"]

# (find_spec costs no import; it is None where h5py is missing or blocked with sys.modules["h5py"] = None)
_available = importlib.util.find_spec("h5py") is not None
_SCALAR_TYPES = (bool, int, float, str)


def _h5py(where: str) -> Any:
    """h5py, or a RuntimeError that says how to get it."""
    if not _available:
        raise RuntimeError(f"{where}: h5py is not installed; the HDF5 serializers need it "
                           f"(pip install h5py, or minigrad[hdf5]). save_npz / load_npz need nothing extra")
    import h5py
    return h5py


def _require_serializable(where: str, obj: Any) -> None:
    if not hasattr(obj, "serialize"):
        raise TypeError(f"{where}: expected a Link or an Optimizer, got {type(obj).__name__}")


def _key(key: str, where: str) -> str:
    stripped = key.strip("/")
    if not stripped:
        raise ValueError(f"{where}: empty key {key!r}")
    return stripped


class HDF5Serializer:
    """Writes ``serialize``'s values into an HDF5 group (``group``: an ``h5py.Group`` or an open ``h5py.File``).

    Args:
        group: where the values go; a child link gets a child group.
        compression: gzip level for arrays of more than one element.

    Example:
        >>> import minigrad as mg
        >>> from minigrad.serializers import hdf5
        >>> if not hdf5._available:
        ...     try:
        ...         hdf5.HDF5Serializer(None)
        ...     except RuntimeError as error:
        ...         assert "h5py is not installed" in str(error)
    """

    is_loading = False

    def __init__(self, group: Any, compression: int = 4) -> None:
        self.h5py = _h5py("HDF5Serializer")
        self.group = group
        self.compression = compression

    def __getitem__(self, key: str) -> HDF5Serializer:
        return HDF5Serializer(self.group.require_group(_key(key, "HDF5Serializer")), self.compression)

    def save(self, obj: Any) -> None:
        """Write ``obj`` (a Link or an Optimizer) into the group: ``obj.serialize(self)``."""
        _require_serializable("HDF5Serializer.save", obj)
        obj.serialize(self)

    def __call__(self, key: str, value: Any) -> Any:
        key = _key(key, "HDF5Serializer")
        if value is None:  # (h5py's Empty: a dataset with no shape)
            self.group.create_dataset(key, data=self.h5py.Empty("f"))
            return value
        array = numpy.asarray(backend.to_cpu(value))
        if array.dtype.kind not in "biufcUS":
            raise TypeError(f"save_hdf5: {key!r} is a {type(value).__name__}; only arrays, numbers, bools and "
                            f"strings can be saved")
        compression = self.compression if array.size > 1 else None
        self.group.create_dataset(key, data=array, compression=compression)
        return value


class HDF5Deserializer:
    """Reads values back from an HDF5 group into the arrays ``serialize`` passes (in place).

    ``serializer(key, value)`` copies the dataset into the array ``value`` and
    returns it, returns the dataset as a NumPy array for ``value=None``, or
    returns it converted to ``type(value)`` for a Python scalar. An empty
    dataset reads as ``None``. ``load(obj)`` checks every entry before it
    writes any.

    Args:
        group: an ``h5py.Group`` or an open ``h5py.File``.
        strict: a missing entry is an error (else the value is left as it is).
        dry_run: check, but write nothing (``load`` uses it first).
    """

    is_loading = True

    def __init__(self, group: Any, strict: bool = True, dry_run: bool = False) -> None:
        _h5py("HDF5Deserializer")
        self.group = group
        self.strict = strict
        self.dry_run = dry_run

    def __getitem__(self, key: str) -> HDF5Deserializer:
        child = None if self.group is None else self.group.get(_key(key, "HDF5Deserializer"))
        return HDF5Deserializer(child, self.strict, self.dry_run)

    def __contains__(self, key: str) -> bool:
        return self.group is not None and _key(key, "HDF5Deserializer") in self.group

    def load(self, obj: Any) -> None:
        """Fill ``obj`` (a Link or an Optimizer) from the group, every entry checked before any is written."""
        _require_serializable("HDF5Deserializer.load", obj)
        obj.serialize(HDF5Deserializer(self.group, self.strict, dry_run=True))
        if not self.dry_run:
            obj.serialize(HDF5Deserializer(self.group, self.strict))

    def __call__(self, key: str, value: Any) -> Any:
        key = _key(key, "HDF5Deserializer")
        if self.group is None or key not in self.group:
            if not self.strict:
                return value
            where = "the file" if self.group is None else f"group {self.group.name!r}"
            raise KeyError(f"load_hdf5: no entry {key!r} in {where}, but the target needs it; was the file saved "
                           f"from a different model? Pass strict=False to skip missing entries")
        dataset = self.group[key]
        if dataset.shape is None:  # an empty dataset: a value saved as None
            return None
        if value is None:
            return None if self.dry_run else numpy.asarray(dataset[()])
        if isinstance(value, _SCALAR_TYPES) or isinstance(value, numpy.generic):
            return self._scalar(key, dataset, value)
        return self._array(key, dataset, value)

    def _scalar(self, key: str, dataset: Any, value: Any) -> Any:
        if dataset.shape != ():
            raise ValueError(f"load_hdf5: entry {key!r} has shape {dataset.shape}, but the target holds a scalar")
        data = dataset[()]
        if isinstance(value, str):
            return value if self.dry_run else (data.decode() if isinstance(data, bytes) else str(data))
        _check_scalar_cast("load_hdf5", key, dataset.dtype, value)
        return value if self.dry_run else type(value)(data.item() if hasattr(data, "item") else data)

    def _array(self, key: str, dataset: Any, value: Any) -> Any:
        if tuple(value.shape) != tuple(dataset.shape):
            raise ValueError(f"load_hdf5: entry {key!r} has shape {dataset.shape}, but the target's array has "
                             f"shape {tuple(value.shape)}; the file was saved from a model of a different size")
        if not numpy.can_cast(dataset.dtype, value.dtype, "same_kind"):
            raise TypeError(f"load_hdf5: entry {key!r} has dtype {dataset.dtype}, which cannot fill a "
                            f"{value.dtype} array")
        if self.dry_run:
            return value
        if isinstance(value, numpy.ndarray) and value.flags.c_contiguous and value.flags.writeable:
            dataset.read_direct(value)  # (HDF5 converts the dtype itself, as Chainer reads)
        else:
            value[...] = backend.get_array_module(value).asarray(numpy.asarray(dataset[()], dtype=value.dtype))
        return value


def save_hdf5(filename: str | os.PathLike[str], obj: Any, compression: int = 4) -> None:
    """Save ``obj`` (a Link, an Optimizer, or a dict of arrays) to the HDF5 file ``filename``.

    Example:
        >>> import os, tempfile, numpy as np
        >>> from minigrad.serializers import hdf5
        >>> if hdf5._available:
        ...     path = os.path.join(tempfile.mkdtemp(), "stats.h5")
        ...     hdf5.save_hdf5(path, {"mean": np.zeros(3)})
    """
    h5py = _h5py("save_hdf5")
    if not isinstance(obj, dict):
        _require_serializable("save_hdf5", obj)
    with h5py.File(filename, "w") as file:
        serializer = HDF5Serializer(file, compression=compression)
        if isinstance(obj, dict):
            for key, value in obj.items():
                serializer(key, value)
        else:
            serializer.save(obj)


def load_hdf5(filename: str | os.PathLike[str], obj: Any) -> None:
    """Load ``obj`` (a Link or an Optimizer set up on its link) from an HDF5 file written by ``save_hdf5``.

    Example:
        >>> import os, tempfile, minigrad as mg
        >>> from minigrad.serializers import hdf5
        >>> if hdf5._available:
        ...     path = os.path.join(tempfile.mkdtemp(), "model.h5")
        ...     hdf5.save_hdf5(path, mg.links.Linear(2, 2))
        ...     hdf5.load_hdf5(path, mg.links.Linear(2, 2))
    """
    h5py = _h5py("load_hdf5")
    _require_serializable("load_hdf5", obj)
    with h5py.File(filename, "r") as file:
        HDF5Deserializer(file).load(obj)
