"""``FunctionTestCase``: describe a function once, get every check of the battery as pytest tests.

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

The class is a thin adapter (``minigrad.testing.spec_test_case``): for each
case it builds an ``OpSpec`` from these methods and runs it through
``run_case``, the case runner of ``python -m minigrad check``. pytest then
runs ``test_forward``, ``test_backward``, ``test_double_backward``,
``test_deterministic``, ``test_views``, ``test_jvp``, ``test_vjp_linearity``
and ``test_hvp_symmetry`` (one per check of ``minigrad.testing.sweep.BATTERY``)
for every backend (NumPy, and CuPy where a GPU is present; skipped with a
reason otherwise) times every dtype in ``dtypes``: 24 tests on a CPU-only
machine, ids like ``test_backward[float16-numpy]``.

What the main tests check:
    test_forward: ``forward`` matches ``forward_expected`` (tolerances per dtype),
        returns Variables, keeps float outputs in the input dtype, and leaves
        its input arrays unchanged.
    test_backward: ``check_backward`` with output gradients from
        ``generate_grad_outputs`` (uniform in [-1, 1] by default).
    test_double_backward: ``check_double_backward`` with gradients for the
        first-order gradients from ``generate_grad_grad_inputs``.
    the others: the sweep's checks of the same names (see ``minigrad.testing.sweep``).

Options (class attributes, Chainer's names; set them per dtype in ``setup_case``,
which runs before each test with ``self.dtype`` set; a Chainer test's ``setUp``
runs there too, just before it, and ``before_test(test_name)`` after it, so a
test ported from ``chainer.testing.FunctionTestCase`` keeps its set-up and skips):
    dtypes: float dtype names to test (default float16, float32, float64).
    check_forward_options: ``assert_allclose`` keywords (``atol``, ``rtol``).
    check_backward_options: keywords for ``check_backward`` (``atol``, ``rtol``,
        ``eps``, ``dtype``, ``no_grads``, ...).
    check_double_backward_options: likewise, for ``check_double_backward``;
        any of the three may hold an entry per dtype name for that dtype
        alone, as an ``OpSpec``'s options do.
    skip_forward_test / skip_backward_test / skip_double_backward_test /
        skip_deterministic_test / skip_views_test / skip_jvp_test / ...
    dodge_nondifferentiable: check for kinks and draw new inputs (up to
        ``dodge_attempts`` times) when the inputs land next to one.

During a test ``self.dtype`` (``numpy.dtype``), ``self.backend`` ("numpy" or
"cupy"), ``self.xp`` (the array module), ``self.rng`` (a seeded
``numpy.random.Generator``) and, for tests ported from Chainer,
``self.backend_config`` (a :class:`~minigrad.testing.BackendConfig`) are set;
``forward``'s ``device`` is the backend's name, a ``str`` that also sends
arrays there as Chainer's device does (``device.send(x)``); NumPy's global
random state is seeded too (and restored after the test), so Chainer-style
``numpy.random.uniform`` calls are reproducible.
"""

from __future__ import annotations

from typing import Any

import numpy

from minigrad.testing._checker.arrays import as_tuple
from minigrad.testing.case_arrays import draw_grad_grad_inputs, draw_grad_outputs
from minigrad.testing.registry import FLOAT_DTYPES, OpSpec
from minigrad.testing.spec_test_case import SpecTestCase
from minigrad.variable import Variable

__all__ = ["FunctionTestCase"]


class FunctionTestCase(SpecTestCase):
    """Base class for pytest tests of one function: every check of the battery, per backend and dtype.

    See the module docstring for the full description; ``run_case`` runs the
    same tests without pytest.

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
        ['forward', 'backward', 'double_backward', 'deterministic', 'views', 'jvp', 'vjp_linearity', 'hvp_symmetry']
    """

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

    # --- the case as a spec ---------------------------------------------------------
    def build_spec(self, check: str) -> OpSpec:
        """This case as an ``OpSpec``: the methods above as its fields, the options as its tolerances."""
        arrays = as_tuple(self.generate_inputs())
        for i, x in enumerate(arrays):
            if not isinstance(x, numpy.ndarray):
                raise TypeError(f"{type(self).__name__}.generate_inputs must return NumPy arrays; input {i} is "
                                f"{type(x).__name__}")
        # float outputs keep the float inputs' dtype (promoted, if they differ): a Chainer test may choose its
        # inputs' dtypes itself (x1_dtype, x2_dtype) instead of following self.dtype; the case runs in that dtype
        floats = [x.dtype for x in arrays if x.dtype.kind == "f"]
        promoted = numpy.result_type(*floats).name if floats else self.dtype.name
        self.run_dtype = promoted if promoted in FLOAT_DTYPES else self.dtype.name

        def inputs(rng: numpy.random.Generator, dtype: Any) -> tuple[Any, ...]:
            return tuple(x.copy() for x in arrays)

        def reference(*upcast: Any) -> Any:  # the runner upcasts; Chainer's forward_expected gets the inputs' dtypes
            return self.forward_expected(tuple(a.astype(x.dtype) for a, x in zip(upcast, arrays)))

        options = self.spec_options()
        output_dtype = self._lower_expected_dtype(arrays)
        if output_dtype is not None:  # float16 x beside a float32 W: the output follows x, as in Chainer
            options.update(preserves_dtype=False, output_dtype=output_dtype)
        return OpSpec(type(self).__name__, lambda *xs: self.forward(xs, self._device_name), inputs, reference,
                      grad_outputs=lambda rng, outputs: self.generate_grad_outputs(outputs),
                      grad_grad_inputs=lambda rng, xs: self.generate_grad_grad_inputs(xs), **options)

    def _lower_expected_dtype(self, arrays: tuple[Any, ...]) -> str | None:
        """The one float dtype of ``forward_expected``'s outputs where it is less precise than the inputs'
        promoted dtype (Chainer's linear of a float16 x and a float32 W gives float16, and its tests expect
        that); None otherwise (a reference computed in float64 says nothing about the output's dtype)."""
        if len({x.dtype for x in arrays if x.dtype.kind == "f"}) < 2:
            return None
        expected = as_tuple(self.forward_expected(tuple(x.copy() for x in arrays)))
        dtypes = {numpy.asarray(e).dtype for e in expected if numpy.asarray(e).dtype.kind == "f"}
        if len(dtypes) != 1:
            return None
        dtype = dtypes.pop()
        lower = dtype.itemsize < numpy.dtype(self.run_dtype).itemsize and dtype.name in FLOAT_DTYPES
        return dtype.name if lower else None
