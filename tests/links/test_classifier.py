"""L.Classifier: loss and accuracy recorded, label position or keyword, gradients through the predictor."""

import numpy as np
import pytest

import minigrad.functions as F
import minigrad.links as L
from minigrad.testing import LinkTestCase


class TestClassifier(LinkTestCase):
    param_names = ("predictor/W", "predictor/b")
    check_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}
    check_double_backward_options = {"float16": {"atol": 5e-3, "rtol": 5e-2}}

    def generate_params(self):
        return self.rng.uniform(-1, 1, (3, 4)), self.rng.uniform(-1, 1, 3)

    def create_link(self, initializers):
        W, b = initializers
        return L.Classifier(L.Linear(4, 3, initialW=W, initial_bias=b))

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (5, 4)).astype(self.dtype), np.array([0, 2, 1, 1, 0], dtype=np.int32)

    def forward_expected(self, link, inputs):
        x, t = inputs
        scores = x @ link.predictor.W.array.astype(np.float64).T + link.predictor.b.array
        log_softmax = scores - np.log(np.exp(scores - scores.max(1, keepdims=True)).sum(1, keepdims=True)) \
            - scores.max(1, keepdims=True)
        return -log_softmax[np.arange(5), t].mean(),


def test_records_prediction_loss_and_accuracy():
    W = np.array([[1.0, 0.0], [0.0, 1.0]], np.float32)
    model = L.Classifier(L.Linear(2, 2, initialW=W))
    x = np.array([[2.0, 0.0], [0.0, 2.0], [2.0, 0.0]], np.float32)
    loss = model(x, np.array([0, 1, 1], np.int32))
    assert loss is model.loss and model.y.shape == (3, 2)
    assert float(model.accuracy.array) == pytest.approx(2 / 3)
    model.compute_accuracy = False
    model(x, np.array([0, 1, 1], np.int32))
    assert model.accuracy is None


def test_label_key_by_keyword_and_custom_functions():
    model = L.Classifier(L.Linear(2, 1), lossfun=lambda y, t: F.sum((y - t) ** 2), accfun=lambda y, t: F.sum(y),
                         label_key="target")
    loss = model(np.ones((2, 2), np.float32), target=np.zeros((2, 1), np.float32))
    assert loss.shape == ()
    # the messages start with Chainer's words (its tests match them), then say more
    with pytest.raises(ValueError, match=r"Label key 'target' is not found among the keyword arguments \[\]"):
        model(np.ones((2, 2), np.float32))
    with pytest.raises(ValueError, match="Label key -1 is out of bounds: only 0 positional arguments were given"):
        L.Classifier(L.Linear(2, 2))()
    with pytest.raises(TypeError, match=r"label_key must be int or str, but is float \(1.5\)"):
        L.Classifier(L.Linear(2, 2), label_key=1.5)
