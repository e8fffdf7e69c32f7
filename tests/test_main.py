"""python -m minigrad: --version and the check sweep's table, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import minigrad
import minigrad.functions as F
from minigrad.__main__ import main


def test_version():
    out = subprocess.run([sys.executable, "-m", "minigrad", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"minigrad {minigrad.__version__}"


def test_check_selected_ops_writes_table_and_json(tmp_path, capsys):
    path = tmp_path / "out.json"
    assert main(["check", "--ops", "exp,mat*", "--dtype", "float32", "--json", str(path)]) == 0
    table = capsys.readouterr().out
    assert "matmul[transa,transb]" in table and "exp" in table and "relu" not in table
    data = json.loads(path.read_text())
    ops = {r["op"] for r in data["results"] if "bad:" not in r["op"]}  # (and the bad cases derived from each)
    assert ops == {"exp", "matmul", "matmul[transa,transb]", "matmul[vector]",
                   "matmul[empty inner axis]"}  # (a variant the matmul spec lists)
    assert {r["dtype"] for r in data["results"]} == {"float32"}
    assert data["summary"]["fail"] == 0 and data["summary"]["pass"] == len(data["results"]) > 0


def test_order_1_skips_second_order(capsys):
    assert main(["check", "--ops", "exp", "--order", "1", "--json", "/dev/null"]) == 0
    table = capsys.readouterr().out
    rows = [line.split() for line in table.splitlines() if line.startswith("exp ")]
    assert rows and {row[3] for row in rows} == {"forward", "backward", "deterministic", "views", "vjp_linearity"}


def test_every_check_of_the_battery_runs_by_default(capsys):
    assert main(["check", "--ops", "split_axis", "--dtype", "float32", "--backend", "numpy"]) == 0  # same on a GPU
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("split_axis ")]
    assert sorted(row[3] for row in rows) == sorted(["forward", "backward", "double", "deterministic", "views",
                                                     "jvp", "vjp_linearity", "hvp_symmetry"])


def test_bad_arguments_exit_2(capsys):
    assert main(["check", "--dtype", "float8"]) == 2
    assert main(["check", "--ops", "no_such_op"]) == 2
    assert main(["check", "--order", "3"]) == 2
    assert "float8" in capsys.readouterr().err


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


register(OpSpec("broken_exp", lambda x: WrongExp().apply((x,))[0], lambda rng, dt: (uniform(rng, (3,), dt),), np.exp))
register(OpSpec("good_tanh", F.tanh,
                lambda rng, dt: (uniform(rng, (3,), dt),), np.tanh, covers=("tanh",)))
"""


def test_specs_from_a_file_sweep_exactly_those_and_a_wrong_gradient_exits_1(tmp_path, capsys):
    path = tmp_path / "i13_main_broken.py"
    path.write_text(BROKEN_SPECS)
    assert main(["check", "--specs", str(path), "--dtype", "float64", "--backend", "numpy",  # counts: not on a GPU
                 "--json", str(tmp_path / "r.json")]) == 1
    out = capsys.readouterr().out
    # and the bad cases derived from each: WrongExp checks no input (a list, a string, an integer array: 3 fail)
    assert "8 ops, 22 cases: 17 passed, 5 failed" in out
    failed = [line.split()[:4] for line in out.splitlines() if " fail " in line and "bad:" not in line]
    # double passes: the wrong first-order gradient 2 * gy is itself differentiated correctly; jvp's tangent 2t
    # is consistent with it but not with central differences of exp
    assert failed == [["broken_exp", "numpy", "float64", "backward"], ["broken_exp", "numpy", "float64", "jvp"]]
    data = json.loads((tmp_path / "r.json").read_text())
    assert {r["op"] for r in data["results"] if "bad:" not in r["op"]} == {"broken_exp", "good_tanh"}
    assert data["summary"]["fail"] == 5
    assert main(["check", "--specs", str(path), "--ops", "good_tanh"]) == 0
    assert F.exp  # the real op is untouched


def test_unexpected_pass_exits_1(tmp_path, capsys):
    path = tmp_path / "i13_main_stale.py"
    path.write_text(BROKEN_SPECS.replace('covers=("tanh",)))',
                                         'covers=("tanh",), expected_failures={"backward": "old bug"}))'))
    assert main(["check", "--specs", str(path), "--ops", "good_tanh", "--dtype", "float32", "--backend", "numpy"]) == 1
    out = capsys.readouterr().out
    assert "good_tanh" in out and "xpass" in out and "1 unexpected passes" in out


def test_bad_specs_modules_exit_2_naming_them(tmp_path, capsys):
    (tmp_path / "i13_fails.py").write_text("import no_such_module_anywhere\n")
    (tmp_path / "i13_nothing.py").write_text("VALUE = 1\n")
    (tmp_path / "i13_dup.py").write_text(BROKEN_SPECS + BROKEN_SPECS.split("\n\n\n")[-1])
    for name, message in (("i13_fails.py", "cannot import"), ("i13_nothing.py", "registers no op specs"),
                          ("i13_dup.py", "'broken_exp' is registered twice")):
        assert main(["check", "--specs", str(tmp_path / name)]) == 2
        err = capsys.readouterr().err
        assert name in err and message in err, err
    out = subprocess.run([sys.executable, "-m", "minigrad", "check", "--specs", "no_such_pkg.ops"],
                         capture_output=True, text=True)
    assert out.returncode == 2 and "no_such_pkg.ops" in out.stderr


def test_every_subcommand_is_one_module_named_in_the_table(capsys):
    import importlib

    from minigrad.__main__ import SUBCOMMANDS

    assert set(SUBCOMMANDS) >= {"check", "merge"}
    for module_name in SUBCOMMANDS.values():
        module = importlib.import_module(module_name)
        assert callable(module.add_arguments) and callable(module.run) and module.HELP
    assert main(["--help"]) == 0
    help_text = capsys.readouterr().out
    assert all(name in help_text for name in SUBCOMMANDS)
    assert main([]) == 0 and "usage: python -m minigrad" in capsys.readouterr().out


def test_the_main_job_streams_plain_text_and_exits_0_when_piped():
    out = subprocess.run([sys.executable, "-m", "minigrad", "check", "--ops", "tanh,relu", "--dtype", "float32"],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "\033[" not in out.stdout + out.stderr and " 0 failed" in out.stdout
