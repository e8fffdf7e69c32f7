"""Turn op specs into pytest items: ``test_ops = op_tests("mypkg.ops")`` in a test module.

One item per spec x dtype x backend x check, with ids such as
``test_ops[myop-float32-numpy-backward]``; minigrad's pytest plugin expands
them over the backends chosen with ``--minigrad-backend``. Each item runs
``minigrad.testing.run_case``, the same case runner as
``python -m minigrad check``. The case list depends only on the specs, in
registration order, so every pytest-xdist worker collects the same items.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from minigrad.testing.registry import BACKENDS, CHECKS, FLOAT_DTYPES, OpSpec, Registry, load_specs
from minigrad.testing.spec_variants import derived
from minigrad.testing.sweep import GRADIENT_CHECKS, run_case, runs_check

__all__ = ["op_tests", "run_op_case"]

# The argument the plugin parametrises; one value is (spec, dtype, backend, check).
CASE_ARGUMENT = "minigrad_op_case"


def op_tests(*sources: str | Registry | OpSpec, checks: Sequence[str] = CHECKS,
             dtypes: Sequence[str] = FLOAT_DTYPES, seed: int = 0) -> Callable[..., None]:
    """A pytest test function running every check of every spec in ``sources``.

    Bind it to a name starting with ``test`` in a test module; pytest then
    collects one item per spec x dtype x backend x check. Cases an op does not
    support (a dtype it does not declare, gradient checks of a
    non-differentiable op) are not generated; a backend that is missing (CuPy
    without a GPU) is a skip with its reason; an expected failure is an
    ``xfail``, and one that passes fails the item as an unexpected pass.

    Args:
        sources: module names or file paths (imported, as ``--specs`` does),
            ``Registry`` objects, or ``OpSpec`` objects.
        checks: the checks to run (default: all of ``CHECKS``).
        dtypes: the float dtypes to run (default: all the spec supports).
        seed: seed of the inputs and the checkers' random directions.

    Raises:
        minigrad.testing.SpecLoadError: a module fails to import, registers no
            spec, or two specs share a name.
        ValueError: an unknown check or dtype.

    Example:
        ``tests/test_my_ops.py`` holds just::

            from minigrad.testing import op_tests

            test_ops = op_tests("mypkg.ops")

        and ``pytest -n auto tests/test_my_ops.py`` runs them on all cores.
        Without pytest, the cases are available as a list:

        >>> from minigrad.testing import op_tests
        >>> test_ops = op_tests("minigrad.testing.op_specs", checks=("forward",), dtypes=("float32",))
        >>> spec, dtype, check = test_ops.minigrad_op_cases[0]
        >>> spec.name, dtype, check
        ('identity', 'float32', 'forward')
    """
    unknown = [c for c in checks if c not in CHECKS] + [d for d in dtypes if d not in FLOAT_DTYPES]
    if unknown or isinstance(checks, str) or isinstance(dtypes, str):
        raise ValueError(f"op_tests: unknown checks/dtypes {unknown or [checks, dtypes]}; checks are "
                         f"{', '.join(CHECKS)}, dtypes {', '.join(FLOAT_DTYPES)}")
    modules = [s for s in sources if not isinstance(s, OpSpec)]
    given = [case for s in sources if isinstance(s, OpSpec) for case in (s, *derived(s))]  # as load_specs does
    specs = (load_specs(*modules) if modules else []) + given
    names = [s.name for s in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"op_tests: op specs named {duplicates} are given more than once")
    cases = [(spec, dtype, check) for spec in specs for dtype in dtypes if dtype in spec.dtypes
             for check in checks if (spec.differentiable or check not in GRADIENT_CHECKS)
             and runs_check(spec, check)]

    def test_ops(minigrad_op_case: tuple[OpSpec, str, str, str]) -> None:
        run_op_case(*minigrad_op_case, seed=seed)

    test_ops.minigrad_op_cases = cases  # type: ignore[attr-defined]  # read by the plugin's pytest_generate_tests
    return test_ops


def run_op_case(spec: OpSpec, dtype: str, backend: str, check: str, seed: int = 0) -> None:
    """Run one case under pytest: skip, xfail, or raise with the checker's message.

    Example:
        >>> from minigrad.testing.pytest_integration import run_op_case
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("tanh", F.tanh, lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), np.tanh)
        >>> run_op_case(spec, "float64", "numpy", "backward")   # passes: returns None
    """
    import pytest

    from minigrad.testing.pytest_plugin import without_minigrad_frames

    result = run_case(spec, dtype, backend, check, seed=seed)
    if result.status == "skip":
        pytest.skip(result.message)
    if result.status == "xfail":
        pytest.xfail(result.message)
    if result.status == "xpass":
        pytest.fail(f"{spec.name} ({dtype}, {backend}, {check}): {result.message}", pytrace=False)
    if result.status in ("fail", "error"):  # error: a mistake in the spec, which the message names
        pytest.fail(f"{spec.name} ({dtype}, {backend}, {check}) failed: {result.message}"
                    + (f"\n\n{without_minigrad_frames(result.traceback)}" if result.traceback else ""), pytrace=False)


def parametrize(metafunc: Any, backends: Sequence[str]) -> None:
    """Expand an ``op_tests`` function over ``backends`` (called by minigrad's pytest plugin)."""
    cases = getattr(metafunc.function, "minigrad_op_cases", None)
    if cases is None:
        raise TypeError(f"{metafunc.function.__name__} takes {CASE_ARGUMENT!r}, which only functions made by "
                        "minigrad.testing.op_tests provide")
    values = []
    for _, group in itertools.groupby(cases, key=lambda case: (id(case[0]), case[1])):  # one spec and dtype
        group = list(group)
        values += [(spec, dtype, backend, check) for backend in backends for spec, dtype, check in group
                   if backend in spec.backends or backend not in BACKENDS]
    ids = [f"{spec.name}-{dtype}-{backend}-{check}" for spec, dtype, backend, check in values]
    metafunc.parametrize(CASE_ARGUMENT, values, ids=ids)
