"""Optimizer.loss_scaling (Chainer's) against a hand-written NumPy model of the rule.

The rule, as Chainer 7's ``Optimizer`` has it: ``update(lossfun)`` calls ``loss.backward(loss_scale=s)``; every
gradient that backward wrote is divided by ``s`` before its parameter is updated. Dynamic scaling starts at
``s = 1``; after each update ``s`` doubles, until a gradient holds an infinity or a NaN: that update is skipped
(with a warning) and ``s`` halves, and from then on ``s`` grows by ``2 ** (1 / interval)`` per update; ``s`` stays
within ``[1, 65504]``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad import optimizers

LR = 0.1


def one_param_link(value, dtype):
    link = mg.Link()
    with link.init_scope():
        link.w = mg.Parameter(np.array(value, dtype=dtype))
    return link


def numpy_model(w0, coefficients, lr, interval=None, static_scale=None, dtype=np.float64):
    """The expected (loss scale after the update, w after it, update skipped) per step of loss = sum(w * c).

    The gradient that backward computes is ``c * s`` in ``dtype`` (an infinity where it overflows); the update
    uses it divided by ``s``.
    """
    scale = 1.0 if static_scale is None else static_scale
    multiplier = None if interval is None else 2.0 ** (1.0 / interval)
    seen_nonfinite, w, history = False, np.array(w0, dtype=np.float64), []
    for c in coefficients:
        with np.errstate(over="ignore", invalid="ignore"):
            scaled = (np.asarray(c, dtype) * dtype(scale)).astype(dtype)
        finite = bool(np.isfinite(scaled).all())
        skipped = static_scale is None and not finite
        if not skipped:
            w = (w - lr * (scaled / dtype(scale)).astype(np.float64)).astype(dtype).astype(np.float64)  # (stored)
        if static_scale is None:
            if not finite:
                seen_nonfinite, scale = True, scale * 0.5
            else:
                scale *= multiplier if seen_nonfinite else 2.0
            scale = max(1.0, min(65504.0, scale))
        history.append((scale, w.copy(), skipped))
    return history


def minigrad_run(w0, coefficients, dtype, configure):
    """(loss scale after the update, w after it, whether it warned of a non-finite gradient) per step."""
    link = one_param_link(w0, dtype)
    optimizer = optimizers.SGD(lr=LR).setup(link)
    configure(optimizer)
    history = []
    for c in coefficients:
        c = np.asarray(c, dtype)
        with np.errstate(over="ignore", invalid="ignore"), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            optimizer.update(lambda c=c: F.sum(link.w * c))
        warned = [str(w.message) for w in caught if "Non finite number found in param.grad of /w" in str(w.message)]
        history.append((optimizer._loss_scale, link.w.array.astype(np.float64).copy(), bool(warned)))
    return history


W0 = [0.5, -1.0, 2.0]
# finite gradients for long enough that the scale reaches the 65504 cap, infinities twice (halving, then the slow
# growth), a NaN once
COEFFICIENTS = ([[0.1, -0.2, 0.3]] * 18 + [[np.inf, 0.0, 1.0]] + [[0.2, 0.1, -0.1]] * 3 + [[0.0, np.nan, 0.0]]
                + [[-0.3, 0.2, 0.1]] * 4)


@pytest.mark.parametrize("interval", [1, 3, 1000])
def test_dynamic_scaling_follows_the_numpy_model(interval):
    expected = numpy_model(W0, COEFFICIENTS, LR, interval=interval)
    actual = minigrad_run(W0, COEFFICIENTS, np.float64, lambda o: o.loss_scaling(interval=interval))
    for step, ((scale, w, warned), (expected_scale, expected_w, skipped)) in enumerate(zip(actual, expected)):
        assert scale == pytest.approx(expected_scale, rel=1e-12), step
        np.testing.assert_allclose(w, expected_w, rtol=1e-12, err_msg=f"step {step}")
        assert warned == skipped, step
    assert max(scale for scale, _, _ in actual) == 65504.0  # the cap was reached
    assert sum(skipped for _, _, skipped in expected) == 2


def test_dynamic_scaling_in_float16_halves_where_the_scaled_gradient_overflows():
    # 30 * s overflows float16 (max 65504) once s > 2183: the scale settles below that
    coefficients = [[30.0, -0.5]] * 16
    expected = numpy_model([1.0, 1.0], coefficients, LR, interval=2, dtype=np.float16)
    actual = minigrad_run([1.0, 1.0], coefficients, np.float16, lambda o: o.loss_scaling(interval=2))
    assert [s for s, _, _ in actual] == pytest.approx([s for s, _, _ in expected])
    for (_, w, warned), (_, expected_w, skipped) in zip(actual, expected):
        np.testing.assert_allclose(w, expected_w, rtol=1e-6)
        assert warned == skipped
    assert sum(skipped for _, _, skipped in expected) >= 2


def test_static_scaling_scales_the_backward_and_divides_before_the_update():
    seen = []
    link = one_param_link(W0, np.float64)
    optimizer = optimizers.SGD(lr=LR).setup(link)
    optimizer.loss_scaling(scale=8.0)
    link.w.update_rule.add_hook(lambda rule, param: seen.append(param.grad.copy()), name="record")
    c = np.array([0.1, -0.2, 0.3])
    raw = []
    optimizer.update(lambda: _recording_loss(link, c, raw))
    np.testing.assert_allclose(raw[0], 8.0 * c)  # what backward wrote: scaled
    np.testing.assert_allclose(seen[0], c)  # what the rule's hooks and the update see: divided
    np.testing.assert_allclose(link.w.array, np.array(W0) - LR * c)
    assert optimizer._loss_scale == 8.0  # static: it stays
    with np.errstate(over="ignore", invalid="ignore"):
        optimizer.update(lambda: F.sum(link.w * np.array([np.inf, 0.0, 0.0])))
    assert np.isinf(link.w.array[0])  # static scaling skips nothing (as in Chainer)


def _recording_loss(link, c, raw):
    class Probe(mg.FunctionNode):  # records the gradient backward hands to w
        def forward(self, inputs):
            return inputs[0].copy(),

        def backward(self, indexes, grad_outputs):
            raw.append(grad_outputs[0].array.copy())
            return grad_outputs

    return F.sum(Probe().apply((link.w,))[0] * c)


def test_a_backward_of_your_own_with_loss_scale_is_undone_by_the_next_update():
    link = one_param_link(W0, np.float64)
    optimizer = optimizers.SGD(lr=LR).setup(link)  # no loss_scaling configured: the gradient's own scale counts
    F.sum(link.w * np.array([1.0, 2.0, 3.0])).backward(loss_scale=4.0)
    np.testing.assert_allclose(link.w.grad, [4.0, 8.0, 12.0])
    assert link.w.loss_scale == 4.0  # what the backward recorded with the gradient
    optimizer.update()
    np.testing.assert_allclose(link.w.grad, [1.0, 2.0, 3.0])
    np.testing.assert_allclose(link.w.array, np.array(W0) - LR * np.array([1.0, 2.0, 3.0]))
    link.w.cleargrad()
    F.sum(link.w * np.array([1.0, 1.0, 1.0])).backward()  # a plain backward records no scale: nothing divided
    assert link.w.loss_scale is None
    before = link.w.array.copy()
    optimizer.update()
    np.testing.assert_allclose(link.w.array, before - LR)


def test_scaling_keeps_a_float16_gradient_that_underflows_without_it():
    def gradient(scale):
        link = one_param_link([1.0, 1.0], np.float16)
        optimizer = optimizers.SGD(lr=0.0).setup(link)
        if scale:
            optimizer.loss_scaling(scale=scale)
        x = np.array([1000.0, 1000.0], np.float16)
        optimizer.update(lambda: F.sum(link.w * x) * np.float16(1e-4) * np.float16(1e-4))  # (its gradient is 1e-8)
        return link.w.grad

    np.testing.assert_array_equal(gradient(None), [0.0, 0.0])  # the true 1e-5 underflowed on the way
    np.testing.assert_allclose(gradient(1024.0).astype(np.float64), [1e-5, 1e-5], rtol=2e-2)


@pytest.mark.parametrize("kwargs,words", [
    ({"interval": 0}, "interval must be an int of at least 1, got 0"),
    ({"interval": 2.5}, "interval must be an int of at least 1, got 2.5"),
    ({"interval": True}, "interval must be an int of at least 1, got True"),
    ({"scale": -1}, "scale must be a finite positive number"),
    ({"scale": 0.0}, "scale must be a finite positive number"),
    ({"scale": float("inf")}, "scale must be a finite positive number"),
    ({"scale": float("nan")}, "scale must be a finite positive number"),
    ({"scale": "8"}, "scale must be a finite positive number"),
])
def test_bad_arguments_name_the_optimizer(kwargs, words):
    optimizer = optimizers.Adam().setup(one_param_link(W0, np.float32))
    with pytest.raises(ValueError, match=f"Adam.loss_scaling: {words}"):
        optimizer.loss_scaling(**kwargs)
    assert optimizer._loss_scale is None  # nothing changed


def test_set_loss_scale_is_static_scaling():
    optimizer = optimizers.SGD().setup(one_param_link(W0, np.float32))
    optimizer.loss_scaling()
    optimizer.set_loss_scale(16)
    assert optimizer._loss_scale == 16.0 and not optimizer._loss_scaling_is_dynamic
