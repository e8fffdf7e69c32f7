"""Non-array first arguments: what the op registry's derived bad cases cannot express, and that they cover the rest.

The registry derives ``op[bad:list]`` and ``op[bad:str]`` from every spec
(``minigrad.testing.spec_variants.bad_cases``), which ``python -m minigrad check`` and
``tests/functions/test_op_registry.py`` run with the ``refuses`` check: the op must raise a TypeError or
ValueError naming it. Where a spec's ``func`` uses its first input itself before the op sees it (``x.xp`` to
draw a mask, ``a + a.T``), its bad cases skip; the public functions all of whose specs are such are called
here directly, with the bad value first and float arrays for the other required arguments.
"""

from __future__ import annotations

import functools
import inspect

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import run_case
from minigrad.testing.op_specs import all_specs
from minigrad.testing.spec_variants import bad_cases

NAMES = sorted(n for n in dir(F) if not n.startswith("_") and n[0].islower() and callable(getattr(F, n)))
BAD_VALUES = {"bad:list": [1.0, 2.0], "bad:str": "abc"}


@functools.cache
def derived_coverage() -> dict[str, set[str]]:
    """label -> the public names a derived bad case of that label checks (it ran and passed)."""
    covered: dict[str, set[str]] = {label: set() for label in BAD_VALUES}
    for spec in all_specs():
        for case in bad_cases(spec):
            label = case.name.rsplit(",", 1)[-1].rsplit("[", 1)[-1].rstrip("]")
            if label in covered and run_case(case, spec.dtypes[-1], "numpy", "refuses").status == "pass":
                covered[label] |= set(case.public_names)
    return covered


def not_derivable() -> list[str]:
    covered = derived_coverage()
    return [n for n in NAMES if not all(n in names for names in covered.values())]


def _takes_a_sequence_first(function: object) -> bool:
    """Whether the signature says the first argument is a sequence of arrays (concat, stack): it gets bad ones."""
    first = next(iter(inspect.signature(function).parameters.values()), None)
    return first is not None and "Sequence[" in str(first.annotation)


def _call_with_bad_first_argument(name: str, bad: object) -> None:
    function = getattr(F, name)
    required = [p for p in inspect.signature(function).parameters.values()
                if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    others = [np.ones((2, 2), np.float32)] * max(len(required) - 1, 0)
    first = [bad, bad] if _takes_a_sequence_first(function) else bad
    function(first, *others)


@pytest.mark.parametrize("bad", list(BAD_VALUES.values()), ids=["list", "str"])
@pytest.mark.parametrize("name", not_derivable())
def test_non_array_input_is_a_clear_error(name, bad):
    with pytest.raises((TypeError, ValueError)) as info:
        _call_with_bad_first_argument(name, bad)
    assert name in str(info.value) or name.split("_")[0] in str(info.value), str(info.value)


def test_the_derived_bad_cases_cover_all_but_a_few_public_functions():
    """The derived cases are the rule: the functions left to the test above are those whose specs all use their
    first input in their own code (13 of 223 when this was written)."""
    covered = derived_coverage()
    assert len(covered["bad:list"] & covered["bad:str"] & set(NAMES)) >= 200
    assert len(not_derivable()) <= 15, not_derivable()


def test_the_functions_taking_a_sequence_are_found_by_their_signatures():
    assert {"concat", "stack", "hstack", "vstack"} <= {n for n in NAMES if _takes_a_sequence_first(getattr(F, n))}
