"""``python -m minigrad exercise``: list the exercises, print a stub, grade a solution.

    python -m minigrad exercise --list
    python -m minigrad exercise 3 --stub > my_solution.py
    python -m minigrad exercise 3 my_solution.py

A subcommand of ``python -m minigrad`` (``SUBCOMMANDS`` there): ``add_arguments`` declares its options and
``run`` carries it out. Exit status: 0 when the solution passes (or for --list, a task, a stub), 1 when a check
fails or the file does not load, 2 for an exercise number that does not exist.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

HELP = "exercises that follow the tutorial, graded by the checker"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``exercise``."""
    parser.add_argument("number", type=int, nargs="?", help="the exercise (see --list)")
    parser.add_argument("solution", nargs="?", help="your solution file, to grade")
    parser.add_argument("--list", action="store_true", help="list the exercises")
    parser.add_argument("--stub", action="store_true", help="print the file to start from")


def run(args: argparse.Namespace, out: TextIO | None = None, err: TextIO | None = None,
        argv: Any = None) -> int:
    """Carry out ``python -m minigrad exercise ...``; returns the exit status."""
    try:
        return _run(args, out or sys.stdout, err or sys.stderr)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        return 1


def _run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from minigrad.exercises.catalog import EXERCISES, find
    from minigrad.exercises.exercise import grade

    if args.list or args.number is None:
        out.write("".join(f"{e.number:>3}  {e.title:<50} after tutorial {e.after_step}\n" for e in EXERCISES))
        out.write("\npython -m minigrad exercise N               what exercise N asks\n"
                  "python -m minigrad exercise N --stub > f.py  the file to start from\n"
                  "python -m minigrad exercise N f.py           grade it\n")
        return 0
    try:
        exercise = find(args.number)
    except ValueError as error:
        err.write(f"exercise: {error}\n")
        return 2
    if args.stub:
        out.write(exercise.stub())
        return 0
    if args.solution is None:
        out.write(f"Exercise {exercise.number}: {exercise.title} (after tutorial {exercise.after_step})\n\n"
                  f"{exercise.task}\n\n"
                  f"Start from the stub:  python -m minigrad exercise {exercise.number} --stub > "
                  f"{exercise.stub_file}\nGrade your file:      python -m minigrad exercise {exercise.number} "
                  f"{exercise.stub_file}\n")
        return 0
    verdict = grade(exercise, args.solution)
    out.write(verdict.report() + "\n")
    return 0 if verdict.passed else 1
