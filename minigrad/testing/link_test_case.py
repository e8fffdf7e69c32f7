"""``LinkTestCase``: check a whole layer's forward and gradients the way ops are checked.

Subclass it in a test module (name the subclass ``Test...``) and describe the
link; pytest then runs, for each dtype in ``dtypes`` and each backend (NumPy,
and CuPy where present):

* ``test_forward``: the output against ``forward_expected`` (an independent
  NumPy computation), with the right shape and dtype, inputs left unmodified;
* ``test_backward``: ``check_backward`` with respect to the float inputs and
  every parameter (``params=``);
* ``test_double_backward``: ``check_double_backward`` likewise.

Examples that run in the test suite (rather than a copy here that could go
stale): ``tests/links/test_linear.py`` (``TestLinear``, a built-in layer), and
the custom ``Chain`` and its test in the how-to "Write and check a custom layer"
(``docs/howto/custom-layer.rst``, run by ``tests/test_docs_pasteable.py``).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

import numpy

from minigrad import backend
from minigrad.testing.assertions import assert_allclose
from minigrad.testing.backend_config import BackendConfig, BackendName
from minigrad.testing.gradient_check import check_backward, check_double_backward
from minigrad.testing.skipping import skip
from minigrad.variable import Variable

if TYPE_CHECKING:  # pytest is a test extra; a plain script uses LinkTestCase without it
    import pytest

__all__ = ["LinkTestCase"]

_DTYPES = (numpy.float16, numpy.float32, numpy.float64)


def _tuple(x: Any) -> tuple[Any, ...]:
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class LinkTestCase:
    """Base class for pytest test classes that verify a Link (see the module docstring).

    Override:
        ``create_link(initializers)`` (required): build the link; ``initializers``
            is ``generate_params()`` cast to the test dtype (one array per name in
            ``param_names``), meant for the link's ``initialW=``-style arguments.
        ``generate_inputs()`` (required): a tuple of NumPy input arrays; float
            inputs in ``self.dtype``; draw them from ``self.rng``.
        ``forward_expected(link, inputs)`` (required unless
            ``skip_forward_test``): the expected outputs, computed with NumPy
            from ``inputs`` (upcast to float64) and the link's parameter arrays
            (``link.W.array``, on the CPU).
        ``generate_params()``: initial parameter values (default: none).
        ``forward(link, inputs)``: how to call the link (default ``link(*inputs)``).

    Attributes:
        dtypes: the float dtypes to test.
        param_names: the parameters to differentiate; ``None`` (default) means
            every parameter of the link, in ``namedparams`` order.
        skip_forward_test, skip_backward_test, skip_double_backward_test.
        forward_tolerance, backward_tolerance, double_backward_tolerance:
            per-dtype ``{"atol": ..., "rtol": ...}`` overrides.
        seed: seeds ``self.rng`` (a ``numpy.random.Generator``) per test.

    During a test ``self.dtype`` is the dtype under test and ``self.xp`` the
    array module. For tests ported from Chainer: ``setUp`` and ``before_test``
    run before each test (a test method of the subclass's own gets ``setUp``
    too), ``self.backend_config`` is set, ``check_forward_options`` /
    ``check_backward_options`` / ``check_double_backward_options`` override
    the tolerance tables, and a ``forward(link, inputs, device)`` gets the device.
    """

    dtypes: tuple[Any, ...] = _DTYPES
    param_names: tuple[str, ...] | None = None
    skip_forward_test = False
    skip_backward_test = False
    skip_double_backward_test = False
    forward_tolerance: dict[Any, dict[str, float]] = {
        numpy.float16: {"atol": 5e-3, "rtol": 5e-3},
        numpy.float32: {"atol": 1e-5, "rtol": 1e-4},
        numpy.float64: {"atol": 1e-12, "rtol": 1e-10},
    }
    backward_tolerance: dict[Any, dict[str, float]] = {}
    double_backward_tolerance: dict[Any, dict[str, float]] = {}
    seed = 0
    # Chainer's spellings, for ported tests: set (or .update()) in setUp; they override the tables above
    check_forward_options: dict[str, Any] = {}
    check_backward_options: dict[str, Any] = {}
    check_double_backward_options: dict[str, Any] = {}

    # --- what a subclass describes ---------------------------------------------
    def create_link(self, initializers: tuple[Any, ...]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define create_link(self, initializers)")

    def generate_params(self) -> tuple[Any, ...]:
        return ()

    def generate_inputs(self) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__} must define generate_inputs(self)")

    def forward(self, link: Any, inputs: tuple[Any, ...]) -> Any:
        return link(*inputs)

    def setUp(self) -> None:  # noqa: N802  (Chainer's unittest name)
        """Chainer's set-up hook: run before each test with ``self.dtype`` and ``self.backend_config`` set."""

    def before_test(self, test_name: str) -> None:
        """Chainer's hook, run after ``setUp``; ``test_name`` is ``'test_forward'``, ``'test_backward'``..."""

    def setup_method(self, method: Any = None) -> None:
        """pytest's per-test hook: a test method of the subclass's own gets ``setUp`` too, as under unittest."""
        if method is not None and method.__name__ not in ("test_forward", "test_backward", "test_double_backward"):
            self._own_options()
            self.setUp()

    def _own_options(self) -> None:
        # Chainer's setUp updates the option dicts in place: give this test its own copies first
        for name in ("check_forward_options", "check_backward_options", "check_double_backward_options"):
            setattr(self, name, dict(getattr(self, name)))

    def _forward(self, link: Any, inputs: tuple[Any, ...]) -> Any:
        """``forward``, given the device too when it takes one (Chainer's ``forward(link, inputs, device)``)."""
        if len(inspect.signature(self.forward).parameters) == 3:
            return self.forward(link, inputs, BackendName(self.backend_config.backend))
        return self.forward(link, inputs)

    def forward_expected(self, link: Any, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            f"{type(self).__name__} must define forward_expected(self, link, inputs) or set skip_forward_test = True"
        )

    # --- pytest wiring ------------------------------------------------------------
    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "dtype" in metafunc.fixturenames:
            dtypes = [numpy.dtype(d) for d in self.dtypes]
            metafunc.parametrize("dtype", dtypes, ids=[d.name for d in dtypes])

    def _setup(self, xp: Any, dtype: Any, test_name: str) -> None:
        self.dtype = numpy.dtype(dtype)
        self.xp = xp
        self.rng = numpy.random.default_rng([self.seed, self.dtype.num])
        self.backend_config = BackendConfig({"use_cuda": xp is not numpy})  # (Chainer's tests read it)
        self._own_options()
        self.setUp()
        flag = f"skip_{test_name[len('test_'):]}_test"
        if getattr(self, flag):  # (a Chainer test sets its skip flags in setUp)
            skip(f"{flag} is set")
        self.before_test(test_name)

    def _tolerance(self, table: dict[Any, dict[str, float]], options: dict[str, Any] | None = None) -> dict[str, Any]:
        found = {}
        for key, value in table.items():
            if numpy.dtype(key) == self.dtype:
                found = dict(value)
        return {**found, **(options or {})}

    def _make(self, on_gpu: bool) -> tuple[Any, tuple[Any, ...]]:
        """The link (parameters in the test dtype, lazily sized ones initialized) and the NumPy inputs."""
        self.rng = numpy.random.default_rng([self.seed, self.dtype.num])
        initializers = tuple(numpy.asarray(p).astype(self.dtype) if numpy.asarray(p).dtype.kind == "f" else p
                             for p in self.generate_params())
        link = self.create_link(initializers)
        inputs = tuple(self.generate_inputs())
        for i, x in enumerate(inputs):
            if not isinstance(x, numpy.ndarray):
                raise TypeError(f"{type(self).__name__}.generate_inputs: input {i} is a {type(x).__name__}, "
                                f"not a numpy.ndarray")
            if x.dtype.kind == "f" and x.dtype != self.dtype:
                raise TypeError(f"{type(self).__name__}.generate_inputs: input {i} has dtype {x.dtype}; "
                                f"generate float inputs in self.dtype ({self.dtype})")
        self._cast_link(link)
        if on_gpu:
            link.to_device("@cupy:0")
        if any(p.array is None for p in link.params()):  # run once so that lazily sized parameters exist
            self._forward(link, self._device(inputs, on_gpu))
            self._cast_link(link)
        return link, inputs

    def _cast_link(self, link: Any) -> None:
        """Cast float parameters and persistent arrays to the test dtype."""
        for sub in link.links():
            for name in sub._params:
                param = sub.__dict__[name]
                if param.array is not None and param.dtype.kind == "f" and param.dtype != self.dtype:
                    param.array = param.array.astype(self.dtype)
            for name in sub._persistent:
                value = sub.__dict__[name]
                if backend.is_array(value) and value.dtype.kind == "f" and value.dtype != self.dtype:
                    object.__setattr__(sub, name, value.astype(self.dtype))

    @staticmethod
    def _device(arrays: tuple[Any, ...], on_gpu: bool) -> tuple[Any, ...]:
        return tuple(backend.to_gpu(a) for a in arrays) if on_gpu else arrays

    def _params(self, link: Any) -> list[Any]:
        named = dict(link.namedparams())
        if self.param_names is None:
            return list(named.values())
        params = []
        for name in self.param_names:
            key = name if name.startswith("/") else "/" + name
            if key not in named:
                raise KeyError(f"{type(self).__name__}: param_names lists {name!r}, but the link's parameters are "
                               f"{list(named)}")
            params.append(named[key])
        return params

    def _draw(self, like: Any) -> Any:
        return self.xp.asarray(self.rng.uniform(-1, 1, like.shape).astype(like.dtype))

    # --- the tests ----------------------------------------------------------------
    def test_forward(self, xp: Any, dtype: Any) -> None:
        """The link's output matches ``forward_expected`` and keeps the dtype; inputs are not modified."""
        if self.skip_forward_test:
            skip("skip_forward_test is set")
        self._setup(xp, dtype, "test_forward")
        link, inputs = self._make(xp is not numpy)
        device_inputs = self._device(inputs, xp is not numpy)
        before = [a.copy() for a in inputs]
        outputs = _tuple(self._forward(link, tuple(Variable(a) for a in device_inputs)))
        for a, original in zip(device_inputs, before):
            assert_allclose(a, original, atol=0, rtol=0, verbose=False)
        link.to_device("@numpy")
        upcast = tuple(a.astype(numpy.float64) if a.dtype.kind == "f" else a for a in inputs)
        expected = _tuple(self.forward_expected(link, upcast))
        assert len(outputs) == len(expected), f"{len(outputs)} outputs, forward_expected gives {len(expected)}"
        for i, (y, e) in enumerate(zip(outputs, expected)):
            assert isinstance(y, Variable), f"output {i} is a {type(y).__name__}, not a Variable"
            e = numpy.asarray(e)
            assert y.shape == e.shape, f"output {i} has shape {y.shape}, forward_expected gives {e.shape}"
            if y.dtype.kind == "f":
                assert y.dtype == self.dtype, f"output {i} has dtype {y.dtype} for {self.dtype} inputs"
            assert_allclose(y.array, e, **self._tolerance(self.forward_tolerance, self.check_forward_options))

    def _gradient_case(self, xp: Any, dtype: Any, test_name: str) -> tuple[Any, tuple[Any, ...], tuple[Any, ...],
                                                                        list[Any]]:
        self._setup(xp, dtype, test_name)
        link, inputs = self._make(xp is not numpy)
        inputs = self._device(inputs, xp is not numpy)
        outputs = _tuple(self._forward(link, tuple(Variable(a) for a in inputs)))
        y_grad = tuple(self._draw(y.array) for y in outputs)
        return link, inputs, y_grad, self._params(link)

    def test_backward(self, xp: Any, dtype: Any) -> None:
        """First-order gradients with respect to the float inputs and every parameter."""
        if self.skip_backward_test:
            skip("skip_backward_test is set")
        link, inputs, y_grad, params = self._gradient_case(xp, dtype, "test_backward")
        check_backward(lambda *xs: self._forward(link, xs), inputs, y_grad, params=params,
                       seed=self.seed, **self._tolerance(self.backward_tolerance, self.check_backward_options))

    def test_double_backward(self, xp: Any, dtype: Any) -> None:
        """Second-order gradients with respect to the float inputs and every parameter."""
        if self.skip_double_backward_test:
            skip("skip_double_backward_test is set")
        link, inputs, y_grad, params = self._gradient_case(xp, dtype, "test_double_backward")
        x_grad_grad = tuple(self._draw(x) for x in inputs if x.dtype.kind == "f")
        params_grad_grad = tuple(self._draw(p.array) for p in params)
        check_double_backward(lambda *xs: self._forward(link, xs), inputs, y_grad, x_grad_grad, params=params,
                              params_grad_grad=params_grad_grad, seed=self.seed,
                              **self._tolerance(self.double_backward_tolerance, self.check_double_backward_options))
