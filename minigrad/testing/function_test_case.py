"""``FunctionTestCase``: describe a function once, get forward, backward and double-backward tests.

Subclass it in a test module (the class name must start with ``Test`` so that
pytest collects it) and define three methods::

    import numpy as np
    import minigrad.functions as F
    from minigrad.testing import FunctionTestCase

    class TestTanh(FunctionTestCase):
        def generate_inputs(self):              # NumPy arrays, in self.dtype
            return (self.rng.uniform(-1, 1, (3, 4)).astype(self.dtype),)

        def forward(self, inputs, device):      # Variables in, Variable(s) out
            return F.tanh(inputs[0])

        def forward_expected(self, inputs):     # NumPy arrays in, arrays out
            return np.tanh(inputs[0])

pytest then runs ``test_forward``, ``test_backward``, ``test_double_backward``,
``test_deterministic`` and ``test_views`` for every backend (NumPy, and CuPy
where a GPU is present; skipped with a reason otherwise) times every dtype in
``dtypes``: fifteen tests on a CPU-only machine, ids like
``test_backward[numpy-float16]``.

What each test checks:
    test_forward: ``forward`` matches ``forward_expected`` (tolerances per dtype),
        returns Variables, keeps float outputs in the input dtype, and leaves
        its input arrays unchanged.
    test_backward: ``check_backward`` with output gradients from
        ``generate_grad_outputs`` (uniform in [-1, 1] by default).
    test_double_backward: ``check_double_backward`` with gradients for the
        first-order gradients from ``generate_grad_grad_inputs``.
    test_deterministic, test_views: the registry's ``deterministic`` and
        ``views`` checks (``minigrad.testing.sweep``), run by the same case
        runner as ``python -m minigrad check``: the input gradients are bitwise
        equal when the backward runs again, and transposed, strided and
        broadcast views as inputs give what contiguous copies give.

Options (class attributes; set them per dtype in ``setup_case``, which runs
before each test with ``self.dtype`` set; a Chainer test's ``setUp`` runs
there too, just before it, and ``before_test(test_name)`` after it, so a test
ported from ``chainer.testing.FunctionTestCase`` keeps its set-up and skips):
    dtypes: float dtype names to test (default float16, float32, float64).
    check_forward_options: ``assert_allclose`` keywords (``atol``, ``rtol``).
    check_backward_options / check_double_backward_options: keywords for the
        checkers (``atol``, ``rtol``, ``eps``, ``dtype``, ``no_grads``, ...).
    skip_forward_test / skip_backward_test / skip_double_backward_test /
        skip_deterministic_test / skip_views_test.
    dodge_nondifferentiable: check for kinks and draw new inputs (up to
        ``dodge_attempts`` times) when the inputs land next to one.

During a test ``self.dtype`` (``numpy.dtype``), ``self.backend`` ("numpy" or
"cupy"), ``self.xp`` (the array module), ``self.rng`` (a seeded
``numpy.random.Generator``) and, for tests ported from Chainer,
``self.backend_config`` (a :class:`~minigrad.testing.BackendConfig`) are set;
``forward``'s ``device`` is the backend's name, a ``str`` that also sends
arrays there as Chainer's device does (``device.send(x)``); NumPy's global random state is seeded
too (and restored after the test), so Chainer-style ``numpy.random.uniform``
calls are reproducible.
"""

from __future__ import annotations

import zlib
from types import ModuleType
from typing import Any

import numpy

from minigrad import backend as backend_module
from minigrad.testing import sweep
from minigrad.testing.backend_config import BackendConfig, BackendName
from minigrad.testing.gradient_check import NondifferentiableError, check_backward, check_double_backward
from minigrad.testing.registry import DEFAULT_FORWARD_TOLERANCE, FLOAT_DTYPES, OpSpec
from minigrad.testing.skipping import skip
from minigrad.testing.sweep import (
    as_tuple,
    check_inputs_unchanged,
    check_outputs,
    draw_grad_grad_inputs,
    draw_grad_outputs,
    gradient_check_arguments,
    to_backend,
)
from minigrad.variable import Variable

__all__ = ["FunctionTestCase"]

_CHECK_TESTS = frozenset({"test_forward", "test_backward", "test_double_backward", "test_deterministic",
                          "test_views"})
_OPTION_DICTS = ("check_forward_options", "check_backward_options", "check_double_backward_options")


class FunctionTestCase:
    """Base class for pytest tests of one function: forward, backward and double backward.

    See the module docstring for the full description. ``run_case`` runs the
    same checks without pytest.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import FunctionTestCase
        >>> class TestExp(FunctionTestCase):
        ...     def generate_inputs(self):
        ...         return (self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype),)
        ...     def forward(self, inputs, device):
        ...         return F.exp(inputs[0])
        ...     def forward_expected(self, inputs):
        ...         return np.exp(inputs[0].astype(np.float64)).astype(inputs[0].dtype)
        >>> TestExp().run_case("numpy", "float32")   # what pytest runs for each backend and dtype
        ['forward', 'backward', 'double_backward', 'deterministic', 'views']
    """

    dtypes: tuple[str, ...] = FLOAT_DTYPES
    check_forward_options: dict[str, Any] = {}
    check_backward_options: dict[str, Any] = {}
    check_double_backward_options: dict[str, Any] = {}
    skip_forward_test: bool = False
    skip_backward_test: bool = False
    skip_double_backward_test: bool = False
    skip_deterministic_test: bool = False
    skip_views_test: bool = False
    dodge_nondifferentiable: bool = False
    dodge_attempts: int = 5

    dtype: numpy.dtype
    backend: str
    xp: ModuleType
    rng: numpy.random.Generator

    # --- what a subclass defines ---------------------------------------------------
    def generate_inputs(self) -> tuple[Any, ...]:
        """Input arrays (NumPy, float inputs in ``self.dtype``); use ``self.rng``."""
        raise NotImplementedError(f"{type(self).__name__} must define generate_inputs(self)")

    def forward(self, inputs: tuple[Variable, ...], device: str) -> Any:
        """The function under test: Variables in, a Variable or tuple of Variables out."""
        raise NotImplementedError(f"{type(self).__name__} must define forward(self, inputs, device)")

    def forward_expected(self, inputs: tuple[Any, ...]) -> Any:
        """The expected outputs as NumPy arrays, from (copies of) the NumPy inputs."""
        raise NotImplementedError(f"{type(self).__name__} must define forward_expected(self, inputs)")

    def generate_grad_outputs(self, outputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Output gradients for ``test_backward``: uniform in [-1, 1] (None for non-float outputs)."""
        return draw_grad_outputs(self.rng, outputs_template)

    def generate_grad_grad_inputs(self, inputs_template: tuple[Any, ...]) -> tuple[Any, ...]:
        """Gradients w.r.t. the first-order gradients of the float inputs, for ``test_double_backward``."""
        return draw_grad_grad_inputs(self.rng, inputs_template)

    def setup_case(self) -> None:
        """Hook run before each test with ``self.dtype`` and ``self.backend`` set (e.g. to set tolerances)."""

    def setUp(self) -> None:  # noqa: N802  (Chainer's unittest name)
        """Chainer's set-up hook: run before ``setup_case``, with ``self.dtype`` already set."""

    def before_test(self, test_name: str) -> None:
        """Chainer's hook, run last before each check; ``test_name`` is ``'test_forward'``, ``'test_backward'``..."""

    # --- pytest -----------------------------------------------------------------------
    def setup_method(self, method: Any = None) -> None:
        """pytest's per-test hook: a test method of the subclass's own (not one of the checks) gets ``setUp`` too,
        as under Chainer's unittest classes (with the class's own option dicts, never the shared ones)."""
        if method is not None and method.__name__ not in _CHECK_TESTS:
            self._own_options()
            self.setUp()

    def _own_options(self) -> None:
        # Chainer's setUp updates the option dicts in place: give this test its own copies first
        for name in _OPTION_DICTS:
            setattr(self, name, dict(getattr(self, name)))

    def pytest_generate_tests(self, metafunc: Any) -> None:
        """Parametrise the generated tests over ``dtypes`` (pytest calls this class-level hook)."""
        if "dtype" in metafunc.fixturenames:
            metafunc.parametrize("dtype", list(self.dtypes))

    def test_forward(self, xp_backend: str, dtype: str) -> None:
        if self.skip_forward_test:
            self._skip("skip_forward_test is set")
        self._run(xp_backend, dtype, self._check_forward, "test_forward")

    def test_backward(self, xp_backend: str, dtype: str) -> None:
        if self.skip_backward_test:
            self._skip("skip_backward_test is set")
        self._run(xp_backend, dtype, lambda: self._check_gradients(1), "test_backward")

    def test_double_backward(self, xp_backend: str, dtype: str) -> None:
        if self.skip_double_backward_test:
            self._skip("skip_double_backward_test is set")
        self._run(xp_backend, dtype, lambda: self._check_gradients(2), "test_double_backward")

    def test_deterministic(self, xp_backend: str, dtype: str) -> None:
        if self.skip_deterministic_test:
            self._skip("skip_deterministic_test is set")
        self._run(xp_backend, dtype, lambda: self._check_with_runner("deterministic"), "test_deterministic")

    def test_views(self, xp_backend: str, dtype: str) -> None:
        if self.skip_views_test:
            self._skip("skip_views_test is set")
        self._run(xp_backend, dtype, lambda: self._check_with_runner("views"), "test_views")

    # --- without pytest ---------------------------------------------------------------
    def run_case(self, backend: str = "numpy", dtype: str = "float64") -> list[str]:
        """Run every check (forward, backward, double backward, deterministic, views) for one backend and dtype.

        Returns the names of the checks that ran (skipped ones are left out);
        a failing check raises as it would under pytest.
        """
        ran = []
        for name, check in (("forward", self._check_forward), ("backward", lambda: self._check_gradients(1)),
                            ("double_backward", lambda: self._check_gradients(2)),
                            ("deterministic", lambda: self._check_with_runner("deterministic")),
                            ("views", lambda: self._check_with_runner("views"))):
            if not getattr(self, f"skip_{name}_test") and self._run(backend, dtype, check, f"test_{name}",
                                                                  skip_flagged=False):
                ran.append(name)
        return ran

    # --- the checks -------------------------------------------------------------------
    def _run(self, backend: str, dtype: str, check: Any, test_name: str, skip_flagged: bool = True) -> bool:
        """Set the case up, run ``check``, and give NumPy's global random state back; False (or, with
        ``skip_flagged``, a skip) when ``setUp`` set the test's ``skip_*_test`` flag, as a Chainer test may."""
        state = numpy.random.get_state()
        try:
            self._prepare(backend, dtype)
            flag = f"skip_{test_name[len('test_'):]}_test"
            if getattr(self, flag):
                if skip_flagged:
                    self._skip(f"{flag} is set")
                return False
            self.test_name = test_name  # Chainer's tests read it in generate_inputs too
            self.before_test(test_name)
            check()
            return True
        finally:
            numpy.random.set_state(state)

    def _prepare(self, backend: str, dtype: str) -> None:
        if backend not in ("numpy", "cupy"):
            raise ValueError(f"FunctionTestCase: backend must be 'numpy' or 'cupy', got {backend!r}")
        self.dtype = numpy.dtype(dtype)
        if self.dtype.kind != "f":
            raise ValueError(f"FunctionTestCase: dtypes must be float dtypes, got {dtype!r}")
        self.backend = backend
        if backend == "cupy":
            cupy = backend_module.cupy_or_none()
            if cupy is None:
                self._skip("CuPy with a GPU is not available")
            self.xp = cupy
        else:
            self.xp = numpy
        self.backend_config = BackendConfig({"use_cuda": backend == "cupy"})  # (Chainer's tests read it)
        self._backend_name = BackendName(backend)  # what forward gets: the name, also sending arrays (Chainer's device)
        self.seed = zlib.crc32(f"{type(self).__qualname__}/{backend}/{self.dtype.name}".encode())
        self.rng = numpy.random.default_rng(self.seed)
        numpy.random.seed(self.seed)
        if backend == "cupy":  # ops that draw on the device (dropout) use CuPy's own global generator
            self.xp.random.seed(self.seed)
        self._own_options()
        self.setUp()
        self.setup_case()

    @staticmethod
    def _skip(reason: str) -> None:
        skip(reason)

    def _options(self, name: str) -> dict[str, Any]:
        options = dict(getattr(self, name))
        if options and set(options) <= set(FLOAT_DTYPES):  # keyed by dtype name
            options = dict(options.get(self.dtype.name, {}))
        return options

    def _inputs(self) -> tuple[Any, ...]:
        inputs = as_tuple(self.generate_inputs())
        for i, x in enumerate(inputs):
            if not isinstance(x, numpy.ndarray):
                raise TypeError(f"{type(self).__name__}.generate_inputs must return NumPy arrays; input {i} is "
                                f"{type(x).__name__}")
        return inputs

    def _to_device(self, arrays: tuple[Any, ...]) -> tuple[Any, ...]:
        return to_backend(arrays, self.backend)

    def _call(self, device_inputs: tuple[Any, ...]) -> tuple[Variable, ...]:
        outputs = as_tuple(self.forward(tuple(Variable(a) for a in device_inputs), self._backend_name))
        for j, y in enumerate(outputs):
            if not isinstance(y, Variable):
                raise TypeError(f"{type(self).__name__}.forward must return Variables; output {j} is "
                                f"{type(y).__name__}")
        return outputs

    def _check_forward(self) -> None:
        name = type(self).__name__
        inputs = self._inputs()
        device_inputs = self._to_device(tuple(x.copy() for x in inputs))
        outputs = self._call(device_inputs)
        check_inputs_unchanged(name, inputs, device_inputs)
        expected = as_tuple(self.forward_expected(tuple(x.copy() for x in inputs)))
        # float outputs keep the float inputs' dtype (promoted, if they differ): a Chainer test may choose its
        # inputs' dtypes itself (x1_dtype, x2_dtype) instead of following self.dtype
        floats = [x.dtype for x in inputs if x.dtype.kind == "f"]
        dtype = numpy.result_type(*floats) if floats else self.dtype
        tolerance = DEFAULT_FORWARD_TOLERANCE.get(dtype.name, DEFAULT_FORWARD_TOLERANCE[self.dtype.name])
        options = {**dict(zip(("atol", "rtol"), tolerance)), **self._options("check_forward_options")}
        check_outputs(f"{name} ({self.backend}, {self.dtype})", outputs, expected, dtype, **options,
                      reference_name="forward_expected")

    def _check_with_runner(self, check: str) -> None:
        """Run a registry check on this case, through the sweep's case runner."""
        if self.dtype.name not in FLOAT_DTYPES:
            self._skip(f"the {check} check runs for {', '.join(FLOAT_DTYPES)} only")
        spec = OpSpec(type(self).__name__, lambda *xs: self.forward(xs, self._backend_name),
                      lambda rng, dt: self._inputs(),
                      grad_outputs=lambda rng, outputs: self.generate_grad_outputs(outputs),
                      dtypes=(self.dtype.name,), backends=(self.backend,))
        result = sweep.run_case(spec, self.dtype.name, self.backend, check, seed=self.seed)
        if result.status == "skip":
            self._skip(result.message)
        if result.failed:
            raise AssertionError(result.message + (f"\n\n{result.traceback}" if result.traceback else ""))

    def _check_gradients(self, order: int) -> None:
        options = self._options("check_backward_options" if order == 1 else "check_double_backward_options")
        # pop first: with dodge_nondifferentiable the option would otherwise be passed a second time
        detect = options.pop("detect_nondifferentiable", False) or self.dodge_nondifferentiable
        attempts = self.dodge_attempts if self.dodge_nondifferentiable else 1
        for attempt in range(attempts):
            inputs = self._inputs()
            template = tuple(backend_module.to_cpu(y.array) for y in self._call(self._to_device(inputs)))
            grad_outputs = gradient_check_arguments(as_tuple(self.generate_grad_outputs(template)), template)
            device_inputs = self._to_device(inputs)
            device_grads = None if grad_outputs is None else self._to_device(grad_outputs)

            def func(*xs: Variable) -> Any:
                return self.forward(xs, self._backend_name)

            try:
                if order == 1:
                    check_backward(func, device_inputs, device_grads, detect_nondifferentiable=detect,
                                   seed=self.seed + attempt, **options)
                else:
                    grad_grads = self._to_device(as_tuple(self.generate_grad_grad_inputs(inputs)))
                    check_double_backward(func, device_inputs, device_grads, grad_grads,
                                          detect_nondifferentiable=detect, seed=self.seed + attempt, **options)
                return
            except NondifferentiableError:
                if not self.dodge_nondifferentiable or attempt == attempts - 1:
                    raise
