"""Specs for ``minigrad.functions.evaluation`` (forward only: nothing here is differentiable)."""

from __future__ import annotations

import numpy

import minigrad.functions as F
from minigrad.testing import OpSpec, register
from minigrad.testing.op_specs.draw import distinct, integers


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
