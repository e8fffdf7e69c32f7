"""``LinkInitializersTestCase``: check that a link's parameters start as its initializer arguments say.

Chainer's test case of the same name, for pytest. A subclass describes the link
as for :class:`~minigrad.testing.LinkTestCase` (``generate_params``,
``create_link(initializers)``, ``generate_inputs``, optionally
``forward(link, inputs, device)``) and lists, per initializer argument, the
values to try (``get_initializers``); ``test_initializers`` builds the link once
per value (the other arguments from ``generate_params``), runs a forward pass
so that lazily sized parameters exist, and compares parameter ``param_names[i]``
with what the value fills an array with (an initializer, a scalar, an array;
an :class:`InitializerArgument` when the argument, such as ``None``, stands for
another initializer).

Example:
    >>> import numpy as np, minigrad.links as L
    >>> from minigrad import initializers
    >>> from minigrad.testing import InitializerArgument, LinkInitializersTestCase
    >>> class TestLinearInitializers(LinkInitializersTestCase):
    ...     param_names = ("W", "b")
    ...     def generate_params(self):
    ...         return np.ones((3, 2), np.float32), np.zeros(3, np.float32)
    ...     def generate_inputs(self):
    ...         return np.ones((1, 2), np.float32),
    ...     def create_link(self, initializers):
    ...         initialW, initial_bias = initializers
    ...         return L.Linear(2, 3, initialW=initialW, initial_bias=initial_bias)
    ...     def get_initializers(self):
    ...         return ([initializers.Constant(1), 2.0],
    ...                 [initializers.Constant(2), InitializerArgument(None, 0)])
    >>> TestLinearInitializers().test_initializers()
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy

from minigrad import backend, initializers
from minigrad.testing.assertions import assert_allclose
from minigrad.testing.backend_config import BackendConfig, BackendName
from minigrad.variable import Variable

__all__ = ["LinkInitializersTestCase", "InitializerArgument"]


class InitializerArgument:
    """An initializer argument (``argument_value``, e.g. ``None``) and the initializer the link uses for it.

    Example:
        >>> from minigrad.testing import InitializerArgument
        >>> InitializerArgument(None, 0).expected_initializer
        0
    """

    def __init__(self, argument_value: Any, expected_initializer: Any) -> None:
        if expected_initializer is None:
            raise ValueError("InitializerArgument: the expected initializer cannot be None")
        self.argument_value = argument_value
        self.expected_initializer = expected_initializer


class LinkInitializersTestCase:
    """Base class for pytest tests of a link's initializer arguments (see the module docstring)."""

    param_names: tuple[str, ...] | list[str] = ()
    check_initializers_options: dict[str, Any] = {}

    def generate_params(self) -> tuple[Any, ...]:
        """One initializer-like per initializer argument of the link (the default for the arguments not tried)."""
        raise NotImplementedError(f"{type(self).__name__} must define generate_params(self)")

    def create_link(self, initializers: tuple[Any, ...]) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define create_link(self, initializers)")

    def generate_inputs(self) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__} must define generate_inputs(self)")

    def get_initializers(self) -> tuple[Any, ...]:
        """Per initializer argument, a list of the values to try."""
        raise NotImplementedError(f"{type(self).__name__} must define get_initializers(self)")

    def forward(self, link: Any, inputs: tuple[Variable, ...], device: Any) -> Any:
        return link(*inputs)

    def setUp(self) -> None:  # noqa: N802  (Chainer's unittest name)
        """Chainer's set-up hook, run before the test."""

    def before_test(self, test_name: str) -> None:
        """Chainer's hook, run after ``setUp`` (``test_name`` is ``'test_initializers'``)."""

    def test_initializers(self, backend_config: BackendConfig | None = None) -> None:
        """Each value of ``get_initializers`` gives its parameter the values it fills an array with."""
        self.backend_config = backend_config or BackendConfig({})
        self.check_initializers_options = dict(self.check_initializers_options)
        self.setUp()
        self.before_test("test_initializers")
        for i, values in enumerate(self.get_initializers()):
            if not isinstance(values, (tuple, list)):
                raise TypeError(f"{type(self).__name__}.get_initializers must return a list of lists of values, "
                                f"one list per initializer argument; entry {i} is a {type(values).__name__}")
            for value in values:
                arguments = list(self.generate_params())
                arguments[i] = value
                self._check_one(i, arguments)

    def _check_one(self, i: int, arguments: list[Any]) -> None:
        given = [a.argument_value if isinstance(a, InitializerArgument) else a for a in arguments]
        link = self.create_link(tuple(given))
        link.to_device(self.backend_config.device)
        inputs = self.backend_config.get_array(tuple(self.generate_inputs()))
        variables = tuple(Variable(x) for x in inputs)
        with self.backend_config:
            if len(inspect.signature(self.forward).parameters) == 3:
                self.forward(link, variables, BackendName(self.backend_config.backend))
            else:
                self.forward(link, variables)
        name = self.param_names[i]
        param = getattr(link, name, None)
        if param is None:
            raise AssertionError(f"{type(self).__name__}: the link has no parameter {name!r}")
        actual = backend.to_cpu(param.array)
        expected = numpy.empty_like(actual)
        value = arguments[i]
        expected_init = value.expected_initializer if isinstance(value, InitializerArgument) else value
        if expected_init is None:
            raise ValueError(f"{type(self).__name__}: a None initializer argument must be given as "
                             f"InitializerArgument(None, <the initializer the link uses then>)")
        initializers._get_initializer(expected_init, None)(expected)
        assert_allclose(actual, expected, **{"atol": 0, "rtol": 0, **self.check_initializers_options})
