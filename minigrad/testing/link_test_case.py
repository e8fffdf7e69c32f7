"""``LinkTestCase``: check a whole layer the way ops are checked, with every check of the battery.

Subclass it in a test module (name the subclass ``Test...``) and describe the
link. The class is a thin adapter (``minigrad.testing.spec_test_case``): for
each case it builds the link, makes an ``OpSpec`` whose ``func`` calls it and
whose ``params`` are its parameters, and runs the spec through ``run_case``,
the case runner of ``python -m minigrad check``. pytest then runs, for each
dtype in ``dtypes`` and each backend (NumPy, and CuPy where present), one test
per check of the battery, as ``FunctionTestCase`` does:

* ``test_forward``: the output against ``forward_expected`` (an independent
  NumPy computation), with the right shape and dtype, inputs left unmodified;
* ``test_backward``: ``check_backward`` with respect to the float inputs and
  every parameter (``params=``);
* ``test_double_backward``: ``check_double_backward`` likewise;
* ``test_deterministic``, ``test_views``, ``test_jvp``, ``test_vjp_linearity``,
  ``test_hvp_symmetry``: the sweep's checks of those names, on the inputs.

Tolerances and options have ``FunctionTestCase``'s (Chainer's) names:
``check_forward_options``, ``check_backward_options`` and
``check_double_backward_options``, one dict or one per dtype. The names this
class had before (``forward_tolerance``, ``backward_tolerance``,
``double_backward_tolerance``) still work, with a ``DeprecationWarning``.

Examples that run in the test suite (rather than a copy here that could go
stale): ``tests/links/test_linear.py`` (``TestLinear``, a built-in layer), and
the custom ``Chain`` and its test in the how-to "Write and check a custom layer"
(``docs/howto/custom-layer.rst``, run by ``tests/test_docs_pasteable.py``).
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing.registry import FLOAT_DTYPES, OpSpec
from minigrad.testing.skipping import skip
from minigrad.testing.spec_test_case import SpecTestCase
from minigrad.testing.sweep import as_tuple
from minigrad.variable import Variable

__all__ = ["LinkTestCase"]

# the names LinkTestCase had for its tolerances, and the names it shares with FunctionTestCase now
DEPRECATED_NAMES = {"forward_tolerance": "check_forward_options", "backward_tolerance": "check_backward_options",
                    "double_backward_tolerance": "check_double_backward_options"}


class LinkTestCase(SpecTestCase):
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
        ``forward(link, inputs)``: how to call the link (default ``link(*inputs)``);
            ``forward(link, inputs, device)`` (Chainer's) gets the device too.

    Attributes:
        dtypes: the float dtypes to test (names or NumPy types).
        param_names: the parameters to differentiate; ``None`` (default) means
            every parameter of the link, in ``namedparams`` order.
        seed: as for ``FunctionTestCase``; so are ``check_forward_options``,
            ``check_backward_options`` and ``check_double_backward_options``
            (the names ``OpSpec`` uses too) and the ``skip_<test>_test`` flags.

    During a test ``self.dtype`` is the dtype under test, ``self.xp`` the
    array module and ``self.rng`` a seeded ``numpy.random.Generator``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> from minigrad.testing import LinkTestCase
        >>> class TestLinear(LinkTestCase):
        ...     def generate_params(self):
        ...         return self.rng.uniform(-1, 1, (2, 3)), self.rng.uniform(-1, 1, 2)
        ...     def create_link(self, initializers):
        ...         W, b = initializers
        ...         return L.Linear(3, 2, initialW=W, initial_bias=b)
        ...     def generate_inputs(self):
        ...         return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),
        ...     def forward_expected(self, link, inputs):
        ...         return inputs[0] @ link.W.array.T.astype(np.float64) + link.b.array,
        >>> TestLinear().run_case("numpy", "float64")
        ['forward', 'backward', 'double_backward', 'deterministic', 'views', 'jvp', 'vjp_linearity', 'hvp_symmetry']
    """

    param_names: tuple[str, ...] | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for old, new in DEPRECATED_NAMES.items():
            if old in vars(cls):
                warnings.warn(f"{cls.__name__}: LinkTestCase.{old} is deprecated; name it {new} (as "
                              "FunctionTestCase and Chainer do)", DeprecationWarning, stacklevel=2)
                if new not in vars(cls):
                    setattr(cls, new, getattr(cls, old))

    # --- what a subclass describes ---------------------------------------------
    def create_link(self, initializers: tuple[Any, ...]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define create_link(self, initializers)")

    def generate_params(self) -> tuple[Any, ...]:
        return ()

    def generate_inputs(self) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__} must define generate_inputs(self)")

    def forward(self, link: Any, inputs: tuple[Any, ...]) -> Any:
        return link(*inputs)

    def _forward(self, link: Any, inputs: tuple[Any, ...]) -> Any:
        """``forward``, given the device too when it takes one (Chainer's ``forward(link, inputs, device)``)."""
        if len(inspect.signature(self.forward).parameters) == 3:
            return self.forward(link, inputs, self._device_name)
        return self.forward(link, inputs)

    def forward_expected(self, link: Any, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(
            f"{type(self).__name__} must define forward_expected(self, link, inputs) or set skip_forward_test = True"
        )

    # --- the case as a spec ---------------------------------------------------------
    def build_spec(self, check: str) -> OpSpec:
        """A fresh link and inputs for this case, as an ``OpSpec`` with the link's parameters as ``params``."""
        link, inputs = self._make(self.backend == "cupy")
        params = self._params(link)

        def reference(*upcast: Any) -> Any:  # the runner calls it after the forward: the link may move to the CPU
            link.to_device("@numpy")  # (and upcasts the inputs; Chainer's forward_expected gets their dtypes)
            return self.forward_expected(link, tuple(a.astype(x.dtype) for a, x in zip(upcast, inputs)))

        return OpSpec(type(self).__name__, lambda *xs: self._forward(link, xs),
                      lambda rng, dtype: tuple(a.copy() for a in inputs), reference, params=lambda: params,
                      **self.spec_options())

    def _make(self, on_gpu: bool) -> tuple[Any, tuple[Any, ...]]:
        """The link (parameters in the test dtype, lazily sized ones initialized) and the NumPy inputs."""
        initializers = tuple(numpy.asarray(p).astype(self.dtype) if numpy.asarray(p).dtype.kind == "f" else p
                             for p in self.generate_params())
        link = self.create_link(initializers)
        inputs = as_tuple(self.generate_inputs())
        for i, x in enumerate(inputs):
            if not isinstance(x, numpy.ndarray):
                raise TypeError(f"{type(self).__name__}.generate_inputs: input {i} is a {type(x).__name__}, "
                                f"not a numpy.ndarray")
            if x.dtype.kind == "f" and x.dtype != self.dtype:
                if self.dtypes is FLOAT_DTYPES:  # no dtypes chosen: Chainer runs such a test once, in its inputs'
                    skip(f"{type(self).__name__}.generate_inputs makes {x.dtype} inputs whatever self.dtype is, and "
                         f"the class chooses no dtypes: it runs in {x.dtype} only")
                raise TypeError(f"{type(self).__name__}.generate_inputs: input {i} has dtype {x.dtype}; "
                                f"generate float inputs in self.dtype ({self.dtype})")
        self._cast_link(link)
        if on_gpu:
            link.to_device("@cupy:0")
        if any(p.array is None for p in link.params()):  # run once so that lazily sized parameters exist
            device_inputs = tuple(backend.to_gpu(a) for a in inputs) if on_gpu else inputs
            self._forward(link, tuple(Variable(a) for a in device_inputs))
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
