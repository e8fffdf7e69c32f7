"""An exercise: its task, the stub a student starts from, the checks that grade a solution, and the hints.

A solution is a Python file. ``grade`` loads it as a module, takes the names the exercise needs from it, and runs
the exercise's checks one by one: each is a short function that raises (an ``AssertionError``, the checker's
``GradientCheckError`` with its element-level report, or whatever the student's code raised) or returns.
Every check runs, so one verdict lists all that is wrong; the hints follow when anything is.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

Check = tuple[str, Callable[[], None]]  # a title and a function that raises when the check fails


@dataclass(frozen=True)
class Exercise:
    """One exercise.

    Attributes:
        number: what the student types (``python -m minigrad exercise 3 ...``).
        name: a short name, also the stub's file name (``exNN_name.py``).
        title: one line.
        after: the tutorial page it follows (a docname such as ``tutorial/02-function-node``).
        task: what to write, in a few sentences.
        needs: the names the solution file must define.
        hints: printed when a check fails, most useful first.
        checks: given the solution's names (a dict), the list of checks to run.
    """

    number: int
    name: str
    title: str
    after: str
    task: str
    needs: tuple[str, ...]
    hints: tuple[str, ...]
    checks: Callable[[dict[str, Any]], Sequence[Check]]

    @property
    def after_step(self) -> str:
        """``step 2`` for ``tutorial/02-function-node``."""
        return f"step {int(self.after.rsplit('/', 1)[-1].split('-', 1)[0])}"

    @property
    def stub_file(self) -> str:
        return f"ex{self.number:02d}_{self.name}.py"

    def stub(self) -> str:
        """The source of the stub the student starts from."""
        return (importlib.resources.files("minigrad.exercises.stubs") / self.stub_file).read_text(encoding="utf-8")


@dataclass(frozen=True)
class CheckResult:
    title: str
    passed: bool
    detail: str = ""


@dataclass(frozen=True)
class Verdict:
    """What ``grade`` found: every check's result, or why the file could not be graded at all."""

    exercise: Exercise
    results: tuple[CheckResult, ...]
    problem: str = ""  # the file does not load, or lacks a name: nothing could be checked

    @property
    def passed(self) -> bool:
        return not self.problem and all(result.passed for result in self.results)

    def report(self) -> str:
        """The verdict as the command line prints it."""
        exercise = self.exercise
        lines = [f"Exercise {exercise.number}: {exercise.title} (after tutorial {exercise.after_step})"]
        if self.problem:
            lines += ["", _indent(self.problem, 2)]
        for result in self.results:
            lines.append(f"  [{'pass' if result.passed else 'FAIL'}] {result.title}")
            if result.detail:
                lines.append(_indent(result.detail, 8))
        failed = sum(not result.passed for result in self.results)
        if self.passed:
            lines += ["", f"All {len(self.results)} checks pass."]
        else:
            if self.results:
                lines += ["", f"Not yet: {failed} of {len(self.results)} checks fail."]
            lines += ["Hints:"] + [f"  - {hint}" for hint in exercise.hints]
        return "\n".join(lines)


def _indent(text: str, spaces: int) -> str:
    return "\n".join(" " * spaces + line if line else line for line in text.splitlines())


def load_solution(path: str | Path, exercise: Exercise) -> tuple[dict[str, Any], str]:
    """The names ``exercise`` needs from the file at ``path``, or ``({}, why not)``."""
    path = Path(path)
    if not path.is_file():
        return {}, f"there is no file {str(path)!r}; get the stub with: python -m minigrad exercise " \
                   f"{exercise.number} --stub > {path.name}"
    spec = importlib.util.spec_from_file_location(f"minigrad_exercise_{exercise.number}_solution", path)
    module: ModuleType = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # a syntax error, a failed import, ...: show where, in the student's file
        return {}, f"{path.name} does not run:\n{_where(error, path)}"
    missing = [name for name in exercise.needs if not hasattr(module, name)]
    if missing:
        return {}, f"{path.name} defines no {', '.join(missing)}: keep the names of the stub"
    return {name: getattr(module, name) for name in exercise.needs}, ""


def grade(exercise: Exercise, path: str | Path) -> Verdict:
    """Run every check of ``exercise`` on the solution in ``path``.

    Example:
        >>> import pathlib, tempfile
        >>> from minigrad.exercises.catalog import find
        >>> from minigrad.exercises.exercise import grade
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "ex02_mul.py"
        >>> _ = path.write_text(find(2).stub())
        >>> verdict = grade(find(2), path)
        >>> verdict.passed, [result.passed for result in verdict.results]
        (False, [True, False, False, False])
        >>> verdict.results[1].detail
        'not written yet: exercise 2: write Mul.backward: return (gradient for x0, gradient for x1)'
    """
    solution, problem = load_solution(path, exercise)
    if problem:
        return Verdict(exercise, (), problem)
    return Verdict(exercise, tuple(_run(title, check, path) for title, check in exercise.checks(solution)))


def _run(title: str, check: Callable[[], None], path: str | Path) -> CheckResult:
    try:
        check()
    except NotImplementedError as error:  # the stub, not written yet: its own message says what to write
        return CheckResult(title, False, f"not written yet: {error}")
    except AssertionError as error:  # the checker's reports, and the exercises' own comparisons
        return CheckResult(title, False, str(error) or "assertion failed")
    except Exception as error:
        return CheckResult(title, False, _where(error, path))
    return CheckResult(title, True)


def _where(error: BaseException, path: str | Path) -> str:
    """The error, and the last line of the student's file it came through (if any)."""
    message = "".join(traceback.format_exception_only(type(error), error)).strip()
    frames = [frame for frame in traceback.extract_tb(error.__traceback__)
              if Path(frame.filename).resolve() == Path(path).resolve()]
    if isinstance(error, SyntaxError) and error.lineno:
        return message
    if frames:
        frame = frames[-1]
        return f"{message}\n  at {Path(path).name} line {frame.lineno}: {(frame.line or '').strip()}"
    return message
