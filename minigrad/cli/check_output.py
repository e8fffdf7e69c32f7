"""What ``python -m minigrad check`` prints: rows as cases finish, a progress line, failures, the summary.

Rows go to ``out`` as each case finishes, flushed at once so that a CI log
streams; on a terminal a progress line (count, elapsed, time left) is
redrawn on ``err`` below them and statuses are coloured (``--color``,
``NO_COLOR``). Not a terminal: plain lines only.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TextIO

from minigrad.testing.sweep import CaseResult
from minigrad.testing.sweep_json import reproduce_command
from minigrad.testing.sweep_plan import Case

__all__ = ["CheckOutput", "use_color", "HEADER"]

HEADER = f"{'op':<34} {'backend':<8} {'dtype':<8} {'check':<13} {'status':<6} {'margin':>7} {'time':>8}"
_COLORS = {"pass": "32", "fail": "1;31", "error": "1;31", "xpass": "1;31", "xfail": "33", "skip": "33"}


def use_color(choice: str, stream: TextIO) -> bool:
    """``--color``: ``always``, ``never``, or ``auto`` (a terminal, no ``NO_COLOR``, ``TERM`` not dumb).

    Example:
        >>> import io
        >>> from minigrad.cli.check_output import use_color
        >>> use_color("auto", io.StringIO()), use_color("always", io.StringIO())
        (False, True)
    """
    if choice != "auto":
        return choice == "always"
    return _isatty(stream) and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb"


def _isatty(stream: TextIO) -> bool:
    return bool(getattr(stream, "isatty", lambda: False)())


def _indent(text: str, prefix: str = "    ") -> str:
    return "".join(prefix + line + "\n" for line in text.rstrip().splitlines())


def _margin(value: float | None) -> str:
    return "-" if value is None else f"{value:.2g}"


class CheckOutput:
    """Prints one sweep: ``header``, ``row`` per finished case, ``failures``, ``summary``.

    Example:
        >>> import io
        >>> from minigrad.cli.check_output import CheckOutput
        >>> from minigrad.testing.sweep import CaseResult
        >>> out = io.StringIO()
        >>> printer = CheckOutput(out, io.StringIO(), total=1)
        >>> printer.row(CaseResult("exp", "numpy", "float64", "backward", "pass", margin=0.004, seconds=0.002))
        >>> print(out.getvalue().rstrip())
        exp                                numpy    float64  backward      pass     0.004     2.0ms
    """

    def __init__(self, out: TextIO, err: TextIO, *, total: int, quiet: bool = False, verbose: bool = False,
                 color: bool = False, expected_seconds: float = 0.0) -> None:
        self.out, self.err = out, err
        self.total, self.quiet, self.verbose, self.color = total, quiet, verbose, color
        self.expected_seconds = expected_seconds  # of all cases, for the time left
        self.progress_shown = _isatty(err)
        self.start = time.perf_counter()
        self.done = 0
        self.done_expected = 0.0
        self._last_drawn = 0.0

    def header(self) -> None:
        self._write(HEADER + "\n" + "-" * len(HEADER) + "\n")

    def row(self, result: CaseResult, expected: float = 0.0) -> None:
        """Print a finished case (unless ``quiet`` and it passed) and advance the progress line."""
        self.done += 1
        self.done_expected += expected
        if not self.quiet or result.failed:
            status = f"{result.status:<6}"
            if self.color:
                status = f"\033[{_COLORS.get(result.status, '0')}m{status}\033[0m"
            line = (f"{result.op:<34} {result.backend:<8} {result.dtype:<8} {result.check:<13} {status} "
                    f"{_margin(result.margin):>7} {result.seconds * 1000:7.1f}ms\n")
            if result.failed:
                line += _indent(self._report(result)) if self.verbose else _indent(result.message.split("\n")[0])
            self._write(line)
        self._draw_progress()

    def failures(self, failed: Sequence[tuple[Case, CaseResult]]) -> None:
        """The full report of every failing case, with the command that reruns it alone."""
        if not failed:
            return
        self._write(f"\nfailures ({len(failed)}):\n")
        for case, result in failed:
            self._write(f"{result.op} {result.backend} {result.dtype} {result.check}: {result.status}, margin "
                        f"{_margin(result.margin)}, seed {case.seed}\n{_indent(self._report(result))}"
                        f"    rerun: {reproduce_command(case)}\n")

    def summary(self, ops: int, results: Sequence[CaseResult], planned: int, *, interrupted: bool = False,
                stopped_early: bool = False) -> None:
        """The last line: ops, cases and each status's count; how the run ended if it ended early."""
        counts = {status: sum(r.status == status for r in results)
                  for status in ("pass", "fail", "error", "skip", "xfail", "xpass")}
        errors = f", {counts['error']} errors" if counts["error"] else ""
        unexpected = f", {counts['xpass']} unexpected passes" if counts["xpass"] else ""
        expected = f", {counts['xfail']} expected failures" if counts["xfail"] else ""
        elapsed = time.perf_counter() - self.start
        if interrupted:
            self._write(f"\ninterrupted (Ctrl-C) after {len(results)} of {planned} cases\n")
        elif stopped_early:
            self._write(f"\nstopped at the first failure (--fail-fast) after {len(results)} of {planned} cases\n")
        self._write(f"\n{ops} ops, {len(results)} cases: {counts['pass']} passed, {counts['fail']} failed{errors}"
                    f"{unexpected}{expected}, {counts['skip']} skipped in {elapsed:.1f}s\n")

    def _report(self, result: CaseResult) -> str:
        return result.message + (f"\n{result.traceback}" if result.traceback else "")

    def _write(self, text: str) -> None:
        if self.progress_shown:
            self.err.write("\r\033[K")  # clear the progress line; it is drawn again below the new text
            self.err.flush()
        self.out.write(text)
        self.out.flush()  # stream: a CI log shows each row as it finishes

    def _draw_progress(self) -> None:
        now = time.perf_counter()
        if not self.progress_shown or (now - self._last_drawn < 0.1 and self.done < self.total):
            return
        self._last_drawn = now
        elapsed = now - self.start
        left = ""
        if self.done_expected > 0 and self.done < self.total:
            seconds = elapsed * max(self.expected_seconds - self.done_expected, 0.0) / self.done_expected
            left = f", about {seconds:.0f}s left"
        self.err.write(f"\r\033[K{self.done}/{self.total} cases ({100 * self.done // max(self.total, 1)}%), "
                       f"{elapsed:.0f}s{left}")
        self.err.flush()

    def close(self) -> None:
        """Remove the progress line."""
        if self.progress_shown:
            self.err.write("\r\033[K")
            self.err.flush()
