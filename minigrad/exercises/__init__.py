"""Exercises that follow the tutorial, graded by minigrad's gradient checker.

    python -m minigrad exercise --list                      # the exercises
    python -m minigrad exercise 2                           # what exercise 2 asks
    python -m minigrad exercise 2 --stub > my_solution.py   # the file to start from
    python -m minigrad exercise 2 my_solution.py            # grade it: the checker's verdict, and hints

The stubs are in ``minigrad/exercises/stubs/``; each fails with a message saying what to write. The reference
solutions are not part of the package (the test suite keeps them, in ``tests/exercises/solutions/``).

In Python: ``minigrad.exercises.catalog`` (``EXERCISES``, ``find``) and ``minigrad.exercises.exercise`` (``grade``,
``Verdict``). This package imports nothing itself, so that ``python -m minigrad`` stays quick to start.
"""
