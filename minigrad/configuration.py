"""Thread-local configuration and the context managers that change it.

``global_config`` holds the defaults. ``config`` is what code reads: each
thread gets its own copy of the defaults the first time it touches ``config``,
so ``using_config`` in one thread never leaks into another.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import Any

import numpy

__all__ = [
    "global_config",
    "config",
    "using_config",
    "no_backprop_mode",
    "force_backprop_mode",
]


class GlobalConfig:
    """Process-wide defaults that every new thread starts from."""

    enable_backprop: bool = True  # record the graph for backward
    train: bool = True  # training mode (dropout, batch statistics)
    debug: bool = False  # check every forward output and gradient for NaN/Inf
    dtype: numpy.dtype = numpy.dtype(numpy.float32)  # default dtype of initializers and parameters
    in_recomputing: bool = False  # F.forget is calling func again in backward (links skip their state updates)


global_config = GlobalConfig()


class LocalConfig(threading.local):
    """Per-thread configuration, initialised from ``global_config``.

    ``threading.local`` calls ``__init__`` once per thread, so reads are plain
    attribute lookups (fast on the hot path of every op).
    """

    def __init__(self) -> None:
        for name, value in vars(GlobalConfig).items():
            if not name.startswith("_"):
                setattr(self, name, getattr(global_config, name, value))


    def show(self, file: Any = None) -> None:
        """Print every configuration entry of this thread and its value, one per line (as Chainer does).

        Example:
            >>> import minigrad as mg
            >>> mg.config.show()  # doctest: +NORMALIZE_WHITESPACE
            debug            False
            dtype            float32
            enable_backprop  True
            in_recomputing   False
            train            True
        """
        entries = sorted(vars(self).items())
        width = max(len(name) for name, _ in entries) + 2
        for name, value in entries:
            print(f"{name:<{width}}{value}", file=file)  # (file=None: sys.stdout)


config = LocalConfig()


@contextlib.contextmanager
def using_config(name: str, value: Any) -> Iterator[None]:
    """Set ``config.<name>`` to ``value`` in this thread for a ``with`` block.

    Example:
        >>> import minigrad as mg
        >>> with mg.using_config("train", False):
        ...     mg.config.train
        False
        >>> mg.config.train
        True
    """
    if not isinstance(name, str):
        raise TypeError(f"using_config: name must be a str, got {type(name).__name__}")
    had_value = hasattr(config, name)
    old = getattr(config, name, None)
    setattr(config, name, value)
    try:
        yield
    finally:
        if had_value:
            setattr(config, name, old)
        else:
            delattr(config, name)


def no_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Context in which ops record no graph (``enable_backprop=False``).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> x = mg.Variable(np.ones(2))
        >>> with mg.no_backprop_mode():
        ...     y = x * 2
        >>> y.creator is None
        True
    """
    return using_config("enable_backprop", False)


def force_backprop_mode() -> contextlib.AbstractContextManager[None]:
    """Context in which ops record the graph even inside ``no_backprop_mode``.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> x = mg.Variable(np.ones(2))
        >>> with mg.no_backprop_mode(), mg.force_backprop_mode():
        ...     y = x * 2
        >>> y.creator is not None
        True
    """
    return using_config("enable_backprop", True)
