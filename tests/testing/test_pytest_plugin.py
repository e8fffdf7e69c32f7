"""Under pytest a failing check shows the report and the test's own frames, not minigrad's (the plugin).

The example is a new user's test module: a dense+tanh layer and a softplus with
planted bugs, checked through check_backward, check_double_backward,
FunctionTestCase, LinkTestCase and op_tests (six failures). Each runs in a
pytest subprocess on a copy written to a temporary directory; the report of
each failure is counted in lines (before the plugin hid minigrad's frames: 982
lines for the six, about 160 of them minigrad's checker source per failure).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

MAX_LINES_PER_FAILURE = 20

SIX_FAILURES = '''
"""A new user's test module: a dense+tanh layer and a softplus, each with a planted bug (six failures)."""

import numpy as np

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import FunctionTestCase, LinkTestCase, OpSpec, check_backward, check_double_backward, op_tests


class DenseTanh(mg.FunctionNode):
    """tanh(x @ W.T + b); the gradient of W misses a transpose."""

    def forward(self, inputs):
        x, W, b = inputs
        self.retain_inputs((0, 1))
        y = np.tanh(x @ W.T + b)
        self.retain_outputs((0,))
        return y,

    def backward(self, indexes, grad_outputs):
        x, W = self.get_retained_inputs()
        y, = self.get_retained_outputs()
        gz = grad_outputs[0] * (1 - y * y)
        return F.matmul(gz, W), F.matmul(x, gz, transa=True), F.sum(gz, axis=0)


def dense_tanh(x, W, b):
    return DenseTanh().apply((x, W, b))[0]


class Softplus(mg.FunctionNode):
    """log(1 + exp(x)); backward works on raw arrays, so there is no second derivative."""

    def forward(self, inputs):
        x, = inputs
        self.retain_inputs((0,))
        return np.logaddexp(0, x),

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return mg.Variable(grad_outputs[0].array / (1 + np.exp(-x.array))),


def softplus(x):
    return Softplus().apply((x,))[0]


class ScaledSoftplus(Softplus):
    """Its gradient is twice too large."""

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * grad_outputs[0] * F.sigmoid(x),


class Dense(mg.Link):
    def __init__(self, n):
        super().__init__()
        with self.init_scope():
            self.W = mg.Parameter(np.random.default_rng(0).uniform(-1, 1, (n, n)))
            self.b = mg.Parameter(np.zeros(n))

    def forward(self, x):
        return dense_tanh(x, self.W, self.b)


rng = np.random.default_rng(0)
x, W, b, gy = rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, (2, 3))


def test_dense_backward():
    check_backward(dense_tanh, (x, W, b), gy)


def test_dense_double_backward():
    check_double_backward(dense_tanh, (x, W, b), gy, (x, W, b))


def test_softplus_double_backward():
    check_double_backward(softplus, x, gy, x)


class TestScaledSoftplus(FunctionTestCase):
    dtypes = ("float64",)
    skip_double_backward_test = True

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype),

    def forward(self, inputs, device):
        return ScaledSoftplus().apply(inputs)[0]

    def forward_expected(self, inputs):
        return np.logaddexp(0, inputs[0]),


class TestDense(LinkTestCase):
    dtypes = (np.float64,)
    skip_double_backward_test = True

    def create_link(self, initializers):
        return Dense(3)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (2, 3)),

    def forward_expected(self, link, inputs):
        return np.tanh(inputs[0] @ link.W.array.T + link.b.array),


test_ops = op_tests(OpSpec("scaled_softplus", lambda x: ScaledSoftplus().apply((x,))[0],
                           lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), lambda x: np.logaddexp(0, x)),
                    checks=("backward",), dtypes=("float64",))
'''

CRASHES = '''
import numpy as np

import minigrad as mg
from minigrad.testing import OpSpec, check_backward, op_tests


class WrongShapes(mg.FunctionNode):
    def forward(self, inputs):
        x, = inputs
        return x @ np.ones((4, 2)),  # the user's own mistake: x is (2, 3)


def test_the_users_forward_fails():
    check_backward(lambda x: WrongShapes().apply((x,))[0], np.ones((2, 3)), np.ones((2, 2)))


def test_minigrad_itself_crashes(monkeypatch):
    import minigrad.backend

    monkeypatch.setattr(minigrad.backend, "get_array_module", None)  # breaks minigrad's own code
    check_backward(lambda x: x * 2.0, np.ones(3), np.ones(3))


test_ops = op_tests(OpSpec("wrong_shapes", lambda x: WrongShapes().apply((x,))[0],
                           lambda rng, dt: (np.ones((2, 3), dt),)), checks=("forward",), dtypes=("float64",))
'''


def _pytest(tmp_path, source, *args, env=None):
    (tmp_path / "test_example.py").write_text(source)
    environment = {key: value for key, value in os.environ.items() if key != "MINIGRAD_FULL_TRACEBACK"}
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--minigrad-backend", "numpy",
                           "-p", "no:randomly", "test_example.py", *args], capture_output=True, text=True,
                          cwd=tmp_path, env={**environment, **(env or {})}, timeout=300).stdout


def _failures(output):
    """{test name: the lines of its failure report}."""
    sections, name = {}, None
    for line in output.splitlines():
        header = re.fullmatch(r"_{3,} (.+?) _{3,}", line)
        if header:
            name = header.group(1)
            sections[name] = [line]
        elif line.startswith("=") and name is not None:
            name = None
        elif name is not None:
            sections[name].append(line)
    return sections


@pytest.fixture(scope="module")
def six_failures(tmp_path_factory):
    output = _pytest(tmp_path_factory.mktemp("six"), SIX_FAILURES)
    return output, _failures(output)


def test_six_failures_take_at_most_20_lines_each(six_failures):
    output, failures = six_failures
    assert "6 failed, 8 passed, 6 skipped" in output, output  # the test classes run the whole battery
    assert len(failures) == 6, list(failures)
    lengths = {name: len(lines) for name, lines in failures.items()}
    assert max(lengths.values()) <= MAX_LINES_PER_FAILURE, lengths


EXPECTED_HINTS = {
    "test_dense_backward": "x_data[1] looks transposed",
    "test_dense_double_backward": None,  # the second order of a missing transpose: no simple hint
    "test_softplus_double_backward": "backprop gave no gradient (or zero) for x_data[0], y_grad[0] and no graph "
                                     "was recorded",
    "TestScaledSoftplus.test_backward[float64-numpy]": "x_data[0] looks scaled by about 2.0",
    "TestDense.test_backward[float64-numpy]": "params[0] ('W') looks transposed",
    "test_ops[scaled_softplus-float64-numpy-backward]": "x_data[0] looks scaled by about 2.0",
}


@pytest.mark.parametrize("test", EXPECTED_HINTS)
def test_each_failure_shows_the_report_and_its_hint_first(six_failures, test):
    report = "\n".join(six_failures[1][test])
    assert "backprop disagrees with the numerical derivative for" in report and "reproduce with seed=" in report
    hints = re.findall(r"hint: (.*)", report)
    if EXPECTED_HINTS[test] is None:
        assert hints == []
    else:
        assert len(hints) == 1 and hints[0].startswith(EXPECTED_HINTS[test]), hints
        lines = report.splitlines()
        assert next(i for i, line in enumerate(lines) if "hint:" in line) == \
            next(i for i, line in enumerate(lines) if "backprop disagrees" in line) + 1  # the answer first


def test_minigrads_frames_are_hidden_and_the_tests_own_are_shown(six_failures):
    output, failures = six_failures
    assert not re.search(r"minigrad[/\\][\w/\\]*\.py:\d+", output), "a minigrad frame is shown"
    for test, call in (("test_dense_backward", "check_backward(dense_tanh, (x, W, b), gy)"),
                       ("test_softplus_double_backward", "check_double_backward(softplus, x, gy, x)")):
        report = "\n".join(failures[test])
        assert f">       {call}" in report and re.search(r"test_example\.py:\d+: GradientCheckError", report)


def test_minigrad_full_traceback_shows_minigrads_frames(tmp_path):
    output = _pytest(tmp_path, SIX_FAILURES, "-k", "test_dense_backward", env={"MINIGRAD_FULL_TRACEBACK": "1"})
    assert "1 failed" in output and re.search(r"minigrad[/\\]testing[/\\]gradient_check\.py:\d+", output)


def test_the_users_own_error_shows_their_frames_and_a_minigrad_crash_shows_minigrads(tmp_path):
    failures = _failures(_pytest(tmp_path, CRASHES))
    users = "\n".join(failures["test_the_users_forward_fails"])
    assert "return x @ np.ones((4, 2))" in users and "ValueError" in users
    assert not re.search(r"minigrad[/\\][\w/\\]*\.py:\d+", users), users
    crash = "\n".join(failures["test_minigrad_itself_crashes"])
    assert "TypeError" in crash and re.search(r"minigrad[/\\][\w/\\]*\.py:\d+", crash), crash
    op_case = "\n".join(failures["test_ops[wrong_shapes-float64-numpy-forward]"])  # op_tests keeps it as text
    assert "return x @ np.ones((4, 2))" in op_case and 'test_example.py", line' in op_case
    assert not re.search(r"minigrad[/\\][\w/\\]*\.py", op_case), op_case
