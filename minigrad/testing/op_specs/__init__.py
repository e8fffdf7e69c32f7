"""minigrad's own op registry: one ``OpSpec`` per public op, grouped by family.

Each family module here (``math.py``, ``array.py``, ...) mirrors
``minigrad/functions/<family>/`` and registers its specs with the public API
(``from minigrad.testing import OpSpec, register``), exactly as a user's op
library does. Adding an op = node + wrapper + one ``register(OpSpec(...))``
here; the tests and ``python -m minigrad check`` then verify it.

Example:
    >>> from minigrad.testing.op_specs import all_specs
    >>> specs = all_specs()
    >>> "relu" in {s.name for s in specs}
    True
"""

from __future__ import annotations

import importlib

from minigrad.testing.registry import (  # noqa: F401  (the names this package has always offered)
    CHECKS,
    DEFAULT_FORWARD_TOLERANCE,
    DEFAULT_REGISTRY,
    FLOAT_DTYPES,
    OpSpec,
    register,
)

__all__ = ["OpSpec", "register", "all_specs", "FAMILIES", "FLOAT_DTYPES"]

FAMILIES: tuple[str, ...] = (
    "array", "math", "activation", "loss", "connection", "pooling", "normalization", "noise", "evaluation",
)


def all_specs() -> list[OpSpec]:
    """Every spec of minigrad's own ops, in family order."""
    for family in FAMILIES:
        importlib.import_module(f"{__name__}.{family}")
    return DEFAULT_REGISTRY.specs(__name__)


all_specs()  # so that `--specs minigrad.testing.op_specs` finds them all
