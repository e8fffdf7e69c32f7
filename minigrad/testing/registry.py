"""The op registry as a public API: ``OpSpec`` says how to verify one op, ``register`` records it.

An op library (minigrad's own, or yours) declares one ``OpSpec`` per op, or
per variant of an op, and registers it::

    from minigrad.testing import OpSpec, register

    register(OpSpec("softsign", softsign, inputs=..., reference=...))

``python -m minigrad check --specs mypkg.ops`` and
``minigrad.testing.op_tests("mypkg.ops")`` (pytest) then run every spec that
module registers through the same battery of checks as minigrad's own ops
(``minigrad/testing/op_specs/<family>.py``, which use this API too).

``register`` adds to the default registry and remembers which module called
it, so the specs of one module can be told apart from everybody else's. A
library that prefers to keep its specs to itself creates a ``Registry`` and
calls its ``register`` method; ``load_specs`` finds a ``Registry`` bound at
the top level of a module as well.
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
import os
import sys
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from types import MappingProxyType, ModuleType
from typing import Any

import numpy

from minigrad.testing import check_options
from minigrad.testing.check_options import FLOAT_DTYPES, GRADIENT_CHECK_OPTIONS  # noqa: F401  (re-exported)

__all__ = ["OpSpec", "Registry", "register", "load_specs", "SpecLoadError", "DEFAULT_REGISTRY", "KINDS", "DOMAINS",
           "FLOAT_DTYPES", "CHECKS", "SECOND_ORDER_CHECKS", "DEFAULT_FORWARD_TOLERANCE", "OPERATORS"]  # noqa: F822

BACKENDS: tuple[str, ...] = ("numpy", "cupy")
# what an OpSpec may say it is, and where its derived cases draw values (minigrad.testing.spec_variants)
KINDS: tuple[str, ...] = ("elementwise", "binary", "reduction")
DOMAINS: tuple[str, ...] = ("real", "positive", "nonzero", "grid", "offgrid", "distinct", "with_zeros")
OPERATORS: tuple[str, ...] = ("+", "-", "*", "/", "**")



def __getattr__(name: str) -> Any:
    # CHECKS, the names of the battery's checks, comes from its one table (sweep.BATTERY), which imports this module
    # and SECOND_ORDER_CHECKS, those that differentiate a backward pass (``--order 1`` leaves them out)
    if name in ("CHECKS", "SECOND_ORDER_CHECKS"):
        from minigrad.testing import sweep

        return sweep.CHECKS if name == "CHECKS" else frozenset(c for c, check in sweep.BATTERY.items()
                                                               if check.order >= 2)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

# (atol, rtol) per dtype for comparing a forward with its float64 reference
# (FunctionTestCase uses the same table).
DEFAULT_FORWARD_TOLERANCE: Mapping[str, tuple[float, float]] = MappingProxyType({
    "float16": (5e-3, 5e-3),
    "float32": (1e-5, 1e-5),
    "float64": (1e-12, 1e-10),
})


def _expected_failure_key(key: str, where: str) -> tuple[str, str, str]:
    """``check``, ``dtype-check`` or ``dtype-backend-check`` (globs allowed) as (dtype, backend, check) patterns."""
    if not isinstance(key, str) or not key:
        raise ValueError(f"{where}: expected_failures keys must be non-empty strings, got {key!r}")
    parts = key.split("-")
    if len(parts) == 1:
        pattern = ("*", "*", parts[0])
    elif len(parts) == 2:
        pattern = (parts[0], "*", parts[1])
    else:  # a backend name may hold a dash itself ("cupy-sim")
        pattern = (parts[0], "-".join(parts[1:-1]), parts[-1])
    from minigrad.testing.sweep import CHECKS

    if not any(fnmatch.fnmatchcase(check, pattern[2]) for check in CHECKS):
        raise ValueError(f"{where}: expected_failures key {key!r} names no check; use 'check', 'dtype-check' or "
                         f"'dtype-backend-check' with a check among {', '.join(CHECKS)}")
    return pattern


@dataclass(frozen=True)
class OpSpec:
    """How to verify one op: its inputs, an independent reference, tolerances and what it supports.

    Attributes:
        name: unique name in its registry; variants use brackets, e.g. ``"pad[reflect]"``.
        func: ``func(*variables)`` -> Variable or tuple of Variables; bind non-array
            arguments here (``lambda x: F.sum(x, axis=1)``).
        inputs: ``inputs(rng, dtype)`` -> tuple of NumPy arrays: float inputs in
            ``dtype`` (integer and boolean arguments keep their own dtype), drawn
            inside the op's domain and clear of its kinks.
        reference: ``reference(*arrays)`` -> array or tuple: an independent NumPy
            implementation of the forward, given the float inputs upcast to float64.
            ``None`` skips the comparison (the other checks still run).
        covers: the public function names this spec verifies (default: ``name``
            without its bracketed variant); minigrad's own suite asserts every
            ``F.*`` function is covered.
        dtypes: the float dtypes the op supports (the others are skipped).
        backends: ``"numpy"`` and/or ``"cupy"``.
        differentiable: False for ops with no gradient (argmax, sign, ...): their
            outputs must not require grad, and no gradient check runs.
        second_order: False declares that double backward is not supported; the
            ``double`` check then expects it to fail, and reports an unexpected
            pass when it does not.
        preserves_dtype: float outputs have the inputs' dtype (False for ``cast``).
        output_dtype: with ``preserves_dtype=False``, the dtype every float output has.
        check_forward_options: tolerances of the comparison with ``reference``
            (``atol``, ``rtol``; default ``DEFAULT_FORWARD_TOLERANCE``), in the
            name and with the meaning ``FunctionTestCase`` and ``LinkTestCase``
            (and Chainer) give it (``minigrad.testing.check_options``): a dict of
            keywords for every dtype, with an entry per float dtype for that
            dtype alone (``{"float16": {"atol": 5e-2, "rtol": 5e-2}}``).
        check_backward_options: keywords for ``check_backward`` (``eps``,
            ``no_grads``, ``dtype``, ``detect_nondifferentiable``, ``atol``,
            ``rtol``, ...; default: its automatic tolerances), in the same form
            (``{"eps": 1e-3, "float16": {"atol": 5e-2}}``).
        check_double_backward_options: likewise for ``check_double_backward``.
            The names these three had before (``forward_tolerance``,
            ``backward_tolerance``, ``double_tolerance``, ``backward_options``,
            ``double_options``) still work, with a ``DeprecationWarning``.
        kinks: human-readable description of the points ``inputs`` keeps clear of.
        grad_outputs: optional ``grad_outputs(rng, outputs)`` drawing output
            gradients (default: uniform in [-1, 1], ``None`` for non-float outputs).
        grad_grad_inputs: optional ``grad_grad_inputs(rng, inputs)`` drawing, for
            the ``double`` check, one gradient per float input for its first-order
            gradient (default: uniform in [-1, 1]).
        params: optional ``params()`` -> the ``Parameter`` objects ``func`` reads
            besides its inputs (a layer's weights), on the case's backend; the
            gradient checks check their gradients too (``check_backward``'s
            ``params``). ``LinkTestCase`` builds specs with it.
        kind: what the op is, for the cases the runner derives from the spec
            (``minigrad.testing.spec_variants``): ``"elementwise"`` (one array in,
            the same shape out: 0-dim and empty inputs), ``"binary"`` (two operands
            broadcast like NumPy: broadcast, 0-dim and empty operands, a Python
            scalar on either side) or ``"reduction"`` (``func`` and ``reference``
            take ``axis=`` and, where the op has it, ``keepdims=``: other axes,
            negative and non-contiguous, 0-dim and empty inputs).
        domain: for ``"binary"`` and ``"reduction"``, where the derived cases draw
            each float operand's values: names from ``DOMAINS`` (default ``"real"``,
            uniform in [-1, 1]).
        operator: for ``"binary"``, the Python operator that calls the op on
            Variables (``"+"``, ``"-"``, ``"*"``, ``"/"``, ``"**"``): the scalar
            cases use it, as users write ``x * 2.0``.
        variants: ``{label: inputs}``: further inputs the op must take (an empty
            batch, no channels), each checked as the case ``name[label]`` with
            ``func`` and ``reference`` unchanged.
        checks: the battery checks this spec runs (default: all of them but the
            opt-in ``refuses``, which the derived bad cases run).
        accepts_integers: True where the op also takes an integer array in
            place of its first float input (as NumPy does: arithmetic, array
            manipulation, ``sum``/``max``/``min``); otherwise the runner derives
            the bad case ``op[bad:int]``, which the op must refuse
            (``minigrad.testing.spec_variants``).
        linear_in: positions of the inputs ``func`` is linear (or affine) in, the
            others held fixed (reshape, sums, indexing, convolution in each
            argument): the gradient checks use the adjoint identity for them,
            exact up to rounding (``check_backward``'s ``linear_in``).
        expected_failures: ``{key: reason}`` for cases known to fail, where a key
            is a check (``"double"``), ``"dtype-check"`` or ``"dtype-backend-check"``
            (globs allowed: ``"float16-*"``). Such a case reports ``xfail``; one
            that passes reports ``xpass``, a failure, so a stale mark is noticed.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec
        >>> spec = OpSpec("exp", F.exp, inputs=lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),),
        ...               reference=np.exp, expected_failures={"float16-double": "float16 rounding"})
        >>> spec.public_names, spec.expected_failure("float16", "numpy", "double")
        (('exp',), 'float16 rounding')
        >>> OpSpec("exp", F.exp, inputs=None)
        Traceback (most recent call last):
        ...
        TypeError: OpSpec 'exp': inputs must be a callable inputs(rng, dtype) -> tuple of arrays, got NoneType
    """

    name: str
    func: Callable[..., Any]
    inputs: Callable[[numpy.random.Generator, numpy.dtype], tuple[Any, ...]]
    reference: Callable[..., Any] | None = None
    covers: tuple[str, ...] = ()
    dtypes: tuple[str, ...] = FLOAT_DTYPES
    differentiable: bool = True
    second_order: bool = True
    preserves_dtype: bool = True
    output_dtype: str | None = None
    check_forward_options: Mapping[str, Any] = field(default_factory=dict)
    check_backward_options: Mapping[str, Any] = field(default_factory=dict)
    check_double_backward_options: Mapping[str, Any] = field(default_factory=dict)
    kinks: str = ""
    backends: tuple[str, ...] = BACKENDS
    grad_outputs: Callable[[numpy.random.Generator, tuple[Any, ...]], tuple[Any, ...]] | None = None
    expected_failures: Mapping[str, str] = field(default_factory=dict)
    linear_in: tuple[int, ...] = ()
    grad_grad_inputs: Callable[[numpy.random.Generator, tuple[Any, ...]], tuple[Any, ...]] | None = None
    params: Callable[[], Sequence[Any]] | None = None
    kind: str | None = None
    domain: tuple[str, ...] = ()
    operator: str | None = None
    variants: Mapping[str, Callable[[numpy.random.Generator, numpy.dtype], tuple[Any, ...]]] = \
        field(default_factory=dict)
    checks: tuple[str, ...] = ()
    accepts_integers: bool = False
    # the names of the options before the one vocabulary, in the order of check_options.DEPRECATED_SPEC_NAMES
    forward_tolerance: InitVar[Mapping[str, tuple[float, float]] | None] = None
    backward_tolerance: InitVar[Mapping[str, tuple[float, float]] | None] = None
    double_tolerance: InitVar[Mapping[str, tuple[float, float]] | None] = None
    backward_options: InitVar[Mapping[str, Any] | None] = None
    double_options: InitVar[Mapping[str, Any] | None] = None

    def __post_init__(self, *deprecated: Mapping[str, Any] | None) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise TypeError(f"OpSpec: name must be a non-empty string, got {self.name!r}")
        where = f"OpSpec {self.name!r}"
        for attribute, what in (("func", "func(*variables) -> Variable(s)"),
                                ("inputs", "inputs(rng, dtype) -> tuple of arrays")):
            value = getattr(self, attribute)
            if not callable(value):
                raise TypeError(f"{where}: {attribute} must be a callable {what}, got {type(value).__name__}")
        for attribute in ("reference", "grad_outputs", "grad_grad_inputs", "params"):
            value = getattr(self, attribute)
            if value is not None and not callable(value):
                raise TypeError(f"{where}: {attribute} must be callable or None, got {type(value).__name__}")
        for attribute, allowed in (("dtypes", FLOAT_DTYPES), ("backends", None)):
            values = getattr(self, attribute)
            if isinstance(values, str) or not values:
                raise ValueError(f"{where}: {attribute} must be a non-empty tuple of names, got {values!r}")
            unknown = [v for v in values if allowed is not None and v not in allowed]
            if unknown:
                raise ValueError(f"{where}: unknown {attribute} {unknown}; choose from {', '.join(allowed)}")
            object.__setattr__(self, attribute, tuple(values))
        if isinstance(self.linear_in, int) or any(isinstance(i, bool) or not isinstance(i, int)
                                                    for i in self.linear_in):
            raise TypeError(f"{where}: linear_in must be a tuple of input positions, got {self.linear_in!r}")
        object.__setattr__(self, "linear_in", tuple(self.linear_in))
        if isinstance(self.covers, str):
            raise TypeError(f"{where}: covers must be a tuple of names, got the string {self.covers!r}")
        if self.output_dtype is not None and self.preserves_dtype:
            raise ValueError(f"{where}: output_dtype={self.output_dtype!r} needs preserves_dtype=False")
        self._set_options(where, dict(zip(check_options.DEPRECATED_SPEC_NAMES, deprecated)))
        self._check_kind(where)
        patterns = {}
        for key, reason in dict(self.expected_failures).items():
            if not isinstance(reason, str) or not reason.strip():
                raise ValueError(f"{where}: expected_failures[{key!r}] needs a reason (a non-empty string)")
            patterns[_expected_failure_key(key, where)] = reason
        object.__setattr__(self, "_expected_failure_patterns", patterns)

    def _set_options(self, where: str, deprecated: dict[str, Mapping[str, Any] | None]) -> None:
        """The three option tables, normalized, with what the deprecated names gave merged in."""
        given = {old: value for old, value in deprecated.items() if value is not None}
        for old in given:
            new = check_options.OPTION_NAMES[check_options.DEPRECATED_SPEC_NAMES[old][0]]
            warnings.warn(f"{where}: {old} is deprecated; name it {new} (as FunctionTestCase, LinkTestCase and "
                          "Chainer do)", DeprecationWarning, stacklevel=4)
        for check, name in check_options.OPTION_NAMES.items():
            table = check_options.normalize(getattr(self, name), check, where)
            old = {kind: given.get(o) for o, (c, kind) in check_options.DEPRECATED_SPEC_NAMES.items() if c == check}
            if any(value is not None for value in old.values()):
                tolerance = old.get("tolerance")
                unknown = [d for d in (tolerance or {}) if d not in FLOAT_DTYPES]
                if unknown:
                    raise ValueError(f"{where}: {check}_tolerance has unknown dtypes {unknown}")
                merged = check_options.from_deprecated(tolerance, old.get("options"))
                table = check_options.normalize({**merged, **table}, check, where)
            object.__setattr__(self, name, table)

    def options(self, check: str, dtype: str) -> dict[str, Any]:
        """The keywords ``check`` (``"forward"``, ``"backward"`` or ``"double"``) gets for ``dtype``.

        Example:
            >>> import numpy as np, minigrad.functions as F
            >>> from minigrad.testing import OpSpec
            >>> spec = OpSpec("exp", F.exp, lambda rng, dt: (np.ones(3, dt),), np.exp,
            ...               check_backward_options={"eps": 1e-3, np.float16: {"atol": 5e-2}})
            >>> spec.options("backward", "float16"), spec.options("backward", "float32")
            ({'eps': 0.001, 'atol': 0.05}, {'eps': 0.001})
        """
        return check_options.options_for(getattr(self, check_options.OPTION_NAMES[check]), dtype)

    def _check_kind(self, where: str) -> None:
        """``kind``, ``domain``, ``operator``, ``variants`` and ``checks`` name things that exist."""
        from minigrad.testing.sweep import CHECKS  # (the sweep imports this module)

        for attribute, value, allowed in (("kind", self.kind, KINDS), ("operator", self.operator, OPERATORS)):
            if value is not None and value not in allowed:
                raise ValueError(f"{where}: unknown {attribute} {value!r}; choose from {', '.join(allowed)}")
        for attribute, allowed in (("domain", DOMAINS), ("checks", CHECKS)):
            values = getattr(self, attribute)
            if isinstance(values, str) or any(v not in allowed for v in values):
                raise ValueError(f"{where}: {attribute} must be a tuple of names from {', '.join(allowed)}, got "
                                 f"{values!r}")
            object.__setattr__(self, attribute, tuple(values))
        if self.operator is not None and self.kind != "binary":
            raise ValueError(f"{where}: operator={self.operator!r} needs kind='binary'")
        for label, draw in dict(self.variants).items():
            if not isinstance(label, str) or not label or "]" in label or not callable(draw):
                raise ValueError(f"{where}: variants maps labels (non-empty, no ']') to inputs(rng, dtype) "
                                 f"callables, got {label!r}: {type(draw).__name__}")

    @property
    def public_names(self) -> tuple[str, ...]:
        """The public function names this spec verifies."""
        return tuple(self.covers) or (self.name.split("[", 1)[0],)

    def expected_failure(self, dtype: str, backend: str, check: str) -> str | None:
        """The reason this case is expected to fail, or ``None`` when it is expected to pass."""
        if check == "double" and not self.second_order:
            return self.expected_failures.get("double", "declared second_order=False")
        for pattern, reason in self._expected_failure_patterns.items():  # type: ignore[attr-defined]
            if all(fnmatch.fnmatchcase(value, part) for value, part in zip((dtype, backend, check), pattern)):
                return reason
        return None


class Registry:
    """An ordered collection of ``OpSpec``, names unique per top-level package.

    ``register`` (the module-level function) adds to ``DEFAULT_REGISTRY``; a
    ``Registry`` of your own keeps a library's specs apart from everybody
    else's. Either way ``load_specs`` and ``python -m minigrad check --specs``
    find them. Two specs with one name registered from the same top-level
    package are an error; unrelated packages may reuse a name (``load_specs``
    still refuses to sweep both at once).

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec, Registry
        >>> ops = Registry()
        >>> spec = ops.register(OpSpec("exp", F.exp, lambda rng, dt: (np.ones(3, dt),), np.exp))
        >>> [s.name for s in ops], len(ops), ops["exp"] is spec
        (['exp'], 1, True)
        >>> ops.register(OpSpec("exp", F.exp, lambda rng, dt: (np.ones(3, dt),)))
        Traceback (most recent call last):
        ...
        ValueError: op spec 'exp' is registered twice (first from ..., again from ...)
    """

    def __init__(self) -> None:
        # (top-level package, name) -> spec, and -> (module name, id of its globals)
        self._specs: dict[tuple[str, str], OpSpec] = {}
        self._origins: dict[tuple[str, str], tuple[str, int]] = {}

    def register(self, spec: OpSpec, *, module: str | None = None) -> OpSpec:
        """Add ``spec``; a second spec with its name from the same package is a ``ValueError`` naming both modules.

        ``module`` is the name of the registering module (default: the caller's).
        A module that is imported afresh (e.g. by a second in-process pytest
        run) replaces the specs of its earlier import instead of clashing.
        """
        if not isinstance(spec, OpSpec):
            raise TypeError(f"register: expected an OpSpec, got {type(spec).__name__}")
        origin = _caller(module)
        key = (origin[0].split(".", 1)[0], spec.name)
        if key in self._specs:
            earlier = self._origins[key]
            if earlier[0] != origin[0] or earlier[1] == origin[1]:
                raise ValueError(f"op spec {spec.name!r} is registered twice (first from {earlier[0]}, "
                                 f"again from {origin[0]})")
            for stale in [k for k, o in self._origins.items() if o == earlier]:
                del self._specs[stale], self._origins[stale]
        self._specs[key] = spec
        self._origins[key] = origin
        return spec

    def specs(self, module: str | None = None) -> list[OpSpec]:
        """The specs in registration order; with ``module``, only those registered from it or its submodules."""
        return [spec for key, spec in self._specs.items()
                if module is None or self._origins[key][0] == module or self._origins[key][0].startswith(module + ".")]

    def __iter__(self) -> Iterator[OpSpec]:
        return iter(list(self._specs.values()))

    def __len__(self) -> int:
        return len(self._specs)

    def __getitem__(self, name: str) -> OpSpec:
        found = [spec for (_, n), spec in self._specs.items() if n == name]
        if not found:
            raise KeyError(f"no op spec named {name!r} in this registry")
        if len(found) > 1:
            raise KeyError(f"{len(found)} packages register an op spec named {name!r}; use specs(module)")
        return found[0]


def _caller(module: str | None) -> tuple[str, int]:
    if module is not None:
        return module, id(sys.modules.get(module))
    frame = sys._getframe(1)  # the first frame outside this module is the registering module
    while frame is not None and frame.f_globals.get("__name__") == __name__:
        frame = frame.f_back
    if frame is None:
        return "<unknown>", 0
    return frame.f_globals.get("__name__", "<unknown>"), id(frame.f_globals)


DEFAULT_REGISTRY = Registry()


def register(spec: OpSpec) -> OpSpec:
    """Add ``spec`` to the default registry (remembering the calling module) and return it.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> from minigrad.testing import OpSpec, register
        >>> spec = register(OpSpec("doc_example_tanh", F.tanh, lambda rng, dt: (np.zeros(3, dt),), np.tanh))
        >>> spec.name
        'doc_example_tanh'
    """
    return DEFAULT_REGISTRY.register(spec)


class SpecLoadError(ValueError):
    """A ``--specs`` source could not be imported, registers nothing, or repeats a spec name."""


def _import_source(source: str) -> ModuleType:
    """Import a dotted module name, or a ``.py`` file / package directory by path."""
    path = os.path.abspath(source)
    if not (source.endswith(".py") or os.sep in source or os.path.isdir(source)):
        return importlib.import_module(source)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no such file or directory: {source}")
    if os.path.isdir(path):
        path = os.path.join(path, "__init__.py")
    # A file inside a package is imported under its dotted name, so that its relative imports work.
    parts = [] if os.path.basename(path) == "__init__.py" else [os.path.splitext(os.path.basename(path))[0]]
    directory = os.path.dirname(path)
    while os.path.exists(os.path.join(directory, "__init__.py")):
        parts.insert(0, os.path.basename(directory))
        directory = os.path.dirname(directory)
    if not parts:
        raise ValueError(f"{source} is not a module")
    if directory not in sys.path:
        sys.path.insert(0, directory)
    return importlib.import_module(".".join(parts))


def load_specs(*sources: str | Registry) -> list[OpSpec]:
    """The specs the given modules (dotted names or file paths) or registries register, in order.

    A module contributes what it (or a submodule) registered with ``register``
    and the specs of every ``Registry`` bound at its top level; each spec is
    followed by the cases its ``kind`` and ``variants`` derive
    (``minigrad.testing.spec_variants``), which the sweep runs like any other.

    Raises:
        SpecLoadError: a module fails to import, registers no spec, or two
            specs share a name; the message names the module.

    Example:
        >>> from minigrad.testing import load_specs
        >>> specs = load_specs("minigrad.testing.op_specs")
        >>> len(specs) > 100, specs[0].name
        (True, 'identity')
        >>> load_specs("no_such_module_here")
        Traceback (most recent call last):
        ...
        minigrad.testing.registry.SpecLoadError: cannot import no_such_module_here: ModuleNotFoundError: ...
    """
    specs: list[OpSpec] = []
    seen: dict[str, str] = {}
    for source in sources:
        if isinstance(source, Registry):
            label, found = "the given Registry", source.specs()
        else:
            if not isinstance(source, str):
                raise TypeError(f"load_specs: sources are module names, paths or Registry objects, got "
                                f"{type(source).__name__}")
            label = source
            try:
                module = _import_source(source)
            except Exception as error:
                raise SpecLoadError(f"cannot import {source}: {type(error).__name__}: {error}") from error
            found = DEFAULT_REGISTRY.specs(module.__name__)
            for value in vars(module).values():
                if isinstance(value, Registry) and value is not DEFAULT_REGISTRY:
                    found += [s for s in value if s not in found]
            if not found:
                raise SpecLoadError(f"{source} registers no op specs (call minigrad.testing.register(OpSpec(...)) "
                                    "at import time, or bind a Registry at its top level)")
        from minigrad.testing.spec_variants import derived  # (it builds OpSpecs)

        for spec in (case for declared in found for case in (declared, *derived(declared))):
            if spec.name in seen:
                if seen[spec.name] == label and any(s is spec for s in specs):
                    continue  # the same module given twice
                raise SpecLoadError(f"op spec {spec.name!r} is registered twice ({seen[spec.name]} and {label})")
            seen[spec.name] = label
            specs.append(spec)
    return specs
