"""pytest plugin (registered through the ``pytest11`` entry point).

Gives tests an ``xp_backend`` fixture ("numpy" / "cupy") and ``xp`` (the array
module), parametrised over the backends chosen with ``--minigrad-backend``
(default: both; CuPy cases are skipped with a reason when CuPy or a GPU is
missing), and a ``gpu`` marker for tests that need CuPy. Test functions made by
``minigrad.testing.op_tests`` are expanded here over the same backends.
"""

from __future__ import annotations

from types import ModuleType

try:
    import pytest
except ImportError as error:  # the plugin is the one part of minigrad.testing that needs pytest
    raise ImportError('minigrad.testing.pytest_plugin runs under pytest: pip install "minigrad[test]"') from error

from minigrad import backend

BACKENDS = ("numpy", "cupy")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--minigrad-backend",
        choices=("numpy", "cupy", "all"),
        default="all",
        help="array backend(s) for minigrad's xp_backend fixture (default: all)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: the test needs CuPy and a GPU (skipped without them)")


def selected_backends(config: pytest.Config) -> tuple[str, ...]:
    choice = config.getoption("--minigrad-backend", default="all")
    return BACKENDS if choice == "all" else (choice,)


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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if backend.is_cupy_available():
        return
    skip = pytest.mark.skip(reason="CuPy with a GPU is not available")
    for item in items:
        callspec = getattr(item, "callspec", None)
        if item.get_closest_marker("gpu") or (callspec and callspec.params.get("xp_backend") == "cupy"):
            item.add_marker(skip)
