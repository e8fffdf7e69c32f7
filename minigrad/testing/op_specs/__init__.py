"""The op registry: one ``OpSpec`` per public op, read by the tests and ``python -m minigrad check``.

Each family module here (``math.py``, ``array.py``, ...) mirrors
``minigrad/functions/<family>/`` and calls ``register`` for each op. A spec
says how to draw valid inputs per dtype (clear of the op's kinks), which
independent NumPy reference the forward must match, and the tolerances.
Adding an op = node + wrapper + one ``register(OpSpec(...))`` here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy

__all__ = ["OpSpec", "register", "all_specs", "FAMILIES", "FLOAT_DTYPES"]

FLOAT_DTYPES: tuple[str, ...] = ("float16", "float32", "float64")
FAMILIES: tuple[str, ...] = (
    "array", "math", "activation", "loss", "connection", "pooling", "normalization", "noise", "evaluation",
)

# Default tolerances per dtype, as (atol, rtol), for the forward comparison
# with the float64 reference.
DEFAULT_FORWARD_TOLERANCE: dict[str, tuple[float, float]] = {
    "float16": (5e-3, 5e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-12, 1e-10),
}


@dataclass(frozen=True)
class OpSpec:
    """How to verify one op.

    Attributes:
        name: unique registry name; variants use brackets, e.g. ``"pad[reflect]"``.
        func: ``func(*variables)`` -> Variable or tuple; non-array arguments bound.
        inputs: ``inputs(rng, dtype)`` -> tuple of NumPy arrays: float inputs in
            ``dtype`` (integer arguments keep an integer dtype), drawn inside the
            op's domain and clear of its kinks.
        reference: ``reference(*arrays)`` -> array or tuple: an independent NumPy
            implementation of the forward, given the inputs upcast to float64.
        covers: the public ``F.*`` names this spec verifies (default: ``name``
            without its bracketed variant).
        dtypes: float dtypes the op supports.
        differentiable: False for ops with no gradient (argmax, sign, ...): their
            outputs must not require grad.
        second_order: whether to run ``check_double_backward``.
        preserves_dtype: float outputs have the inputs' dtype (False for ``cast``).
        forward_tolerance / backward_tolerance / double_tolerance: per-dtype
            ``(atol, rtol)`` overrides (``None`` for the defaults).
        kinks: human-readable description of the points ``inputs`` keeps clear of.
        backends: ``"numpy"`` and/or ``"cupy"``.
        grad_outputs: optional ``grad_outputs(rng, outputs)`` drawing output gradients.
        seed_offset: varied per spec so that ops do not share random streams.
    """

    name: str
    func: Callable[..., Any]
    inputs: Callable[[numpy.random.Generator, numpy.dtype], tuple[Any, ...]]
    reference: Callable[..., Any] | None = None
    covers: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = FLOAT_DTYPES
    differentiable: bool = True
    second_order: bool = True
    preserves_dtype: bool = True
    forward_tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    backward_tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    double_tolerance: dict[str, tuple[float, float]] = field(default_factory=dict)
    kinks: str = ""
    backends: tuple[str, ...] = ("numpy", "cupy")
    grad_outputs: Callable[[numpy.random.Generator, tuple[Any, ...]], tuple[Any, ...]] | None = None

    @property
    def public_names(self) -> tuple[str, ...]:
        return self.covers or (self.name.split("[", 1)[0],)


_REGISTRY: dict[str, OpSpec] = {}
_loaded = False


def register(spec: OpSpec) -> OpSpec:
    """Add ``spec`` to the registry; a second spec with the same name is an error."""
    if spec.name in _REGISTRY:
        raise ValueError(f"op spec {spec.name!r} is registered twice")
    _REGISTRY[spec.name] = spec
    return spec


def all_specs() -> list[OpSpec]:
    """Every registered spec, in family order (imports the family modules once)."""
    global _loaded
    if not _loaded:
        _loaded = True
        for family in FAMILIES:
            importlib.import_module(f"minigrad.testing.op_specs.{family}")
    return list(_REGISTRY.values())
