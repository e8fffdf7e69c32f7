"""examples/custom_ops: its specs pass the sweep and the pytest integration, and a broken backward fails both."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "examples" / "custom_ops"
RIGHT = "        return gy / (1 + abs(x)) ** 2,\n"
WRONG = "        return gy / (1 + abs(x)),  # deliberately wrong: the square is missing\n"


def _run(*args, cwd, env=None):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=cwd,
                          env={**os.environ, **(env or {})}, timeout=300)


@pytest.fixture
def example_copy(tmp_path):
    """A copy of the package, whose softsign backward a test may break."""
    target = tmp_path / "custom_ops"
    shutil.copytree(EXAMPLE, target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def _break_softsign(package):
    ops = package / "ops.py"
    text = ops.read_text()
    assert text.count(RIGHT) == 1
    ops.write_text(text.replace(RIGHT, WRONG))


def test_the_sweep_passes_on_the_example(tmp_path):
    result = _run("-m", "minigrad", "check", "--specs", str(EXAMPLE / "specs.py"), cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "8 ops, 66 cases: 66 passed, 0 failed, 0 skipped" in result.stdout


def test_the_sweep_fails_naming_the_op_with_a_wrong_backward(example_copy):
    _break_softsign(example_copy)
    result = _run("-m", "minigrad", "check", "--specs", str(example_copy / "specs.py"), "--quiet",
                  cwd=example_copy.parent)
    assert result.returncode == 1, result.stdout + result.stderr
    failed = {tuple(line.split()[:4]) for line in result.stdout.splitlines() if " fail " in line}
    assert {op for op, *_ in failed} == {"softsign"}
    assert {("softsign", "numpy", dtype, "backward") for dtype in ("float16", "float32", "float64")} <= failed
    assert "backprop disagrees with the numerical derivative" in result.stdout


def test_pytest_integration_fails_naming_op_and_check(example_copy):
    _break_softsign(example_copy)
    result = _run("-m", "pytest", "-p", "no:cacheprovider", "-q", "--minigrad-backend", "numpy",
                  str(example_copy / "test_custom_ops.py"), cwd=example_copy.parent)
    assert result.returncode == 1, result.stdout + result.stderr
    failed = sorted(line.split("::")[-1].split(" ")[0] for line in result.stdout.splitlines()
                    if line.startswith("FAILED"))
    assert failed and all(name.startswith("test_ops[softsign-") for name in failed), failed
    assert "test_ops[softsign-float32-numpy-backward]" in failed


def test_pytest_integration_passes_on_the_example_under_xdist(example_copy):
    pytest.importorskip("xdist", reason="pytest-xdist is in the test extra")
    # xdist fails the run if its two workers collect different items
    result = _run("-m", "pytest", "-p", "no:cacheprovider", "-q", "-n", "2", "--minigrad-backend", "numpy", "-rA",
                  str(example_copy / "test_custom_ops.py"), cwd=example_copy.parent)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "66 passed in" in result.stdout  # --minigrad-backend numpy: no CuPy items, not even skipped
    assert "test_custom_ops.py::test_ops[sincos-float32-numpy-views]" in result.stdout


def test_collection_order_is_the_spec_order_whatever_the_hash_seed(example_copy):
    result = _run("-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                  str(example_copy / "test_custom_ops.py"), cwd=example_copy.parent, env={"PYTHONHASHSEED": "12345"})
    collected = [line.split("::")[-1] for line in result.stdout.splitlines() if "::" in line]
    battery = ("forward", "backward", "double", "deterministic", "views", "jvp", "vjp_linearity", "hvp_symmetry")
    cases = [(op, battery) for op in ("softsign", "sincos")]  # each followed by the bad cases derived from it
    cases = [case for op, checks in cases for case in [(op, checks)] + [(f"{op}[{bad}]", ("refuses",))
                                                                      for bad in ("bad:list", "bad:str", "bad:int")]]
    expected = [f"test_ops[{op}-{dtype}-{backend}-{check}]" for op, checks in cases
                for dtype in ("float16", "float32", "float64") for backend in ("numpy", "cupy") for check in checks]
    assert collected == expected
