"""python -m minigrad check as a CI tool: streaming, Ctrl-C, failures explained and reproducible, bad arguments,
selection and listing, the JSON report, shards that merge into the full report."""

from __future__ import annotations

import json
import os
import queue
import shlex
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

from minigrad.__main__ import main
from minigrad.testing.sweep import BATTERY, GRADIENT_CHECKS
from minigrad.testing.sweep import CHECKS as BATTERY_CHECKS

CHECKS = tuple(c for c in BATTERY_CHECKS if not BATTERY[c].opt_in)  # a spec's own (its bad cases run "refuses")
BAD_CASES = 3  # derived from each spec below: a list, a string, an integer array (minigrad.testing.spec_variants)

BROKEN_SPECS = """
import numpy as np
import minigrad.functions as F
from minigrad.function_node import FunctionNode
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import uniform


class WrongExp(FunctionNode):
    def forward(self, inputs):
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2.0,  # wrong: should be gy * exp(x)


def _inputs(rng, dt):
    return (uniform(rng, (3,), dt),)


register(OpSpec("broken_exp", lambda x: WrongExp().apply((x,))[0], _inputs, np.exp))
register(OpSpec("good_tanh", F.tanh, _inputs, np.tanh))
register(OpSpec("off_sin", lambda x: F.sin(x) * 1.001, _inputs, np.sin))
"""

GATED_SPECS = """
import os
import time

import numpy as np
import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import uniform


def _inputs(rng, dt):
    return (uniform(rng, (3,), dt),)


def _waits_for_the_gate(x):
    deadline = time.monotonic() + 30
    while not os.path.exists(os.environ["MINIGRAD_TEST_GATE"]) and time.monotonic() < deadline:
        time.sleep(0.02)
    return F.tanh(x)


register(OpSpec("first", F.tanh, _inputs, np.tanh))
register(OpSpec("gated", _waits_for_the_gate, _inputs, np.tanh))
"""


@pytest.fixture
def broken(tmp_path):
    path = tmp_path / "i30_cli_broken.py"
    path.write_text(BROKEN_SPECS)
    return str(path)


def _check(*args):
    return ["check", "--backend", "numpy", *args]  # the same counts with a GPU present


class _Lines:
    """A subprocess's stdout, line by line, with a timeout."""

    def __init__(self, process):
        self.lines = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(line) for line in process.stdout], daemon=True).start()

    def until(self, prefix, timeout=30.0):
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            seen.append(line)
            if line.startswith(prefix):
                return seen
        raise AssertionError(f"no line starting {prefix!r} within {timeout}s; saw {seen}")


def _start_gated(tmp_path, *args):
    path = tmp_path / "i30_cli_gated.py"
    path.write_text(GATED_SPECS)
    env = {**os.environ, "MINIGRAD_TEST_GATE": str(tmp_path / "gate")}
    command = [sys.executable, "-m", "minigrad", "check", "--specs", str(path), "--dtype", "float64",
               "--backend", "numpy", "--check", "forward", *args]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                               start_new_session=True)  # its own process group, as a terminal's Ctrl-C reaches
    return process, _Lines(process)


# --- 1. stream -------------------------------------------------------------------------------------
def test_rows_stream_as_cases_finish_in_plain_text(tmp_path):
    # used to print every row at the end: the first row only came after the gated case
    process, lines = _start_gated(tmp_path)
    try:
        seen = lines.until("first ")
        assert process.poll() is None  # still running the gated case
        (tmp_path / "gate").touch()
        seen += lines.until("2 ops, 2 cases: 2 passed")
        assert process.wait(30) == 0
    finally:
        process.kill()
    assert not any("\033[" in line for line in seen)  # not a terminal: no colour, no progress line
    assert "\033[" not in process.stderr.read()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_prints_what_finished_and_the_summary_then_exits_130(tmp_path, jobs):
    durations = tmp_path / "durations.json"  # each case its own chunk under -j 2
    durations.write_text(json.dumps({"results": [
        {"op": op, "backend": "numpy", "dtype": "float64", "check": "forward", "seconds": 1.0}
        for op in ("first", "gated")]}))
    process, lines = _start_gated(tmp_path, "-j", jobs, "--durations", str(durations), "--json",
                                  str(tmp_path / "out.json"))
    try:
        lines.until("first ")
        time.sleep(0.3)
        start = time.monotonic()
        os.killpg(process.pid, signal.SIGINT)
        seen = lines.until("1 ops, 1 cases: 1 passed", timeout=20)
        assert process.wait(20) == 130 and time.monotonic() - start < 20  # the gated case is not waited for
    finally:
        process.kill()
    assert any("interrupted (Ctrl-C) after 1 of 2 cases" in line for line in seen)
    assert "Traceback" not in process.stderr.read()
    report = json.loads((tmp_path / "out.json").read_text())
    assert report["summary"]["interrupted"] and [r["op"] for r in report["results"]] == ["first"]


def test_color_only_on_request_or_a_terminal(broken, capsys):
    assert main(_check("--specs", broken, "--ops", "good_tanh", "--dtype", "float64", "--color", "always")) == 0
    assert "\033[32mpass" in capsys.readouterr().out
    assert main(_check("--specs", broken, "--ops", "good_tanh", "--dtype", "float64")) == 0
    assert "\033[" not in capsys.readouterr().out


# --- 2. explain and reproduce -------------------------------------------------------------------
def test_a_failure_shows_its_margin_and_full_report_in_a_failures_section(broken, tmp_path, capsys):
    # used to show margin "-" (JSON null) and only the first line of the report
    assert main(_check("--specs", broken, "--ops", "broken_exp", "--dtype", "float64", "--check", "backward",
                       "--json", str(tmp_path / "r.json"))) == 1
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("broken_exp "))
    margin = row.split()[5]
    assert margin != "-" and float(margin) > 1
    section = out[out.index("failures (1):"):]
    assert "worst elements:" in section and "reproduce with seed=" in section  # the checker's whole report
    assert "rerun: python -m minigrad check --specs" in section
    record = json.loads((tmp_path / "r.json").read_text())["results"][0]
    assert record["margin"] is not None and record["margin"] > 1 and "worst elements:" in record["message"]


def test_verbose_prints_the_full_report_under_the_row(broken, capsys):
    main(_check("--specs", broken, "--ops", "broken_exp", "--dtype", "float64", "--check", "backward", "-v"))
    out = capsys.readouterr().out
    assert out.index("worst elements:") < out.index("failures (1):")


def test_the_reproduce_command_reruns_the_case_with_the_same_status_and_margin(broken, tmp_path, capsys):
    first = tmp_path / "first.json"
    assert main(_check("--specs", broken, "--dtype", "float32,float64", "--seed", "594298900",
                       "--json", str(first))) == 1
    failed = [r for r in json.loads(first.read_text())["results"] if r["status"] == "fail"]
    assert {(r["op"], r["check"]) for r in failed} >= {("broken_exp", "backward"), ("off_sin", "forward")}
    for r in failed:
        again = tmp_path / "again.json"
        words = shlex.split(r["reproduce"])
        assert words[:4] == ["python", "-m", "minigrad", "check"]
        assert main([*words[3:], "--json", str(again)]) == 1
        rerun = json.loads(again.read_text())["results"]
        assert [(x["op"], x["dtype"], x["check"], x["status"], x["margin"], x["seed"]) for x in rerun] == \
            [(r["op"], r["dtype"], r["check"], r["status"], r["margin"], r["seed"])]
    # the seed the checker's message reports is the one --case-seed takes
    message = next(r for r in failed if r["check"] == "backward")
    assert f"seed={message['seed']}" in message["message"]
    capsys.readouterr()


# --- 7. bad arguments ---------------------------------------------------------------------------
@pytest.mark.parametrize("args, message", [
    (["--ops", "relu,tanhh"], "'tanhh' matches no op (did you mean tanh"),
    (["--ops", "zzz*"], "'zzz*' matches no op"),
    (["--dtype", "float8"], "unknown dtype 'float8'"),
    (["--check", "forward,sideways"], "unknown check 'sideways'"),
    (["--check", "double", "--order", "1"], "leaves nothing to run"),
    (["--json", "/nonexistent/dir/out.json"], "--json /nonexistent/dir/out.json: no such directory"),
    (["--shard", "5/4"], "--shard '5/4': expected K/N"),
    (["--shard", "x"], "--shard 'x': expected K/N"),
    (["--durations", "/nonexistent/d.json"], "cannot read durations from /nonexistent/d.json"),
    (["--last-failed", "/nonexistent/r.json"], "--last-failed: cannot read /nonexistent/r.json"),
    (["--executor", "http://nowhere"], "expected dask://HOST:PORT"),
    (["-j", "-1"], "-j/--jobs must be >= 0"),
])
def test_bad_arguments_exit_2_with_one_line_before_any_case_runs(args, message, capsys):
    assert main(["check", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no header, no row: nothing ran
    assert captured.err.count("\n") == 1 and message in captured.err, captured.err


def test_an_unreachable_dask_scheduler_exits_2(capsys, monkeypatch):
    from minigrad.testing import sweep_run

    monkeypatch.setattr(sweep_run, "DASK_CONNECT_SECONDS", 1.0)
    start = time.monotonic()
    assert main(["check", "--executor", "dask://127.0.0.1:9", "--ops", "exp"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("no Dask scheduler answers at tcp://127.0.0.1:9" in err
                                     or "pip install 'minigrad[distributed]'" in err)
    assert time.monotonic() - start < 30


def test_seed_and_case_seed_together_exit_2(capsys):
    assert main(["check", "--seed", "1", "--case-seed", "2"]) == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_json_to_a_device_writes_through_it(tmp_path, capsys):
    assert main(_check("--ops", "exp", "--dtype", "float64", "--check", "forward", "--json", os.devnull)) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)  # never replaced by a regular file


# --- 6. selection and listing ---------------------------------------------------------------------
def test_check_selects_checks(capsys):
    assert main(_check("--ops", "exp", "--dtype", "float32", "--check", "forward,double")) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("exp ")]
    assert [row[3] for row in rows] == ["forward", "double"]


def test_list_prints_the_cases_with_counts_and_runs_nothing(capsys):
    assert main(_check("--list", "--ops", "exp,argmax", "--dtype", "float32,float64")) == 0
    out = capsys.readouterr().out
    assert "pass" not in out
    lines = {line.split()[0]: line.split()[1:3] for line in out.splitlines()[1:] if line and line[0] != " "}
    n, gradient = len(CHECKS), len(GRADIENT_CHECKS)  # argmax: no gradient checks
    assert lines["exp"] == [str(2 * n), "0"] and lines["argmax"] == [str(2 * n), str(2 * gradient)]
    per_check = ", ".join(f"{check} 4" for check in CHECKS)
    assert f"2 ops, {4 * n} cases of {4 * n} ({4 * n - 2 * gradient} to run, {2 * gradient} to skip; {per_check})" \
        in out


def test_fail_fast_stops_at_the_first_failure(broken, capsys):
    assert main(_check("--specs", broken, "--dtype", "float64", "-x")) == 1
    out = capsys.readouterr().out
    assert f"stopped at the first failure (--fail-fast) after 2 of {3 * (len(CHECKS) + BAD_CASES)} cases" in out
    assert "1 ops, 2 cases: 1 passed, 1 failed" in out


def test_last_failed_reruns_only_the_failures_with_their_seeds(broken, tmp_path, capsys):
    first, again = tmp_path / "first.json", tmp_path / "again.json"
    assert main(_check("--specs", broken, "--dtype", "float32,float64", "--seed", "7", "--json", str(first))) == 1
    failed = {(r["op"], r["dtype"], r["check"], r["margin"], r["seed"])
              for r in json.loads(first.read_text())["results"] if r["status"] == "fail"}
    assert main(["check", "--last-failed", str(first), "--json", str(again)]) == 1
    rerun = json.loads(again.read_text())["results"]
    assert {(r["op"], r["dtype"], r["check"], r["margin"], r["seed"]) for r in rerun} == failed
    assert {r["status"] for r in rerun} == {"fail"}
    passed = tmp_path / "passed.json"
    assert main(_check("--ops", "exp", "--dtype", "float64", "--json", str(passed))) == 0
    capsys.readouterr()
    assert main(["check", "--last-failed", str(passed)]) == 0  # nothing failed: nothing to rerun
    assert capsys.readouterr().out == f"no case failed in {passed}: nothing to rerun\n"


# --- 8. the JSON ----------------------------------------------------------------------------------
def test_the_json_records_versions_arguments_seeds_and_its_schema(tmp_path, capsys):
    import numpy

    import minigrad

    path = tmp_path / "r.json"
    argv = _check("--ops", "exp,argmax", "--dtype", "float32", "--seed", "3", "--json", str(path))
    assert main(argv) == 0
    report = json.loads(path.read_text())
    assert report["schema_version"] == 1
    assert report["environment"]["minigrad"] == minigrad.__version__
    assert report["environment"]["numpy"] == numpy.__version__ and "cupy" in report["environment"]
    assert report["environment"]["python"] == ".".join(map(str, sys.version_info[:3]))
    assert report["arguments"]["argv"] == argv and report["arguments"]["seed"] == 3
    assert report["plan"] == {"cases": 2 * len(CHECKS), "shard": None, "selected": 2 * len(CHECKS)}
    from minigrad.testing.sweep import derive_case_seed

    for r in report["results"]:
        assert r["seed"] == derive_case_seed(r["op"], "float32", 3) and r["seconds"] >= 0
        assert set(r) == {"index", "op", "module", "backend", "dtype", "check", "status", "margin", "seconds",
                          "seed", "message", "traceback", "reproduce"}
    assert [r["index"] for r in report["results"]] == list(range(2 * len(CHECKS)))


# --- 3. and 4. parallel and shards ------------------------------------------------------------------
def _outcome(report):
    # margins to 12 digits: NumPy's sums may round differently in the last bit with the arrays' alignment,
    # which differs between processes (it failed once so, in a full run of the suite with -n 2)
    return [(r["index"], r["op"], r["dtype"], r["check"], r["status"],
             None if r["margin"] is None else float(f"{r['margin']:.12g}"), r["seed"]) for r in report["results"]]


def test_jobs_and_shards_give_the_serial_results_and_merge_into_the_full_report(broken, tmp_path, capsys):
    common = _check("--specs", broken, "--dtype", "float16,float32,float64")
    serial, parallel = tmp_path / "serial.json", tmp_path / "parallel.json"
    assert main([*common, "--json", str(serial)]) == 1
    assert main([*common, "-j", "2", "--json", str(parallel)]) == 1
    full = json.loads(serial.read_text())
    assert _outcome(json.loads(parallel.read_text())) == _outcome(full)
    shards = [tmp_path / f"shard-{k}.json" for k in (1, 2, 3)]
    for k, path in enumerate(shards, 1):
        main([*common, "--shard", f"{k}/3", "--durations", str(serial), "--json", str(path)])
    parts = [json.loads(path.read_text())["results"] for path in shards]
    assert all(parts) and sum(len(p) for p in parts) == len(full["results"])
    merged = tmp_path / "merged.json"
    capsys.readouterr()
    assert main(["merge", *map(str, shards), "--json", str(merged)]) == 1  # broken_exp fails
    assert f"3 shards, {3 * (1 + BAD_CASES)} ops, {9 * (len(CHECKS) + BAD_CASES)} cases:" in capsys.readouterr().out
    assert _outcome(json.loads(merged.read_text())) == _outcome(full)
    assert main(["merge", str(shards[0]), str(shards[1])]) == 2  # shard 3 is missing
    assert "missing" in capsys.readouterr().err
    assert main(["merge", str(shards[0]), str(shards[0]), str(shards[2])]) == 2
    assert "given twice" in capsys.readouterr().err


def test_on_a_terminal_a_progress_line_counts_cases_and_time_left_and_statuses_are_coloured():
    import pty

    main_fd, terminal_fd = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm"}
    process = subprocess.Popen([sys.executable, "-m", "minigrad", "check", "--ops", "exp,tanh,sin,cos", "--dtype",
                                "float32", "--backend", "numpy"], stdout=terminal_fd, stderr=terminal_fd, env=env)
    os.close(terminal_fd)
    chunks = []
    while True:
        try:
            chunk = os.read(main_fd, 4096)
        except OSError:  # the terminal closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main_fd)
    assert process.wait(60) == 0
    screen = b"".join(chunks).decode()
    assert "\033[32mpass" in screen  # coloured
    n = 4 * len(CHECKS)
    assert f"{n}/{n} cases (100%)" in screen and "s left" in screen  # counted, with the time left while running
    # the progress line cleared, then the summary
    assert f"4 ops, {n} cases: {n} passed" in screen.rsplit("\033[K", 1)[1]
