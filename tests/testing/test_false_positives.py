"""Correct ops never fail the checks (a CI-sized run; the 1,000-seed run is
``python scripts/gradcheck_false_positives.py``)."""

from __future__ import annotations

import pytest

from minigrad.testing import gradcheck_cases as cases

SEEDS = range(50)
CORRECT = cases.correct_cases()


@pytest.mark.parametrize("dtype", cases.DTYPES)
@pytest.mark.parametrize("case", CORRECT, ids=[f"{c.name}-order{c.order}" for c in CORRECT])
def test_correct_op_passes(case, dtype):
    if dtype not in case.dtypes:
        pytest.skip(f"{case.name} is not defined for {dtype}")
    worst = 0.0
    for seed in SEEDS:
        report = cases.run(case, dtype, seed, wrong=False)  # raises on a (false) failure
        worst = max(worst, report.margin)
    assert worst < 1.0
