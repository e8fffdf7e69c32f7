"""One vocabulary of tolerances and checker options, shared by ``OpSpec``, the test classes and the case runner.

Chainer's ``FunctionTestCase`` names them ``check_forward_options``,
``check_backward_options`` and ``check_double_backward_options``; minigrad's
``OpSpec``, ``FunctionTestCase`` and ``LinkTestCase`` use the same three names
with the same meaning: a dict of keywords for every dtype, where an entry keyed
by a float dtype holds that dtype's own keywords (they win over the shared
ones)::

    check_backward_options = {"eps": 1e-3, "float16": {"atol": 5e-2, "rtol": 5e-2}}

The forward's keywords are ``atol`` and ``rtol`` (the comparison with the
reference); the gradient checks' are those of ``check_backward`` /
``check_double_backward`` in ``GRADIENT_CHECK_OPTIONS``.

Example:
    >>> from minigrad.testing.check_options import normalize, options_for
    >>> table = normalize({"eps": 1e-3, "float16": {"atol": 5e-2}}, "backward", "OpSpec 'tanh'")
    >>> options_for(table, "float16"), options_for(table, "float64")
    ({'eps': 0.001, 'atol': 0.05}, {'eps': 0.001})
    >>> normalize({"float16": {"atoll": 1.0}}, "forward", "OpSpec 'tanh'")
    Traceback (most recent call last):
    ...
    ValueError: OpSpec 'tanh': check_forward_options has unknown keywords ['atoll']; choose from atol, rtol
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy

__all__ = ["OPTION_NAMES", "GRADIENT_CHECK_OPTIONS", "DEPRECATED_SPEC_NAMES", "normalize", "options_for",
           "from_deprecated", "dtype_name"]

FLOAT_DTYPES = ("float16", "float32", "float64")
#: the three tables by the battery check they configure
OPTION_NAMES: dict[str, str] = {"forward": "check_forward_options", "backward": "check_backward_options",
                                "double": "check_double_backward_options"}
#: the keywords a table may pass on to check_backward / check_double_backward (the runner sets the others)
GRADIENT_CHECK_OPTIONS = frozenset({"eps", "atol", "rtol", "no_grads", "dtype", "detect_nondifferentiable",
                                    "nondet_tol", "directions", "input_names"})
_ALLOWED = {"forward": frozenset({"atol", "rtol"}), "backward": GRADIENT_CHECK_OPTIONS,
            "double": GRADIENT_CHECK_OPTIONS}
#: OpSpec's names before the one vocabulary: (check, "tolerance" for per-dtype (atol, rtol), "options" for keywords)
DEPRECATED_SPEC_NAMES: dict[str, tuple[str, str]] = {
    "forward_tolerance": ("forward", "tolerance"), "backward_tolerance": ("backward", "tolerance"),
    "double_tolerance": ("double", "tolerance"), "backward_options": ("backward", "options"),
    "double_options": ("double", "options")}


def dtype_name(key: Any) -> str | None:
    """The float dtype name a table key stands for ("float16", numpy.float16, numpy.dtype(...)), else None."""
    try:
        name = numpy.dtype(key).name if not isinstance(key, str) or key in FLOAT_DTYPES else None
    except TypeError:
        return None
    return name if name in FLOAT_DTYPES else None


def normalize(table: Mapping[Any, Any] | None, check: str, where: str) -> dict[str, Any]:
    """``table`` with its dtype keys as names, every keyword checked against what ``check`` takes."""
    name = OPTION_NAMES[check]
    if table is None:
        return {}
    if not isinstance(table, Mapping):
        raise TypeError(f"{where}: {name} must be a dict of keywords (or of dicts per dtype), "
                        f"got {type(table).__name__}")
    result: dict[str, Any] = {}
    for key, value in table.items():
        dtype = dtype_name(key)
        if dtype is None:
            result[key] = value
        elif isinstance(value, Mapping):
            result[dtype] = {**result.get(dtype, {}), **value}
        else:
            raise TypeError(f"{where}: {name}[{dtype!r}] must be a dict of keywords such as "
                            f"{{'atol': ..., 'rtol': ...}}, got {type(value).__name__}")
    keywords = {k for k in result if k not in FLOAT_DTYPES}
    keywords |= {k for dtype in FLOAT_DTYPES for k in result.get(dtype, {})}
    unknown = sorted(keywords - _ALLOWED[check], key=str)
    if unknown:
        raise ValueError(f"{where}: {name} has unknown keywords {unknown}; choose from "
                         f"{', '.join(sorted(_ALLOWED[check]))}")
    return result


def options_for(table: Mapping[str, Any], dtype: str) -> dict[str, Any]:
    """The keywords of a normalized ``table`` for ``dtype``: the shared ones, then the dtype's own."""
    shared = {k: v for k, v in table.items() if k not in FLOAT_DTYPES}
    return {**shared, **table.get(dtype, {})}


def from_deprecated(tolerance: Mapping[Any, Any] | None, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """One table from OpSpec's old pair: per-dtype ``(atol, rtol)`` and keywords (which won over the tolerances).

    Example:
        >>> from minigrad.testing.check_options import from_deprecated
        >>> from_deprecated({"float16": (1e-2, 1e-3)}, {"eps": 1e-3})
        {'float16': {'atol': 0.01, 'rtol': 0.001}, 'eps': 0.001}
    """
    options = dict(options or {})
    table: dict[str, Any] = {}
    for dtype, (atol, rtol) in dict(tolerance or {}).items():
        table[dtype] = {k: v for k, v in (("atol", atol), ("rtol", rtol)) if k not in options}
    return {**table, **options}
