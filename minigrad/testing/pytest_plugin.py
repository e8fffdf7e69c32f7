"""pytest plugin (registered through the ``pytest11`` entry point).

Gives tests an ``xp_backend`` fixture ("numpy" / "cupy") and ``xp`` (the array
module), parametrised over the backends chosen with ``--minigrad-backend``
(default: both; CuPy cases are skipped with a reason when CuPy or a GPU is
missing), and a ``gpu`` marker for tests that need CuPy. Test functions made by
``minigrad.testing.op_tests`` are expanded here over the same backends.

``--minigrad-backend=cupy-sim`` installs minigrad's CuPy simulator
(``minigrad.testing.cupy_sim``) for the whole session, so that every CuPy case
and ``gpu`` test runs on it instead of being skipped; a test marked
``real_gpu(reason)`` is still skipped there, with its reason, and the summary
counts the CuPy cases run and still skipped.

A failure report shows the test's own frames and leaves minigrad's out
(pytest's ``__tracebackhide__``, set on minigrad's modules): a failed
``check_backward`` shows the test line and the checker's report, not the
checker's source. minigrad's frames stay when minigrad itself crashed (the
exception did not come from a ``raise`` or a verdict of minigrad's, nor from
the user's code). To see every frame, set ``MINIGRAD_FULL_TRACEBACK=1`` or
pass pytest's ``--full-trace``.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
from types import ModuleType, TracebackType
from typing import Any

try:
    import pytest
except ImportError as error:  # the plugin is the one part of minigrad.testing that needs pytest
    raise ImportError('minigrad.testing.pytest_plugin runs under pytest: pip install "minigrad[test]"') from error

import numpy

import minigrad
from minigrad import backend

BACKENDS = ("numpy", "cupy")
SIM = "cupy-sim"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--minigrad-backend",
        choices=("numpy", "cupy", SIM, "all"),
        default="all",
        help="array backend(s) for minigrad's xp_backend fixture (default: all); "
             "cupy-sim runs the CuPy cases on minigrad's CPU simulator of CuPy",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: the test needs CuPy and a GPU (skipped without them)")
    config.addinivalue_line("markers", "real_gpu(reason): needs a real GPU, not the CuPy simulator (skipped there)")
    if config.getoption("--minigrad-backend", default="all") == SIM:
        import contextlib

        from minigrad.testing import cupy_sim

        stack = contextlib.ExitStack()
        stack.enter_context(cupy_sim.install())
        config._minigrad_sim = stack  # type: ignore[attr-defined]


def pytest_unconfigure(config: pytest.Config) -> None:
    stack = getattr(config, "_minigrad_sim", None)
    if stack is not None:
        stack.close()


def selected_backends(config: pytest.Config) -> tuple[str, ...]:
    choice = config.getoption("--minigrad-backend", default="all")
    return BACKENDS if choice == "all" else ("cupy",) if choice == SIM else (choice,)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "xp_backend" in metafunc.fixturenames:
        metafunc.parametrize("xp_backend", selected_backends(metafunc.config))
    if "minigrad_op_case" in metafunc.fixturenames:  # a test made by minigrad.testing.op_tests
        from minigrad.testing import pytest_integration

        pytest_integration.parametrize(metafunc, selected_backends(metafunc.config))


@pytest.fixture
def xp_backend(request: pytest.FixtureRequest) -> str:  # overridden by parametrisation
    return getattr(request, "param", "numpy")


@pytest.fixture
def xp(xp_backend: str) -> ModuleType:
    """The array module of the current backend (skips when CuPy is unavailable)."""
    if xp_backend == "cupy":
        cupy = backend.cupy_or_none()
        if cupy is None:
            pytest.skip("CuPy with a GPU is not available")
        return cupy
    import numpy

    return numpy


def _is_cupy_case(item: pytest.Item) -> bool:
    params = getattr(getattr(item, "callspec", None), "params", {})
    op_case = params.get("minigrad_op_case")  # (spec, dtype, backend, check) of an op_tests case
    return bool(item.get_closest_marker("gpu") or item.get_closest_marker("real_gpu")
                or params.get("xp_backend") == "cupy" or (isinstance(op_case, tuple) and op_case[2] == "cupy"))


_CUPY_CASE = "minigrad_cupy_case"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    on_sim = getattr(config, "_minigrad_sim", None) is not None
    for item in items:
        if _is_cupy_case(item):  # the reports carry it, so the summary counts under pytest-xdist too
            item.user_properties.append((_CUPY_CASE, True))
        real = item.get_closest_marker("real_gpu")
        if on_sim and real is not None:
            why = real.kwargs.get("reason") or (real.args[0] if real.args else "needs a real GPU")
            item.add_marker(pytest.mark.skip(reason=f"needs a real GPU, not cupy-sim: {why}"))
        elif not backend.is_cupy_available() and _is_cupy_case(item):
            item.add_marker(pytest.mark.skip(reason="CuPy with a GPU is not available"))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    if getattr(config, "_minigrad_sim", None) is None:
        return
    reports = [r for key, stat in terminalreporter.stats.items() if key != "deselected" for r in stat  # (items)
               if (_CUPY_CASE, True) in getattr(r, "user_properties", ())]
    cases = {r.nodeid for r in reports}
    skipped = [r for r in reports if r.outcome == "skipped" and not hasattr(r, "wasxfail")]  # an xfail ran
    write = terminalreporter.write_line
    write(f"cupy-sim: {len(cases) - len(skipped)} CuPy cases ran on the simulator, {len(skipped)} still skipped")
    for report in skipped:
        write(f"  {report.nodeid}: {_skip_reason(report)}")


def _skip_reason(report: Any) -> str:
    """The reason of a skipped report: pytest-xdist may hand over a whole traceback where pytest keeps a tuple."""
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2]).removeprefix("Skipped: ")
    lines = [line.strip() for line in str(report.longrepr).splitlines() if line.strip()]
    reason = next((line for line in reversed(lines) if "Skipped: " in line), lines[-1] if lines else "")
    return reason[reason.find("Skipped: ") + len("Skipped: "):] if "Skipped: " in reason else reason


# --- minigrad's frames out of failure reports ---------------------------------------------------
FULL_TRACEBACK = "MINIGRAD_FULL_TRACEBACK"  # set to 1: pytest shows minigrad's frames too
_PACKAGE = os.path.dirname(os.path.abspath(minigrad.__file__)) + os.sep
# the standard library and the installed packages (NumPy, CuPy, pytest...), wherever they were installed
_LIBRARIES = tuple({path + os.sep for path in [sysconfig.get_paths()[key] for key in ("stdlib", "platstdlib",
                                                                                      "purelib", "platlib")]
                    + [os.path.dirname(os.path.dirname(module.__file__)) for module in (numpy, pytest)]})


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    if call.excinfo is not None:  # the report is drawn inside this hook: mark the modules first
        for name, module in list(sys.modules.items()):
            if (name == "minigrad" or name.startswith("minigrad.")) and module is not None:
                module.__dict__.setdefault("__tracebackhide__", hide_minigrad_frame)
    yield


def hide_minigrad_frame(excinfo: Any = None) -> bool:
    """pytest's ``__tracebackhide__`` for minigrad's modules: whether to leave their frames out.

    Yes, unless ``MINIGRAD_FULL_TRACEBACK`` is set or minigrad itself crashed.

    Example:
        >>> hide_minigrad_frame(None) == (os.environ.get("MINIGRAD_FULL_TRACEBACK", "") in ("", "0"))
        True
    """
    if os.environ.get(FULL_TRACEBACK, "") not in ("", "0"):
        return False
    return excinfo is None or not _crashed_in_minigrad(excinfo)


def _crashed_in_minigrad(excinfo: Any) -> bool:
    """Whether the exception started in minigrad's code other than at a ``raise``: a bug to show in full.

    A verdict (an ``AssertionError``), an error minigrad raises on purpose and one from the
    user's own code (the innermost frame outside the libraries) are not.
    """
    if isinstance(excinfo.value, AssertionError):
        return False
    frames = []
    tb: TracebackType | None = excinfo.tb
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    return _minigrad_crashed(frames)


def _minigrad_crashed(frames: list[tuple[str, int]]) -> bool:
    """Whether the innermost of ``frames`` (file, line) outside the libraries is minigrad's, not at a ``raise``."""
    for filename, line in reversed(frames):
        path = os.path.abspath(filename)
        if path.startswith(_PACKAGE):
            return not linecache.getline(filename, line).lstrip().startswith("raise")
        if not path.startswith(_LIBRARIES):
            return False  # the user's code
    return False


def without_minigrad_frames(text: str) -> str:
    """A traceback as ``traceback.format_exc()`` writes it, less minigrad's frames (the policy above).

    For the text of a crash that ``run_case`` keeps: ``op_tests`` items show it.

    Example:
        >>> import minigrad.testing.gradient_check as module   # the user's op raises, called by the checker
        >>> text = ('Traceback (most recent call last):\\n  File "test_mine.py", line 3, in test\\n    f()\\n'
        ...         f'  File "{module.__file__}", line 9, in f\\n    g()\\n'
        ...         '  File "mine.py", line 5, in g\\n    h()\\nValueError: mine\\n')
        >>> print(without_minigrad_frames(text))
        Traceback (most recent call last):
          File "test_mine.py", line 3, in test
            f()
          File "mine.py", line 5, in g
            h()
        ValueError: mine
        <BLANKLINE>
    """
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith('  File "')]
    if not starts or os.environ.get(FULL_TRACEBACK, "") not in ("", "0"):
        return text
    ends = starts[1:] + [next((i for i in range(starts[-1] + 1, len(lines)) if not lines[i].startswith("    ")),
                              len(lines))]
    frames = [(line.split('"')[1], int(line.split(", line ")[1].split(",")[0])) for line in (lines[i] for i in starts)]
    if _minigrad_crashed(frames):
        return text
    kept = [i for i, (filename, _) in zip(starts, frames) if not os.path.abspath(filename).startswith(_PACKAGE)]
    body = [line for i, end in zip(starts, ends) if i in kept for line in lines[i:end]]
    return "".join(lines[:starts[0]] + body + lines[ends[-1]:])
