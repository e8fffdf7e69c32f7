"""GradientCheckReport at a REPL (one-line repr, readable str) and the order of the worst elements."""

from __future__ import annotations

import re

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import GradientCheckError, GradientCheckReport, check_backward

X = np.random.default_rng(0).uniform(-1, 1, (3, 4))
GY = np.random.default_rng(1).uniform(-1, 1, (3, 4))


def test_repr_is_one_short_line_with_the_verdict_margin_cost_and_seed():
    report = check_backward(F.tanh, X, GY, seed=7)
    text = repr(report)
    assert "\n" not in text and len(text) < 100, text
    assert re.fullmatch(r"GradientCheckReport\(passed=True, margin=[0-9.e+-]+, evaluations=\d+, seed=7\)", text)


def test_str_is_a_readable_summary_and_every_figure_stays_an_attribute():
    report = check_backward(F.tanh, X.astype(np.float32), GY.astype(np.float32), seed=7)
    lines = str(report).splitlines()
    assert lines[0].startswith("gradient check passed: margin ") and "seed=7" in lines[0]
    assert lines[1].startswith("  x_data[0] (shape (3, 4), float32): backprop ") and "along its own direction" in \
        lines[1]
    assert any(line.startswith("  precision of the low-precision gradients: margin ") for line in lines)
    assert lines[-2] == "  it would have caught, for each input:"
    assert lines[-1].startswith("    x_data[0]: an error above")
    assert report.passed and report.margin < 1 and report.evaluations > 0 and report.seed == 7
    assert report.numerical_dtype == "float64" and report.targets[0].name == "x_data[0]" and report.hints == []


class Scaled(mg.FunctionNode):
    def forward(self, inputs):
        self.retain_outputs((0,))
        return np.exp(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * y * 1.5,


def test_a_failed_reports_str_and_repr_say_so():
    with pytest.raises(GradientCheckError) as info:
        check_backward(lambda x: Scaled().apply((x,))[0], X, GY, seed=3)
    report = info.value.report
    assert repr(report).startswith("GradientCheckReport(passed=False, margin=")
    text = str(report)
    assert text.startswith("gradient check failed") and "  hint: x_data[0] looks scaled by about 1.5" in text


def test_worst_elements_come_by_absolute_error_with_the_ratio():
    with pytest.raises(GradientCheckError) as info:
        check_backward(lambda x: Scaled().apply((x,))[0], X, GY, seed=3)
    elements = re.findall(r"index \(\d+, \d+\): backprop (\S+), numerical (\S+), ratio (\S+) \(error (\S+),",
                          str(info.value))
    assert len(elements) == 3
    errors = [float(e[3]) for e in elements]
    assert errors == sorted(errors, reverse=True)
    for backprop, numerical, ratio, _ in elements:
        assert float(ratio) == pytest.approx(float(backprop) / float(numerical), rel=1e-2) == pytest.approx(1.5)
    # and they are the largest errors of the input: |0.5 * exp(x) * gy| for the three largest
    true_errors = np.sort(np.abs(0.5 * np.exp(X) * GY).ravel())[::-1][:3]
    np.testing.assert_allclose(errors, true_errors, rtol=1e-2)


def test_a_constructed_report_still_works_positionally():
    report = GradientCheckReport(2.0, 5, 0, "float64", 1.0, 2.0, 0.1, 0.0)
    assert not report.passed and report.hints == [] and "passed=False" in repr(report)
