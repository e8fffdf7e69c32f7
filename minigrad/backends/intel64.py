"""iDeep (Chainer's ``chainer.backends.intel64``), which minigrad does not have: it is never available.

Code that asks (``intel64.is_ideep_available()``) gets ``False`` and takes its NumPy path; anything that would
need iDeep raises ``RuntimeError``.

Example:
    >>> from minigrad.backends import intel64
    >>> intel64.is_ideep_available(), intel64.should_use_ideep(">=auto")
    (False, False)
"""

from __future__ import annotations

from typing import Any

__all__ = ["is_ideep_available", "check_ideep_available", "should_use_ideep", "inputs_all_ready", "mdarray"]


class mdarray:  # noqa: N801  (Chainer's name; no array is ever one)
    """iDeep's array type: a class no array belongs to, so ``isinstance(x, intel64.mdarray)`` is False."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        check_ideep_available()


def is_ideep_available() -> bool:
    """Always ``False``: minigrad has no iDeep backend."""
    return False


def check_ideep_available() -> None:
    """Raise ``RuntimeError``: iDeep is not part of minigrad."""
    raise RuntimeError("iDeep is not available: minigrad has no iDeep backend (use NumPy on the host)")


def should_use_ideep(level: str) -> bool:
    """Always ``False``, whatever ``config.use_ideep`` says."""
    return False


def inputs_all_ready(inputs: Any, supported_ndim: tuple[int, ...] = (2, 4)) -> bool:
    """Always ``False``: no input is ever ready for iDeep."""
    return False
