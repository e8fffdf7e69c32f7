"""Chainer v7 parity of ``Parameter``, ``update_rule`` and ``config.dtype`` (from Chainer's documented
behaviour of chainer.Parameter, chainer.UpdateRule and chainer.config.dtype)."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L


def test_parameter_none_has_a_nan_initializer():
    p = mg.Parameter()
    assert isinstance(p.initializer, mg.initializers.NaN)
    p.initialize((2,))
    assert np.isnan(p.array).all()


def test_initialize_creates_a_nan_gradient_then_zeros_or_none():
    p = mg.Parameter(mg.initializers.One())
    p.initialize((3,))
    assert p.grad.shape == (3,) and np.isnan(p.grad).all()
    q = mg.Parameter(mg.initializers.One())
    with pytest.warns(DeprecationWarning):
        q.zerograd()  # before initialization: remembered
    q.initialize((3,))
    np.testing.assert_array_equal(q.grad, np.zeros(3, np.float32))
    r = mg.Parameter(mg.initializers.One())
    r.cleargrad()
    r.initialize((3,))
    assert r.grad is None


def test_parameter_with_shape_has_a_nan_gradient_and_with_an_array_none():
    p = mg.Parameter(0.5, (2,))
    np.testing.assert_array_equal(p.array, np.full(2, 0.5, np.float32))
    assert np.isnan(p.grad).all()
    assert mg.Parameter(np.ones(2)).grad is None


def test_uninitialized_dtype_comes_from_the_initializer():
    assert mg.Parameter(mg.initializers.Normal(dtype=np.float16)).dtype == np.float16
    assert mg.Parameter(mg.initializers.Normal()).dtype == np.float32  # config.dtype
    p = mg.Parameter(mg.initializers.One(np.float64))
    p.initialize((2,))
    assert p.array.dtype == np.float64 and p.grad.dtype == np.float64


def test_config_dtype_is_the_default_dtype_of_initializers():
    assert mg.config.dtype == np.float32
    with mg.using_config("dtype", np.dtype(np.float64)):
        p = mg.Parameter(mg.initializers.Zero(), (2,))
        assert p.dtype == np.float64 and p.grad.dtype == np.float64
        assert mg.initializers.generate_array(mg.initializers.One(), (1,)).dtype == np.float64
        assert L.Linear(3, 2).W.dtype == np.float64
    assert mg.Parameter(mg.initializers.Zero(), (2,)).dtype == np.float32


def test_bad_initializer_is_a_type_error():
    with pytest.raises(TypeError, match="initializer"):
        mg.Parameter("zeros")


def _model():
    model = mg.Chain()
    with model.init_scope():
        model.l1 = L.Linear(2, 2, initialW=mg.initializers.One())
    return model


def test_setup_gives_every_parameter_an_update_rule():
    model = _model()
    assert model.l1.W.update_rule is None
    opt = mg.optimizers.SGD(lr=0.5).setup(model)
    assert isinstance(model.l1.W.update_rule, mg.optimizers.UpdateRule)
    assert model.l1.W.update_rule is opt.rules["/l1/W"]


def test_disabling_the_update_rule_freezes_the_parameter():
    model = _model()
    opt = mg.optimizers.SGD(lr=0.5).setup(model)
    model.l1.W.update_rule.enabled = False
    before_W, before_b = model.l1.W.array.copy(), model.l1.b.array.copy()
    model.cleargrads()
    loss = mg.functions.sum(model.l1(np.ones((1, 2), np.float32)))
    loss.backward()
    opt.update()
    np.testing.assert_array_equal(model.l1.W.array, before_W)
    np.testing.assert_array_equal(model.l1.b.array, before_b - 0.5)


def test_per_parameter_hyperparameters_through_the_update_rule():
    model = _model()
    opt = mg.optimizers.SGD(lr=0.5).setup(model)
    model.l1.b.update_rule.hyperparam.lr = 0.25
    model.cleargrads()
    mg.functions.sum(model.l1(np.ones((1, 2), np.float32))).backward()
    opt.update()
    np.testing.assert_array_equal(model.l1.b.array, [-0.25, -0.25])
    assert opt.lr == 0.5


def test_parameter_update_uses_its_rule():
    p = mg.Parameter(np.array([1.0]))
    p.grad = np.array([1.0])
    p.update()  # no rule: nothing happens
    assert p.array[0] == 1.0
    link = mg.Link()
    with link.init_scope():
        link.p = p
    mg.optimizers.SGD(lr=0.5).setup(link)
    p.update()
    assert p.array[0] == 0.5


def test_a_rule_assigned_by_the_user_is_used():
    model = _model()
    opt = mg.optimizers.SGD(lr=0.5).setup(model)
    custom = mg.optimizers.SGD(lr=0.0).create_update_rule()
    model.l1.W.update_rule = custom
    before = model.l1.W.array.copy()
    model.cleargrads()
    mg.functions.sum(model.l1(np.ones((1, 2), np.float32))).backward()
    opt.update()
    np.testing.assert_array_equal(model.l1.W.array, before)
    assert opt.rules["/l1/W"] is custom and custom.t == 1


def test_uncleared_lazy_parameter_gradient_is_nan_as_in_chainer():
    link = L.Linear(None, 2)
    y = mg.functions.sum(link(np.ones((1, 3), np.float32)))
    y.backward()  # no cleargrads(): the NaN gradient of the new W poisons the sum
    assert np.isnan(link.W.grad).all()
    link.cleargrads()
    mg.functions.sum(link(np.ones((1, 3), np.float32))).backward()
    assert np.isfinite(link.W.grad).all()


def test_hooks_still_update_a_0dim_parameter():
    # the grad setter refuses NumPy scalars (as Chainer's does); the hooks must hand it 0-dim arrays
    link = mg.Link()
    with link.init_scope():
        link.w = mg.Parameter(np.array(2.0, np.float32))
    opt = mg.optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(mg.optimizers.WeightDecay(0.25))
    opt.add_hook(mg.optimizers.GradientHardClipping(-1.0, 1.0))
    opt.add_hook(mg.optimizers.GradientClipping(0.5))
    link.w.grad = np.array(3.0, np.float32)
    opt.update()  # 3 + 0.25 * 2 = 3.5, clipped to 1, its norm scaled to 0.5
    assert link.w.array == np.float32(1.5) and link.w.grad.dtype == np.float32
