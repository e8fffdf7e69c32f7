"""The ``.npz`` format: ``save_npz`` / ``load_npz`` and the serializers under them (Chainer's ``serializers.npz``).

``save_npz(file, obj)`` walks ``obj.serialize`` (a Link: its parameters and
persistent values, child by child; an Optimizer: ``t``, ``epoch`` and each
parameter's state) and writes one array per entry, keyed by path (``l1/W``,
``l1/W/m``...); given a dict of arrays it writes the dict. ``load_npz(file, obj)``
reads them back into ``obj``:

* it never unpickles (``allow_pickle=False``), so a crafted file cannot run code;
* it checks every entry first (present, same shape, castable dtype) and only
  then writes, so a bad file leaves ``obj`` untouched instead of half-loaded;
* with ``strict=True`` (the default) an entry the object does not ask for is
  an error too: the file was written for a different model;
* it reads an entry's header (shape, dtype) first and checks it against the
  target before any data, then inflates only the bytes that header declares,
  so a damaged, truncated or hostile file (a huge claimed shape, an entry that
  inflates far beyond its size) is refused, naming the file and the entry,
  without being read whole;
* ``save_npz`` to a path is atomic: a failed or interrupted save leaves the
  previous file intact.

Example:
    >>> import io, numpy as np, minigrad as mg
    >>> from minigrad.serializers import npz
    >>> def make():
    ...     link = mg.Link()
    ...     with link.init_scope():
    ...         link.W = mg.Parameter(np.zeros((2, 2), dtype=np.float32))
    ...     return link
    >>> a, b = make(), make()
    >>> a.W.array[...] = 7
    >>> buffer = io.BytesIO()
    >>> npz.save_npz(buffer, a)
    >>> _ = buffer.seek(0)
    >>> npz.load_npz(buffer, b)
    >>> b.W.array[0]
    array([7., 7.], dtype=float32)
"""

from __future__ import annotations

import math
import os
import zipfile
import zlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from minigrad import backend

__all__ = ["DictionarySerializer", "NpzDeserializer", "serialize", "save_npz", "load_npz"]

_SCALAR_TYPES = (bool, int, float, str)


def _require_serializable(where: str, obj: Any) -> None:
    if not hasattr(obj, "serialize"):
        dict_too = " or a dict of arrays" if where == "save_npz" else ""
        raise TypeError(f"{where}: expected a Link or an Optimizer{dict_too}, got {type(obj).__name__}")


def _join(path: str, key: str) -> str:
    key = key.strip("/")
    if not key:
        raise ValueError(f"serializer: empty key under {path!r}")
    return path + key


class DictionarySerializer:
    """Collects ``path -> numpy array`` into ``target`` (a dict); the saving half of ``serialize``."""

    is_loading = False

    def __init__(self, target: dict[str, numpy.ndarray] | None = None, path: str = "") -> None:
        self.target = {} if target is None else target
        self.path = path

    def __getitem__(self, key: str) -> DictionarySerializer:
        return DictionarySerializer(self.target, _join(self.path, key) + "/")

    def save(self, obj: Any) -> None:
        """Collect ``obj`` (a Link or an Optimizer) into ``target``, as Chainer's ``Serializer.save``.

        Example:
            >>> import minigrad as mg
            >>> from minigrad.serializers import DictionarySerializer
            >>> serializer = DictionarySerializer()
            >>> serializer.save(mg.links.Linear(3, 2))
            >>> sorted((key, array.shape) for key, array in serializer.target.items())
            [('W', (2, 3)), ('b', (2,))]
        """
        _require_serializable("DictionarySerializer.save", obj)
        obj.serialize(self)

    def __call__(self, key: str, value: Any) -> Any:
        full = _join(self.path, key)
        if value is None:  # an uninitialized parameter: nothing to save yet
            return None
        if full in self.target:
            raise ValueError(f"save_npz: two entries are named {full!r}; give the links or parameters distinct names")
        if isinstance(value, _SCALAR_TYPES) or isinstance(value, numpy.generic):
            array = numpy.asarray(value)
        elif hasattr(value, "shape") and hasattr(value, "dtype"):
            array = numpy.asarray(backend.to_cpu(value))
        else:
            array = None
        if array is None or array.dtype.kind not in "biufcUS":
            raise TypeError(
                f"save_npz: {full!r} is a {type(value).__name__}; only arrays, numbers, bools and strings can be "
                f"saved (anything else would need pickle, which load_npz refuses)"
            )
        self.target[full] = array
        return value


class _LoadSource:
    """The open archive (or dict of arrays) shared by every deserializer of one load: cached arrays and used keys.

    An archive's entries are read in two steps, so a hostile or damaged file costs nothing: ``header`` reads
    an entry's declared shape and dtype (a few hundred bytes) for the caller to check against the target,
    then ``read`` inflates exactly the bytes that shape declares, no more (a small entry that would inflate
    to far more than its header says is refused, not read whole).
    """

    def __init__(self, npz: Any, name: str) -> None:
        self.npz = npz
        self.name = name
        self.zip = npz.zip if isinstance(npz, numpy.lib.npyio.NpzFile) else None
        # a dict's keys are read as it is when loading, not when the deserializer is made (Chainer's
        # DictionarySerializer and NpzDeserializer of one dict are made together, then it is filled)
        self.keys = set(npz.files) if self.zip is not None else npz.keys()
        self.cache: dict[str, numpy.ndarray] = {}
        self.headers: dict[str, tuple[tuple[int, ...], numpy.dtype, bool, int]] = {}
        self.used: set[str] = set()

    def _damaged(self, key: str, problem: str) -> ValueError:
        return ValueError(f"load_npz: entry {key!r} of {self.name} is damaged or truncated ({problem}); "
                          f"nothing was loaded")

    def _member(self, key: str) -> zipfile.ZipInfo:
        names = self.zip.namelist()
        return self.zip.getinfo(key + ".npy" if key + ".npy" in names else key)

    def header(self, key: str) -> tuple[tuple[int, ...], numpy.dtype]:
        """The shape and dtype ``key`` declares, read without its data (a dict entry: the array's own)."""
        if self.zip is None:
            array = self.read(key)
            return array.shape, array.dtype
        if key not in self.headers:
            info = self._member(key)
            try:
                with self.zip.open(info) as handle:
                    version = numpy.lib.format.read_magic(handle)
                    if version not in ((1, 0), (2, 0)):
                        raise ValueError(f"unsupported .npy format version {version}")
                    read_header = numpy.lib.format.read_array_header_1_0 if version == (1, 0) \
                        else numpy.lib.format.read_array_header_2_0
                    shape, fortran, dtype = read_header(handle)
                    offset = handle.tell()
            except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
                raise self._damaged(key, str(error)) from None
            if dtype.hasobject:
                raise ValueError(
                    f"load_npz: entry {key!r} of {self.name} holds pickled Python objects; refusing to load it "
                    f"(its dtype is {dtype}; minigrad never unpickles, so a file cannot run code)"
                )
            size = offset + math.prod(shape) * dtype.itemsize
            if size != info.file_size:
                raise self._damaged(key, f"its header declares shape {shape} of {dtype}, {size} bytes in all, "
                                         f"but the archive holds {info.file_size} bytes for it")
            self.headers[key] = (shape, dtype, fortran, offset)
        shape, dtype, _, _ = self.headers[key]
        return shape, dtype

    def read(self, key: str) -> numpy.ndarray:
        if key not in self.cache:
            if self.zip is None:
                self.cache[key] = self.npz[key]
                return self.cache[key]
            self.header(key)
            shape, dtype, fortran, offset = self.headers[key]
            nbytes = math.prod(shape) * dtype.itemsize
            try:
                with self.zip.open(self._member(key)) as handle:
                    handle.read(offset)
                    data = handle.read(nbytes)  # (inflates at most nbytes: the size the header declared)
                    if len(data) != nbytes:
                        raise EOFError(f"{len(data)} of {nbytes} bytes of data")
            except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
                raise self._damaged(key, str(error)) from None
            array = numpy.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
            self.cache[key] = array.astype(dtype.newbyteorder("="))  # (a writable copy, in native byte order)
        return self.cache[key]

    def describe(self) -> str:
        keys = sorted(self.keys)
        shown = ", ".join(repr(k) for k in keys[:6]) + (", ..." if len(keys) > 6 else "")
        return f"{self.name} holds {len(keys)} entries: {shown}" if keys else f"{self.name} is empty"


def _ignore_predicate(ignore_names: Any) -> Callable[[str], bool] | None:
    """``ignore_names`` as one predicate on full keys: a name, a predicate, or a list of either (as in Chainer)."""
    if ignore_names is None or (callable(ignore_names) and not isinstance(ignore_names, str)):
        return ignore_names
    items = [ignore_names] if isinstance(ignore_names, str) else list(ignore_names)
    names = {item.strip("/") for item in items if isinstance(item, str)}
    predicates = [item for item in items if not isinstance(item, str)]
    for item in predicates:
        if not callable(item):
            raise TypeError(f"load_npz: ignore_names must be a name, a callable, or a list of them; got an item "
                            f"{item!r}")
    return lambda key: key in names or any(predicate(key) for predicate in predicates)


def _check_scalar_cast(where: str, key: str, dtype: numpy.dtype, value: Any) -> None:
    """A number entry fills a scalar only if the cast loses nothing (an integer entry fills a Python int always),
    as in Chainer: a float into an int, or an int64 into a uint32, is a TypeError."""
    if dtype.kind not in "iufc" or (dtype.kind in "iu" and type(value) is int):
        return
    if not numpy.can_cast(dtype, numpy.asarray(value).dtype, "safe"):
        raise TypeError(f"{where}: entry {key!r} has dtype {dtype}, which cannot fill a {type(value).__name__} "
                        f"without loss")


class NpzDeserializer:
    """Reads entries of an open ``.npz`` archive (or a dict of arrays) back into an object; the loading
    half of ``serialize``.

    ``load(obj)`` fills a Link or an Optimizer, checking every entry before it
    writes any (``load_npz`` is ``numpy.load`` plus this). Inside ``serialize``,
    ``serializer(key, value)`` copies the entry into the array ``value`` (in
    place) and returns it, returns the entry for ``value=None``, or returns the
    entry converted to ``type(value)`` for a Python scalar. With ``dry_run``
    every check happens but nothing is written and ``value`` is returned
    unchanged.

    Args:
        npz: the archive ``numpy.load`` opened, or a dict such as a
            ``DictionarySerializer``'s ``target``.
        path, strict, ignore_names: as in ``load_npz``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> from minigrad.serializers import DictionarySerializer, NpzDeserializer
        >>> a, b = mg.links.Linear(3, 2), mg.links.Linear(3, 2)
        >>> saved = DictionarySerializer(); saved.save(a)
        >>> NpzDeserializer(saved.target).load(b)
        >>> bool((b.W.array == a.W.array).all())
        True
    """

    is_loading = True

    def __init__(
        self,
        npz: Any,
        path: str = "",
        strict: bool = True,
        ignore_names: Iterable[str] | Callable[[str], bool] | None = None,
        dry_run: bool = False,
    ) -> None:
        self.source = npz if isinstance(npz, _LoadSource) else _LoadSource(npz, "the archive")
        self.path = path if not path or path.endswith("/") else path + "/"
        self.strict = strict
        self.ignore_names = _ignore_predicate(ignore_names)
        self.dry_run = dry_run

    def __getitem__(self, key: str) -> NpzDeserializer:
        return NpzDeserializer(self.source, _join(self.path, key) + "/", self.strict, self.ignore_names, self.dry_run)

    def load(self, obj: Any) -> None:
        """Fill ``obj`` (a Link or an Optimizer) from the archive: every entry is checked (and, with
        ``strict``, every entry under ``path`` must be used) before anything is written."""
        _require_serializable("NpzDeserializer.load", obj)
        source, path, ignored = self.source, self.path, self.ignore_names
        obj.serialize(NpzDeserializer(source, path, self.strict, ignored, dry_run=True))
        if self.strict:
            unused = sorted(k for k in source.keys
                            if k.startswith(path) and k not in source.used and not (ignored and ignored(k)))
            if unused:
                raise KeyError(
                    f"load_npz: {source.name} has entries the target does not have: {unused[:6]}"
                    f"{' ...' if len(unused) > 6 else ''}; it was saved from a different model (or from an "
                    f"optimizer instead of a link). Pass strict=False to ignore them"
                )
        if not self.dry_run:
            obj.serialize(NpzDeserializer(source, path, self.strict, ignored, dry_run=False))

    def __contains__(self, key: str) -> bool:
        return _join(self.path, key) in self.source.keys

    def __call__(self, key: str, value: Any) -> Any:
        full = _join(self.path, key)
        if self.ignore_names is not None and self.ignore_names(full):
            return value
        if full not in self.source.keys:
            if not self.strict or value is None:  # (an uninitialized parameter saved uninitialized stays so)
                return value
            raise KeyError(
                f"load_npz: no entry {full!r} in the file, but the target needs it; {self.source.describe()}. "
                f"Was the file saved from a different model (or from an optimizer instead of a link)? "
                f"Pass strict=False to skip missing entries"
            )
        self.source.used.add(full)
        shape, dtype = self.source.header(full)  # (checked against the target before the data is read)
        if value is None:
            data = self.source.read(full)
            return None if self.dry_run else data
        if isinstance(value, _SCALAR_TYPES) or isinstance(value, numpy.generic):
            if shape != ():
                raise ValueError(f"load_npz: entry {full!r} has shape {shape}, but the target holds a scalar")
            _check_scalar_cast("load_npz", full, dtype, value)
            data = self.source.read(full)
            return value if self.dry_run else type(value)(data.item())
        if tuple(value.shape) != shape:
            raise ValueError(
                f"load_npz: entry {full!r} has shape {shape}, but the target's array has shape "
                f"{tuple(value.shape)}; the file was saved from a model of a different size"
            )
        if not numpy.can_cast(dtype, value.dtype, "same_kind"):
            raise TypeError(f"load_npz: entry {full!r} has dtype {dtype}, which cannot fill a {value.dtype} array")
        data = self.source.read(full)
        if not self.dry_run:
            value[...] = backend.get_array_module(value).asarray(data)
        return value


def serialize(obj: Any) -> dict[str, numpy.ndarray]:
    """The entries ``save_npz`` writes for ``obj`` (a Link or an Optimizer), as a dict of arrays.

    Example:
        >>> import minigrad as mg
        >>> from minigrad.serializers import npz
        >>> sorted(npz.serialize(mg.links.Linear(3, 2)))
        ['W', 'b']
    """
    serializer = DictionarySerializer()
    serializer.save(obj)
    return serializer.target


def save_npz(file: str | os.PathLike[str] | Any, obj: Any, compression: bool = True) -> None:
    """Save ``obj`` (a Link, an Optimizer, or a dict of arrays) to ``file`` (a path or a binary file object).

    A dict is written as it is, one entry per key (as in Chainer), each value
    checked as ``serialize`` checks them: arrays, numbers, bools and strings,
    never objects that would need pickle.

    Saving to a path is atomic: the archive is written to a temporary file in
    the same directory and renamed over ``file`` only once complete, so a save
    that fails or is interrupted (disk full, Ctrl-C, a killed process) leaves
    the previous file as it was. (A file object is written in place.)

    Example:
        >>> import io, numpy as np, minigrad as mg
        >>> from minigrad import serializers
        >>> link = mg.Link()
        >>> link.add_param("b", (2,), initializer=1.0)
        >>> serializers.save_npz(io.BytesIO(), link)
        >>> serializers.save_npz(io.BytesIO(), {"mean": np.zeros(3), "N": np.array(0)})
    """
    serializer = DictionarySerializer()
    if isinstance(obj, dict):
        for key, value in obj.items():
            serializer(key, value)
    else:
        _require_serializable("save_npz", obj)  # (before opening the file)
        obj.serialize(serializer)
    save = numpy.savez_compressed if compression else numpy.savez
    if isinstance(file, (str, os.PathLike)):
        _write_atomically(os.fspath(file), lambda handle: save(handle, **serializer.target))
    else:
        save(file, **serializer.target)


def _write_atomically(path: str, write: Callable[[Any], None]) -> None:
    """Write a file in full or not at all: into a temporary file beside ``path`` (same directory, so the
    same file system), flushed to disk, then renamed over ``path`` (``os.replace`` is atomic). A write that
    fails (disk full, a file-size limit, Ctrl-C, a killed process) leaves the previous file intact."""
    target = os.path.realpath(path)  # (through a symlink: replace the file it points to, not the link)
    directory, base = os.path.split(target)
    try:
        mode = os.stat(target).st_mode & 0o7777  # (keep an existing checkpoint's permissions)
    except OSError:
        mode = None
    for attempt in range(100):
        temporary = os.path.join(directory, f".{base}.{os.getpid()}.{attempt}.tmp")
        try:  # O_EXCL: never reuse someone else's file; 0o666 & ~umask, like open(path, "wb")
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
            break
        except FileExistsError:
            continue
        except OSError as error:  # (name the file the user gave, not the temporary one)
            raise type(error)(error.errno, f"save_npz: cannot write beside {path!r}: {error.strerror}") from None
    else:
        raise FileExistsError(f"save_npz: could not create a temporary file beside {path!r}")
    try:
        with os.fdopen(descriptor, "wb") as handle:  # (numpy.savez would append ".npz" to a bare path)
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:  # (KeyboardInterrupt too: the half-written temporary file goes, the old file stays)
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def load_npz(
    file: str | os.PathLike[str] | Any,
    obj: Any,
    path: str = "",
    strict: bool = True,
    ignore_names: Iterable[str] | Callable[[str], bool] | None = None,
) -> None:
    """Load ``obj`` (a Link or an Optimizer set up on its link) from an archive written by ``save_npz``.

    Every entry is checked before anything is written. Never unpickles.

    Args:
        file: a path or a binary file object.
        obj: the Link or Optimizer to fill.
        path: load only the entries under this prefix (e.g. ``"predictor/"``).
        strict: an entry missing from the file, or one in the file (under
            ``path``) that ``obj`` does not ask for, is an error.
        ignore_names: a name (a full key) to leave alone, a predicate on the full keys, or a list of
            names and predicates.

    Example:
        >>> import io, numpy as np, minigrad as mg
        >>> from minigrad import serializers
        >>> link = mg.Link()
        >>> link.add_param("b", (2,), initializer=1.0)
        >>> buffer = io.BytesIO(); serializers.save_npz(buffer, link); _ = buffer.seek(0)
        >>> other = mg.Link()
        >>> other.add_param("W", (2,), initializer=0.0)
        >>> serializers.load_npz(buffer, other)
        Traceback (most recent call last):
        ...
        KeyError: "load_npz: no entry 'W' in the file, but the target needs it; ...
    """
    _require_serializable("load_npz", obj)  # (before reading the file)
    name = repr(os.fspath(file)) if isinstance(file, (str, os.PathLike)) else "the file"
    try:
        npz = numpy.load(file, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as error:
        raise ValueError(
            f"load_npz: {name} is not an .npz archive written by save_npz ({error}); nothing was loaded"
        ) from None
    if not isinstance(npz, numpy.lib.npyio.NpzFile):
        raise ValueError(f"load_npz: {name} is a single .npy array, not an .npz archive written by save_npz")
    with npz:
        NpzDeserializer(_LoadSource(npz, name), path, strict, ignore_names).load(obj)
