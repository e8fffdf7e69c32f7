"""Each optimizer's update against its textbook formula on known numbers, plus setup/update errors.

The expected values are computed here from the formulas with plain float64
NumPy, one step at a time, independently of minigrad.
"""

import math

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad import optimizers

W0 = np.array([0.5, -1.0, 2.0])
GRADS = [np.array([0.1, -0.2, 0.3]), np.array([-0.4, 0.5, 0.05]), np.array([1.0, 0.0, -2.0])]


def one_param_link(value=W0, dtype=np.float64):
    link = mg.Link()
    with link.init_scope():
        link.w = mg.Parameter(np.array(value, dtype=dtype))
    return link


def run(optimizer, grads=GRADS, dtype=np.float64, link=None):
    link = one_param_link(dtype=dtype) if link is None else link
    optimizer.setup(link)
    history = []
    for g in grads:
        link.w.grad = np.array(g, dtype=dtype)
        optimizer.update()
        history.append(link.w.array.astype(np.float64).copy())
    return history


def expected_sgd(lr):
    w, out = W0.copy(), []
    for g in GRADS:
        w = w - lr * g
        out.append(w)
    return out


def expected_momentum(lr, mu):
    w, v, out = W0.copy(), np.zeros(3), []
    for g in GRADS:
        v = mu * v - lr * g
        w = w + v
        out.append(w)
    return out


def expected_adagrad(lr, eps):
    w, h, out = W0.copy(), np.zeros(3), []
    for g in GRADS:
        h = h + g ** 2
        w = w - lr * g / (np.sqrt(h) + eps)
        out.append(w)
    return out


def expected_rmsprop(lr, alpha, eps, inside):
    w, ms, out = W0.copy(), np.zeros(3), []
    for g in GRADS:
        ms = alpha * ms + (1 - alpha) * g ** 2
        w = w - lr * g / (np.sqrt(ms + eps) if inside else np.sqrt(ms) + eps)
        out.append(w)
    return out


def expected_adam(alpha, b1, b2, eps, eta=1.0, wd=0.0, amsgrad=False):
    """Kingma & Ba, Algorithm 1 with the section-2 step size; AMSGrad keeps max(v); decoupled decay."""
    w, m, v, vmax, out = W0.copy(), np.zeros(3), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(GRADS, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        step_size = alpha * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        denom = np.sqrt(vmax if amsgrad else v) + eps
        w = w - eta * (step_size * m / denom + wd * w)
        out.append(w)
    return out


def expected_adabound(alpha, b1, b2, eps, final_lr, gamma, amsgrad=False):
    """Luo et al. (2019), Chainer's form: the step size alpha_t / (sqrt(v) + eps) clipped to the bounds."""
    w, m, v, vmax, out = W0.copy(), np.zeros(3), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(GRADS, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        step = alpha * math.sqrt(1 - b2 ** t) / (1 - b1 ** t) / (np.sqrt(vmax if amsgrad else v) + eps)
        step = np.clip(step, final_lr * (1 - 1 / (gamma * t + 1)), final_lr * (1 + 1 / (gamma * t)))
        w = w - step * m
        out.append(w)
    return out


def expected_adadelta(rho, eps):
    w, msg, msdx, out = W0.copy(), np.zeros(3), np.zeros(3), []
    for g in GRADS:
        msg = rho * msg + (1 - rho) * g * g
        dx = np.sqrt((msdx + eps) / (msg + eps)) * g
        msdx = rho * msdx + (1 - rho) * dx * dx
        w = w - dx
        out.append(w)
    return out


def expected_rmsprop_graves(lr, alpha, momentum, eps):
    w, n, mean, delta, out = W0.copy(), np.zeros(3), np.zeros(3), np.zeros(3), []
    for g in GRADS:
        n = alpha * n + (1 - alpha) * g * g
        mean = alpha * mean + (1 - alpha) * g
        delta = momentum * delta - lr * g / np.sqrt(n - mean * mean + eps)
        w = w + delta
        out.append(w)
    return out


def expected_smorms3(lr, eps):
    w, mem, g1, g2, out = W0.copy(), np.ones(3), np.zeros(3), np.zeros(3), []
    for g in GRADS:
        r = 1 / (mem + 1)
        g1 = (1 - r) * g1 + r * g
        g2 = (1 - r) * g2 + r * g * g
        x = g1 * g1 / (g2 + eps)
        w = w - g * np.minimum(x, lr) / (np.sqrt(g2) + eps)
        mem = 1 + mem * (1 - x)
        out.append(w)
    return out


def expected_corrected_momentum(lr, mu):
    w, v, out = W0.copy(), np.zeros(3), []
    for g in GRADS:
        v = mu * v - g
        w = w + lr * v
        out.append(w)
    return out


def expected_msvag(lr, beta, eta=1.0, wd=0.0):
    w, m, v, out = W0.copy(), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(GRADS, start=1):
        b = beta ** t
        rho = min((1 - beta) ** 2 * (1 - b * b) / ((1 - b) ** 2 * (1 - beta ** 2)), 0.9999)
        m = beta * m + (1 - beta) * g
        v = beta * v + (1 - beta) * g * g
        mt, vt = m / (1 - b), v / (1 - b)
        with np.errstate(invalid="ignore", divide="ignore"):
            factor = np.nan_to_num(np.clip(mt ** 2 / (mt ** 2 + rho * (vt - mt ** 2) / (1 - rho)), 0, 1))
        w = w - eta * (lr * mt * factor + wd * w)
        out.append(w)
    return out


CASES = [
    ("SGD", lambda: optimizers.SGD(lr=0.1), expected_sgd(0.1)),
    ("MomentumSGD", lambda: optimizers.MomentumSGD(lr=0.1, momentum=0.8), expected_momentum(0.1, 0.8)),
    ("AdaGrad", lambda: optimizers.AdaGrad(lr=0.2, eps=1e-3), expected_adagrad(0.2, 1e-3)),
    ("RMSprop", lambda: optimizers.RMSprop(lr=0.05, alpha=0.7, eps=1e-3), expected_rmsprop(0.05, 0.7, 1e-3, False)),
    ("RMSprop-inside", lambda: optimizers.RMSprop(lr=0.05, alpha=0.7, eps=1e-3, eps_inside_sqrt=True),
     expected_rmsprop(0.05, 0.7, 1e-3, True)),
    ("Adam", lambda: optimizers.Adam(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3), expected_adam(0.1, 0.8, 0.9, 1e-3)),
    ("Adam-amsgrad", lambda: optimizers.Adam(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3, amsgrad=True),
     expected_adam(0.1, 0.8, 0.9, 1e-3, amsgrad=True)),
    ("Adam-decay", lambda: optimizers.Adam(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3, eta=0.5, weight_decay_rate=0.1),
     expected_adam(0.1, 0.8, 0.9, 1e-3, eta=0.5, wd=0.1)),
    ("AdamW", lambda: optimizers.AdamW(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3, weight_decay_rate=0.01),
     expected_adam(0.1, 0.8, 0.9, 1e-3, wd=0.01)),
    ("AdamW-default-no-decay", lambda: optimizers.AdamW(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3),
     expected_adam(0.1, 0.8, 0.9, 1e-3)),
    ("AMSGrad", lambda: optimizers.AMSGrad(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3),
     expected_adam(0.1, 0.8, 0.9, 1e-3, amsgrad=True)),
    ("Adam-adabound", lambda: optimizers.Adam(alpha=0.1, beta1=0.8, beta2=0.9, eps=1e-3, adabound=True,
                                              final_lr=0.3, gamma=0.5),
     expected_adabound(0.1, 0.8, 0.9, 1e-3, 0.3, 0.5)),
    ("AdaBound", lambda: optimizers.AdaBound(alpha=0.1, beta1=0.8, beta2=0.9, final_lr=0.3, gamma=0.5, eps=1e-3),
     expected_adabound(0.1, 0.8, 0.9, 1e-3, 0.3, 0.5)),
    ("AMSBound", lambda: optimizers.AMSBound(alpha=0.1, beta1=0.8, beta2=0.9, final_lr=0.3, gamma=0.5, eps=1e-3),
     expected_adabound(0.1, 0.8, 0.9, 1e-3, 0.3, 0.5, amsgrad=True)),
    ("AdaDelta", lambda: optimizers.AdaDelta(rho=0.7, eps=1e-3), expected_adadelta(0.7, 1e-3)),
    ("RMSpropGraves", lambda: optimizers.RMSpropGraves(lr=0.05, alpha=0.7, momentum=0.6, eps=1e-3),
     expected_rmsprop_graves(0.05, 0.7, 0.6, 1e-3)),
    ("SMORMS3", lambda: optimizers.SMORMS3(lr=0.2, eps=1e-8), expected_smorms3(0.2, 1e-8)),
    ("CorrectedMomentumSGD", lambda: optimizers.CorrectedMomentumSGD(lr=0.1, momentum=0.8),
     expected_corrected_momentum(0.1, 0.8)),
    ("MSVAG", lambda: optimizers.MSVAG(lr=0.1, beta=0.7, eta=0.5, weight_decay_rate=0.1),
     expected_msvag(0.1, 0.7, 0.5, 0.1)),
]


@pytest.mark.parametrize("name, make, expected", CASES, ids=[c[0] for c in CASES])
def test_update_matches_the_textbook_formula(name, make, expected):
    for got, want in zip(run(make()), expected):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_amsgrad_differs_from_adam_when_v_shrinks():
    # the third gradient is smaller than the second on element 1, so max(v) != v there
    plain, ams = expected_adam(0.1, 0.8, 0.9, 1e-3), expected_adam(0.1, 0.8, 0.9, 1e-3, amsgrad=True)
    assert not np.allclose(plain[-1], ams[-1])


def test_nesterov_matches_sutskever_lookahead_form():
    """Sutskever et al. (2013): v <- mu v - lr grad(theta + mu v); theta <- theta + v.

    The optimizer stores phi = theta + mu v (the look-ahead point) and sees grad(phi).
    Minimize f(x) = sum(a * x**2 / 2), grad = a * x, so the gradients depend on the iterate.
    """
    a = np.array([1.0, 3.0, 0.5])
    lr, mu = 0.1, 0.9
    theta, v = W0.copy(), np.zeros(3)
    link = one_param_link()  # phi_0 = theta_0 since v_0 = 0
    opt = optimizers.NesterovAG(lr=lr, momentum=mu).setup(link)
    for _ in range(5):
        v = mu * v - lr * a * (theta + mu * v)
        theta = theta + v
        link.w.grad = a * link.w.array
        opt.update()
        np.testing.assert_allclose(link.w.array, theta + mu * v, rtol=1e-12)


def test_adam_lr_property_is_the_bias_corrected_step():
    opt = optimizers.Adam(alpha=0.01, beta1=0.9, beta2=0.999)
    run(opt)
    assert opt.t == 3
    assert opt.lr == pytest.approx(0.01 * math.sqrt(1 - 0.999 ** 3) / (1 - 0.9 ** 3))
    assert opt.rules["/w"].lr == pytest.approx(opt.lr)


@pytest.mark.parametrize("name, make, expected", CASES, ids=[c[0] for c in CASES])
def test_a_zero_dimensional_parameter_follows_the_formula_element_by_element(name, make, expected):
    for i, want in enumerate(np.array(expected).T):  # each element of W0 alone, as a 0-dim parameter
        link = one_param_link(W0[i])
        got = run(make(), grads=[g[i] for g in GRADS], link=link)
        assert link.w.array.shape == ()
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name, make, expected", CASES, ids=[c[0] for c in CASES])
def test_float16_parameters_stay_float16(name, make, expected):
    link = one_param_link(dtype=np.float16)
    history = run(make(), dtype=np.float16, link=link)
    assert link.w.dtype == np.float16
    np.testing.assert_allclose(history[-1], expected[-1], rtol=2e-2, atol=2e-2)


ALL_OPTIMIZERS = [optimizers.SGD, optimizers.MomentumSGD, optimizers.NesterovAG, optimizers.AdaGrad,
                  optimizers.RMSprop, optimizers.Adam, optimizers.AdamW, optimizers.AMSGrad]


@pytest.mark.parametrize("grad", [0.0, 1e-4, 3.0])
@pytest.mark.parametrize("make", ALL_OPTIMIZERS, ids=lambda c: c.__name__)
def test_float16_parameters_with_default_hyperparameters_track_the_float64_update(make, grad):
    # in float16 the default eps (1e-8) is 0, and so is the square of a gradient of 1e-4: an update computed in
    # float16 divides 0 by 0 (or by a 0 eps) and writes NaN or Inf
    grads = [np.full(3, grad)] * 3
    link = one_param_link(dtype=np.float16)
    for got, want in zip(run(make(), grads, np.float16, link), run(make(), grads, np.float64)):
        np.testing.assert_allclose(got, want, rtol=0, atol=4e-3)  # a float16 rounding of |w| <= 2 is <= 1e-3
    assert link.w.dtype == np.float16
    assert all(v.dtype == np.float32 for v in (link.w.update_rule.state or {}).values())


# --- gradients are only read -------------------------------------------------------
@pytest.mark.parametrize("name, make, expected", CASES, ids=[c[0] for c in CASES])
def test_read_only_broadcast_gradients_are_not_written(name, make, expected):
    link = mg.Link()
    with link.init_scope():
        link.w = mg.Parameter(np.ones((2, 3)))
    opt = make().setup(link)
    opt.add_hook(optimizers.WeightDecay(0.1))
    opt.add_hook(optimizers.GradientHardClipping(-0.5, 0.5))
    opt.add_hook(optimizers.GradientClipping(0.1))
    grad = np.broadcast_to(np.array([1.0, 2.0, 3.0]), (2, 3))  # read-only, shared rows
    assert not grad.flags.writeable
    link.w.grad = grad
    opt.update()
    np.testing.assert_array_equal(grad, [[1, 2, 3], [1, 2, 3]])
    assert not np.array_equal(link.w.array, np.ones((2, 3)))


# --- update(lossfun), state, rules -------------------------------------------------------
def test_update_with_lossfun_clears_backprops_and_updates():
    link = one_param_link([3.0])
    opt = optimizers.SGD(lr=0.25).setup(link)
    link.w.grad = np.array([100.0])  # a stale gradient must be cleared first
    seen = []

    def lossfun(scale):
        seen.append(scale)
        return F.sum(link.w * link.w) * scale

    opt.update(lossfun, 2.0)
    assert seen == [2.0]
    np.testing.assert_allclose(link.w.array, [3.0 - 0.25 * 12.0])
    assert opt.t == 1


def test_setup_on_something_else_says_chainers_words():
    with pytest.raises(TypeError, match=r"^Adam.setup: optimization target must be a link \(a Link or a Chain\), "
                                        r"got str$"):
        optimizers.Adam().setup("xxx")


def test_update_with_lossfun_needs_a_variable():
    opt = optimizers.SGD().setup(one_param_link())
    with pytest.raises(TypeError, match="lossfun must return a Variable, got float"):
        opt.update(lambda: 1.0)


def test_update_before_setup_is_an_error():
    with pytest.raises(RuntimeError, match=r"call optimizer.setup\(model\) first"):
        optimizers.Adam().update()
    with pytest.raises(TypeError, match="optimization target must be a link"):
        optimizers.SGD().setup(np.ones(3))


def test_parameters_without_gradient_are_skipped_and_frozen_rules_ignored():
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(np.array([1.0]))
        link.b = mg.Parameter(np.array([1.0]))
        link.c = mg.Parameter(np.array([1.0]))
    opt = optimizers.MomentumSGD(lr=0.5).setup(link)
    opt.rules["/c"].enabled = False
    link.a.grad = np.array([1.0])
    link.c.grad = np.array([1.0])
    opt.update()
    np.testing.assert_array_equal([link.a.array[0], link.b.array[0], link.c.array[0]], [0.5, 1.0, 1.0])
    assert opt.rules["/b"].state is None and opt.rules["/b"].t == 0
    assert opt.rules["/a"].t == 1


def test_per_parameter_hyperparameters_fall_back_to_the_optimizer():
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(np.array([1.0]))
        link.b = mg.Parameter(np.array([1.0]))
    opt = optimizers.SGD(lr=0.1).setup(link)
    opt.rules["/b"].hyperparam.lr = 0.0
    link.a.grad = link.b.grad = np.array([1.0])
    opt.update()
    assert link.a.array[0] == pytest.approx(0.9) and link.b.array[0] == 1.0
    opt.lr = 0.5
    assert opt.hyperparam.lr == 0.5 and opt.rules["/a"].hyperparam.lr == 0.5
    link.a.grad = link.b.grad = np.array([1.0])
    opt.update()
    assert link.a.array[0] == pytest.approx(0.4) and link.b.array[0] == 1.0


def test_state_is_per_parameter():
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(np.zeros(2))
        link.b = mg.Parameter(np.zeros(3))
    opt = optimizers.Adam().setup(link)
    link.a.grad, link.b.grad = np.ones(2), np.full(3, 2.0)
    opt.update()
    assert set(opt.rules) == {"/a", "/b"}
    np.testing.assert_allclose(opt.rules["/a"].state["m"], [0.1, 0.1])
    np.testing.assert_allclose(opt.rules["/b"].state["v"], [0.004] * 3)


def test_a_shared_parameter_is_updated_once():
    shared = L.Linear(2, 2)
    model = mg.ChainList(shared, shared)
    opt = optimizers.SGD(lr=1.0).setup(model)
    before = shared.W.array.copy()
    model.cleargrads()
    shared.W.grad = np.ones((2, 2), dtype=np.float32)
    shared.b.grad = np.zeros(2, dtype=np.float32)
    opt.update()
    np.testing.assert_allclose(shared.W.array, before - 1)
    assert list(opt.rules) == ["/0/W", "/0/b"]


def test_lazily_initialized_parameters_get_a_rule_once_they_exist():
    model = L.Linear(None, 2)
    opt = optimizers.Adam().setup(model)
    x = np.ones((1, 3), dtype=np.float32)
    opt.update(lambda: F.sum(model(x)))
    assert model.W.shape == (2, 3)
    assert opt.rules["/W"].state["m"].shape == (2, 3)


def test_training_reduces_the_loss_for_every_optimizer():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 3)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5]], dtype=np.float32)
    for opt in (optimizers.SGD(lr=0.1), optimizers.MomentumSGD(lr=0.05), optimizers.NesterovAG(lr=0.05),
                optimizers.AdaGrad(lr=0.5), optimizers.RMSprop(lr=0.05), optimizers.Adam(alpha=0.1),
                optimizers.AdamW(alpha=0.1)):
        model = L.Linear(3, 1, initialW=np.zeros((1, 3), np.float32))
        opt.setup(model)
        losses = []

        def lossfun(model=model, losses=losses):
            loss = F.sum((model(x) - y) ** 2) / 32
            losses.append(float(loss.array))
            return loss

        for _ in range(30):
            opt.update(lossfun)
        assert losses[-1] < 0.1 * losses[0], type(opt).__name__


# --- hooks --------------------------------------------------------------------------
def test_weight_decay_hook():
    link = one_param_link([2.0, -4.0])
    opt = optimizers.SGD(lr=0.5).setup(link)
    opt.add_hook(optimizers.WeightDecay(0.1))
    link.w.grad = np.array([1.0, 1.0])
    opt.update()
    np.testing.assert_allclose(link.w.array, [2.0 - 0.5 * (1 + 0.2), -4.0 - 0.5 * (1 - 0.4)])


def test_gradient_clipping_scales_the_global_norm():
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(np.array([0.0, 0.0]))
        link.b = mg.Parameter(np.array([0.0]))
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(optimizers.GradientClipping(2.6))
    link.a.grad, link.b.grad = np.array([3.0, 4.0]), np.array([12.0])  # global norm 13
    opt.update()
    np.testing.assert_allclose(np.concatenate([link.a.array, link.b.array]), [-0.6, -0.8, -2.4])
    link.a.grad, link.b.grad = np.array([0.3, 0.4]), np.array([1.2])  # norm 1.3 < 2.6: untouched
    opt.update()
    np.testing.assert_allclose(np.concatenate([link.a.array, link.b.array]), [-0.9, -1.2, -3.6])


def test_gradient_hard_clipping():
    link = one_param_link([0.0, 0.0, 0.0])
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(optimizers.GradientHardClipping(-0.1, 0.2))
    link.w.grad = np.array([-1.0, 0.05, 1.0])
    opt.update()
    np.testing.assert_allclose(link.w.array, [0.1, -0.05, -0.2])


def test_hook_registration_errors_and_removal():
    opt = optimizers.SGD().setup(one_param_link())
    opt.add_hook(optimizers.WeightDecay(0.1))
    with pytest.raises(KeyError, match="'WeightDecay' is already registered"):
        opt.add_hook(optimizers.WeightDecay(0.2))
    opt.remove_hook("WeightDecay")
    with pytest.raises(KeyError, match="no hook named 'WeightDecay'"):
        opt.remove_hook("WeightDecay")
    with pytest.raises(ValueError, match="timing must be one of"):
        opt.add_hook(optimizers.WeightDecay(0.1), timing="later")
    with pytest.raises(ValueError, match="lower_bound .* must not exceed upper_bound"):
        optimizers.GradientHardClipping(1.0, -1.0)
    with pytest.raises(ValueError, match="threshold must be positive"):
        optimizers.GradientClipping(0.0)


def test_post_hooks_run_after_the_update():
    link = one_param_link([1.0])
    opt = optimizers.SGD(lr=1.0).setup(link)
    seen = []
    opt.add_hook(lambda o: seen.append(float(link.w.array[0])), name="after", timing="post")
    link.w.grad = np.array([0.25])
    opt.update()
    assert seen == [0.75]


def test_lasso_hook_adds_rate_times_the_sign():
    link = one_param_link([2.0, -4.0, 0.0])
    opt = optimizers.SGD(lr=0.5).setup(link)
    opt.add_hook(mg.optimizer_hooks.Lasso(0.1))
    link.w.grad = np.array([1.0, 1.0, 1.0])
    opt.update()
    np.testing.assert_allclose(link.w.array, [2.0 - 0.5 * 1.1, -4.0 - 0.5 * 0.9, -0.5])


def test_gradient_noise_adds_what_noise_func_draws_with_the_rule_update_count():
    calls = []

    def noise_func(xp, shape, dtype, hook, rule):
        calls.append((xp, shape, dtype, hook.eta, rule.t))
        return xp.full(shape, 0.5, dtype)

    link = one_param_link([0.0, 0.0])
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(mg.optimizer_hooks.GradientNoise(0.3, noise_func=noise_func))
    for _ in range(2):
        link.w.grad = np.array([1.0, -1.0])
        opt.update()
    np.testing.assert_allclose(link.w.array, [-3.0, 1.0])  # two steps of -(grad + 0.5)
    assert calls == [(np, (2,), np.dtype(np.float64), 0.3, 0), (np, (2,), np.dtype(np.float64), 0.3, 1)]


def test_gradient_noise_default_is_annealed_gaussian_noise():
    np.random.seed(0)
    link = one_param_link(np.zeros(20000))
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(mg.optimizer_hooks.GradientNoise(0.04))
    for t in range(2):
        before = link.w.array.copy()
        link.w.grad = np.zeros(20000)
        opt.update()
        std = float((link.w.array - before).std())
        assert abs(std - math.sqrt(0.04 / (1 + t) ** 0.55)) < 0.005, (t, std)
    with pytest.raises(ValueError, match="GradientNoise: eta must be >= 0"):
        mg.optimizer_hooks.GradientNoise(-1.0)


@pytest.mark.parametrize("weight_decay", [0.0, 0.1])
def test_gradient_lars_scales_each_gradient_by_the_norm_ratio(weight_decay):
    big, small = np.array([3.0, 4.0]), np.array([0.003, 0.004])  # norms 5 and 0.005 (below the threshold)
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(big.copy())
        link.b = mg.Parameter(small.copy())
    opt = optimizers.SGD(lr=1.0).setup(link)
    opt.add_hook(mg.optimizer_hooks.GradientLARS(threshold=0.01, weight_decay=weight_decay))
    grad = np.array([6.0, 8.0])  # norm 10
    link.a.grad, link.b.grad = grad.copy(), grad.copy()
    opt.update()
    rate = 5.0 / (1e-9 + 10.0 + weight_decay * 5.0)
    np.testing.assert_allclose(link.a.array, big - rate * (grad + weight_decay * big))
    np.testing.assert_allclose(link.b.array, small - (grad + weight_decay * small))  # rate 1


def test_gradient_lars_keeps_a_float16_gradient_finite():
    link = one_param_link(np.full(4, 300.0), dtype=np.float16)  # its float16 norm, 600, is fine; 300 ** 2 is not
    opt = optimizers.SGD(lr=1e-3).setup(link)
    opt.add_hook(mg.optimizer_hooks.GradientLARS())
    link.w.grad = np.full(4, 200.0, np.float16)
    opt.update()
    assert link.w.array.dtype == np.float16 and np.isfinite(link.w.array).all()
    np.testing.assert_allclose(link.w.array.astype(np.float64), 300.0 - 1e-3 * 1.5 * 200.0, rtol=1e-3)


def test_an_update_rule_hook_runs_for_its_parameter_alone_before_or_after():
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(np.array([1.0]))
        link.b = mg.Parameter(np.array([1.0]))
    opt = optimizers.SGD(lr=1.0).setup(link)
    link.a.update_rule.add_hook(mg.optimizer_hooks.WeightDecay(1.0))
    seen = []
    link.a.update_rule.add_hook(lambda rule, param: seen.append((rule.t, float(param.array[0]))), name="log",
                                timing="post")
    link.a.grad, link.b.grad = np.array([0.5]), np.array([0.5])
    opt.update()
    np.testing.assert_allclose([link.a.array[0], link.b.array[0]], [1.0 - 1.5, 0.5])
    assert seen == [(1, -0.5)]
    with pytest.raises(KeyError, match="SGDRule.add_hook: a hook named 'log' is already registered"):
        link.a.update_rule.add_hook(print, name="log")
    link.a.update_rule.remove_hook("WeightDecay")
    with pytest.raises(KeyError, match="SGDRule.remove_hook: no hook named 'WeightDecay'"):
        link.a.update_rule.remove_hook("WeightDecay")
    with pytest.raises(TypeError, match="add_hook: hook must be callable, got int"):
        link.a.update_rule.add_hook(3)


def test_adam_rejects_bad_betas():
    with pytest.raises(ValueError, match=r"Adam: hyperparameter beta1 must be a finite number in \[0, 1\), got 1.0"):
        optimizers.Adam(beta1=1.0)


def test_new_epoch_counts():
    opt = optimizers.SGD().setup(one_param_link())
    opt.new_epoch()
    opt.new_epoch()
    assert opt.epoch == 2
