"""Skipping a test case with or without pytest.

``FunctionTestCase`` and ``LinkTestCase`` run under pytest, but also from a plain
script or notebook with only ``pip install minigrad`` (NumPy the only
dependency). So nothing in ``minigrad.testing`` imports pytest at import time:
a case that cannot run calls :func:`skip`, which raises pytest's skip exception
when pytest is installed and :class:`unittest.SkipTest` (which pytest also
reports as a skip) when it is not.
"""

from __future__ import annotations

import unittest
from typing import NoReturn


def skip(reason: str) -> NoReturn:
    """Skip the running test case, with ``reason``; works with and without pytest.

    Example:
        >>> try:
        ...     skip("CuPy with a GPU is not available")
        ... except BaseException as error:  # pytest's Skipped is not an Exception subclass
        ...     print(type(error).__name__, "-", error)
        Skipped - CuPy with a GPU is not available
    """
    try:
        import pytest
    except ImportError:
        raise unittest.SkipTest(reason) from None
    pytest.skip(reason)
