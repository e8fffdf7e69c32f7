"""The bad-argument harness (issue 27): every public ``F.*`` function, one non-array argument perturbed per call.

``test_bad_inputs_harness.py`` perturbs the arrays; this one perturbs everything else: sizes, flags, modes,
real-valued hyperparameters, and arguments left at their defaults. The valid call each perturbation starts
from is the one a registry spec makes: every spec runs once under a profiler that records the arguments of the
outermost public function it calls (so a spec binding ``ksize=3`` in a lambda gives ``max_pooling_2d``'s call
with ``ksize=3``). Each argument is then changed according to what it holds:

- a flag (bool): the strings ``'False'`` and ``'True'``, which are true, so accepting one is **silent-wrong**;
- a size (int): a fraction (accepted, it must not act as its truncation or rounding: **silent-wrong**), the same
  number as a float (accepted, it must give the same result), ``2**31``, ``2**63`` and ``-1``, which must be
  refused or run within the time and memory limits;
- a real (float): NaN, infinity, its negation and zero: accepted, a finite result must stay finite
  (a non-finite one is **silent-wrong**: an unvalidated hyperparameter, as ``eps < 0`` in a normalization);
- a tuple of sizes: a fraction inside, a huge and a negative entry, one entry more and none;
- a string (a mode): an unknown one, which must be refused (accepted, it is **silent-wrong**);
- any argument: an object of an unrelated type (``object()``), which must be refused or ignored, never hang.

Outcomes are those of the array harness: ``ok``, ``clear``, ``bare``, ``silent-wrong`` and ``hang`` (over the
time limit or a ``MemoryError``). The campaign runs in a subprocess whose address space is capped
(``RLIMIT_AS``), so a size that would allocate tens of GiB shows as a ``MemoryError`` instead of taking the
machine. ``python -m tests.functions.test_bad_arguments_harness`` prints the table of counts (``-v``: every
bare, silent-wrong and hang call).
"""

from __future__ import annotations

import inspect
import json
import math
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing.op_specs import all_specs

HERE = __name__ if __name__ != "__main__" else "tests.functions.test_bad_arguments_harness"
MEMORY_LIMIT = 3 * 2 ** 30  # bytes of address space for the campaign's process, beyond what it maps at start
# arguments whose value is placed into the output as it is: NaN or infinity there is what was asked for
FILL_VALUES = {"pad.constant_values", "pad_sequence.padding"}
PUBLIC = sorted(n for n in dir(F) if not n.startswith("_") and n[0].islower() and inspect.isfunction(getattr(F, n)))


# --- the valid calls, recorded from the registry -----------------------------------------------------------

def recorded_calls() -> dict[str, tuple[str, inspect.BoundArguments]]:
    """For each public function: ``(spec name, its arguments)`` of the first spec that calls it outermost."""
    codes = {getattr(F, name).__code__: name for name in PUBLIC}
    calls: dict[str, tuple[str, inspect.BoundArguments]] = {}
    depth = 0
    spec_name = ""

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal depth
        name = codes.get(frame.f_code)
        if name is None:
            return
        if event == "call":
            if depth == 0 and name not in calls:
                calls[name] = (spec_name, _bound_arguments(getattr(F, name), frame.f_locals))
            depth += 1
        elif event == "return":
            depth -= 1

    for spec in all_specs():
        spec_name = spec.name
        dtype = "float32" if "float32" in spec.dtypes else spec.dtypes[0]
        arrays = spec.inputs(np.random.default_rng(0), np.dtype(dtype))
        sys.setprofile(profile)
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                spec.func(*[mg.Variable(a, requires_grad=a.dtype.kind == "f") for a in arrays])
        finally:
            sys.setprofile(None)
            depth = 0
    return calls


def _bound_arguments(function: Callable[..., Any], values: dict[str, Any]) -> inspect.BoundArguments:
    """The call's arguments as ``inspect.BoundArguments`` (read from the frame at entry, before the body ran)."""
    signature = inspect.signature(function)
    arguments = {name: values[name] for name in signature.parameters if name in values}
    bound = inspect.BoundArguments(signature, arguments)  # type: ignore[arg-type]
    return bound


def _call(function: Callable[..., Any], bound: inspect.BoundArguments) -> list[Any]:
    with mg.force_backprop_mode():
        ys = function(*bound.args, **bound.kwargs)
    return [np.asarray(getattr(y, "array", y)) for y in _flat(ys)]


def _flat(ys: Any) -> Iterator[Any]:
    """The arrays and Variables of a result, through nested tuples and lists (``n_step_lstm``'s ``ys``)."""
    if isinstance(ys, (tuple, list)):
        for y in ys:
            yield from _flat(y)
    elif ys is not None:
        yield ys


# --- the perturbations ------------------------------------------------------------------------------------

def _is_array(value: Any) -> bool:
    return isinstance(value, (mg.Variable, np.ndarray)) or (
        isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, (mg.Variable, np.ndarray))
                                                                 for v in value))


def perturbations(value: Any) -> Iterator[tuple[str, Any]]:
    """``(name, new value)`` pairs for an argument holding ``value``."""
    if isinstance(value, (bool, np.bool_)):
        yield "flag-as-str-False", "False"
        yield "flag-as-str-True", "True"
        yield "flag-as-object", object()
        return
    elif isinstance(value, (int, np.integer)):
        yield "int-fraction", int(value) + 0.5
        yield "int-as-float", float(value)
        yield "int-2**31", 2 ** 31
        yield "int-2**63", 2 ** 63
        yield "int-minus-one", -1
    elif isinstance(value, (float, np.floating)):
        yield "real-nan", math.nan
        yield "real-inf", math.inf
        if value != 0:
            yield "real-negated", -float(value)
            yield "real-zero", 0.0
    elif isinstance(value, tuple) and value and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                    for v in value):
        yield "ints-fraction", (int(value[0]) + 0.5,) + tuple(value[1:])
        yield "ints-2**31", (2 ** 31,) + tuple(value[1:])
        yield "ints-minus-one", (-1,) + tuple(value[1:])
        yield "ints-one-more", tuple(value) + (value[-1],)
        yield "ints-none", ()
    elif isinstance(value, str):
        yield "unknown-mode", value + "_unknown"
    yield "unrelated-object", object()


def _finite(outputs: list[Any]) -> bool:
    return all(np.isfinite(o).all() for o in outputs if o.dtype.kind == "f")


def _equal(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(x.shape == y.shape and np.array_equal(x, y, equal_nan=True) for x, y in zip(a, b))


def judge(kind: str, argument: str, outputs: list[Any], base: list[Any],
          near: list[list[Any] | None]) -> tuple[str, str]:
    """The outcome of a perturbed call of ``argument`` (``function.name``) that returned ``outputs``; the call
    with the valid value returned ``base``, ``near`` holds the results with the truncated and the rounded-up
    size (for a fraction)."""
    if kind.startswith("flag-as"):
        return "silent-wrong", "a string or an object was taken as a flag"
    if kind == "unknown-mode":
        return "silent-wrong", "an unknown mode string was accepted"
    if kind == "int-as-float" and not _equal(outputs, base):
        return "silent-wrong", "the size as a float gave another result"
    if kind in ("int-fraction", "ints-fraction") and any(n is not None and _equal(outputs, n) for n in near):
        return "silent-wrong", "a fractional size acted as its truncation or rounding"
    if kind.startswith("real-") and argument not in FILL_VALUES and _finite(base) and not _finite(outputs):
        return "silent-wrong", "a non-finite result from an unvalidated hyperparameter"
    return "ok", ""


# --- the campaign -----------------------------------------------------------------------------------------

def campaign(names: list[str] | None = None) -> list[tuple[str, str, str, str, str]]:
    """``(function, argument, perturbation, outcome, detail)`` for every perturbed call."""
    from tests.functions.test_bad_inputs_harness import TIME_LIMIT, guarded

    rows = []
    for name, (_, bound) in sorted(recorded_calls().items()):
        if names is not None and name not in names:
            continue
        function = getattr(F, name)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            base = _call(function, bound)
        for argument, value in _arguments(bound):
            if _is_array(value):
                continue
            for kind, changed in perturbations(value):
                trial = _replaced(bound, argument, changed)
                outcome, detail, outputs = guarded(lambda f=function, t=trial: _call(f, t), name, TIME_LIMIT)
                if outcome == "ok":
                    near = [_neighbour(function, bound, argument, value, step) for step in (0, 1)] \
                        if kind.endswith("fraction") else []
                    outcome, detail = judge(kind, f"{name}.{argument}", outputs, base, near)
                rows.append((name, argument, kind, outcome, detail))
    return rows


def _arguments(bound: inspect.BoundArguments) -> list[tuple[str, Any]]:
    """Every argument of the call, by name, and those left at their defaults: a ``*args`` entry as
    ``name[i]``, a ``**kwargs`` entry by its key."""
    found = []
    for parameter in bound.signature.parameters.values():
        if parameter.kind == parameter.VAR_POSITIONAL:
            found += [(f"{parameter.name}[{i}]", v) for i, v in enumerate(bound.arguments.get(parameter.name, ()))]
        elif parameter.kind == parameter.VAR_KEYWORD:
            found += list(bound.arguments.get(parameter.name, {}).items())
        elif parameter.name in bound.arguments:
            found.append((parameter.name, bound.arguments[parameter.name]))
        elif parameter.default is not parameter.empty:
            found.append((parameter.name, parameter.default))
    return found


def _replaced(bound: inspect.BoundArguments, argument: str, value: Any) -> inspect.BoundArguments:
    """A copy of ``bound`` with ``argument`` (a name from ``_arguments``) set to ``value``."""
    arguments = dict(bound.arguments)
    parameters = bound.signature.parameters
    if argument in parameters:
        arguments[argument] = value
    elif "[" in argument:  # an entry of *args
        name, index = argument[:-1].split("[")
        entries = list(arguments[name])
        entries[int(index)] = value
        arguments[name] = tuple(entries)
    else:  # a **kwargs entry
        name = next(p.name for p in parameters.values() if p.kind == p.VAR_KEYWORD)
        arguments[name] = {**arguments[name], argument: value}
    return inspect.BoundArguments(bound.signature, arguments)  # type: ignore[arg-type]


def _neighbour(function: Callable[..., Any], bound: inspect.BoundArguments, argument: str, value: Any,
               step: int) -> list[Any] | None:
    """The result with the size (or the tuple's first size) moved by ``step``: 0 truncates, 1 rounds up."""
    moved = (int(value[0]) + step,) + tuple(value[1:]) if isinstance(value, tuple) else int(value) + step
    trial = _replaced(bound, argument, moved)
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return _call(function, trial)
    except Exception:  # noqa: BLE001 (no neighbour to compare with)
        return None


def run_capped(names: list[str] | None = None) -> list[list[str]]:
    """The campaign in a subprocess with a capped address space; its rows (as lists)."""
    code = ("import json, resource, sys\n"
            f"from {HERE} import campaign, MEMORY_LIMIT\n"
            "with open('/proc/self/statm') as f: mapped = int(f.read().split()[0]) * resource.getpagesize()\n"
            "resource.setrlimit(resource.RLIMIT_AS, (mapped + MEMORY_LIMIT, resource.RLIM_INFINITY))\n"
            f"json.dump(campaign({names!r}), sys.stdout)\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def rows():
    if not sys.platform.startswith("linux"):
        pytest.skip("the address-space cap needs Linux")
    return run_capped()


def test_no_silent_wrong_result_and_no_hang(rows):
    bad = [row for row in rows if row[3] in ("silent-wrong", "hang")]
    assert not bad, "\n".join(" | ".join(row) for row in bad[:60])


def test_the_harness_covers_every_public_function_with_arguments(rows):
    covered = {row[0] for row in rows}
    with_arguments = {name for name, (_, bound) in recorded_calls().items()
                      if any(not _is_array(value) for _, value in _arguments(bound))}
    assert set(recorded_calls()) == set(PUBLIC), sorted(set(PUBLIC) - set(recorded_calls()))
    assert with_arguments <= covered, sorted(with_arguments - covered)
    assert len(rows) > 1000


def test_judge_catches_each_kind_of_silent_wrong_result_and_passes_right_ones():
    """The checker of the checker: each silent-wrong rule on a result that breaks it, and on one that does not."""
    one, two = [np.ones(2)], [np.full(2, 2.0)]
    assert judge("flag-as-str-False", "f.x", one, one, [])[0] == "silent-wrong"
    assert judge("flag-as-object", "f.x", one, one, [])[0] == "silent-wrong"
    assert judge("unknown-mode", "f.x", one, one, [])[0] == "silent-wrong"
    assert judge("int-as-float", "f.x", two, one, [])[0] == "silent-wrong"
    assert judge("int-as-float", "f.x", one, one, [])[0] == "ok"
    assert judge("int-fraction", "f.x", two, one, [two, None])[0] == "silent-wrong"
    assert judge("int-fraction", "f.x", [np.full(2, 1.5)], one, [one, two])[0] == "ok"
    assert judge("real-nan", "f.x", [np.array([np.nan, 1.0])], one, [])[0] == "silent-wrong"
    assert judge("real-nan", "f.x", one, one, [])[0] == "ok"
    assert judge("real-nan", "f.x", [np.array([np.nan])], [np.array([np.nan])], [])[0] == "ok"
    assert judge("real-nan", "pad.constant_values", [np.array([np.nan, 1.0])], one, [])[0] == "ok"


def test_the_campaign_catches_a_careless_op_and_passes_a_careful_one(monkeypatch):
    """A function that truncates its size and takes any string as a flag is caught; F.repeat passes."""
    repeat = F.repeat

    def careless_repeat(x, repeats, axis=None, flip=False):
        repeats = tuple(int(r) for r in repeats) if isinstance(repeats, tuple) else int(repeats)
        y = repeat(x, repeats, axis)
        return F.flip(y, 0) if flip else y

    monkeypatch.setattr(F, "repeat", careless_repeat)
    found = {(row[1], row[2][-8:], row[3]) for row in campaign(["repeat"])}
    assert ("repeats", "fraction", "silent-wrong") in found
    assert ("flip", "tr-False", "silent-wrong") in found
    monkeypatch.undo()
    right = [row for row in campaign(["repeat"]) if row[3] in ("silent-wrong", "hang")]
    assert not right, right


def test_a_blow_up_is_caught_by_the_memory_cap():
    """A size that would allocate far more than the cap shows as a MemoryError (a hang outcome), not as a
    machine out of memory."""
    from tests.functions.test_bad_inputs_harness import guarded

    code = ("import resource, numpy as np\n"
            "resource.setrlimit(resource.RLIMIT_AS, (2 ** 31, resource.RLIM_INFINITY))\n"
            "from tests.functions.test_bad_inputs_harness import guarded\n"
            "print(guarded(lambda: np.ones(2 ** 33, np.float64), 'ones', 5.0)[0])\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == "hang", result.stderr[-2000:]
    assert guarded(lambda: [np.ones(2)], "ones", 5.0)[0] == "ok"


def _table(rows: list[list[str]]) -> str:
    from tests.functions.test_bad_inputs_harness import OUTCOMES

    kinds = sorted({row[2] for row in rows})
    lines = [f"{'perturbation':20}" + "".join(f"{o:>14}" for o in OUTCOMES)]
    for kind in kinds + ["total"]:
        counts = [sum(1 for r in rows if (kind == "total" or r[2] == kind) and r[3] == o) for o in OUTCOMES]
        lines.append(f"{kind:20}" + "".join(f"{c:>14}" for c in counts))
    return "\n".join(lines)


if __name__ == "__main__":
    from tests.functions.test_bad_inputs_harness import print_report

    start = time.perf_counter()
    found = run_capped()
    print_report(_table(found), found, "functions", time.perf_counter() - start)
