"""``WalkerAlias``: draw integers ``i`` with probability ``probs[i] / sum(probs)`` in O(1) each (Walker's alias method).

The table splits ``[0, n)`` into ``n`` unit cells; cell ``i`` keeps its own
index with probability ``threshold[i]`` and hands the rest to ``alias[i]``. A
draw picks a cell uniformly and then one of its two indices, so each draw costs
one uniform number whatever ``n`` is. The table is built once, on the host
(Vose's stable variant: a worklist of under-full and over-full cells).
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend

__all__ = ["WalkerAlias"]


class WalkerAlias:
    """A sampler of integers in ``[0, len(probs))`` with probabilities proportional to ``probs``.

    Args:
        probs: non-negative weights, one per value (a list or a 1-D array);
            they are normalized by their sum, which must be positive.

    Attributes:
        threshold: float64 ``(n,)``, the probability that cell ``i`` yields ``i``.
        alias: int32 ``(n,)``, what cell ``i`` yields otherwise.
        use_gpu: whether ``sample`` returns CuPy arrays (after ``to_gpu``).

    Draws use the global random state of the array module (``numpy.random``,
    or ``cupy.random`` after ``to_gpu``), as Chainer's sampler does, so
    ``numpy.random.seed`` makes them repeatable.

    Example:
        >>> import numpy as np
        >>> from minigrad.utils import WalkerAlias
        >>> sampler = WalkerAlias([1.0, 0.0, 3.0])
        >>> np.random.seed(0)
        >>> draws = sampler.sample((4000,))
        >>> draws.dtype, sorted(set(draws.tolist()))
        (dtype('int32'), [0, 2])
        >>> round(float((draws == 2).mean()), 1)
        0.8
    """

    def __init__(self, probs: Any) -> None:
        weights = _check_probs(probs)
        n = len(weights)
        scaled = weights * (n / weights.sum())
        threshold = numpy.ones(n)
        alias = numpy.arange(n, dtype=numpy.int32)
        small = [i for i in range(n) if scaled[i] < 1.0]
        large = [i for i in range(n) if scaled[i] >= 1.0]
        while small and large:
            under, over = small.pop(), large.pop()
            threshold[under], alias[under] = scaled[under], over
            scaled[over] -= 1.0 - scaled[under]  # ``over`` fills the rest of ``under``'s cell
            (small if scaled[over] < 1.0 else large).append(over)
        # whatever is left is full up to rounding: it keeps its own index
        self.threshold: Any = threshold
        self.alias: Any = alias
        self.use_gpu = False

    def sample(self, shape: int | tuple[int, ...]) -> Any:
        """An int32 array of ``shape`` drawn from the distribution (CuPy after ``to_gpu``)."""
        xp = backend.get_array_module(self.threshold)
        n = len(self.threshold)
        position = xp.random.random_sample(shape) * n
        cell = xp.minimum(position.astype(numpy.int32), n - 1)  # random_sample < 1, but n * u may round up to n
        keep = (position - cell) < self.threshold[cell]
        return xp.where(keep, cell, self.alias[cell]).astype(numpy.int32, copy=False)

    def to_gpu(self) -> WalkerAlias:
        """Keep the table on the GPU so that ``sample`` draws there; returns self."""
        self.threshold = backend.to_gpu(self.threshold)
        self.alias = backend.to_gpu(self.alias)
        self.use_gpu = True
        return self

    def to_cpu(self) -> WalkerAlias:
        """Keep the table in host memory (NumPy); returns self."""
        self.threshold = backend.to_cpu(self.threshold)
        self.alias = backend.to_cpu(self.alias)
        self.use_gpu = False
        return self

    @property
    def device(self) -> Any:
        """The device that holds the table (where ``sample`` draws).

        Example:
            >>> from minigrad.utils import WalkerAlias
            >>> WalkerAlias([1.0, 2.0]).to_device("@numpy").device
            <CpuDevice (numpy)>
        """
        return backend.get_device_from_array(self.threshold)

    def to_device(self, device: Any) -> WalkerAlias:
        """Keep the table on ``device`` (any of Chainer's specifiers that minigrad has); returns self."""
        device = backend.get_device(device)
        self.threshold, self.alias = device.send(self.threshold), device.send(self.alias)
        self.use_gpu = not isinstance(device, backend.CpuDevice)
        return self


def _check_probs(probs: Any) -> numpy.ndarray:
    where = "WalkerAlias"
    if isinstance(probs, (str, bytes)) or not hasattr(probs, "__len__"):
        raise TypeError(f"{where}: probs must be a list or a 1-D array of weights, got {type(probs).__name__}")
    try:
        weights = numpy.asarray(backend.to_cpu(probs) if backend.is_array(probs) else probs, dtype=numpy.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{where}: probs must hold real numbers ({error})") from None
    if weights.ndim != 1 or weights.size == 0:
        raise ValueError(f"{where}: probs must be a non-empty 1-D sequence, got shape {weights.shape}")
    if not numpy.isfinite(weights).all() or (weights < 0).any():
        raise ValueError(f"{where}: probs must be finite and non-negative, got {weights[:5].tolist()}...")
    if weights.sum() <= 0:
        raise ValueError(f"{where}: probs must not all be zero (length {weights.size})")
    return weights
