"""The exercises: every reference solution passes, every stub fails with a message that helps, wrong solutions are
caught with the checker's element-level report, and ``python -m minigrad exercise`` lists, prints and grades."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import minigrad
from minigrad.__main__ import main
from minigrad.exercises.catalog import EXERCISES, find
from minigrad.exercises.exercise import grade

SOLUTIONS = Path(__file__).resolve().parent / "solutions"
STUBS = Path(minigrad.__file__).resolve().parent / "exercises" / "stubs"
IDS = [f"{e.number}-{e.name}" for e in EXERCISES]


def solution_file(exercise) -> Path:
    return SOLUTIONS / exercise.stub_file


def write(tmp_path: Path, exercise, old: str, new: str) -> Path:
    """The reference solution with ``old`` replaced by ``new`` (a deliberate mistake)."""
    source = solution_file(exercise).read_text(encoding="utf-8")
    assert old in source, old
    path = tmp_path / exercise.stub_file
    path.write_text(source.replace(old, new), encoding="utf-8")
    return path


def test_there_are_eight_to_twelve_exercises_numbered_in_order_with_a_stub_and_a_solution_each():
    assert 8 <= len(EXERCISES) <= 12
    assert [e.number for e in EXERCISES] == list(range(1, len(EXERCISES) + 1))
    assert sorted(p.name for p in STUBS.glob("ex*.py")) == sorted(e.stub_file for e in EXERCISES)
    assert sorted(p.name for p in SOLUTIONS.glob("ex*.py")) == sorted(e.stub_file for e in EXERCISES)


def test_the_solutions_are_not_in_the_package():
    package = Path(minigrad.__file__).resolve().parent
    assert not [p for p in package.rglob("*.py") if "solution" in p.name.lower() or "solutions" in p.parts]


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_the_reference_solution_passes(exercise):
    verdict = grade(exercise, solution_file(exercise))
    assert verdict.passed, verdict.report()
    assert len(verdict.results) >= 3


@pytest.mark.parametrize("exercise", EXERCISES, ids=IDS)
def test_the_stub_fails_with_a_message_that_says_what_to_do(exercise):
    verdict = grade(exercise, STUBS / exercise.stub_file)
    assert not verdict.passed
    report = verdict.report()
    assert "Hints:" in report and exercise.hints[0] in report
    failed = [r for r in verdict.results if not r.passed]
    if exercise.number <= 8:  # to be written: the stub says what
        written = [r for r in failed if r.detail.startswith(f"not written yet: exercise {exercise.number}: write")]
        assert written and all(r.detail for r in failed), report
    else:  # to be fixed: the checker says what is wrong, element by element
        assert all("worst elements" in r.detail for r in failed), report


def test_the_buggy_op_is_named_by_its_wrong_input():
    verdict = grade(find(9), STUBS / find(9).stub_file)
    first_order = verdict.results[1]
    assert "for x1 (seed=0)" in first_order.detail and "index (" in first_order.detail


def test_the_array_backward_passes_first_order_and_fails_only_second_order():
    verdict = grade(find(10), STUBS / find(10).stub_file)
    assert [r.passed for r in verdict.results] == [True, True, True, False]
    assert "backprop gave no gradient (None)" in verdict.results[3].detail


@pytest.mark.parametrize(("number", "old", "new", "expected"), [
    (1, "(plus - minus) / (2 * eps)", "(plus - f(x)) / eps", "arrays are not close"),  # one-sided difference
    (1, "        x[index] = kept\n", "", "x changed"),  # forgets to put x back
    (2, "return gy * x1, gy * x0", "return gy * x0, gy * x1", "for x0, x1 (seed=0)"),  # swapped
    (2, "return gy * x1, gy * x0", "return gy * x1, gy * mg.Variable(x0.array)", "no gradient (None)"),  # no graph
    (3, "F.expand_dims(gy, self.axis)", "F.expand_dims(gy, 0)", "axis=1"),
    (4, "if n == 1 and", "if n == 2 and", "((2, 3) + (2, 1))"),  # forgets the stretched axes
    (5, "self.retain_outputs((0,))", "self.retain_outputs((0,)); self.retain_inputs((0,))", "keeps its input"),
    (6, "axis=-1, keepdims=True)),", "axis=0, keepdims=True)),", "worst elements"),
    (7, "F.matmul(x.T, gy)", "F.matmul(x.T, gy) * 0.99", "for W (seed=0)"),
    (8, "(k, K - 1 - k)", "(K - 1 - k, k)", "for x (seed=0)"),
])
def test_a_wrong_solution_is_caught_with_a_precise_report(tmp_path, number, old, new, expected):
    exercise = find(number)
    verdict = grade(exercise, write(tmp_path, exercise, old, new))
    assert not verdict.passed
    assert expected in verdict.report(), verdict.report()


def test_exercise_4_refuses_the_library_answer_but_not_its_mention(tmp_path):
    exercise = find(4)
    mention = write(tmp_path, exercise, '"""Reference solution of exercise 4."""', '"""Not F.sum_to."""  # sum_to')
    assert grade(exercise, mention).passed
    use = write(tmp_path, exercise, "return tuple(_sum_back(gy, shape)", "return tuple(F.sum_to(gy, shape)")
    verdict = grade(exercise, use)
    assert not verdict.results[0].passed and "uses sum_to" in verdict.results[0].detail


def test_a_file_that_does_not_run_or_lacks_a_name_is_explained(tmp_path):
    exercise = find(2)
    broken = tmp_path / "broken.py"
    broken.write_text("import minigrad as mg\n\ndef mul(a, b)\n    return a\n", encoding="utf-8")
    report = grade(exercise, broken).report()
    assert "broken.py does not run:" in report and "SyntaxError" in report and "line 3" in report
    raising = tmp_path / "raising.py"
    raising.write_text("x = 1\nraise RuntimeError('oops')\n", encoding="utf-8")
    report = grade(exercise, raising).report()
    assert "RuntimeError: oops" in report and "at raising.py line 2: raise RuntimeError('oops')" in report
    nameless = tmp_path / "nameless.py"
    nameless.write_text("def multiply(a, b):\n    return a * b\n", encoding="utf-8")
    assert "nameless.py defines no mul: keep the names of the stub" in grade(exercise, nameless).report()
    assert "there is no file" in grade(exercise, tmp_path / "missing.py").report()


def test_an_error_in_the_students_backward_names_its_line(tmp_path):
    exercise = find(7)
    path = write(tmp_path, exercise, "return F.matmul(gy, W.T), F.matmul(x.T, gy)", "return F.matmul(gy, W), None")
    report = grade(exercise, path).report()
    assert re.search(r"at ex07_matmul.py line \d+: return F.matmul\(gy, W\), None", report), report


def test_the_command_line_lists_prints_a_stub_and_grades(tmp_path, capsys):
    assert main(["exercise", "--list"]) == 0
    listing = capsys.readouterr().out
    assert all(f"{e.number:>3}  {e.title}" in listing for e in EXERCISES)
    assert main(["exercise", "3", "--stub"]) == 0
    assert capsys.readouterr().out == (STUBS / find(3).stub_file).read_text(encoding="utf-8")
    assert main(["exercise", "3"]) == 0
    assert "python -m minigrad exercise 3 --stub > ex03_sum.py" in capsys.readouterr().out
    assert main(["exercise", "3", str(solution_file(find(3)))]) == 0
    assert "All 12 checks pass." in capsys.readouterr().out
    assert main(["exercise", "3", str(STUBS / find(3).stub_file)]) == 1
    assert "Not yet: 9 of 12 checks fail." in capsys.readouterr().out
    assert main(["exercise", "99"]) == 2
    assert "there is no exercise 99; the exercises are 1 to" in capsys.readouterr().err


def test_python_dash_m_runs_it(tmp_path):
    stub = subprocess.run([sys.executable, "-m", "minigrad", "exercise", "2", "--stub"], capture_output=True,
                          text=True, check=True).stdout
    path = tmp_path / "my_solution.py"
    path.write_text(stub.replace('raise NotImplementedError("exercise 2: write Mul.backward: return (gradient for '
                                 'x0, gradient for x1)")', "return gy * x1, gy * x0"), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "minigrad", "exercise", "2", str(path)], capture_output=True,
                          text=True)
    assert done.returncode == 0 and "All 4 checks pass." in done.stdout, done.stdout + done.stderr
