"""Input generators for op specs: values inside an op's domain and clear of its kinks."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

__all__ = ["uniform", "away_from", "distinct", "integers", "positive", "with_dtype"]


def uniform(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any,
            low: float = -1.0, high: float = 1.0) -> numpy.ndarray:
    """Uniform values in ``[low, high)`` of ``dtype``."""
    return rng.uniform(low, high, size=tuple(shape)).astype(dtype)


def positive(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any,
             low: float = 0.5, high: float = 2.0) -> numpy.ndarray:
    """Uniform values in ``[low, high)``, for ops defined on positives (log, sqrt, ...)."""
    return uniform(rng, shape, dtype, low, high)


def away_from(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any,
              points: Sequence[float] = (0.0,), margin: float = 0.1,
              low: float = -1.0, high: float = 1.0) -> numpy.ndarray:
    """Uniform values in ``[low, high)`` at least ``margin`` away from every kink in ``points``."""
    x = rng.uniform(low, high, size=tuple(shape))
    for _ in range(100):
        bad = numpy.zeros(x.shape, dtype=bool)
        for p in points:
            bad |= numpy.abs(x - p) < margin
        if not bad.any():
            break
        x[bad] = rng.uniform(low, high, size=int(bad.sum()))
    else:
        raise RuntimeError("away_from: could not draw values clear of the kinks; widen [low, high)")
    return x.astype(dtype)


def distinct(rng: numpy.random.Generator, shape: Sequence[int], dtype: Any,
             spacing: float = 0.05, low: float = -1.0) -> numpy.ndarray:
    """Values with pairwise gaps >= ``spacing`` (no ties for max/min/sort-like ops), shuffled."""
    size = int(numpy.prod(shape, dtype=numpy.int64))
    values = low + spacing * (numpy.arange(size) + rng.uniform(0.2, 0.8, size=size) * 0.5)
    return rng.permutation(values).reshape(tuple(shape)).astype(dtype)


def integers(rng: numpy.random.Generator, shape: Sequence[int], low: int, high: int,
             dtype: Any = numpy.int32) -> numpy.ndarray:
    """Integer arguments (labels, indices) in ``[low, high)``."""
    return rng.integers(low, high, size=tuple(shape)).astype(dtype)


def with_dtype(inputs: Callable[..., tuple[numpy.ndarray, ...]], dtype: Any,
               indexes: Sequence[int]) -> Callable[..., tuple[numpy.ndarray, ...]]:
    """``inputs(rng, dt)`` with the arrays at ``indexes`` cast to ``dtype`` whatever ``dt`` is.

    For the specs of ops that take mixed float dtypes, as Chainer's do (float16
    ``x`` with float32 ``gamma``): the sweep draws in one dtype, this fixes the
    other, so the float16 run checks float16 ``x`` against float32 parameters.
    """
    def draw(rng: numpy.random.Generator, dt: Any) -> tuple[numpy.ndarray, ...]:
        return tuple(a.astype(dtype) if i in indexes else a for i, a in enumerate(inputs(rng, dt)))
    return draw
