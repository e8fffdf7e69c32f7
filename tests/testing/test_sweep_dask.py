"""The sweep on Dask: a real LocalCluster (worker processes on this machine) gives the serial results, and a
worker that dies is its case's error, not a hang. Needs the distributed extra (skipped without it; .ci/run
installs it for this file)."""

from __future__ import annotations

import json
import os
import time

import pytest

from minigrad.__main__ import main
from minigrad.testing.sweep_plan import DEFAULT_SPECS, plan_cases
from minigrad.testing.sweep_run import run_cases

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

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
        os._exit(3)
    return F.tanh(x)


register(OpSpec("before", F.tanh, _inputs, np.tanh))
register(OpSpec("dies", _dies_in_a_worker, _inputs, np.tanh))
register(OpSpec("after", F.exp, _inputs, np.exp))
"""


@pytest.fixture(scope="module")
def cluster():
    # allowed-failures 0: a task whose worker dies fails at once (the default retries it on three more workers)
    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                      silence_logs=40) as local:
            yield local


def _outcomes(pairs):
    return sorted((case.index, case.op, case.dtype, case.check, result.status, result.margin, result.seed)
                  for case, result in pairs)


def test_a_local_cluster_gives_the_serial_results(cluster, tmp_path, capsys):
    cases = plan_cases([DEFAULT_SPECS], ops="a*,tanh,get_item*", dtypes=["float32", "float64"])
    with distributed.Client(cluster) as client:
        on_dask = list(run_cases(cases, executor=client.get_executor(pure=False), jobs=2))
    assert _outcomes(on_dask) == _outcomes(run_cases(cases))
    # the command line, through the scheduler's address
    serial, dasked = tmp_path / "serial.json", tmp_path / "dask.json"
    address = cluster.scheduler_address.replace("tcp://", "dask://")
    common = ["check", "--ops", "exp,sum*", "--dtype", "float16", "--backend", "numpy"]
    assert main([*common, "--json", str(serial)]) == 0
    assert main([*common, "--executor", address, "--json", str(dasked)]) == 0
    rows = [[(r["index"], r["status"], r["margin"], r["seed"]) for r in json.loads(path.read_text())["results"]]
            for path in (serial, dasked)]
    assert rows[0] == rows[1] and len(rows[0]) > 10
    capsys.readouterr()


def test_a_dask_worker_that_dies_is_its_case_error(cluster, tmp_path, monkeypatch):
    path = tmp_path / "i30_dask_dying_specs.py"
    path.write_text(DYING_SPECS)
    monkeypatch.setenv("MINIGRAD_TEST_PARENT", str(os.getpid()))
    cases = plan_cases([str(path)], dtypes=["float64"], checks=["forward"])
    start = time.perf_counter()
    with distributed.Client(cluster) as client:
        results = {case.op: result for case, result in run_cases(cases, executor=client.get_executor(pure=False))}
    assert time.perf_counter() - start < 120
    assert results["dies"].status == "error" and "died" in results["dies"].message
    assert results["before"].status == results["after"].status == "pass", {k: r.message for k, r in results.items()}
