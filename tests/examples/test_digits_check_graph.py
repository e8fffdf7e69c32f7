"""check_graph on the digits example's MLP and CNN: every node of a real forward pass checked alone passes."""

import importlib.util
import pathlib

import numpy as np
import pytest

import minigrad.links as L
from minigrad import initializers
from minigrad.testing import check_graph, record_graph
from minigrad.testing.node_check import Verdict

pytest.importorskip("sklearn", reason="the digits example needs the `examples` extra (scikit-learn)")

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "digits.py"


@pytest.fixture(scope="module")
def digits():
    spec = importlib.util.spec_from_file_location("digits_example", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("model, labels", [
    ("MLP", ["LinearFunction", "ReLU", "Dropout", "LinearFunction", "ReLU", "Dropout", "LinearFunction",
             "SoftmaxCrossEntropy"]),
    ("CNN", ["Convolution2D", "BatchNormalization", "ReLU", "Convolution2D", "BatchNormalization", "ReLU",
             "MaxPooling2D", "Reshape", "LinearFunction", "ReLU", "Dropout", "LinearFunction", "SoftmaxCrossEntropy"]),
])
def test_check_graph_passes_on_the_digits_models_and_prints_its_table(digits, model, labels):
    x_train, _, t_train, _ = digits.load_data(0)
    initializers.set_default_rng(0)
    np.random.seed(0)
    classifier = L.Classifier(getattr(digits, model)())
    with record_graph():  # a training-mode forward pass on 8 real images, with their integer labels
        loss = classifier(x_train[:8], t_train[:8])
    report = check_graph(loss, seed=0)
    assert report.passed and [row.label for row in report.rows] == labels, report
    verdicts = {row.check.verdict for row in report.rows}
    # the max pooling of ReLU outputs meets ties at 0: refused there, checked at a point nearby
    assert verdicts <= {Verdict.OK, Verdict.SHARED, Verdict.KINK}, report
    assert all(row.check.margin < 1 for row in report.rows)
    text = str(report)
    assert text.startswith(f"check_graph: {len(labels)} nodes checked alone (first order)")
    first = "h = F.dropout(F.relu(self.l1(x)), 0.2)" if model == "MLP" else "h = F.relu(self.bn1(self.conv1(x)))"
    line = next(k for k, code in enumerate(SCRIPT.read_text().splitlines(), start=1) if first in code)
    assert report.rows[0].created_at == f"{SCRIPT}:{line}" and f"digits.py:{line}" in text
