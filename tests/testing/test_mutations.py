"""The mutation suite: every deliberately wrong gradient must be flagged, at every dtype, for many seeds.

The full-size run (1,000 seeds) is ``python scripts/gradcheck_false_positives.py --mutants``.
"""

from __future__ import annotations

import pytest

from minigrad.testing import GradientCheckError, NondifferentiableError
from minigrad.testing import gradcheck_cases as cases

SEEDS = range(10)


FLAGGED = cases.MUTANTS + cases.KINK_MUTANTS + cases.NO_BACKPROP_MUTANTS


@pytest.mark.parametrize("dtype", cases.DTYPES)
@pytest.mark.parametrize("case", FLAGGED, ids=[c.name for c in FLAGGED])
def test_mutant_is_flagged(case, dtype):
    if dtype not in case.dtypes:
        pytest.skip(f"{case.name} is not defined for {dtype}")
    missed = []
    for seed in SEEDS:
        try:
            cases.run(case, dtype, seed, wrong=True)
        except GradientCheckError:
            continue
        missed.append(seed)
    assert not missed, f"{case.category} mutant {case.name!r} passed at {dtype} for seeds {missed}"


@pytest.mark.parametrize("dtype", ("float16", "float32"))
@pytest.mark.parametrize("case", cases.DTYPE_SPECIFIC, ids=[c.name for c in cases.DTYPE_SPECIFIC])
def test_dtype_specific_mutant_is_flagged(case, dtype):
    for seed in SEEDS:
        with pytest.raises(GradientCheckError, match="differs from the reference gradient"):
            cases.run(case, dtype, seed, wrong=True)


def test_failure_names_the_wrong_input_and_element():
    case = next(c for c in cases.MUTANTS if c.category == "one element")
    with pytest.raises(GradientCheckError) as info:
        cases.run(case, "float64", 7, wrong=True)
    message = str(info.value)
    rng_case = cases.numpy.random.default_rng([7, sum(map(ord, case.name)), 2])
    rng_case.uniform(-1, 1, size=(100, 100))
    element = int(rng_case.integers(0, 10000))
    index = tuple(int(i) for i in cases.numpy.unravel_index(element, (100, 100)))
    assert "x_data[0]" in message and "seed=7" in message
    assert f"index {index}" in message, message
    report = info.value.report
    assert report.targets[0].elements[0].index == index


def test_failure_names_the_wrong_parameter():
    case = next(c for c in cases.MUTANTS if c.name == "linear: gb*(1+d)")
    with pytest.raises(GradientCheckError) as info:
        cases.run(case, "float32", 0, wrong=True)
    wrong = [t.name for t in info.value.report.targets if t.margin >= 1]
    assert wrong == ["params[1]"]
    assert "for params[1] (seed=0)" in str(info.value).splitlines()[0]


def test_graph_cut_is_a_failure_with_a_hint():
    case = next(c for c in cases.MUTANTS if c.category == "graph cut")
    with pytest.raises(GradientCheckError, match="no graph was recorded"):
        cases.run(case, "float64", 0, wrong=True)


def test_gy_treated_as_constant_names_the_output_gradient():
    case = next(c for c in cases.MUTANTS if c.category == "gy constant")
    with pytest.raises(GradientCheckError) as info:
        cases.run(case, "float32", 0, wrong=True)
    assert [t.name for t in info.value.report.targets if t.margin >= 1] == ["y_grad[0]"]


@pytest.mark.parametrize("case", [c for c in cases.KINK_MUTANTS if "verifiable" not in c.tags],
                         ids=[c.name for c in cases.KINK_MUTANTS if "verifiable" not in c.tags])
def test_correct_op_on_a_kink_is_not_passed(case):
    # the kink sits (almost) at the point: no step clears it, so the check may not pass
    for seed in SEEDS:
        with pytest.raises(NondifferentiableError, match=r"x_data\[0\] element"):
            cases.run(case, "float64", seed, wrong=False)
