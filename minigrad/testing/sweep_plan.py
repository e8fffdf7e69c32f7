"""The sweep's plan: which cases run, with which seeds, and how they split into shards.

A ``Case`` is one row of ``python -m minigrad check`` as plain values (spec
module, op name, dtype, backend, check, seed): it travels to a worker
process or a Dask worker, which imports the spec module itself and runs
the case there. ``plan_cases`` lists the cases of a run in a fixed order;
``shard`` deals them out to ``N`` shards balanced by their expected
durations (recorded by an earlier run's JSON, see ``read_durations``, or
the battery's static estimates), so a CI matrix of ``N`` jobs covers the
sweep exactly once.

Example:
    >>> from minigrad.testing.sweep_plan import plan_cases, shard
    >>> cases = plan_cases(["minigrad.testing.op_specs"], ops="tanh,exp", dtypes=["float32"])
    >>> [(c.op, c.check) for c in cases][:3]
    [('exp', 'forward'), ('exp', 'backward'), ('exp', 'double')]
    >>> first, second = shard(cases, 1, 2), shard(cases, 2, 2)
    >>> sorted(first + second) == sorted(cases) and not set(first) & set(second)
    True
"""

from __future__ import annotations

import difflib
import fnmatch
import functools
import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from minigrad.testing.registry import FLOAT_DTYPES, OpSpec, load_specs
from minigrad.testing.sweep import BATTERY, CHECKS, declared_skip_reason, derive_case_seed, runs_check, skip_reason

__all__ = ["Case", "DEFAULT_SPECS", "BACKEND_CHOICES", "plan_cases", "split_patterns", "select_specs", "spec_of",
           "spec_source", "shard", "parse_shard", "estimate", "planned_skip_reason", "read_durations", "DurationKey"]

DEFAULT_SPECS = "minigrad.testing.op_specs"  # minigrad's own registry
BACKEND_CHOICES: tuple[str, ...] = ("numpy", "cupy", "cupy-sim")  # cupy-sim: the CuPy paths on the CPU simulator

DurationKey = tuple[str, str, str, str]  # (op, backend, dtype, check)


@dataclass(frozen=True, order=True)
class Case:
    """One case as it travels to a worker: the spec is named, not sent, so any process can run it.

    ``seed`` is the case's own seed (``sweep.derive_case_seed``), used as is;
    ``index`` is its place in the plan of the whole run (shards keep it).
    """

    index: int
    module: str  # the spec module, a dotted name or an absolute .py path, that the worker imports
    op: str
    dtype: str
    backend: str  # numpy, cupy or cupy-sim
    check: str
    seed: int

    @property
    def key(self) -> DurationKey:
        """``(op, backend, dtype, check)``: what a durations file records a time for."""
        return (self.op, self.backend, self.dtype, self.check)


def spec_source(source: str) -> str:
    """A ``--specs`` source as workers import it: file paths made absolute, dotted names as they are.

    Example:
        >>> from minigrad.testing.sweep_plan import spec_source
        >>> spec_source("minigrad.testing.op_specs")
        'minigrad.testing.op_specs'
    """
    if source.endswith(".py") or os.sep in source or os.path.isdir(source):
        return os.path.abspath(source)
    return source


@functools.cache
def _specs_by_name(module: str) -> dict[str, OpSpec]:
    return {spec.name: spec for spec in load_specs(module)}


def spec_of(case: Case) -> OpSpec:
    """The ``OpSpec`` a case names, importing its module on first use (what a worker does).

    Example:
        >>> from minigrad.testing.sweep_plan import Case, spec_of
        >>> spec_of(Case(0, "minigrad.testing.op_specs", "tanh", "float32", "numpy", "forward", 1)).name
        'tanh'
    """
    specs = _specs_by_name(case.module)
    if case.op not in specs:
        raise KeyError(f"{case.module} registers no op spec named {case.op!r}")
    return specs[case.op]


def split_patterns(text: str) -> list[str]:
    """Comma-separated op names or globs; a comma inside brackets belongs to a name (``matmul[transa,transb]``).

    Example:
        >>> from minigrad.testing.sweep_plan import split_patterns
        >>> split_patterns("relu, matmul[transa,transb],conv*")
        ['relu', 'matmul[transa,transb]', 'conv*']
    """
    items, depth, current = [], 0, ""
    for char in text:
        depth += {"[": 1, "]": -1}.get(char, 0)
        if char == "," and depth <= 0:
            items.append(current)
            current, depth = "", 0
        else:
            current += char
    items.append(current)
    return [item.strip() for item in items if item.strip()]


def _matches(spec: OpSpec, pattern: str, names: set[str]) -> bool:
    if pattern in names:  # a spec's own name selects that spec alone (names hold brackets, which globs read as sets)
        return spec.name == pattern
    return fnmatch.fnmatchcase(spec.name, pattern) or any(fnmatch.fnmatchcase(n, pattern) for n in spec.public_names)


def select_specs(specs: Sequence[OpSpec], patterns: Sequence[str]) -> list[OpSpec]:
    """The specs ``patterns`` select, in registry order; a pattern that selects nothing is a ``ValueError``.

    A pattern that is a spec's name selects that spec alone; any other is a
    glob over spec names and the public function names they cover
    (``sum`` or ``'sum*'`` selects every variant ``sum[...]`` when no spec is named ``sum``).

    Example:
        >>> from minigrad.testing import load_specs
        >>> from minigrad.testing.sweep_plan import select_specs
        >>> specs = load_specs("minigrad.testing.op_specs")
        >>> [s.name for s in select_specs(specs, ["pad[edge]", "tanh"])]
        ['pad[edge]', 'tanh']
        >>> select_specs(specs, ["tanh", "tanhh"])
        Traceback (most recent call last):
        ...
        ValueError: 'tanhh' matches no op (did you mean tanh, ...?)
    """
    names = {spec.name for spec in specs}
    unmatched = [p for p in patterns if not any(_matches(spec, p, names) for spec in specs)]
    if unmatched:
        known = sorted(names | {n for spec in specs for n in spec.public_names})
        problems = []
        for pattern in unmatched:
            close = difflib.get_close_matches(pattern, known, n=3)
            problems.append(f"{pattern!r} matches no op" + (f" (did you mean {', '.join(close)}?)" if close else ""))
        raise ValueError("; ".join(problems))
    return [spec for spec in specs if any(_matches(spec, p, names) for p in patterns)]


def _check_names(values: Sequence[str], allowed: Sequence[str], what: str) -> list[str]:
    values = list(values)
    unknown = [v for v in values if v not in allowed]
    if unknown or not values:
        raise ValueError(f"unknown {what} {', '.join(map(repr, unknown)) or '(none given)'}; choose from "
                         f"{', '.join(allowed)}")
    return values


def plan_cases(sources: Sequence[str], *, ops: str | Sequence[str] = "*", dtypes: Sequence[str] = FLOAT_DTYPES,
               backends: Sequence[str] = ("numpy",), checks: Sequence[str] = CHECKS, seed: int = 0,
               case_seed: int | None = None) -> list[Case]:
    """Every case of a run, in order: per spec (registry order), backend, dtype and check.

    Args:
        sources: spec modules (dotted names or ``.py`` paths), as ``--specs`` takes them.
        ops: op names or globs, a comma-separated string or a list (see ``select_specs``).
        dtypes, backends, checks: what to cross; backends among ``numpy``, ``cupy``, ``cupy-sim``.
        seed: the run's seed; each case's seed is ``derive_case_seed(op, dtype, seed)``.
        case_seed: a seed every case uses as is (the ``seed=`` a failure report shows).

    Raises:
        ValueError: an unknown dtype, backend or check, or a pattern that selects no op.
        SpecLoadError: a source that fails to import, registers nothing or repeats a name.

    Example:
        >>> from minigrad.testing.sweep_plan import plan_cases
        >>> [c.check for c in plan_cases(["minigrad.testing.op_specs"], ops="tanh", dtypes=["float64"])]
        ['forward', 'backward', 'double', 'deterministic', 'views', 'jvp', 'vjp_linearity', 'hvp_symmetry']
        >>> plan_cases(["minigrad.testing.op_specs"], checks=["forwrd"])
        Traceback (most recent call last):
        ...
        ValueError: unknown check 'forwrd'; choose from forward, backward, double, deterministic, views, jvp, ...
    """
    dtypes = _check_names(dtypes, FLOAT_DTYPES, "dtype")
    backends = _check_names(backends, BACKEND_CHOICES, "backend")
    checks = _check_names(checks, CHECKS, "check")
    patterns = split_patterns(ops) if isinstance(ops, str) else list(ops)
    load_specs(*sources)  # refuses two sources registering one name
    module_of = {spec.name: spec_source(source) for source in sources for spec in load_specs(source)}
    specs = select_specs(load_specs(*sources), patterns or ["*"])
    cases = []
    for spec in specs:
        for backend in backends:
            for dtype in dtypes:
                seed_of_case = derive_case_seed(spec.name, dtype, seed) if case_seed is None else case_seed
                for check in (c for c in CHECKS if c in checks and runs_check(spec, c)):
                    cases.append(Case(len(cases), module_of[spec.name], spec.name, dtype, backend, check,
                                      seed_of_case))
    return cases


def estimate(case: Case, durations: Mapping[DurationKey, float] | None = None) -> float:
    """Expected seconds of a case: its recorded duration, else the battery's estimate (about 0 for a skip).

    Example:
        >>> from minigrad.testing.sweep_plan import Case, estimate
        >>> case = Case(0, "minigrad.testing.op_specs", "tanh", "float32", "numpy", "double", 1)
        >>> estimate(case, {("tanh", "numpy", "float32", "double"): 0.25}), estimate(case) > 0
        (0.25, True)
    """
    if durations and case.key in durations:
        return durations[case.key]
    return 1e-6 if planned_skip_reason(case) is not None else BATTERY[case.check].estimate


def planned_skip_reason(case: Case) -> str | None:
    """Why the case will skip (``sweep.skip_reason``), as this process sees it; cupy-sim needs no GPU.

    Example:
        >>> from minigrad.testing.sweep_plan import Case, planned_skip_reason
        >>> planned_skip_reason(Case(0, "minigrad.testing.op_specs", "argmax", "float32", "numpy", "backward", 1))
        'argmax is not differentiable'
    """
    if case.backend == "cupy-sim":
        return declared_skip_reason(spec_of(case), case.dtype, "cupy", case.check)
    return skip_reason(spec_of(case), case.dtype, case.backend, case.check)


def shard(cases: Sequence[Case], k: int, n: int, durations: Mapping[DurationKey, float] | None = None) -> list[Case]:
    """The cases of shard ``k`` of ``n`` (1-based): the ``n`` shards partition ``cases``, balanced by duration.

    Longest first, each case goes to the shard with the least expected time so
    far (ties: the lowest shard); every shard computes the same assignment
    from the same plan and durations, so no coordination is needed.

    Example:
        >>> from minigrad.testing.sweep_plan import plan_cases, shard
        >>> cases = plan_cases(["minigrad.testing.op_specs"], ops="exp,log,tanh", dtypes=["float64"])
        >>> [len(shard(cases, k, 3)) for k in (1, 2, 3)]
        [8, 8, 8]
    """
    if not 1 <= k <= n:
        raise ValueError(f"shard {k}/{n}: need 1 <= K <= N")
    loads = [0.0] * n
    mine = []
    for case in sorted(cases, key=lambda c: (-estimate(c, durations), c.index)):
        target = min(range(n), key=lambda i: (loads[i], i))
        loads[target] += estimate(case, durations)
        if target == k - 1:
            mine.append(case)
    return sorted(mine)


def parse_shard(text: str) -> tuple[int, int]:
    """``"K/N"`` as ``(K, N)`` with ``1 <= K <= N``; anything else is a ``ValueError``.

    Example:
        >>> from minigrad.testing.sweep_plan import parse_shard
        >>> parse_shard("2/4")
        (2, 4)
        >>> parse_shard("0/4")
        Traceback (most recent call last):
        ...
        ValueError: --shard '0/4': expected K/N with 1 <= K <= N, e.g. 2/4
    """
    try:
        k, n = (int(part) for part in text.split("/"))
    except ValueError:
        k, n = 0, 0
    if not 1 <= k <= n:
        raise ValueError(f"--shard {text!r}: expected K/N with 1 <= K <= N, e.g. 2/4")
    return k, n


def read_durations(path: str) -> dict[DurationKey, float]:
    """Case durations from an earlier run's ``--json`` file (a shard's or a merged one).

    Raises:
        ValueError: the file cannot be read or holds no results; the message names it.

    Example:
        >>> import json, tempfile
        >>> from minigrad.testing.sweep_plan import read_durations
        >>> record = {"op": "tanh", "backend": "numpy", "dtype": "float32", "check": "double", "seconds": 0.01}
        >>> with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        ...     json.dump({"results": [record]}, f)
        >>> read_durations(f.name)
        {('tanh', 'numpy', 'float32', 'double'): 0.01}
    """
    try:
        with open(path, encoding="utf-8") as handle:
            records = json.load(handle)["results"]
        return {(r["op"], r["backend"], r["dtype"], r["check"]): float(r["seconds"]) for r in records}
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ValueError(f"cannot read durations from {path}: {type(error).__name__}: {error}") from None
