"""Every tutorial and how-to page runs as printed: its ``>>>`` examples, pasted in order into a fresh interpreter.

Each page runs in its own Python process (tests/docs_paste.py) started in an empty temporary directory, with no
set-up at all (Sphinx's doctest build has ``doctest_global_setup``; a reader pasting the page has nothing), outputs
compared as doctest does and every warning an error. Pages are found by glob, so a new page is covered as soon as
it exists. Examples that need CuPy and a GPU (``:skipif: not gpu_available``) are skipped without one.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from minigrad import backend

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).resolve().parent / "docs_paste.py"
PAGES = sorted((ROOT / "docs" / "tutorial").glob("*.rst")) + sorted((ROOT / "docs" / "howto").glob("*.rst"))
RESULT = re.compile(r"paste-result attempted=(\d+) failed=(\d+) skipped=(\d+)")


def paste(page: Path, cwd: Path, gpu_available: bool = False) -> tuple[subprocess.CompletedProcess, tuple[int, ...]]:
    """Run the page's examples in a fresh interpreter; its output and (attempted, failed, skipped)."""
    command = [sys.executable, str(RUNNER), str(page)] + (["--gpu-available"] if gpu_available else [])
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=600)
    match = RESULT.search(done.stdout)
    assert match, f"{page.name}: the runner stopped before the end:\n{done.stdout}\n{done.stderr}"
    return done, tuple(int(n) for n in match.groups())


def test_the_pages_are_found():
    names = {page.name for page in PAGES}
    assert {"01-variable.rst", "08-checking.rst", "custom-op.rst", "gpu.rst"} <= names, names


@pytest.mark.parametrize("page", PAGES, ids=lambda page: f"{page.parent.name}/{page.name}")
def test_page_runs_when_pasted_into_a_fresh_interpreter(page, tmp_path, request):
    if request.config.getoption("--minigrad-backend", default="all") == "cupy-sim":
        pytest.skip("a reader's interpreter has no cupy-sim: the pages run in the NumPy runs of the suite")
    gpu_available = backend.is_cupy_available()
    done, (attempted, failed, skipped) = paste(page, tmp_path, gpu_available)
    assert failed == 0 and done.returncode == 0, (
        f"{page.relative_to(ROOT)}: {failed} of {attempted} examples fail when pasted in order into a fresh "
        f"interpreter:\n{done.stdout[-6000:]}{done.stderr[-2000:]}")
    if skipped:
        pytest.skip(f"{page.name}: {attempted} examples pass; {skipped} need CuPy and a GPU")


def test_a_page_that_uses_a_name_it_never_imports_fails(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text("Title\n=====\n\n>>> import numpy as np\n>>> np.ones(2)\narray([1., 1.])\n"
                    ">>> mg.Variable(np.ones(2)).shape\n(2,)\n", encoding="utf-8")
    done, (attempted, failed, skipped) = paste(page, tmp_path)
    assert (attempted, failed, skipped) == (3, 1, 0) and "NameError: name 'mg' is not defined" in done.stdout


def test_a_warning_fails_the_page(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text(">>> import warnings\n>>> warnings.warn('old', DeprecationWarning)\n", encoding="utf-8")
    done, (attempted, failed, _) = paste(page, tmp_path)
    assert (attempted, failed) == (2, 1) and "DeprecationWarning: old" in done.stdout


def test_gpu_only_examples_are_skipped_without_a_gpu_and_run_with_one(tmp_path):
    page = tmp_path / "page.rst"
    page.write_text(">>> 1 + 1\n2\n\n.. doctest::\n   :skipif: not gpu_available\n\n   >>> import cupy_missing\n\n"
                    ">>> 2 + 2\n4\n", encoding="utf-8")
    assert paste(page, tmp_path)[1] == (2, 0, 1)
    assert paste(page, tmp_path, gpu_available=True)[1] == (3, 1, 0)
