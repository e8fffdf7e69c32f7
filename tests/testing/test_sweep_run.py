"""Running planned cases: worker processes and any Executor give a serial run's results; a dying worker is an error."""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from minigrad.testing.sweep_plan import DEFAULT_SPECS, plan_cases
from minigrad.testing.sweep_run import chunks, run_cases

DYING_SPECS = """
import os

import numpy as np
import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import uniform


def _inputs(rng, dt):
    return (uniform(rng, (3,), dt),)


def _dies_in_a_worker(x):
    if os.environ.get("MINIGRAD_TEST_PARENT") != str(os.getpid()):  # any process but the test's
        os._exit(3)  # no Python error, no result: the worker process is gone
    return F.tanh(x)


register(OpSpec("before", F.tanh, _inputs, np.tanh))
register(OpSpec("dies", _dies_in_a_worker, _inputs, np.tanh))
register(OpSpec("after", F.exp, _inputs, np.exp))
"""


def _outcomes(pairs):
    return sorted((case.index, case.op, case.dtype, case.check, result.status, result.margin, result.seed)
                  for case, result in pairs)


def test_worker_processes_give_the_serial_results():
    cases = plan_cases([DEFAULT_SPECS], ops="a*,sp*", dtypes=["float16", "float32"])
    serial = list(run_cases(cases))
    assert [case for case, _ in serial] == cases  # serial: in plan order
    parallel = list(run_cases(cases, jobs=2))
    assert _outcomes(parallel) == _outcomes(serial)
    assert {r.status for _, r in serial} >= {"pass", "skip"} and not any(r.failed for _, r in serial)


def test_any_executor_gives_the_serial_results():
    cases = plan_cases([DEFAULT_SPECS], ops="tanh,sum,get_item*", dtypes=["float64"])
    with ThreadPoolExecutor(3) as pool:
        threaded = list(run_cases(cases, executor=pool))
    assert _outcomes(threaded) == _outcomes(run_cases(cases))


def test_a_worker_that_dies_is_its_case_error_and_the_sweep_goes_on(tmp_path, monkeypatch):
    path = tmp_path / "i30_dying_specs.py"
    path.write_text(DYING_SPECS)
    monkeypatch.setenv("MINIGRAD_TEST_PARENT", str(os.getpid()))
    cases = plan_cases([str(path)], dtypes=["float64"], checks=["forward", "backward"])
    start = time.perf_counter()
    results = {(case.op, case.check): result for case, result in run_cases(cases, jobs=2)}
    assert time.perf_counter() - start < 60  # not a hang
    assert len(results) == len(cases) == 6
    for check in ("forward", "backward"):
        died = results[("dies", check)]
        assert died.status == "error" and "the worker process running this case died" in died.message
        assert results[("before", check)].status == results[("after", check)].status == "pass"
    assert {r.status for _, r in run_cases(cases)} == {"pass"}  # in this process it does not die


def test_chunks_keep_plan_order_and_cover_every_case():
    cases = plan_cases([DEFAULT_SPECS], ops="a*", dtypes=["float32"])
    grouped = chunks(cases)
    assert [c for chunk in grouped for c in chunk] == cases and 1 < len(grouped) < len(cases)


def test_jobs_must_be_positive():
    with pytest.raises(ValueError, match="jobs must be >= 1"):
        next(run_cases([], jobs=0))
