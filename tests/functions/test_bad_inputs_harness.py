"""The bad-input harness (issue 27): every spec of the op registry, one array argument perturbed per call.

Each call starts from the spec's own valid inputs and changes one of them:

- *value-preserving* perturbations hold the same numbers in another form (big-endian, Fortran order, a strided
  view, ``np.matrix``, a NumPy array among CuPy ones on the CuPy simulator): the op must give the same outputs
  and gradients as on the plain inputs (or refuse clearly); anything else is **silent-wrong**;
- the others change what is passed (an integer array for a float one, a float array for an integer one, an
  extra axis, one element fewer, an empty axis): the op may work or refuse, but never hang or blow up.

Outcomes: ``ok``, ``clear`` (a TypeError/ValueError/IndexError/NotImplementedError naming the op, or in
minigrad's ``name: message`` form), ``bare`` (any other exception), ``silent-wrong`` and ``hang`` (over
``TIME_LIMIT`` seconds, or a MemoryError). The test asserts zero silent-wrong and zero hang outcomes;
``python -m tests.functions.test_bad_inputs_harness`` prints the table of counts.
"""

from __future__ import annotations

import re
import signal
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing.op_specs import all_specs

TIME_LIMIT = 10.0  # seconds for one call (forward and backward); the slowest valid op takes well under one
OUTCOMES = ("ok", "clear", "bare", "silent-wrong", "hang")


def _big_endian(a: np.ndarray) -> np.ndarray | None:
    return a.astype(a.dtype.newbyteorder(">")) if a.dtype.itemsize > 1 and a.dtype.isnative else None


def _fortran(a: np.ndarray) -> np.ndarray | None:
    return np.asfortranarray(a) if a.ndim >= 2 and a.size > 1 else None


def _strided(a: np.ndarray) -> np.ndarray | None:
    return np.repeat(a, 2, axis=-1)[..., ::2] if a.ndim >= 1 and a.size else None


def _matrix(a: np.ndarray) -> np.ndarray | None:
    if a.ndim != 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        return np.asmatrix(a)


PRESERVING: dict[str, Callable[[np.ndarray], np.ndarray | None]] = {
    "big-endian": _big_endian, "fortran": _fortran, "strided": _strided, "matrix": _matrix,
}
CHANGING: dict[str, Callable[[np.ndarray], np.ndarray | None]] = {
    "int-for-float": lambda a: a.astype(np.int32) if a.dtype.kind == "f" else None,
    "float-for-int": lambda a: a.astype(np.float32) if a.dtype.kind in "iub" else None,
    "extra-axis": lambda a: a[None],
    "one-fewer": lambda a: a.reshape(-1)[:-1] if a.size > 1 else None,
    "empty": lambda a: a[:0] if a.ndim >= 1 and a.shape[0] else None,
}


class _Hang(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Hang


def _run(spec: Any, arrays: list[Any]) -> tuple[list[Any], list[Any]]:
    """Outputs (as NumPy arrays) and the gradients of the float inputs of ``spec.func`` on ``arrays``."""
    xs = [mg.Variable(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    with mg.force_backprop_mode():
        ys = spec.func(*xs)
    ys = ys if isinstance(ys, tuple) else (ys,)
    outputs = [np.asarray(mg.backend.to_cpu(y.array)) if type(y.array) is not np.matrix else y.array for y in ys]
    grads: list[Any] = []
    if spec.differentiable:
        terms = [F.sum(y * np.linspace(0.5, 1.5, y.size).reshape(y.shape).astype(y.dtype))
                 for y in ys if y.requires_grad and y.dtype.kind == "f" and y.size]
        if terms:
            loss = terms[0]
            for term in terms[1:]:
                loss = loss + term
            loss.backward()
        grads = [None if x.grad is None else x.grad for x in xs if x.requires_grad]
    return outputs, grads


def _same(a: Any, b: Any, dtype: str) -> bool:
    if a is None or b is None:
        return a is None and b is None
    if type(b) is np.matrix or getattr(b, "shape", None) != getattr(a, "shape", None):
        return False
    a, b = np.asarray(mg.backend.to_cpu(a)), np.asarray(mg.backend.to_cpu(b))
    if a.dtype.newbyteorder("=") != b.dtype.newbyteorder("="):
        return False
    if a.dtype.kind not in "fc":
        return bool(np.array_equal(a, b))
    tolerance = {"float16": 1e-2, "float32": 1e-4}.get(dtype, 1e-10)
    return bool(np.allclose(a.astype(np.float64), b.astype(np.float64), rtol=tolerance, atol=tolerance,
                            equal_nan=True))


def _is_clear(error: BaseException, names: tuple[str, ...]) -> bool:
    if not isinstance(error, (TypeError, ValueError, IndexError, NotImplementedError, KeyError)):
        return False
    message = str(error).strip("'\"")
    return any(name in message for name in names) or bool(re.match(r"^[A-Za-z_][\w.]*(\[[\w-]+\])?: ", message))


def guarded(call: Callable[[], Any], names: str | tuple[str, ...], limit: float) -> tuple[str, str, Any]:
    """Run ``call`` with a time limit: ``(outcome, detail, result)``, the outcome ``ok``, ``clear`` (an error
    naming one of ``names`` or in minigrad's ``name: message`` form), ``bare`` or ``hang`` (over ``limit``
    seconds, or a ``MemoryError``)."""
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.perf_counter()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return "ok", "", call()
    except (_Hang, MemoryError) as error:
        return "hang", f"{type(error).__name__} after {time.perf_counter() - start:.1f} s", None
    except Exception as error:  # noqa: BLE001 (classified, not hidden)
        clear = _is_clear(error, (names,) if isinstance(names, str) else names)
        return ("clear" if clear else "bare"), f"{type(error).__name__}: {str(error)[:160]}", None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def classify(spec: Any, dtype: str, base: list[Any], arrays: list[Any], preserving: bool,
             expected: tuple[list[Any], list[Any]]) -> tuple[str, str]:
    """One perturbed call: (outcome, detail)."""
    outcome, detail, result = guarded(lambda: _run(spec, arrays), spec.public_names, TIME_LIMIT)
    if outcome != "ok":
        return outcome, detail
    outputs, grads = result
    changed = [i for i, (a, b) in enumerate(zip(base, arrays)) if a is not b and not np.array_equal(a, b)]
    if changed:  # an op mutated a perturbed input
        return "silent-wrong", f"input {changed} was modified"
    if preserving:
        expected_outputs, expected_grads = expected
        if len(outputs) != len(expected_outputs) or not all(map(_same, expected_outputs, outputs, [dtype] * 99)):
            return "silent-wrong", "outputs differ from the plain inputs'"
        if len(grads) != len(expected_grads) or not all(map(_same, expected_grads, grads, [dtype] * 99)):
            return "silent-wrong", "gradients differ from the plain inputs'"
    return "ok", ""


def campaign(specs: list[Any] | None = None, cupy: Any = None) -> list[tuple[str, str, int, str, str]]:
    """Every spec x input x perturbation: ``(spec, perturbation, input index, outcome, detail)``."""
    rows = []
    for spec in all_specs() if specs is None else specs:
        dtype = "float32" if "float32" in spec.dtypes else spec.dtypes[0]
        inputs = [np.asarray(a) for a in spec.inputs(np.random.default_rng(0), np.dtype(dtype))]
        copies = [a.copy() for a in inputs]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            expected = _run(spec, [a.copy() for a in inputs])
        for index, array in enumerate(inputs):
            for table, preserving in ((PRESERVING, True), (CHANGING, False)):
                for name, perturb in table.items():
                    changed = perturb(array)
                    if changed is None:
                        continue
                    arrays = [a.copy() for a in copies]
                    arrays[index] = changed
                    kept = [a.copy() for a in arrays]
                    outcome, detail = classify(spec, dtype, kept, arrays, preserving, expected)
                    rows.append((spec.name, name, index, outcome, detail))
            if cupy is not None and len(inputs) > 1:  # this input stays NumPy, the others go to the GPU
                arrays = [a.copy() if i == index else cupy.asarray(a) for i, a in enumerate(copies)]
                outcome, detail = classify(spec, dtype, list(arrays), arrays, True, expected)
                rows.append((spec.name, "mixed-device", index, outcome, detail))
    return rows


def _table(rows: list[tuple[str, str, int, str, str]]) -> str:
    counts = Counter((name, outcome) for _, name, _, outcome, _ in rows)
    names = list(PRESERVING) + list(CHANGING) + (["mixed-device"] if any(r[1] == "mixed-device" for r in rows)
                                                  else [])
    lines = [f"{'perturbation':16}" + "".join(f"{o:>14}" for o in OUTCOMES)]
    for name in names:
        lines.append(f"{name:16}" + "".join(f"{counts[name, o]:>14}" for o in OUTCOMES))
    total = Counter(outcome for *_, outcome, _ in rows)
    lines.append(f"{'total':16}" + "".join(f"{total[o]:>14}" for o in OUTCOMES))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def rows():
    from minigrad.testing import cupy_sim

    with cupy_sim.install() as cupy:
        return campaign(cupy=cupy)


def test_no_silent_wrong_result_and_no_hang(rows):
    bad = [row for row in rows if row[3] in ("silent-wrong", "hang")]
    assert not bad, "\n".join(f"{spec} / {name} of input {i}: {outcome}: {detail}"
                              for spec, name, i, outcome, detail in bad[:40])


def test_the_harness_covers_every_spec_and_every_perturbation(rows):
    assert {row[0] for row in rows} == {spec.name for spec in all_specs()}
    assert {row[1] for row in rows} == set(PRESERVING) | set(CHANGING) | {"mixed-device"}
    assert len(rows) > 1500


def test_the_harness_catches_a_silent_wrong_op_a_hang_and_passes_a_right_one():
    """The checker of the checker: an op that reads its input's memory in storage order (wrong for a Fortran-order
    array) is caught as silent-wrong, one that sleeps as a hang, and the correct op passes."""
    global TIME_LIMIT
    from minigrad.testing import OpSpec

    def inputs(rng, dtype):
        return (rng.uniform(-1, 1, (2, 3)).astype(dtype),)

    def careless(x):  # the bytes in storage order, as if C-ordered
        raw = np.ravel(x.array, order="K").reshape(x.shape)
        return F.tanh(x) * 0 + F.tanh(mg.Variable(raw, requires_grad=False))

    def slow(x):
        if not x.array.flags.c_contiguous:
            time.sleep(60)
        return F.tanh(x)

    wrong = OpSpec("careless_tanh", careless, inputs=inputs, covers=("tanh",))
    right = OpSpec("careful_tanh", F.tanh, inputs=inputs, covers=("tanh",))
    hang = OpSpec("slow_tanh", slow, inputs=inputs, covers=("tanh",))
    wrong_rows, right_rows = campaign([wrong]), campaign([right])
    assert ("careless_tanh", "fortran", 0, "silent-wrong", "outputs differ from the plain inputs'") in wrong_rows
    assert not [row for row in right_rows if row[3] in ("silent-wrong", "hang")]
    saved, TIME_LIMIT = TIME_LIMIT, 0.5
    try:
        hang_rows = campaign([hang])
    finally:
        TIME_LIMIT = saved
    assert ("fortran", "hang") in {(row[1], row[3]) for row in hang_rows}


def test_same_compares_values_shapes_and_array_types():
    assert _same(np.ones(2, np.float32), np.ones(2, ">f4"), "float32")
    assert not _same(np.ones(2, np.float32), np.ones(2, np.float32) * 2, "float32")
    assert not _same(np.ones((2, 2)), np.ones((1, 2, 2)), "float64")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PendingDeprecationWarning)
        assert not _same(np.ones((2, 2)), np.asmatrix(np.ones((2, 2))), "float64")


def print_report(table: str, rows: list[Any], what: str, seconds: float) -> None:
    """The harness's command-line report: the table of counts, and with ``-v`` every bad call."""
    print(table)
    print(f"{len(rows)} calls over {len({r[0] for r in rows})} {what} in {seconds:.0f} s")
    if "-v" in sys.argv:
        for row in rows:
            if row[3] in ("bare", "silent-wrong", "hang"):
                print(" | ".join(map(str, row)))


if __name__ == "__main__":
    from minigrad.testing import cupy_sim

    start = time.perf_counter()
    with cupy_sim.install() as module:
        found = campaign(cupy=module)
    print_report(_table(found), found, "specs", time.perf_counter() - start)
