"""Chainer's debug-mode switches: ``is_debug()`` and ``set_debug(flag)``, over ``config.debug``.

In debug mode every forward output and gradient is checked for NaN and Inf
(see :mod:`minigrad.configuration`); ``using_config("debug", True)`` turns it
on for a block, these two for the thread from now on.

Example:
    >>> import minigrad as mg
    >>> mg.is_debug()
    False
    >>> mg.set_debug(True); mg.is_debug()
    True
    >>> mg.set_debug(False)
"""

from __future__ import annotations

from minigrad.configuration import config

__all__ = ["is_debug", "set_debug"]


def is_debug() -> bool:
    """Whether debug mode is on in this thread (``config.debug``)."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turn debug mode on or off in this thread (sets ``config.debug``)."""
    if not isinstance(debug, bool):
        raise TypeError(f"set_debug: debug must be a bool, got {type(debug).__name__}")
    config.debug = debug
