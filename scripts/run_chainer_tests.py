"""Run Chainer 7's own op and layer tests against minigrad, and against Chainer itself for the baseline.

Usage (a Chainer source checkout and a Python with Chainer 7.8.1 installed)::

    git --git-dir=<chainer.git> archive v7.8.1 tests | tar -x -C /tmp/chainer-src
    python scripts/run_chainer_tests.py --chainer-src /tmp/chainer-src \\
        --chainer-python /work/venvs/chainer/bin/python \\
        [--dirs functions_tests/math_tests links_tests ...] [--json out.json]

What it does, in order:

1. copies the selected test directories (default: ``functions_tests``,
   ``links_tests``, ``optimizers_tests``, ``initializer_tests``,
   ``serializers_tests`` under ``tests/chainer_tests``) into two trees in a
   scratch folder, never into this repository: one as it is, for Chainer, and
   one with its imports rewritten to minigrad (``chainer`` -> ``minigrad``,
   ``chainer.gradient_check`` -> ``minigrad.testing.gradient_check``,
   ``chainer.links.connection`` (and Chainer's other link groups) ->
   ``minigrad.links``, whose link modules are not grouped;
   ``chainer.testing`` -> minigrad.testing where it has the name, else a
   small harness module that supplies the pure test machinery minigrad does
   not ship: ``attr`` marks, ``condition.retry``, ``fix_random``,
   ``assert_warns``, ``patch``, ``with_requires``, ``product_dict``; ``chainer.cuda`` ->
   ``minigrad.backends.cuda``; ``chainerx`` -> a stub that says
   it is unavailable; ``type_check.InvalidType`` -> ``(TypeError, ValueError)``,
   the errors minigrad raises for bad input; ``six`` -> its Python 3 half,
   for the tests that still import it);
2. runs both with pytest, deselecting tests marked ``gpu``, ``cudnn``,
   ``chainerx``, ``ideep``, ``multi_gpu`` and the backend configurations that
   use CUDA, ChainerX or iDeep; each test's outcome and first error line are
   recorded by a small plugin;
3. matches the tests by file, class (Chainer's backend part of the class name
   removed; ``_param_<i>`` kept) and method (pytest's ``[...]`` removed:
   minigrad's FunctionTestCase runs one item per backend and dtype, and the
   key passes when all of them do), keeps those that pass on Chainer, and
   classifies every minigrad failure among them: missing name, reads
   Chainer's private internals (an underscore name, one of Chainer's
   FunctionNode classes, an attribute of a node), missing keyword or
   feature, mixed input dtypes, value difference, gradient check, error or
   message difference, dtype difference, deliberate difference
   (docs/reference/differences-from-chainer.rst), other;
4. prints, per directory, the tests selected, passed on Chainer and passed on
   minigrad, the classification, and the most frequent missing names.

Chainer's ``setup.cfg`` turns every warning into an error; neither run does
(NumPy 1.26 and Python 3.11 warn where Chainer 7.8.1's tests never expected it).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DIRECTORIES = ("functions_tests", "links_tests", "optimizers_tests", "initializer_tests", "serializers_tests")
MARKERS = ("gpu", "cudnn", "slow", "ideep", "chainerx", "multi_gpu")
DESELECT = "not gpu and not cudnn and not chainerx and not ideep and not multi_gpu"

# tests (a regular expression searched in the test id) whose minigrad failures are deliberate differences, with the
# reason; docs/reference/differences-from-chainer.rst says more, and minigrad's tests hold each
DELIBERATE = {
    r"loss_tests/test_contrastive\.py": "contrastive at zero distance: minigrad's checker refuses the kink",
    r"math_tests/test_sparse_matmul\.py::TestCooMatMul": "a node is applied once: the test applies one CooMatMul "
                                                          "node at every evaluation of check_backward",
    r"math_tests/test_basic_math\.py::TestLabel|math_tests/test_trigonometric\.py::.*::test_label":
        "a node's label is its class name",
    r"pooling_tests/test_unpooling_nd\.py::TestUnpoolingND_param_\d+_\{_ksize=1, _pad=1,":
        "no empty result from a geometry: unpooling to an axis of size 0 is refused",
    r"util_tests/test_forget\.py::TestForgetError::test_invalid_(tuple_)?type": "forget needs an input",
    r"serializers_tests/test_npz\.py::TestLoadNpz": "loading checks everything before it writes (two serialize "
                                                    "walks), and strict=True refuses entries the target lacks",
    r"serializers_tests/test_npz\.py::TestGroupHierachy.*::test_save_optimizer":
        "an update without a gradient is no step: the optimizer has no state to save yet",
    r"serializers_tests/test_npz\.py::(TestNpzDeserializer.*::test_deserialize_(none|by_passing_array)|"
    r"TestDictionarySerializer::test_serialize_none)": "minigrad never pickles: None is not written, an object "
                                                        "array is refused",
    r"rnn_tests/test_link_gru\.py::InvalidCallOfGRU|connection_tests/test_(bias|scale)\.py::Test\w+InvalidArgc":
        "a wrong number of arguments is a TypeError",
    r"rnn_tests/test_link_lstm\.py::TestLSTMState::test_set_state": "set_state checks the state's shape",
    r"connection_tests/test_inceptionbn\.py::TestInceptionBNInvalid|optimizers_tests/test_optimizers\.py::"
    r"TestOptimizerHyperparameter|connection_tests/test_(bias|scale)\.py::Test\w+InvalidShape|"
    r"connection_tests/test_bilinear\.py::InvalidInitialParameter|test_group_normalization\.py::TestInvalidInitialize|"
    r"rnn_tests/test_link_lstm\.py::TestLSTMInvalidSize":
        "bad input is a TypeError or ValueError (Chainer asserts, or raises NotImplementedError)",
    r"normalization_tests/test_batch_normalization\.py::TestFailChannalSizeInference":
        "BatchNormalization() learns its size from the first input",
    r"optimizers_tests/test_optimizers\.py::TestAllOptimizersCoverage":
        "minigrad.optimizers also holds the base class Optimizer",
    r"(rnn_tests/test_link_tree_lstm|connection_tests/test_(bilinear|deformable_convolution_2d))\.py::.*_backward|"
    r"normalization_tests/test_decorrelated_batch_normalization\.py::TestFixed.*::test_backward":
        "the gradient checker keeps the ops' argument checks on: float64 inputs or params beside float32 ones that "
        "the op needs in one dtype are refused",
}

# --- the pieces written next to the rewritten tests -------------------------------------------------

CONFTEST = '''
import json, os, re, pytest

_NON_CPU = re.compile(r"use_cuda_true|use_chainerx_true|use_ideep_always|use_ideep_auto")
_LOG = os.environ["CHAINER_TESTS_LOG"]


def pytest_configure(config):
    for name in {markers!r}:
        config.addinivalue_line("markers", name)


def pytest_collection_modifyitems(config, items):
    kept, dropped = [], []
    for item in items:
        (dropped if _NON_CPU.search(item.nodeid) else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def _write(record):
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\\n")


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message[:600]
    text = str(report.longrepr)
    lines = [line for line in text.splitlines() if line.startswith("E ")] or text.splitlines()[-1:]
    return " | ".join(lines[:4])[:600]


def pytest_collectreport(report):
    if report.failed:
        _write({{"collect_error": report.nodeid, "message": _message(report)}})


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        record = {{"nodeid": report.nodeid, "when": report.when, "outcome": report.outcome}}
        if report.failed:
            record["message"] = _message(report)
        _write(record)
'''

HARNESS = '''"""Chainer's test machinery for the rewritten tests: minigrad.testing where it has the name, else this."""
import contextlib
import functools
import importlib.util
import inspect
import random
import re
import types
import unittest
import warnings
from unittest import mock

import numpy
import pytest

import minigrad
import minigrad.testing as _mt
from minigrad.testing import *  # noqa: F401,F403

assert_allclose = _mt.assert_allclose

# ``from chainer import utils; utils.type_check.InvalidType``: the runner's type_check stand-in
import minigrad.utils as _minigrad_utils  # noqa: E402
import _chainer_type_check  # noqa: E402
_minigrad_utils.type_check = _chainer_type_check

# minigrad's FunctionTestCase also runs a determinism and a views check per case; Chainer's tests have no such
# items, so the runner leaves them out (they would only cost time)
_mt.FunctionTestCase.skip_deterministic_test = True
_mt.FunctionTestCase.skip_views_test = True
assert_array_equal = numpy.testing.assert_array_equal
assert_almost_equal = numpy.testing.assert_almost_equal
assert_equal = numpy.testing.assert_equal
assert_array_less = numpy.testing.assert_array_less


def run_module(name, file):
    pass


attr = types.SimpleNamespace(gpu=pytest.mark.gpu, cudnn=pytest.mark.cudnn, slow=pytest.mark.slow,
                             ideep=pytest.mark.ideep, chainerx=pytest.mark.chainerx,
                             multi_gpu=lambda n: pytest.mark.multi_gpu)


def _retry(times):
    def decorate(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return f(*args, **kwargs)
                except Exception:
                    if attempt == times - 1:
                        raise
        return wrapper
    return decorate


def _repeat_with_success_at_least(times, min_success):
    return _retry(times - min_success + 1)


condition = types.SimpleNamespace(retry=_retry, repeat=lambda times: (lambda f: f),
                                  repeat_with_success_at_least=_repeat_with_success_at_least)


def _seeded(f):
    @functools.wraps(f)
    def wrapper(*args, **kwargs):
        numpy.random.seed(0)
        random.seed(0)
        return f(*args, **kwargs)
    return wrapper


def fix_random(*, setup_method="setUp", teardown_method="tearDown"):
    """Seed NumPy's and Python's generators before set-up (a class) or before the test (a method)."""
    def decorate(target):
        if not isinstance(target, type):
            return _seeded(target)
        setup = getattr(target, setup_method, None)
        if setup is None:
            setattr(target, setup_method, _seeded(lambda self: None))
        else:
            setattr(target, setup_method, _seeded(setup))
        return target
    return decorate


if not hasattr(_mt, "product_dict"):
    def product_dict(*parameters):
        import itertools
        return [dict(kv for d in ds for kv in d.items()) for ds in itertools.product(*parameters)]


@contextlib.contextmanager
def assert_warns(expected):
    with pytest.warns(expected):
        yield


def patch(target, *args, **kwargs):
    return mock.patch(target, *args, **kwargs)


def _requirements_met(requirements):
    for requirement in requirements:
        name = re.split(r"[<>=!]", requirement)[0]
        try:
            importlib.import_module(name)
        except ImportError:
            return False
    return True


def with_requires(*requirements):
    return unittest.skipUnless(_requirements_met(requirements), f"requires {requirements}")


def without_requires(*requirements):
    return unittest.skipIf(_requirements_met(requirements), f"{requirements} installed")


backend = types.SimpleNamespace(BackendConfig=_mt.BackendConfig, inject_backend_tests=_mt.inject_backend_tests)


def _as_noncontiguous_array(a):
    """The same values in an array that is not C-contiguous (every other element of a wider one)."""
    if a is None:
        return None
    if isinstance(a, (list, tuple)):
        return type(a)(_as_noncontiguous_array(x) for x in a)
    xp = minigrad.backend.get_array_module(a)
    wide = xp.empty(a.shape[:-1] + (a.shape[-1] * 2,) if a.ndim else (2,), dtype=a.dtype)
    view = wide[..., ::2] if a.ndim else wide[::2].reshape(())
    view[...] = a
    return view


array = types.SimpleNamespace(assert_allclose=_mt.assert_allclose, _as_noncontiguous_array=_as_noncontiguous_array)
'''

SIX_STUB = '''"""six, for Chainer's tests only (minigrad itself never imports it): the Python 3 half."""
import functools
import io
import pickle
import sys
import types

PY2, PY3 = False, True
integer_types, string_types, text_type, binary_type = (int,), (str,), str, bytes
BytesIO, StringIO = io.BytesIO, io.StringIO
moves = types.ModuleType("six.moves")
moves.range, moves.zip, moves.map, moves.filter, moves.xrange = range, zip, map, filter, range
moves.reduce, moves.cPickle = functools.reduce, pickle
sys.modules["six.moves"] = moves
sys.modules["six.moves.cPickle"] = pickle


def iteritems(d, **kw):
    return iter(d.items(**kw))


def itervalues(d, **kw):
    return iter(d.values(**kw))


def iterkeys(d, **kw):
    return iter(d.keys(**kw))


def assertRaisesRegex(self, *args, **kwargs):  # noqa: N802
    return self.assertRaisesRegex(*args, **kwargs)


def assertRegex(self, *args, **kwargs):  # noqa: N802
    return self.assertRegex(*args, **kwargs)
'''

CHAINERX_STUB = '''"""chainerx, unavailable, for the rewritten tests."""


def is_available():
    return False


class ndarray:
    pass
'''

TYPE_CHECK_STUB = '''"""chainer.utils.type_check for the rewritten tests: minigrad refuses bad input with a
TypeError or ValueError naming the argument, not Chainer's InvalidType."""
InvalidType = (TypeError, ValueError)
'''


# --- rewriting the imports ---------------------------------------------------------------------------

_SPECIAL_MODULES = {
    "chainer.testing": "_chainer_testing",
    "chainer.backends.cuda": "minigrad.backends.cuda",
    "chainer.cuda": "minigrad.backends.cuda",
    "chainer.gradient_check": "minigrad.testing.gradient_check",
    "chainer.utils.type_check": "_chainer_type_check",
}
# Chainer groups its link modules (links/connection/linear.py); minigrad's are flat (links/linear.py)
_FLATTENED = tuple(f"chainer.links.{group}" for group in ("connection", "activation", "normalization", "loss"))
_SPECIAL_NAMES = {  # from chainer[.x] import name
    ("chainer", "testing"): "_chainer_testing",
    ("chainer", "cuda"): "minigrad.backends.cuda",
    ("chainer.backends", "cuda"): "minigrad.backends.cuda",
    ("chainer", "gradient_check"): "minigrad.testing.gradient_check",
    ("chainer.utils", "type_check"): "_chainer_type_check",
    ("chainer.utils", "collections_abc"): "collections.abc",  # (Chainer's Python 2 shim)
    ("chainer", "basic_math"): "minigrad.functions.math.basic_math",  # (where Variable's operators are defined)
}
_FROM = re.compile(r"^(?P<indent>\s*)from (?P<module>chainer(?:\.[\w.]+)?) import (?P<names>.+)$")
_IMPORT = re.compile(r"^(?P<indent>\s*)import (?P<module>chainer(?:\.[\w.]+)?)(?: as (?P<alias>\w+))?\s*$")


def _module(name: str) -> str:
    for prefix, target in _SPECIAL_MODULES.items():
        if name == prefix or name.startswith(prefix + "."):
            return target
    for group in _FLATTENED:
        if name == group or name.startswith(group + "."):
            return "minigrad.links" + name[len(group):]
    return "minigrad" + name[len("chainer"):]


def _rewrite_from(match: re.Match) -> str:
    indent, module, names = match["indent"], match["module"], match["names"].strip()
    if names.startswith("(") or names.endswith("\\"):
        return f"{indent}from {_module(module)} import {names}"  # multi-line: the first line's module only
    lines = []
    for part in names.split(","):
        name, _, alias = part.strip().partition(" as ")
        alias = alias.strip() or name
        target = _SPECIAL_NAMES.get((module, name))
        if target is not None:
            lines.append(f"{indent}import {target} as {alias}")
        elif module.startswith("chainer.testing"):
            lines.append(f"{indent}from _chainer_testing import {name} as {alias}")
        else:
            lines.append(f"{indent}from {_module(module)} import {name} as {alias}")
    return "\n".join(lines)


_ATTRIBUTES = (  # chainer.<module>. used in code after ``import chainer``
    ("chainer.testing.", "_chainer_testing."),
    ("chainer.backends.cuda.", "minigrad.backends.cuda."),
    ("chainer.cuda.", "minigrad.backends.cuda."),
    ("chainer.gradient_check.", "minigrad.testing.gradient_check."),
    ("chainer.utils.type_check.", "_chainer_type_check."),
)
_HEADER = ("import _chainer_testing, _chainer_type_check, minigrad.backends.cuda, "
           "minigrad.testing.gradient_check  # runner")


def rewrite(source: str) -> str:
    """Chainer's imports in ``source`` turned into minigrad's (and the harness's)."""
    out = []
    header_at = None
    for line in source.splitlines():
        if header_at is None and re.match(r"(import|from) (?!__future__)", line):
            header_at = len(out)
        if re.match(r"\s*import mock\s*$", line):
            out.append(line.replace("import mock", "from unittest import mock"))
            continue
        match = _FROM.match(line)
        if match:
            out.append(_rewrite_from(match))
            continue
        match = _IMPORT.match(line)
        if match:
            indent, module, alias = match["indent"], match["module"], match["alias"]
            if alias:
                out.append(f"{indent}import {_module(module)} as {alias}")
            elif module == "chainer":
                out.append(f"{indent}import minigrad as chainer")
            else:
                out.append(f"{indent}import {_module(module)}; import minigrad as chainer")
            continue
        for old, new in _ATTRIBUTES:
            line = re.sub(r"(?<![\w.])" + re.escape(old), new, line)
        out.append(re.sub(r"""(['"])chainer\.""", r"\1minigrad.", line))  # mock.patch targets
    if header_at is not None:
        out.insert(header_at, _HEADER)
    return "\n".join(out) + "\n"


# --- preparing and running the two trees -------------------------------------------------------------

def prepare(src: Path, dirs: list[str], root: Path, for_minigrad: bool) -> None:
    tests = src / "tests" / "chainer_tests"
    package = root / "chainer_tests"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for d in dirs:
        source = tests / d
        target = package / d
        if source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, target)
        else:
            shutil.copytree(source, target)
        for parent in list(target.parents)[:len(Path(d).parts)]:  # packages on the way down
            init = tests / parent.relative_to(package) / "__init__.py"
            if init.exists() and not (parent / "__init__.py").exists():
                shutil.copy(init, parent / "__init__.py")
    (root / "conftest.py").write_text(CONFTEST.format(markers=MARKERS))
    (root / "pytest.ini").write_text("[pytest]\naddopts = -p no:cacheprovider\n")
    if for_minigrad:
        for path in package.rglob("*.py"):
            path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")
        (root / "_chainer_testing.py").write_text(HARNESS)
        (root / "chainerx.py").write_text(CHAINERX_STUB)
        (root / "_chainer_type_check.py").write_text(TYPE_CHECK_STUB)
        (root / "six.py").write_text(SIX_STUB)


def run(python: str, root: Path, timeout: int, label: str) -> list[dict]:
    """Run the tree's tests in one pytest process: pytest-xdist's workers collect Chainer's parameterized test
    classes in different orders and refuse to run them (on both sides)."""
    log = root / "outcomes.jsonl"
    env = dict(os.environ, CHAINER_TESTS_LOG=str(log), PYTHONPATH=str(root), PYTHONHASHSEED="0")
    # --tb=no: the plugin records each failure's first line; printing every traceback took longer than the tests
    command = [python, "-m", "pytest", "-q", "--tb=no", "--continue-on-collection-errors", "-m", DESELECT,
               "chainer_tests"]
    print(f"[{label}] {' '.join(command)}  (in {root})", file=sys.stderr, flush=True)
    try:
        subprocess.run(command, cwd=root, env=env, timeout=timeout, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        print(f"[{label}] stopped after {timeout} s: the tests not run count as not passed", file=sys.stderr)
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


# --- matching and classifying ------------------------------------------------------------------------

_BACKEND = re.compile(r"_use_chainerx_\w+?_use_ideep_(?:never|always|auto)")


def _without_parameter_values(name: str) -> str:
    """``T_param_0_{shape=(2,)}_param_3_{kwargs={}}`` -> ``T_param_0_param_3``: each ``_{...}`` after a
    ``_param_<i>`` goes, braces inside the values balanced (stacked parameterize keeps every index)."""
    out, i = [], 0
    for match in re.finditer(r"_param_\d+_\{", name):
        if match.start() < i:
            continue
        out.append(name[i:match.end() - 2])
        depth, j = 1, match.end()
        while j < len(name) and depth:
            depth += {"{": 1, "}": -1}.get(name[j], 0)
            j += 1
        i = j
    return "".join(out) + name[i:]


def test_key(nodeid: str) -> str:
    """file::Class_param_i::method, the same on both sides (Chainer's ``test_forward_cpu`` is a
    FunctionTestCase's ``test_forward[numpy-...]``: the ``_cpu`` suffix goes)."""
    parts = nodeid.split("::")
    parts = [_BACKEND.sub("", p) for p in parts]
    parts = [_without_parameter_values(p) for p in parts]
    parts[-1] = re.sub(r"_cpu$", "", parts[-1].split("[", 1)[0])
    return "::".join(parts)


def outcomes(records: list[dict]) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """Per nodeid its outcome and failure message; per file the collection error."""
    result: dict[str, str] = {}
    messages: dict[str, str] = {}
    collect_errors: dict[str, str] = {}
    for r in records:
        if "collect_error" in r:
            collect_errors[r["collect_error"]] = r.get("message", "")
            continue
        previous = result.get(r["nodeid"])
        if r["outcome"] == "failed" or previous is None or previous == "passed":
            if previous != "failed":
                result[r["nodeid"]] = r["outcome"]
        if r["outcome"] == "failed" and r["nodeid"] not in messages:
            messages[r["nodeid"]] = r.get("message", "")
    return result, messages, collect_errors


_MISSING = re.compile(r"has no attribute '(\w+)'|cannot import name '(\w+)'|No module named '([\w.]+)'")
_NODE_ATTRIBUTE = re.compile(r"'(\w+)' object has no attribute '\w+'")
_CLASS = re.compile(r"^class (\w+)\(([\w., ]*)\)", re.MULTILINE)
PRIVATE = "reads Chainer's private internals"


def chainer_node_classes(src: Path) -> frozenset[str]:
    """The names of Chainer's FunctionNode (and old-style Function) classes: its functions' implementation
    (``einsum.DiagEinSum``, ``lstm.LSTMGrad``), not its API, which is the functions (``F.einsum``)."""
    bases = {name: {base.strip().split(".")[-1] for base in parents.split(",")}
             for path in sorted((src / "chainer" / "functions").rglob("*.py"))
             for name, parents in _CLASS.findall(path.read_text(encoding="utf-8"))}
    nodes = {"FunctionNode", "Function"}
    while True:  # a subclass of a node class is one too (einsum's DiagEinSum(EinSum))
        more = {name for name, parents in bases.items() if parents & nodes} - nodes
        if not more:
            return frozenset(nodes - {"FunctionNode", "Function"})
        nodes |= more


def classify(message: str, nodeid: str, chainer_nodes: frozenset[str] = frozenset()) -> tuple[str, str | None]:
    """(class, missing name or None) of a minigrad failure; ``chainer_nodes``: :func:`chainer_node_classes`.

    A test that reads an underscore name, one of Chainer's node classes, or an attribute of a node
    (``y.creator.mask``) reads Chainer's private internals: not a name minigrad is missing."""
    for pattern, _reason in DELIBERATE.items():
        if re.search(pattern, nodeid):
            return "deliberate difference", None
    node = _NODE_ATTRIBUTE.search(message)
    if node and node[1] in chainer_nodes:
        return PRIVATE, None
    if re.search(r"has dtype \w+, but \w+ has dtype|must have the same dtype", message):
        return "mixed input dtypes refused", None
    if "_chainer_testing" in message:
        return "Chainer test machinery the runner does not supply", None
    missing = _MISSING.search(message)
    if missing and ("minigrad" in message or "_chainer" in message or "module" in message or "Error" in message):
        name = next(g for g in missing.groups() if g)
        if name.startswith("_") or name in chainer_nodes:
            return PRIVATE, None
        return "missing name", name
    if "unexpected keyword" in message or "positional argument" in message or "NotImplementedError" in message:
        return "missing keyword or feature", None
    if re.search(r"dtype", message) and re.search(r"same dtype|must (all )?have|mixed|match", message):
        return "mixed input dtypes refused", None
    if "GradientCheckError" in message or "check_backward" in message or "check_double_backward" in message:
        return "gradient check differs", None
    if "Not equal to tolerance" in message or "Mismatched elements" in message or "not close" in message:
        return "value difference", None
    if "DID NOT RAISE" in message or "Regex pattern" in message or "not raised" in message \
            or "DID NOT WARN" in message:
        return "error or message difference", None
    if "dtype" in message:
        return "dtype difference", None
    return "other (a bug or a stricter check: triage)", None


def summarise(chainer_records: list[dict], minigrad_records: list[dict],
              chainer_nodes: frozenset[str] = frozenset()) -> dict:
    c_out, c_msg, c_collect = outcomes(chainer_records)
    m_out, m_msg, m_collect = outcomes(minigrad_records)
    by_key: dict[str, list[str]] = collections.defaultdict(list)
    for nodeid in m_out:
        by_key[test_key(nodeid)].append(nodeid)
    rows: dict[str, dict] = {}
    for nodeid, outcome in sorted(c_out.items()):
        directory = nodeid.split("/")[1] if nodeid.startswith("chainer_tests/") else nodeid.split("/")[0]
        row = rows.setdefault(directory, {"selected": 0, "passed on Chainer": 0, "passed on minigrad": 0,
                                          "failures": collections.Counter(), "missing": collections.Counter(),
                                          "examples": {}})
        row["selected"] += 1
        if outcome != "passed":
            continue
        row["passed on Chainer"] += 1
        key = test_key(nodeid)
        items = by_key.get(key, [])
        ran = [m_out[i] for i in items if m_out[i] != "skipped"]
        if ran and all(o == "passed" for o in ran):
            row["passed on minigrad"] += 1
            continue
        failed = [i for i in items if m_out[i] == "failed"]
        if failed:
            message = m_msg.get(failed[0], "")
        elif items:
            message = "skipped on minigrad"
        else:
            file = nodeid.split("::")[0]
            message = m_collect.get(file, "not collected on minigrad (a class or method it does not generate)")
        kind, name = classify(message, nodeid, chainer_nodes)
        row["failures"][kind] += 1
        if name:
            row["missing"][name] += 1
        row["examples"].setdefault(kind, f"{nodeid[:160]}: {message[:300]}")
    return rows


def report(rows: dict, top: int) -> None:
    total = collections.Counter()
    print(f"{'directory':<20} {'selected':>9} {'Chainer':>9} {'minigrad':>9} {'share':>7}")
    for directory, row in sorted(rows.items()):
        share = row["passed on minigrad"] / max(row["passed on Chainer"], 1)
        print(f"{directory:<20} {row['selected']:>9} {row['passed on Chainer']:>9} {row['passed on minigrad']:>9} "
              f"{share:>7.1%}")
        for name in ("selected", "passed on Chainer", "passed on minigrad"):
            total[name] += row[name]
    share = total["passed on minigrad"] / max(total["passed on Chainer"], 1)
    print(f"{'total':<20} {total['selected']:>9} {total['passed on Chainer']:>9} {total['passed on minigrad']:>9} "
          f"{share:>7.1%}")
    for directory, row in sorted(rows.items()):
        if not row["failures"]:
            continue
        print(f"\n{directory}: what fails on minigrad among the tests that pass on Chainer")
        for kind, n in row["failures"].most_common():
            print(f"  {n:>6}  {kind}")
            print(f"          e.g. {row['examples'][kind]}")
        if row["missing"]:
            names = ", ".join(f"{name} ({n})" for name, n in row["missing"].most_common(top))
            print(f"  missing names: {names}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chainer-src", required=True, type=Path, help="a Chainer source checkout (its tests/)")
    parser.add_argument("--chainer-python", help="a Python with Chainer 7 installed (omit to skip that run)")
    parser.add_argument("--python", default=sys.executable, help="the Python with minigrad installed")
    parser.add_argument("--dirs", nargs="*", default=list(DIRECTORIES),
                        help="directories or files under tests/chainer_tests (default: the five)")
    parser.add_argument("--timeout", type=int, default=7200, help="seconds for each of the two runs")
    parser.add_argument("--work", type=Path, help="scratch folder (default: a new temporary one)")
    parser.add_argument("--json", type=Path, help="also write the per-directory numbers here")
    parser.add_argument("--top", type=int, default=15, help="missing names shown per directory")
    parser.add_argument("--reuse-chainer", action="store_true",
                        help="read the Chainer run's outcomes left in --work by an earlier run instead of running it")
    args = parser.parse_args(argv)
    if not (args.chainer_src / "tests" / "chainer_tests").is_dir():
        parser.error(f"--chainer-src: {args.chainer_src}/tests/chainer_tests does not exist")
    work = args.work or Path(tempfile.mkdtemp(prefix="chainer-tests-"))
    shutil.rmtree(work / "minigrad", ignore_errors=True)
    prepare(args.chainer_src, args.dirs, work / "minigrad", for_minigrad=True)
    minigrad_records = run(args.python, work / "minigrad", args.timeout, "minigrad")
    if args.reuse_chainer:
        log = (work / "chainer" / "outcomes.jsonl").read_text(encoding="utf-8")
        chainer_records = [json.loads(line) for line in log.splitlines() if line.strip()]
        wanted = tuple(f"chainer_tests/{d}" for d in args.dirs)
        chainer_records = [r for r in chainer_records if r.get("nodeid", r.get("collect_error", "")).startswith(wanted)]
    elif args.chainer_python:
        shutil.rmtree(work / "chainer", ignore_errors=True)
        prepare(args.chainer_src, args.dirs, work / "chainer", for_minigrad=False)
        chainer_records = run(args.chainer_python, work / "chainer", args.timeout, "chainer")
    else:
        chainer_records = [dict(r, outcome="passed") for r in minigrad_records if "nodeid" in r]
        print("no --chainer-python: every minigrad test counts as passing on Chainer", file=sys.stderr)
    rows = summarise(chainer_records, minigrad_records, chainer_node_classes(args.chainer_src))
    report(rows, args.top)
    if args.json:
        args.json.write_text(json.dumps({d: {k: (dict(v) if isinstance(v, collections.Counter) else v)
                                             for k, v in row.items()} for d, row in rows.items()}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
