"""python -m minigrad: --version and the check sweep's table, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

import minigrad
import minigrad.functions as F
from minigrad.__main__ import main
from minigrad.function_node import FunctionNode
from minigrad.testing import op_specs
from minigrad.testing.op_specs import OpSpec
from minigrad.testing.op_specs.draw import uniform


def test_version():
    out = subprocess.run([sys.executable, "-m", "minigrad", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"minigrad {minigrad.__version__}"


def test_check_selected_ops_writes_table_and_json(tmp_path, capsys):
    path = tmp_path / "out.json"
    assert main(["check", "--ops", "exp,mat*", "--dtype", "float32", "--json", str(path)]) == 0
    table = capsys.readouterr().out
    assert "matmul[transa,transb]" in table and "exp" in table and "relu" not in table
    data = json.loads(path.read_text())
    assert {r["op"] for r in data["results"]} == {"exp", "matmul", "matmul[transa,transb]", "matmul[vector]"}
    assert {r["dtype"] for r in data["results"]} == {"float32"}
    assert data["summary"]["fail"] == 0 and data["summary"]["pass"] == len(data["results"]) > 0


def test_order_1_skips_second_order(capsys):
    assert main(["check", "--ops", "exp", "--order", "1", "--json", "/dev/null"]) == 0
    table = capsys.readouterr().out
    rows = [line.split() for line in table.splitlines() if line.startswith("exp ")]
    assert rows and {row[3] for row in rows} == {"0", "1"}


def test_bad_arguments_exit_2(capsys):
    assert main(["check", "--dtype", "float8"]) == 2
    assert main(["check", "--ops", "no_such_op"]) == 2
    assert main(["check", "--order", "3"]) == 2
    assert "float8" in capsys.readouterr().err


class _WrongExp(FunctionNode):
    def forward(self, inputs):
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0] * 2.0,  # wrong: should be gy * exp(x)


def test_a_wrong_gradient_fails_the_sweep_with_exit_1(monkeypatch, capsys):
    broken = OpSpec("broken_exp", lambda x: _WrongExp().apply((x,))[0],
                    lambda rng, dt: (uniform(rng, (3,), dt),), np.exp, covers=("exp",))
    monkeypatch.setattr(op_specs, "_REGISTRY", {"broken_exp": broken})
    monkeypatch.setattr(op_specs, "_loaded", True)
    assert main(["check", "--dtype", "float64"]) == 1
    out = capsys.readouterr().out
    assert "broken_exp" in out and "fail" in out and "1 ops" in out
    assert F.exp  # the real op is untouched
