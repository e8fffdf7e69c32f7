"""The battery's ``refuses`` check: an op given bad inputs raises a TypeError or ValueError that names it.

The bad inputs are not listed by hand: ``minigrad.testing.spec_variants``
derives them from each ``OpSpec`` (a list or a string where it draws an
array, an integer array where the op is float-only, operands that do not
broadcast, an axis out of range) as cases named ``op[bad:...]`` that run this
check alone; no other case runs it. A bad case passes when the op refuses
with a ``TypeError`` or ``ValueError`` whose message names it (one of the
spec's ``public_names``); it fails when the op accepts the inputs, raises
anything else (a bare NumPy or Python error) or raises without naming itself.

A spec's ``func`` may use an input itself before the op sees it (``x.xp``,
``x[...]``); a bad value then fails in the spec's own code, which says
nothing about the op: the case reports a skip naming the spec.

Example:
    >>> import numpy as np, minigrad.functions as F
    >>> from minigrad.testing import OpSpec
    >>> from minigrad.testing.refusal_check import check_refuses
    >>> bad = OpSpec("exp[bad:int]", F.exp, lambda rng, dt: (np.arange(3),), covers=("exp",))
    >>> check_refuses(bad, "float64", "numpy", np.random.default_rng(0), 0)
    >>> lax = OpSpec("abs[bad:int]", F.absolute, lambda rng, dt: (np.arange(3),), covers=("absolute",))
    >>> check_refuses(lax, "float64", "numpy", np.random.default_rng(0), 0)
    Traceback (most recent call last):
    ...
    AssertionError: abs[bad:int]: accepts its bad inputs (int64 array of shape (3,)); it must raise ... naming absolute
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad.configuration import force_backprop_mode
from minigrad.testing.registry import OpSpec
from minigrad.variable import Variable

__all__ = ["check_refuses", "CaseSkipped", "describe"]

class CaseSkipped(Exception):
    """Raised by a check that finds, while running, that its case says nothing: ``run_case`` reports a skip."""


def describe(value: Any) -> str:
    """A bad value in a few words: ``int64 array of shape (3,)``, ``a list``, ``the str 'abc'``.

    Example:
        >>> import numpy as np
        >>> from minigrad.testing.refusal_check import describe
        >>> describe(np.zeros((2, 1), np.int32)), describe([1.0]), describe("abc")
        ('int32 array of shape (2, 1)', 'a list', "the str 'abc'")
    """
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return f"{value.dtype} array of shape {tuple(value.shape)}"
    return f"the str {value!r}" if isinstance(value, str) else f"a {type(value).__name__}"


def _as_arguments(inputs: Sequence[Any], backend: str) -> list[Any]:
    """Arrays as Variables on ``backend`` (a spec's func may read ``x.xp``); a list or a string as it is."""
    arguments = []
    for a in inputs:
        if isinstance(a, numpy.ndarray):
            a = Variable(a if backend == "numpy" else backend_module.to_gpu(a), requires_grad=a.dtype.kind == "f")
        arguments.append(a)
    return arguments


def _raised_by_the_spec(spec: OpSpec, error: BaseException) -> bool:
    """Whether ``error`` came from the spec's own code: every frame below this check's is in its func's file."""
    code = getattr(spec.func, "__code__", None)
    frame = error.__traceback__.tb_next if error.__traceback__ is not None else None
    if code is None or frame is None:
        return False
    own = os.path.abspath(code.co_filename)
    while frame is not None:
        if os.path.abspath(frame.tb_frame.f_code.co_filename) != own:
            return False  # the op (or anything else) ran: the error is its to answer for
        frame = frame.tb_next
    return True


def check_refuses(spec: OpSpec, dtype: str, backend: str, rng: numpy.random.Generator, seed: int) -> None:
    """``spec.func`` on ``spec.inputs`` (bad ones) raises TypeError/ValueError naming the op; else AssertionError."""
    inputs = tuple(spec.inputs(rng, numpy.dtype(dtype)))
    bad = ", ".join(describe(a) for a in inputs if not isinstance(a, numpy.ndarray) or a.dtype.kind != "f") or \
        ", ".join(describe(a) for a in inputs)
    names = spec.public_names
    try:
        with force_backprop_mode():
            outputs = spec.func(*_as_arguments(inputs, backend))
    except (TypeError, ValueError) as error:
        if any(name in str(error) for name in names):
            return
        if _raised_by_the_spec(spec, error):
            raise CaseSkipped(f"{spec.name}: the spec's func uses its inputs before the op sees them") from error
        raise AssertionError(f"{spec.name}: refuses its bad inputs ({bad}) with a {type(error).__name__} that does "
                             f"not name {' or '.join(names)}: {error}") from error
    except Exception as error:
        if _raised_by_the_spec(spec, error):
            raise CaseSkipped(f"{spec.name}: the spec's func uses its inputs before the op sees them") from error
        raise AssertionError(f"{spec.name}: bad inputs ({bad}) give a bare {type(error).__name__}, not a "
                             f"TypeError or ValueError naming {' or '.join(names)}: {error}") from error
    del outputs
    raise AssertionError(f"{spec.name}: accepts its bad inputs ({bad}); it must raise a TypeError or ValueError "
                         f"naming {' or '.join(names)}")
