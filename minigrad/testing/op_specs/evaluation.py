"""Specs for ``minigrad.functions.evaluation`` (forward only: nothing here is differentiable)."""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import distinct, integers, uniform


def _accuracy_reference(ignore_label=None):
    def reference(y, t):
        moved = numpy.moveaxis(y, 1, -1)
        hits = counted = 0
        for index in numpy.ndindex(t.shape):
            if ignore_label is not None and t[index] == ignore_label:
                continue
            row = list(moved[index])
            counted += 1
            hits += row.index(max(row)) == t[index]
        return numpy.array(hits / counted if counted else 0.0)
    return reference


def _scores_and_labels(shape):
    # distinct scores: no ties for the arg-max
    return lambda rng, dt: (distinct(rng, shape, dt), integers(rng, shape[:1] + shape[2:], 0, shape[1]))


register(OpSpec("accuracy", F.accuracy, _scores_and_labels((6, 3)), _accuracy_reference(), differentiable=False))
register(OpSpec("accuracy[ignore_label,nd]", lambda y, t: F.accuracy(y, t, ignore_label=0),
                _scores_and_labels((3, 3, 2)), _accuracy_reference(0), differentiable=False, covers=("accuracy",)))


def _binary_accuracy_reference(y, t):
    counted = [(p >= 0) == (label == 1) for p, label in zip(y.ravel(), t.ravel()) if label != -1]
    return numpy.array(sum(counted) / max(len(counted), 1))


register(OpSpec("binary_accuracy", F.binary_accuracy,
                lambda rng, dt: (distinct(rng, (4, 3), dt, 0.15), integers(rng, (4, 3), -1, 2)),
                _binary_accuracy_reference, differentiable=False))


def _r2_reference(multioutput):
    def reference(pred, true):
        scores = []
        for column in range(pred.shape[1]):
            p, t = list(pred[:, column]), list(true[:, column])
            mean = sum(t) / len(t)
            ss_tot = sum((v - mean) ** 2 for v in t)
            ss_res = sum((a - b) ** 2 for a, b in zip(p, t))
            scores.append(0.0 if ss_tot == 0 else 1 - ss_res / ss_tot)
        return numpy.array(scores) if multioutput == "raw_values" else numpy.array(sum(scores) / len(scores))
    return reference


def _predictions_and_truth(shape):
    def draw(rng, dt):
        true = uniform(rng, shape, dt)
        return (true + uniform(rng, shape, dt, -0.3, 0.3)).astype(dt), true
    return draw


for _multioutput in ("uniform_average", "raw_values"):
    register(OpSpec(f"r2_score[{_multioutput}]", lambda p, t, m=_multioutput: F.r2_score(p, t, multioutput=m),
                    _predictions_and_truth((6, 3)), _r2_reference(_multioutput), differentiable=False,
                    covers=("r2_score",)))


def _summary_reference(label_num, beta, ignore_label):
    def reference(y, t):
        moved = numpy.moveaxis(y, 1, -1)
        tp, relevant, support = [0] * label_num, [0] * label_num, [0] * label_num
        for index in numpy.ndindex(t.shape):
            label = int(t[index])
            if label == ignore_label:
                continue
            row = list(moved[index])
            guess = row.index(max(row))
            support[label] += 1
            if guess < label_num:
                relevant[guess] += 1
            tp[label] += guess == label
        p = [a / b for a, b in zip(tp, relevant)]
        r = [a / b for a, b in zip(tp, support)]
        f = [(1 + beta ** 2) * a * b / (beta ** 2 * a + b) for a, b in zip(p, r)]
        return numpy.array(p), numpy.array(r), numpy.array(f), numpy.array(support)
    return reference


def _every_class_hit(shape, n_ignored=0):
    """Scores whose arg-max covers every class, and labels with one true positive per class at least (no 0 / 0)."""
    def draw(rng, dt):
        n_classes, positions = shape[1], shape[:1] + shape[2:]
        guesses = rng.permutation(numpy.arange(int(numpy.prod(positions))) % n_classes).reshape(positions)
        y = distinct(rng, shape, numpy.float64)
        y += 3.0 * (numpy.arange(n_classes).reshape((1, n_classes) + (1,) * (len(shape) - 2))
                    == guesses[:, None])
        t = integers(rng, positions, 0, n_classes)
        flat_t, flat_guess = t.reshape(-1), guesses.reshape(-1)
        first = [int(numpy.flatnonzero(flat_guess == c)[0]) for c in range(n_classes)]
        flat_t[first] = range(n_classes)
        others = [i for i in range(flat_t.size) if i not in first]
        flat_t[others[:n_ignored]] = -1
        return y.astype(dt), t
    return draw


register(OpSpec("classification_summary", F.classification_summary, _every_class_hit((8, 3)),
                _summary_reference(3, 1.0, -1), differentiable=False))
register(OpSpec("classification_summary[beta=2,nd,ignore_label]",
                lambda y, t: F.classification_summary(y, t, label_num=3, beta=2.0),
                _every_class_hit((3, 3, 4), n_ignored=2), _summary_reference(3, 2.0, -1), differentiable=False,
                covers=("classification_summary",)))
for _name, _function, _index in (("precision", F.precision, 0), ("recall", F.recall, 1),
                                 ("f1_score", F.f1_score, 2)):
    register(OpSpec(_name, lambda y, t, fn=_function: fn(y, t, label_num=3),
                    _every_class_hit((8, 3), n_ignored=1),
                    lambda y, t, i=_index: (_summary_reference(3, 1.0, -1)(y, t)[i],
                                            _summary_reference(3, 1.0, -1)(y, t)[3]),
                    differentiable=False))
