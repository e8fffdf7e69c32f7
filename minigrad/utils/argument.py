"""Chainer's ``utils.argument``: keyword arguments of a function taken from ``**kwargs`` (``parse_kwargs``).

Example:
    >>> from minigrad.utils import argument
    >>> def resize(x, **kwargs):
    ...     mode, = argument.parse_kwargs(kwargs, ("mode", "nearest"), train="train is not taken any more")
    ...     return mode
    >>> resize(None), resize(None, mode="bilinear")
    ('nearest', 'bilinear')
    >>> resize(None, size=3)
    Traceback (most recent call last):
    ...
    TypeError: resize() got unexpected keyword argument(s) 'size'
"""

from __future__ import annotations

import inspect
from typing import Any

__all__ = ["parse_kwargs", "check_unexpected_kwargs", "assert_kwargs_empty"]


def check_unexpected_kwargs(kwargs: dict[str, Any], **unexpected: str) -> None:
    """Raise ``ValueError`` with the message given for the first key of ``unexpected`` found in ``kwargs``.

    Example:
        >>> from minigrad.utils import argument
        >>> argument.check_unexpected_kwargs({"a": 1}, b="b is gone")
    """
    for key, message in unexpected.items():
        if key in kwargs:
            raise ValueError(message)


def parse_kwargs(kwargs: dict[str, Any], *names_and_defaults: tuple[str, Any], **unexpected: str) -> tuple[Any, ...]:
    """Pop each ``(name, default)`` from ``kwargs`` and return the values; a key left over is a ``ValueError``
    (with its message, for a key of ``unexpected``) or a ``TypeError`` naming the calling function.

    Example:
        >>> from minigrad.utils import argument
        >>> argument.parse_kwargs({"b": 2}, ("a", 1), ("b", 0))
        (1, 2)
    """
    values = tuple(kwargs.pop(name, default) for name, default in names_and_defaults)
    if kwargs:
        check_unexpected_kwargs(kwargs, **unexpected)
        caller = inspect.stack()[1].function
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {', '.join(repr(k) for k in sorted(kwargs))}")
    return values


def assert_kwargs_empty(kwargs: dict[str, Any]) -> None:
    """A ``TypeError`` naming the caller when ``kwargs`` is not empty.

    Example:
        >>> from minigrad.utils import argument
        >>> argument.assert_kwargs_empty({})
    """
    if kwargs:
        caller = inspect.stack()[1].function
        raise TypeError(f"{caller}() got unexpected keyword argument(s) {', '.join(repr(k) for k in sorted(kwargs))}")
