"""Every public F.* function refuses non-array inputs with a TypeError/ValueError that names it."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minigrad.functions as F

NAMES = sorted(n for n in dir(F) if not n.startswith("_") and n[0].islower() and callable(getattr(F, n)))


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


@pytest.mark.parametrize("bad", [[1.0, 2.0], "abc"], ids=["list", "str"])
@pytest.mark.parametrize("name", NAMES)
def test_non_array_input_is_a_clear_error(name, bad):
    with pytest.raises((TypeError, ValueError)) as info:
        _call_with_bad_first_argument(name, bad)
    assert name in str(info.value) or name.split("_")[0] in str(info.value), str(info.value)


def test_the_functions_taking_a_sequence_are_found_by_their_signatures():
    assert {"concat", "stack", "hstack", "vstack"} <= {n for n in NAMES if _takes_a_sequence_first(getattr(F, n))}


def test_the_sweep_covers_many_functions():
    assert len(NAMES) >= 75
