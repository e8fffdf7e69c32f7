"""The sweep's JSON report (``python -m minigrad check --json FILE``): build, write, read and merge.

Schema version 1 (``SCHEMA_VERSION``; documented in ``docs/howto/check-cli.rst``)::

    {"schema_version": 1,
     "environment": {"minigrad": "0.1.0", "numpy": "2.4.0", "cupy": null, "python": "3.11.7", "platform": "..."},
     "arguments": {"argv": [...], "specs": [...], "ops": [...], "dtypes": [...], "backends": [...],
                   "checks": [...], "seed": 0, "case_seed": null, "shard": "2/4", "jobs": 2, ...},
     "plan": {"cases": 5625, "shard": "2/4", "selected": 1406},
     "summary": {"ops": 93, "cases": 1406, "pass": 1370, "fail": 0, "error": 0, "xpass": 0, "xfail": 1,
                 "skip": 35, "seconds": 5.2, "complete": true, "interrupted": false, "stopped_early": false},
     "results": [{"index": 3, "op": "exp", "module": "minigrad.testing.op_specs", "backend": "numpy",
                  "dtype": "float32", "check": "deterministic", "status": "pass", "margin": null,
                  "seconds": 0.0009, "seed": 1163493412, "message": "", "traceback": "",
                  "reproduce": "python -m minigrad check --ops exp --dtype float32 ..."}, ...]}

``index`` is a case's place in the plan of the whole run, so the results of
the ``N`` shards of one plan merge (``merge_reports``) into the report a
single run gives, and ``merge_reports`` refuses shards that do not partition it.

Example:
    >>> from minigrad.testing.sweep_json import SCHEMA_VERSION, environment
    >>> SCHEMA_VERSION, sorted(environment())
    (1, ['cupy', 'minigrad', 'numpy', 'platform', 'python'])
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import platform
import shlex
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

from minigrad.testing.sweep import STATUSES, CaseResult
from minigrad.testing.sweep_plan import DEFAULT_SPECS, Case

__all__ = ["SCHEMA_VERSION", "environment", "reproduce_command", "record", "summarize", "build_report",
           "write_report", "read_report", "merge_reports"]

SCHEMA_VERSION = 1
_SHARD_ONLY = ("argv", "shard", "jobs", "executor", "durations")  # arguments the shards of one plan may differ in


def _cupy_version() -> str | None:
    for name in ("cupy", "cupy-cuda13x", "cupy-cuda12x", "cupy-cuda11x"):  # CuPy's wheels go by these names
        version = _distribution_version(name)
        if version:
            return version
    return None


def _distribution_version(name: str) -> str | None:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return None


def environment() -> dict[str, str | None]:
    """Versions of minigrad, NumPy, CuPy (``None`` when not installed) and Python, and the platform.

    Example:
        >>> from minigrad.testing.sweep_json import environment
        >>> import minigrad
        >>> environment()["minigrad"] == minigrad.__version__
        True
    """
    import numpy

    import minigrad

    return {"minigrad": minigrad.__version__, "numpy": numpy.__version__, "cupy": _cupy_version(),
            "python": platform.python_version(), "platform": platform.platform()}


def reproduce_command(case: Case) -> str:
    """The command line that reruns exactly this case, with its own seed.

    Example:
        >>> from minigrad.testing.sweep_plan import Case
        >>> from minigrad.testing.sweep_json import reproduce_command
        >>> case = Case(0, "minigrad.testing.op_specs", "pad[edge]", "float16", "numpy", "double", 42)
        >>> print(reproduce_command(case))
        python -m minigrad check --ops 'pad[edge]' --dtype float16 --backend numpy --check double --case-seed 42
    """
    words = ["python", "-m", "minigrad", "check"]
    if case.module != DEFAULT_SPECS:
        words += ["--specs", case.module]
    words += ["--ops", case.op, "--dtype", case.dtype, "--backend", case.backend, "--check", case.check,
              "--case-seed", str(case.seed)]
    return shlex.join(words)


def record(case: Case, result: CaseResult) -> dict[str, Any]:
    """One case's entry in ``results``.

    Example:
        >>> from minigrad.testing.sweep_plan import plan_cases
        >>> from minigrad.testing.sweep_run import run_one
        >>> from minigrad.testing.sweep_json import record
        >>> case = plan_cases(["minigrad.testing.op_specs"], ops="exp", dtypes=["float64"], checks=["backward"])[0]
        >>> entry = record(case, run_one(case))
        >>> entry["status"], entry["seed"] == case.seed, entry["margin"] < 1
        ('pass', True, True)
    """
    return {"index": case.index, "op": case.op, "module": case.module, "backend": case.backend,
            "dtype": case.dtype, "check": case.check, "status": result.status, "margin": result.margin,
            "seconds": result.seconds, "seed": case.seed, "message": result.message,
            "traceback": result.traceback, "reproduce": reproduce_command(case)}


def summarize(records: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """``{"ops": ..., "cases": ..., "pass": ..., "fail": ..., ...}`` counted from records.

    Example:
        >>> from minigrad.testing.sweep_json import summarize
        >>> summarize([{"op": "a", "status": "pass"}, {"op": "a", "status": "fail"}])["fail"]
        1
    """
    counts = {"ops": len({r["op"] for r in records}), "cases": len(records)}
    counts.update({status: sum(r["status"] == status for r in records) for status in STATUSES})
    return counts


def build_report(records: Sequence[Mapping[str, Any]], *, arguments: Mapping[str, Any], plan_cases: int,
                 seconds: float, interrupted: bool = False, stopped_early: bool = False) -> dict[str, Any]:
    """The whole document: environment, arguments, plan, summary and the records in plan order.

    Example:
        >>> from minigrad.testing.sweep_json import build_report
        >>> doc = build_report([], arguments={"shard": None}, plan_cases=0, seconds=0.0)
        >>> doc["schema_version"], doc["summary"]["complete"]
        (1, True)
    """
    ordered = sorted(records, key=lambda r: r["index"])
    summary = {**summarize(ordered), "seconds": seconds, "interrupted": interrupted, "stopped_early": stopped_early,
               "complete": not (interrupted or stopped_early)}
    return {"schema_version": SCHEMA_VERSION, "environment": environment(), "arguments": dict(arguments),
            "plan": {"cases": plan_cases, "shard": arguments.get("shard"), "selected": len(ordered)},
            "summary": summary, "results": ordered}


def write_report(path: str, document: Mapping[str, Any]) -> None:
    """Write ``document`` to ``path``: a regular file atomically (a reader never sees half a file).

    A path that exists and is not a regular file (``/dev/null``, a pipe) is
    written through, never replaced.
    """
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w", encoding="utf-8") as stream:
            json.dump(document, stream, indent=1)
        return
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".minigrad-check-", suffix=".json", dir=directory)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(document, stream, indent=1)
        os.replace(temporary, path)
    except BaseException:
        os.unlink(temporary)
        raise


def read_report(path: str) -> dict[str, Any]:
    """Load a report, checking its schema version; ``ValueError`` naming the file otherwise.

    Example:
        >>> from minigrad.testing.sweep_json import read_report
        >>> read_report("/no/such/report.json")
        Traceback (most recent call last):
        ...
        ValueError: cannot read /no/such/report.json: FileNotFoundError: ...
    """
    try:
        with open(path, encoding="utf-8") as handle:
            document = json.load(handle)
    except (OSError, ValueError) as error:
        raise ValueError(f"cannot read {path}: {type(error).__name__}: {error}") from None
    version = document.get("schema_version") if isinstance(document, dict) else None
    if version != SCHEMA_VERSION or not isinstance(document.get("results"), list):
        raise ValueError(f"{path} is not a minigrad check report of schema version {SCHEMA_VERSION} "
                         f"(schema_version {version!r})")
    return document


def merge_reports(documents: Sequence[Mapping[str, Any]], names: Sequence[str] | None = None) -> dict[str, Any]:
    """Merge the reports of the ``N`` shards of one plan into the report of the whole run.

    Raises:
        ValueError: the reports come from different plans (other arguments,
            another plan size), a shard is missing or repeated, or a case is
            missing or in two shards; the message says which.
    """
    names = list(names or [f"report {i + 1}" for i in range(len(documents))])
    if not documents:
        raise ValueError("merge: no reports given")
    first = documents[0]
    plan_size = first["plan"]["cases"]
    common = {k: v for k, v in first["arguments"].items() if k not in _SHARD_ONLY}
    shards: dict[str, str] = {}
    for name, document in zip(names, documents):
        arguments = {k: v for k, v in document["arguments"].items() if k not in _SHARD_ONLY}
        if arguments != common or document["plan"]["cases"] != plan_size:
            differing = sorted(k for k in set(arguments) | set(common) if arguments.get(k) != common.get(k))
            raise ValueError(f"merge: {name} comes from another plan than {names[0]} (differs in "
                             f"{', '.join(differing) or 'plan size'})")
        if not document["summary"].get("complete", True):
            raise ValueError(f"merge: {name} is incomplete (interrupted or stopped at a failure)")
        shard = document["plan"].get("shard") or "1/1"
        if shard in shards:
            raise ValueError(f"merge: shard {shard} is given twice ({shards[shard]} and {name})")
        shards[shard] = name
    count = int(next(iter(shards)).split("/")[1])
    missing = [f"{k}/{count}" for k in range(1, count + 1) if f"{k}/{count}" not in shards]
    if missing or len(shards) != count:
        raise ValueError(f"merge: shards {', '.join(missing) or sorted(shards)} of {count} are missing or mixed")
    records = [r for document in documents for r in document["results"]]
    indexes = sorted(r["index"] for r in records)
    if indexes != list(range(plan_size)):
        raise ValueError(f"merge: the shards hold {len(indexes)} cases ({len(set(indexes))} distinct) of a plan of "
                         f"{plan_size}")
    arguments = {**first["arguments"], "shard": None, "argv": None}
    merged = build_report(records, arguments=arguments, plan_cases=plan_size,
                          seconds=max(d["summary"]["seconds"] for d in documents))
    merged["environment"] = first["environment"]
    merged["shards"] = [{"shard": d["plan"]["shard"], "seconds": d["summary"]["seconds"], "file": name}
                        for name, d in zip(names, documents)]
    return merged
