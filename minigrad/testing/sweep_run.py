"""Running planned cases: in this process, in worker processes (``-j N``), or on any ``Executor`` (Dask).

``run_cases`` yields ``(case, result)`` pairs as cases finish. Cases travel
in small chunks to workers as plain values (``sweep_plan.Case``); a worker
imports the spec module itself and runs each case with its own seed, so the
results are those of a serial run, whatever the order or the process.

A worker that dies (a crash in C code, ``os._exit``, the OOM killer) fails
the futures near it: of a process pool, every one in flight (the pool is
then restarted); on Dask, each task whose workers died ``allowed-failures``
times (``KilledWorker``). The cases of every failed future are run again
alone, one at a time, and the one whose future fails again is reported as
that case's ``error``; the sweep goes on.

Example:
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> from minigrad.testing.sweep_plan import plan_cases
    >>> from minigrad.testing.sweep_run import run_cases
    >>> cases = plan_cases(["minigrad.testing.op_specs"], ops="tanh", dtypes=["float32"])
    >>> with ThreadPoolExecutor(2) as pool:
    ...     sorted(result.status for case, result in run_cases(cases, executor=pool))
    ['pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass', 'pass']
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from minigrad.testing.sweep import CaseResult, run_case
from minigrad.testing.sweep_plan import Case, DurationKey, estimate, spec_of

__all__ = ["run_one", "run_chunk", "run_cases", "chunks", "connect_dask", "DaskUnavailable"]

CHUNK_SECONDS = 0.2  # expected work per chunk: small enough to stream and balance, large enough to amortise a trip


def run_one(case: Case) -> CaseResult:
    """Run one planned case in this process (what a worker does); a spec that cannot be loaded is its ``error``.

    Example:
        >>> from minigrad.testing.sweep_plan import Case
        >>> from minigrad.testing.sweep_run import run_one
        >>> run_one(Case(0, "minigrad.testing.op_specs", "tanh", "float64", "numpy", "backward", 7)).status
        'pass'
    """
    try:
        spec = spec_of(case)
    except Exception as error:
        return CaseResult(case.op, case.backend, case.dtype, case.check, "error", seed=case.seed,
                          message=f"cannot load the spec: {type(error).__name__}: {error}")
    simulated = case.backend == "cupy-sim"
    with _cupy_simulator([case]):  # a no-op inside run_chunk's or run_cases' own
        result = run_case(spec, case.dtype, "cupy" if simulated else case.backend, case.check, case_seed=case.seed)
    result.backend = case.backend
    result.error = result.outcome = None  # a result travels between processes and is kept: plain values only
    return result


def _cupy_simulator(cases: Sequence[Case]) -> contextlib.AbstractContextManager[Any]:
    """CuPy simulated for cases on ``cupy-sim`` (installing it costs tens of ms: once per chunk, not per case)."""
    if not any(case.backend == "cupy-sim" for case in cases):
        return contextlib.nullcontext()
    from minigrad.testing import cupy_sim

    return cupy_sim.install()


def run_chunk(cases: Sequence[Case]) -> list[CaseResult]:
    """Run cases one after the other; the function a worker is sent, with the cases as plain values.

    Example:
        >>> from minigrad.testing.sweep_plan import plan_cases
        >>> from minigrad.testing.sweep_run import run_chunk
        >>> [r.check for r in run_chunk(plan_cases(["minigrad.testing.op_specs"], ops="exp", dtypes=["float32"]))]
        ['forward', 'backward', 'double', 'deterministic', 'views', 'jvp', 'vjp_linearity', 'hvp_symmetry']
    """
    with _cupy_simulator(cases):
        return [run_one(case) for case in cases]


def chunks(cases: Sequence[Case], durations: Mapping[DurationKey, float] | None = None,
           seconds: float = CHUNK_SECONDS) -> list[tuple[Case, ...]]:
    """Consecutive cases grouped into chunks of about ``seconds`` of expected work each.

    Example:
        >>> from minigrad.testing.sweep_plan import plan_cases
        >>> from minigrad.testing.sweep_run import chunks
        >>> cases = plan_cases(["minigrad.testing.op_specs"], ops="exp,tanh", dtypes=["float64"])
        >>> [len(c) for c in chunks(cases, seconds=1.0)], [len(c) for c in chunks(cases, seconds=0.0)][:3]
        ([16], [1, 1, 1])
    """
    grouped: list[tuple[Case, ...]] = []
    current: list[Case] = []
    load = 0.0
    for case in cases:
        current.append(case)
        load += estimate(case, durations)
        if load >= seconds:
            grouped.append(tuple(current))
            current, load = [], 0.0
    if current:
        grouped.append(tuple(current))
    return grouped


def _ignore_interrupts() -> None:
    # Ctrl-C reaches the whole process group: the parent stops the sweep and reports; workers just stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _process_pool(jobs: int) -> ProcessPoolExecutor:
    # spawn: a worker imports minigrad and the spec modules itself, as a Dask worker does (no fork of a threaded parent)
    return ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupts)


def _died(case: Case, error: BaseException) -> CaseResult:
    detail = f"{type(error).__name__}: {error}".strip()
    return CaseResult(case.op, case.backend, case.dtype, case.check, "error", seed=case.seed,
                      message=f"the worker process running this case died ({detail}); a crash in C code, os._exit "
                              "or the out-of-memory killer ends a process without a Python error")


def run_cases(cases: Sequence[Case], *, jobs: int = 1, executor: Executor | None = None,
              durations: Mapping[DurationKey, float] | None = None) -> Iterator[tuple[Case, CaseResult]]:
    """Run ``cases``; yields ``(case, result)`` as each finishes (in plan order only when serial).

    Args:
        cases: from ``sweep_plan.plan_cases`` (or ``shard``).
        jobs: with no executor, 1 runs here and N > 1 runs in N worker
            processes; with an executor, up to ``2 * jobs`` chunks are in flight.
        executor: any ``concurrent.futures.Executor`` (a Dask ``Client``'s
            ``get_executor()``, a ``ThreadPoolExecutor``, ...); its workers must be
            able to import minigrad and the spec modules. It is not shut down.
        durations: recorded case durations (``sweep_plan.read_durations``), to size chunks.

    Stopping the iteration early (``--fail-fast``, Ctrl-C) cancels what has
    not started and waits for the chunks in flight (about ``CHUNK_SECONDS`` each).
    """
    if jobs < 1:
        raise ValueError(f"run_cases: jobs must be >= 1, got {jobs}")
    if executor is None and jobs == 1:
        with _cupy_simulator(cases):
            for case in cases:
                yield case, run_one(case)
        return
    yield from _Scheduler(cases, jobs, executor, durations).run()


class _Scheduler:
    """Keeps a window of chunks in flight on an executor; isolates the case that kills a worker process."""

    def __init__(self, cases: Sequence[Case], jobs: int, executor: Executor | None,
                 durations: Mapping[DurationKey, float] | None) -> None:
        self.own_pool = executor is None
        self.executor = _process_pool(jobs) if executor is None else executor
        self.window = 2 * jobs
        self.queue: deque[tuple[Case, ...]] = deque(chunks(cases, durations))
        self.suspects: deque[Case] = deque()  # cases in flight when a worker died: rerun alone to find the culprit
        self.in_flight: dict[Future[list[CaseResult]], tuple[tuple[Case, ...], bool]] = {}

    def run(self) -> Iterator[tuple[Case, CaseResult]]:
        try:
            while self.queue or self.suspects or self.in_flight:
                self._fill()
                done, _ = wait(self.in_flight, return_when=FIRST_COMPLETED)
                for future in done:
                    yield from self._collect(future)
        finally:
            stopped_early = bool(self.queue or self.suspects or self.in_flight)
            for future in self.in_flight:
                future.cancel()
            if self.own_pool:
                if stopped_early:  # Ctrl-C or --fail-fast: what runs now is not wanted; a hung case must not hang us
                    _terminate_workers(self.executor)
                self.executor.shutdown(wait=True, cancel_futures=True)

    def _fill(self) -> None:
        if self.suspects:  # one at a time, so that a death names its case
            if not self.in_flight:
                self._submit((self.suspects.popleft(),), alone=True)
            return
        while self.queue and len(self.in_flight) < self.window:
            self._submit(self.queue.popleft(), alone=False)

    def _submit(self, chunk: tuple[Case, ...], alone: bool) -> None:
        self.in_flight[self.executor.submit(run_chunk, chunk)] = (chunk, alone)

    def _collect(self, future: Future[list[CaseResult]]) -> Iterator[tuple[Case, CaseResult]]:
        if future not in self.in_flight:  # already collected while restarting a broken pool
            return
        chunk, alone = self.in_flight.pop(future)
        try:
            results = future.result()
        except Exception as error:  # a dead worker (BrokenProcessPool, Dask's KilledWorker) or a lost connection
            if alone:
                yield chunk[0], _died(chunk[0], error)
            else:  # a death fails every case near it: rerun them alone, so that only the guilty one is blamed
                self.suspects.extend(chunk)
            if isinstance(error, BrokenProcessPool):
                yield from self._restart_pool()
        else:
            yield from zip(chunk, results)

    def _restart_pool(self) -> Iterator[tuple[Case, CaseResult]]:
        """The pool is broken: keep what finished, suspect the rest, start a fresh pool."""
        for future, (chunk, _) in list(self.in_flight.items()):
            try:
                yield from zip(chunk, future.result())
            except Exception:
                self.suspects.extend(chunk)
        self.in_flight.clear()
        self.executor.shutdown(wait=True)
        self.executor = _process_pool(self.window // 2)


def _terminate_workers(pool: ProcessPoolExecutor) -> None:
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    processes = getattr(pool, "_processes", None) or {}  # before Python 3.14: the pool's private table
    for process in list(processes.values()):
        process.terminate()


class DaskUnavailable(RuntimeError):
    """``--executor dask://...`` cannot be used: the extra is missing, or the scheduler is unreachable."""


DASK_CONNECT_SECONDS = 10.0  # how long --executor waits for a scheduler to answer


def connect_dask(address: str, timeout: float | None = None) -> tuple[Any, Executor, int]:
    """Connect to a Dask scheduler: ``(client, executor, worker threads)``; close the client when done.

    ``address`` is ``dask://HOST:PORT`` (or ``tcp://HOST:PORT``).

    Raises:
        DaskUnavailable: ``distributed`` is not installed (``pip install minigrad[distributed]``),
            the address is malformed, or no scheduler answers within ``timeout`` seconds
            (default ``DASK_CONNECT_SECONDS``).
    """
    timeout = DASK_CONNECT_SECONDS if timeout is None else timeout
    if not address.startswith(("dask://", "tcp://")) or ":" not in address.split("://", 1)[1]:
        raise DaskUnavailable(f"--executor {address!r}: expected dask://HOST:PORT")
    try:
        from distributed import Client
    except ImportError:
        raise DaskUnavailable("--executor dask://... needs Dask distributed: pip install 'minigrad[distributed]'") \
            from None
    scheduler = "tcp://" + address.split("://", 1)[1]
    try:
        client = Client(scheduler, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise DaskUnavailable(f"--executor {address}: no Dask scheduler answers at {scheduler} "
                              f"({type(error).__name__}: {error})") from None
    threads = sum(client.nthreads().values()) or 1
    return client, client.get_executor(pure=False), threads
