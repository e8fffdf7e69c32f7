"""Initializers: callables that fill a parameter array in place.

An initializer is called as ``init(array)`` and writes its values into
``array`` (NumPy or CuPy). Random ones draw from a ``numpy.random.Generator``:
pass ``rng=`` (a Generator or an int seed) to make one reproducible, or call
:func:`set_default_rng` once to seed every initializer created without one.
``rng`` may also be what Chainer takes, a ``numpy.random.RandomState``: the
values are then the ones Chainer draws from it. Values are drawn on the host in
float64 and then cast to the array's dtype, so a given seed gives the same
parameters on CPU and GPU.

Example:
    >>> import numpy as np
    >>> from minigrad import initializers
    >>> W = np.empty((2, 3), dtype=np.float32)
    >>> initializers.Constant(0.5)(W)
    >>> W[0]
    array([0.5, 0.5, 0.5], dtype=float32)
"""

from __future__ import annotations

import math
from typing import Any

import numpy

from minigrad import backend
from minigrad.device import get_device
from minigrad.dtypes import get_dtype

__all__ = [
    "Initializer", "Constant", "Zero", "One", "NaN", "Identity", "Normal", "Uniform", "LeCunNormal", "LeCunUniform",
    "GlorotNormal", "GlorotUniform", "HeNormal", "HeUniform", "Orthogonal", "UpsamplingDeconvFilter",
    "DownsamplingConvFilter", "get_fans", "get_initializer", "set_default_rng", "generate_array",
]

_default_rng: numpy.random.Generator = numpy.random.default_rng()


def _as_generator(rng: Any, where: str) -> Any:
    """A Generator, or Chainer's kind of ``rng``: a ``numpy.random.RandomState`` (or any object with
    ``normal`` and ``uniform``, such as CuPy's), which is used as it is."""
    if rng is None or isinstance(rng, (numpy.random.Generator, numpy.random.RandomState)):
        return rng
    if isinstance(rng, (int, numpy.integer)) and not isinstance(rng, bool):
        return numpy.random.default_rng(int(rng))
    if callable(getattr(rng, "normal", None)) and callable(getattr(rng, "uniform", None)):
        return rng
    raise TypeError(f"{where}: rng must be a numpy.random.Generator, a RandomState, an int seed or None, "
                    f"got {type(rng).__name__}")


def set_default_rng(rng: numpy.random.Generator | int) -> None:
    """Set the generator used by random initializers created without ``rng=``.

    Example:
        >>> import numpy as np
        >>> from minigrad import initializers
        >>> initializers.set_default_rng(0)
        >>> a = np.empty(3); initializers.Normal()(a)
        >>> initializers.set_default_rng(0)
        >>> b = np.empty(3); initializers.Normal()(b)
        >>> bool((a == b).all())
        True
    """
    global _default_rng
    generator = _as_generator(rng, "set_default_rng")
    if generator is None:
        raise TypeError("set_default_rng: rng must be a numpy.random.Generator or an int seed, got None")
    _default_rng = generator


def get_fans(shape: tuple[int, ...]) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight of ``shape`` = ``(out, in, *kernel)``.

    Example:
        >>> from minigrad.initializers import get_fans
        >>> get_fans((8, 3, 5, 5))
        (75, 200)
    """
    if len(shape) < 2:
        raise ValueError(f"get_fans: the weight shape must have at least 2 axes (out, in, ...), got {tuple(shape)}")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


class Initializer:
    """Base class: ``init(array)`` fills ``array`` in place.

    Args:
        dtype: if given, the array must have this dtype (a mismatch is an error).
    """

    def __init__(self, dtype: Any = None) -> None:
        self.dtype = None if dtype is None else numpy.dtype(dtype)

    def __call__(self, array: Any) -> None:
        if self.dtype is not None and array.dtype != self.dtype:
            raise ValueError(
                f"{type(self).__name__}: the array has dtype {array.dtype} but the initializer was made for "
                f"{self.dtype}"
            )
        if array.dtype.kind != "f":
            raise TypeError(f"{type(self).__name__}: can only fill floating point arrays, got dtype {array.dtype}")
        values = self.generate(tuple(array.shape))
        array[...] = backend.get_array_module(array).asarray(values.astype(array.dtype, copy=False))

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        """Return a float64 NumPy array of ``shape`` (subclasses override)."""
        raise NotImplementedError


class Constant(Initializer):
    """Fill with ``fill_value`` (a scalar, or an array broadcast to the shape).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import Constant
        >>> a = np.empty(2); Constant(3)(a); a
        array([3., 3.])
    """

    def __init__(self, fill_value: Any, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.fill_value = fill_value

    def __call__(self, array: Any) -> None:
        """Fill ``array``; a constant also fills an integer array, as Chainer's does (a random initializer does not).

        Example:
            >>> import numpy as np
            >>> from minigrad.initializers import Constant
            >>> a = np.empty(3, dtype=np.int32); Constant(np.array([1, 2, 3]))(a); a
            array([1, 2, 3], dtype=int32)
        """
        if self.dtype is None and array.dtype.kind in "iu":
            array[...] = backend.get_array_module(array).asarray(self._broadcast(numpy.asarray(
                backend.to_cpu(self.fill_value)), tuple(array.shape)).astype(array.dtype))
            return
        super().__call__(array)

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        return self._broadcast(numpy.asarray(backend.to_cpu(self.fill_value), dtype=numpy.float64), shape)

    @staticmethod
    def _broadcast(value: numpy.ndarray, shape: tuple[int, ...]) -> numpy.ndarray:
        try:
            return numpy.broadcast_to(value, shape)
        except ValueError:
            raise ValueError(f"Constant: fill value of shape {value.shape} cannot fill shape {shape}") from None


class Zero(Constant):
    """Fill with zeros."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(0.0, dtype)


class One(Constant):
    """Fill with ones."""

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(1.0, dtype)


class NaN(Constant):
    """Fill with NaN: the initializer of ``Parameter(None)``, so an untrained value cannot pass unnoticed.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import NaN
        >>> a = np.empty(2); NaN()(a); a
        array([nan, nan])
    """

    def __init__(self, dtype: Any = None) -> None:
        super().__init__(numpy.nan, dtype)


class _RandomInitializer(Initializer):
    def __init__(self, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype)
        self.rng = _as_generator(rng, type(self).__name__)

    @property
    def _generator(self) -> numpy.random.Generator:
        return self.rng if self.rng is not None else _default_rng


class Normal(_RandomInitializer):
    """Draw from a normal distribution with mean 0 and standard deviation ``scale``.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import Normal
        >>> a = np.empty(10000); Normal(2.0, rng=0)(a)
        >>> round(float(a.std()), 1)
        2.0
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        return self._generator.normal(0.0, self.scale, size=shape)


class Uniform(_RandomInitializer):
    """Draw uniformly from ``[-scale, scale)``.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import Uniform
        >>> a = np.empty(1000); Uniform(0.1, rng=0)(a)
        >>> bool(abs(a).max() <= 0.1)
        True
    """

    def __init__(self, scale: float = 0.05, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        return self._generator.uniform(-self.scale, self.scale, size=shape)


class _ScaledByFans(_RandomInitializer):
    """Normal with standard deviation, or uniform in plus or minus, ``scale * sqrt(factor / fan)``: a subclass
    says which (``uniform``), its ``factor`` and its ``fans`` (``"fan_in"``, ``"fan_out"`` or their sum)."""

    uniform: bool
    factor: float
    fans: str

    def __init__(self, scale: float = 1.0, dtype: Any = None, rng: Any = None) -> None:
        super().__init__(dtype, rng)
        self.scale = scale

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        fan_in, fan_out = get_fans(shape)
        fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_in+fan_out": fan_in + fan_out}[self.fans]
        width = self.scale * math.sqrt(self.factor / fan)
        if self.uniform:
            return self._generator.uniform(-width, width, size=shape)
        return self._generator.normal(0.0, width, size=shape)


class LeCunNormal(_ScaledByFans):
    """Normal with standard deviation ``scale * sqrt(1 / fan_in)`` (LeCun et al., 1998).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import LeCunNormal
        >>> W = np.empty((400, 100)); LeCunNormal(rng=0)(W)
        >>> round(float(W.std() * 10), 1)
        1.0
    """

    uniform, factor, fans = False, 1.0, "fan_in"


class GlorotUniform(_ScaledByFans):
    """Uniform in ``±scale * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import GlorotUniform
        >>> W = np.empty((3, 3)); GlorotUniform(rng=0)(W)
        >>> bool(abs(W).max() <= 1.0)
        True
    """

    uniform, factor, fans = True, 6.0, "fan_in+fan_out"


class HeNormal(_ScaledByFans):
    """Normal with standard deviation ``scale * sqrt(2 / fan)`` (He et al., 2015).

    Args:
        fan_option: ``"fan_in"`` (default) or ``"fan_out"``.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import HeNormal
        >>> W = np.empty((400, 200)); HeNormal(rng=0)(W)
        >>> round(float(W.std() * 10), 1)
        1.0
    """

    uniform, factor = False, 2.0

    def __init__(self, scale: float = 1.0, dtype: Any = None, fan_option: str = "fan_in", rng: Any = None) -> None:
        super().__init__(scale, dtype, rng)
        if fan_option not in ("fan_in", "fan_out"):
            raise ValueError(f"HeNormal: fan_option must be 'fan_in' or 'fan_out', got {fan_option!r}")
        self.fan_option = self.fans = fan_option


class Identity(Initializer):
    """``scale`` times the identity matrix (a square 2-d array only).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import Identity
        >>> a = np.empty((2, 2)); Identity(3.0)(a); a
        array([[3., 0.],
               [0., 3.]])
    """

    def __init__(self, scale: float = 1.0, dtype: Any = None) -> None:
        super().__init__(dtype)
        self.scale = scale

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError(f"Identity: can only fill a square 2-d array, got shape {shape}")
        return numpy.identity(shape[0]) * self.scale


class LeCunUniform(_ScaledByFans):
    """Uniform in ``±scale * sqrt(3 / fan_in)`` (LeCun et al., 1998).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import LeCunUniform
        >>> W = np.empty((4, 3)); LeCunUniform(rng=0)(W)
        >>> bool(abs(W).max() <= 1.0)
        True
    """

    uniform, factor, fans = True, 3.0, "fan_in"


class GlorotNormal(_ScaledByFans):
    """Normal with standard deviation ``scale * sqrt(2 / (fan_in + fan_out))`` (Glorot & Bengio, 2010).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import GlorotNormal
        >>> W = np.empty((300, 500)); GlorotNormal(rng=0)(W)
        >>> round(float(W.std() * 20), 1)
        1.0
    """

    uniform, factor, fans = False, 2.0, "fan_in+fan_out"


class HeUniform(_ScaledByFans):
    """Uniform in ``±scale * sqrt(6 / fan_in)`` (He et al., 2015).

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import HeUniform
        >>> W = np.empty((2, 6)); HeUniform(rng=0)(W)
        >>> bool(abs(W).max() <= 1.0)
        True
    """

    uniform, factor, fans = True, 6.0, "fan_in"


# mode -> (refuse more inputs than outputs, refuse more outputs than inputs), as Chainer has them
_ORTHOGONAL_MODES = {"auto": (False, False), "projection": (False, True), "embedding": (True, False),
                     "basis": (True, True)}


class Orthogonal(_RandomInitializer):
    """A random matrix with orthonormal rows or columns, times ``scale`` (Saxe et al., 2014).

    The array is read as ``(out, prod(rest))``; the Q of the QR decomposition of
    a standard normal matrix (signs fixed by R's diagonal) fills it. ``mode``
    refuses shapes, as Chainer does: ``"projection"`` needs ``in >= out``,
    ``"embedding"`` ``in <= out``, ``"basis"`` both; ``"auto"`` takes any.
    A 0-d array gets ``±scale``.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import Orthogonal
        >>> W = np.empty((3, 5)); Orthogonal(scale=1.0, rng=0)(W)
        >>> np.allclose(W @ W.T, np.eye(3))
        True
    """

    def __init__(self, scale: float = 1.1, dtype: Any = None, mode: str = "auto", rng: Any = None) -> None:
        super().__init__(dtype, rng)
        if mode not in _ORTHOGONAL_MODES:
            raise ValueError(f"Orthogonal: mode must be one of {sorted(_ORTHOGONAL_MODES)}, got {mode!r}")
        self.scale = scale
        self.mode = mode

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        generator = self._generator
        if not shape:
            bit = generator.integers(2) if isinstance(generator, numpy.random.Generator) else generator.randint(2)
            return numpy.array(self.scale * (2 * int(bit) - 1), dtype=numpy.float64)
        out_dim, in_dim = shape[0], math.prod(shape[1:])
        if out_dim * in_dim == 0:
            raise ValueError(f"Orthogonal: the array must not be empty, got shape {shape}")
        refuse_wide, refuse_tall = _ORTHOGONAL_MODES[self.mode]
        if (in_dim > out_dim and refuse_wide) or (in_dim < out_dim and refuse_tall):
            raise ValueError(f"Orthogonal: cannot make an orthogonal {self.mode} of shape {shape} "
                             f"({in_dim} inputs, {out_dim} outputs)")
        a = numpy.asarray(generator.normal(size=(out_dim, in_dim)), dtype=numpy.float64)
        wide = in_dim > out_dim
        q, r = numpy.linalg.qr(a.T if wide else a)
        q *= numpy.copysign(self.scale, numpy.diag(r))
        return (q.T if wide else q).reshape(shape)


class _SamplingFilter(Initializer):
    """A bilinear up- or downsampling kernel on the diagonal of the channels (Long et al., 2015)."""

    upsampling = True

    def __init__(self, interpolation: str = "linear", dtype: Any = None) -> None:
        super().__init__(dtype)
        if interpolation != "linear":
            raise ValueError(f"{type(self).__name__}: interpolation must be 'linear', got {interpolation!r}")
        self.interpolation = interpolation

    def generate(self, shape: tuple[int, ...]) -> numpy.ndarray:
        name = type(self).__name__
        if len(shape) < 3 or len(set(shape[2:])) != 1 or not (shape[0] == shape[1] or shape[1] == 1):
            raise ValueError(f"{name}: the array must be (channels, channels or 1, k, k, ...) with equal kernel "
                             f"sizes, got shape {shape}")
        size = shape[2]
        factor = (size + 1) // 2
        center = factor - 1.0 if size % 2 == 1 else factor - 0.5
        kernel = numpy.ones((size,) * (len(shape) - 2))
        for axis in range(len(shape) - 2):
            line = 1.0 - abs(numpy.arange(size) - center) / factor
            kernel = kernel * line.reshape([size if a == axis else 1 for a in range(len(shape) - 2)])
        if not self.upsampling:
            kernel /= kernel.sum()
        values = numpy.zeros(shape)
        channels = numpy.arange(shape[0])
        values[channels, 0 if shape[1] == 1 else channels] = kernel
        return values


class UpsamplingDeconvFilter(_SamplingFilter):
    """The bilinear upsampling kernel, for a ``Deconvolution2D`` with ``stride = (ksize + 1) // 2``.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import UpsamplingDeconvFilter
        >>> W = np.empty((1, 1, 3, 3)); UpsamplingDeconvFilter()(W); W[0, 0]
        array([[0.25, 0.5 , 0.25],
               [0.5 , 1.  , 0.5 ],
               [0.25, 0.5 , 0.25]])
    """


class DownsamplingConvFilter(_SamplingFilter):
    """The bilinear downsampling kernel (summing to 1), for a convolution with ``stride = (ksize + 1) // 2``.

    Example:
        >>> import numpy as np
        >>> from minigrad.initializers import DownsamplingConvFilter
        >>> W = np.empty((1, 1, 2, 2)); DownsamplingConvFilter()(W); W[0, 0]
        array([[0.25, 0.25],
               [0.25, 0.25]])
    """

    upsampling = False


def get_initializer(initializer: Any, default: Initializer | None = None) -> Any:
    """What a link's ``initialW``-style argument means, as something ``Parameter`` accepts.

    ``None`` is ``default`` (``LeCunNormal()`` when that is None too, as in Chainer), a scalar a ``Constant``, an
    array a ``Constant`` of it without a dtype of its own (as in Chainer, the parameter takes the dtype asked for:
    a link's ``dtype=``, else ``config.dtype``, not the array's), and a callable ``init(array)`` itself;
    anything else is a TypeError.

    Example:
        >>> import numpy as np
        >>> from minigrad import initializers
        >>> type(initializers.get_initializer(None, initializers.Zero())).__name__
        'Zero'
        >>> initializers.generate_array(initializers.get_initializer(0.5), (2,))
        array([0.5, 0.5], dtype=float32)
        >>> initializers.generate_array(initializers.get_initializer(np.arange(2.0)), (2,))  # config.dtype
        array([0., 1.], dtype=float32)
        >>> initializers.get_initializer("ones")
        Traceback (most recent call last):
        ...
        TypeError: an initializer must be None, a scalar, an array or a callable init(array), got str
    """
    if initializer is None:
        return LeCunNormal() if default is None else default
    if callable(initializer):
        return initializer
    is_scalar = isinstance(initializer, (int, float, numpy.generic)) and not isinstance(initializer, bool)
    if is_scalar:
        return Constant(initializer)
    if hasattr(initializer, "__array__") or hasattr(initializer, "__cuda_array_interface__"):
        return Constant(initializer)  # no dtype of its own: a link's dtype= fills it in that dtype, as in Chainer
    raise TypeError(
        f"an initializer must be None, a scalar, an array or a callable init(array), got {type(initializer).__name__}"
    )


_get_initializer = get_initializer  # Chainer's name, which links ported from Chainer call


def generate_array(initializer: Any, shape: tuple[int, ...], xp: Any = numpy, dtype: Any = None,
                   device: Any = None) -> Any:
    """Allocate an array of ``shape`` and fill it with ``initializer`` (Chainer's ``generate_array``).

    Args:
        initializer: a callable that fills an array in place.
        shape: the array's shape.
        xp: ``numpy`` or ``cupy``: where the array goes when ``device`` is not given.
        dtype: the array's dtype; by default the initializer's ``dtype``, else ``config.dtype``. Given both,
            they must agree.
        device: a device specifier (``'@numpy'``, ``'@cupy:1'``, a Device, ...): where the array goes.

    Example:
        >>> from minigrad.initializers import One, generate_array
        >>> generate_array(One(), (2,))
        array([1., 1.], dtype=float32)
        >>> generate_array(One(), (), device="@numpy", dtype="float16")
        array(1., dtype=float16)
    """
    own = getattr(initializer, "dtype", None)
    if dtype is not None and own is not None and numpy.dtype(dtype) != numpy.dtype(own):
        raise ValueError(f"generate_array: dtype {numpy.dtype(dtype)} was asked for, but the initializer "
                         f"{type(initializer).__name__} makes {numpy.dtype(own)}")
    dtype = get_dtype(own if dtype is None else dtype)
    if device is None:
        array = xp.empty(shape, dtype=dtype)
    else:
        target = get_device(device)
        if xp is not numpy and target.xp is not xp:
            raise ValueError(f"generate_array: device {device!r} does not hold {xp.__name__} arrays")
        with target.create_context():
            array = target.xp.empty(shape, dtype=dtype)
    initializer(array)
    return array


from minigrad.initializers import constant, normal, orthogonal, sampling, uniform  # noqa: E402,F401  (Chainer's paths)
