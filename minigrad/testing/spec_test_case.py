"""``SpecTestCase``: a pytest class that describes one case as an ``OpSpec`` and runs the whole battery on it.

``FunctionTestCase`` (a function) and ``LinkTestCase`` (a layer) are thin
adapters on this class: each says how to build the ``OpSpec`` of one case
(``build_spec``) from the methods its users write, and the checks themselves
are the battery of ``minigrad.testing.sweep``, run by ``run_case``, the case
runner of ``python -m minigrad check`` and ``op_tests``. So a test class
gets every check the sweep has, with the same messages, and one vocabulary:

- pytest fixtures ``xp_backend`` ("numpy" / "cupy", chosen with
  ``--minigrad-backend``) and ``dtype`` (a float dtype name from ``dtypes``);
  ids like ``test_backward[float32-numpy]``;
- one test per battery check: ``test_forward``, ``test_backward``,
  ``test_double_backward`` (the check ``double``), ``test_deterministic``,
  ``test_views``, ``test_jvp``, ``test_vjp_linearity``, ``test_hvp_symmetry``;
  ``skip_<name>_test = True`` skips one (``skip_double_backward_test``, ...);
  ``skip_double_backward_test`` says the case has no second order, as an
  ``OpSpec``'s ``second_order=False`` does, so ``test_jvp`` and
  ``test_hvp_symmetry`` (which differentiate the backward) skip too;
- tolerances and checker options in Chainer's names, which ``OpSpec`` uses
  too (``minigrad.testing.check_options``): ``check_forward_options``
  (``atol``, ``rtol``), ``check_backward_options`` and
  ``check_double_backward_options`` (``atol``, ``rtol``, ``eps``, ``no_grads``,
  ``dtype``, ``detect_nondifferentiable``), one dict for every dtype, with
  an entry per dtype for that dtype alone (``{"float16": {"atol": 1e-2}}``;
  NumPy types work as keys);
- ``dodge_nondifferentiable``: inputs drawn next to a kink are drawn again (up
  to ``dodge_attempts`` times);
- hooks ``setUp`` (Chainer's), ``setup_case`` and ``before_test(test_name)``,
  run in that order before each test with ``self.dtype``, ``self.backend``,
  ``self.xp``, ``self.rng`` and ``self.backend_config`` (a
  :class:`~minigrad.testing.BackendConfig`) set, and the test's own copies of
  the option dicts (a Chainer ``setUp`` updates them in place); a skip flag
  ``setUp`` sets is honoured; a test method of the subclass's own gets
  ``setUp`` too; NumPy's global random state is seeded per test (and restored
  after it), so Chainer-style ``numpy.random`` calls repeat;
- ``forward`` gets the device as the backend's name, a ``str`` that also sends
  arrays there as Chainer's device does (``device.send(x)``).

Example:
    >>> from minigrad.testing.spec_test_case import TEST_NAMES
    >>> [TEST_NAMES[check] for check in ("forward", "double", "views")]
    ['forward', 'double_backward', 'views']
"""

from __future__ import annotations

import zlib
from types import ModuleType
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad.testing import sweep
from minigrad.testing.backend_config import BackendConfig, BackendName
from minigrad.testing.check_options import OPTION_NAMES, normalize, options_for
from minigrad.testing.gradient_check import NondifferentiableError
from minigrad.testing.registry import FLOAT_DTYPES, OpSpec
from minigrad.testing.skipping import skip

__all__ = ["SpecTestCase", "TEST_NAMES"]

#: The battery's checks as the test classes name them: ``test_<name>``, ``skip_<name>_test`` (Chainer's
#: ``double_backward``); the opt-in ``refuses`` runs on the bad cases the registry derives, not in a test class.
TEST_NAMES: dict[str, str] = {check: "double_backward" if check == "double" else check
                              for check, entry in sweep.BATTERY.items() if not entry.opt_in}
_OPTION_DICTS = tuple(OPTION_NAMES.values())


class SpecTestCase:
    """Base class of ``FunctionTestCase`` and ``LinkTestCase``: one ``OpSpec`` per case, every battery check.

    A subclass defines ``build_spec(check)``; see the module docstring for the
    attributes and hooks the two test classes share.
    """

    dtypes: tuple[Any, ...] = FLOAT_DTYPES
    seed: int = 0  # the base of every case's seed (which also depends on the class, backend and dtype)
    check_forward_options: dict[Any, Any] = {}
    check_backward_options: dict[Any, Any] = {}
    check_double_backward_options: dict[Any, Any] = {}
    skip_forward_test: bool = False
    skip_backward_test: bool = False
    skip_double_backward_test: bool = False
    skip_deterministic_test: bool = False
    skip_views_test: bool = False
    skip_jvp_test: bool = False
    skip_vjp_linearity_test: bool = False
    skip_hvp_symmetry_test: bool = False
    dodge_nondifferentiable: bool = False
    dodge_attempts: int = 5

    dtype: numpy.dtype
    backend: str
    xp: ModuleType
    rng: numpy.random.Generator
    case_seed: int
    run_dtype: str  # the dtype run_case runs the case in: self.dtype's name unless build_spec says otherwise

    # --- what an adapter defines --------------------------------------------------------
    def build_spec(self, check: str) -> OpSpec:
        """The ``OpSpec`` of this case (``self.dtype``, ``self.backend`` set) for ``check``."""
        raise NotImplementedError(f"{type(self).__name__} must define build_spec(self, check)")

    # --- hooks ---------------------------------------------------------------------------
    def setUp(self) -> None:  # noqa: N802  (Chainer's unittest name)
        """Chainer's set-up hook: run first, with ``self.dtype`` already set."""

    def setup_case(self) -> None:
        """Hook run before each test with ``self.dtype`` and ``self.backend`` set (e.g. to set tolerances)."""

    def before_test(self, test_name: str) -> None:
        """Chainer's hook, run last before each check; ``test_name`` is ``'test_forward'``, ``'test_backward'``..."""

    # --- pytest ----------------------------------------------------------------------------
    def setup_method(self, method: Any = None) -> None:
        """pytest's per-test hook: a test method of the subclass's own (not one of the checks) gets ``setUp`` too,
        as under Chainer's unittest classes (with the class's own option dicts, never the shared ones)."""
        if method is not None and method.__name__ not in {f"test_{name}" for name in TEST_NAMES.values()}:
            self._own_options()
            self.setUp()

    def _own_options(self) -> None:
        # Chainer's setUp updates the option dicts in place: give this test its own copies first
        for name in _OPTION_DICTS:
            setattr(self, name, dict(getattr(self, name)))

    def pytest_generate_tests(self, metafunc: Any) -> None:
        """Parametrise the generated tests over ``dtypes`` (pytest calls this class-level hook)."""
        if "dtype" in metafunc.fixturenames:
            metafunc.parametrize("dtype", [numpy.dtype(d).name for d in self.dtypes])

    # --- without pytest ----------------------------------------------------------------------
    def run_case(self, backend: str = "numpy", dtype: str = "float64") -> list[str]:
        """Run every test of the battery for one backend and dtype, as pytest would.

        Returns the names of the tests that ran (``skip_<name>_test`` ones left
        out, also when ``setUp`` sets the flag); a failing check raises as it
        would under pytest.
        """
        return [name for check, name in TEST_NAMES.items()
                if not getattr(self, f"skip_{name}_test") and self.run_test(backend, dtype, check, skip_flagged=False)]

    def run_test(self, backend: str, dtype: Any, check: str, skip_flagged: bool = True) -> bool:
        """Set the case up, run one battery check through ``run_case`` and give NumPy's random state back.

        False (or, with ``skip_flagged``, a skip) when the test's ``skip_<name>_test``
        flag is set, by the class or by ``setUp`` (as a Chainer test may).
        """
        flag = f"skip_{TEST_NAMES[check]}_test"
        if getattr(self, flag) and skip_flagged:
            skip(f"{flag} is set")
        state = numpy.random.get_state()
        try:
            self._prepare(backend, dtype)
            if getattr(self, flag):
                if skip_flagged:
                    skip(f"{flag} is set")
                return False
            self.test_name = f"test_{TEST_NAMES[check]}"  # Chainer's tests read it in generate_inputs too
            self.before_test(self.test_name)
            self._check(check)
            return True
        finally:
            numpy.random.set_state(state)

    # --- the case --------------------------------------------------------------------------
    def _prepare(self, backend: Any, dtype: Any) -> None:
        if isinstance(backend, ModuleType):  # an array module, as the xp fixture gives
            backend = "numpy" if backend is numpy else "cupy"
        if backend not in ("numpy", "cupy"):
            raise ValueError(f"{type(self).__name__}: backend must be 'numpy' or 'cupy', got {backend!r}")
        self.dtype = numpy.dtype(dtype)
        self.run_dtype = self.dtype.name
        if self.dtype.name not in FLOAT_DTYPES:
            raise ValueError(f"{type(self).__name__}: dtypes must be float dtypes ({', '.join(FLOAT_DTYPES)}), "
                             f"got {dtype!r}")
        self.backend = backend
        self.xp = numpy
        if backend == "cupy":
            cupy = backend_module.cupy_or_none()
            if cupy is None:
                skip("CuPy with a GPU is not available")
            self.xp = cupy
        suffix = f"/{self.seed}" if self.seed else ""
        self.case_seed = zlib.crc32(f"{type(self).__qualname__}/{backend}/{self.dtype.name}{suffix}".encode())
        self.rng = numpy.random.default_rng(self.case_seed)
        numpy.random.seed(self.case_seed)
        if backend == "cupy":  # ops that draw on the device (dropout) use CuPy's own global generator
            self.xp.random.seed(self.case_seed)
        self.backend_config = BackendConfig({"use_cuda": backend == "cupy"})  # (Chainer's tests read it)
        self._device_name = BackendName(backend)  # what forward gets: the backend's name, also sending arrays there
        self._own_options()
        self.setUp()
        self.setup_case()

    def _check(self, check: str) -> None:
        """``run_case`` on this case's spec; inputs next to a kink are drawn again under ``dodge_nondifferentiable``."""
        attempts = self.dodge_attempts if self.dodge_nondifferentiable else 1
        for attempt in range(attempts):
            spec = self.build_spec(check)  # (it may set run_dtype)
            result = sweep.run_case(spec, self.run_dtype, self.backend, check, case_seed=self.case_seed + attempt)
            if not isinstance(result.error, NondifferentiableError):
                break
        if result.status == "skip":
            skip(result.message)
        result.reraise()

    def options(self, attribute: str) -> dict[str, Any]:
        """``check_*_options`` for this case's dtype: the shared keywords, then the dtype's own entry.

        Example:
            >>> import numpy
            >>> from minigrad.testing import FunctionTestCase
            >>> case = FunctionTestCase()
            >>> case.dtype = numpy.dtype("float16")
            >>> case.check_backward_options = {"eps": 1e-3, numpy.float16: {"atol": 1e-2}, "float64": {"atol": 0}}
            >>> case.options("check_backward_options")
            {'eps': 0.001, 'atol': 0.01}
        """
        check = next(check for check, name in OPTION_NAMES.items() if name == attribute)
        return options_for(normalize(getattr(self, attribute), check, type(self).__name__), self.dtype.name)

    def spec_options(self) -> dict[str, Any]:
        """The ``OpSpec`` keywords every adapter passes: the case's dtype, backend, tolerances and checker options.

        The options are the tables' entries for ``self.dtype``, passed on as the spec's for every dtype (the
        spec runs one, ``run_dtype``).
        """
        tables = {name: self.options(name) for name in _OPTION_DICTS}
        if self.dodge_nondifferentiable:
            for name in _OPTION_DICTS[1:]:
                tables[name]["detect_nondifferentiable"] = True
        # every float dtype, not the case's alone: the jvp check takes its central differences in the widest;
        # a class that skips double backward is one without second order, whose jvp and hvp checks skip too
        return dict(dtypes=FLOAT_DTYPES, backends=(self.backend,), second_order=not self.skip_double_backward_test,
                    **tables)


def _battery_test(check: str) -> Any:
    def test(self: SpecTestCase, xp_backend: str, dtype: str) -> None:
        self.run_test(xp_backend, dtype, check)

    test.__name__ = test.__qualname__ = f"test_{TEST_NAMES[check]}"
    test.__doc__ = f"The battery's {check!r} check (minigrad.testing.sweep.BATTERY) on this case."
    return test


for _check in TEST_NAMES:  # one test per check of the battery, so that a new check reaches every test class
    setattr(SpecTestCase, f"test_{TEST_NAMES[_check]}", _battery_test(_check))
