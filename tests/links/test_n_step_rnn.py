"""L.NStepLSTM and the other n-step links: Chainer's parameter names and shapes, None states, unsorted
sequences put back in order, dropout in test mode, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L

LINKS = {  # link class, matrices per layer, bidirectional, has a cell state
    "NStepLSTM": (L.NStepLSTM, 8, False, True),
    "NStepBiLSTM": (L.NStepBiLSTM, 8, True, True),
    "NStepGRU": (L.NStepGRU, 6, False, False),
    "NStepBiGRU": (L.NStepBiGRU, 6, True, False),
    "NStepRNNTanh": (L.NStepRNNTanh, 2, False, False),
    "NStepRNNReLU": (L.NStepRNNReLU, 2, False, False),
    "NStepBiRNNTanh": (L.NStepBiRNNTanh, 2, True, False),
    "NStepBiRNNReLU": (L.NStepBiRNNReLU, 2, True, False),
}


def _call(link, use_cell, hx, cx, xs):
    if use_cell:
        hy, cy, ys = link(hx, cx, xs)
        return hy.array, cy.array, [y.array for y in ys]
    hy, ys = link(hx, xs)
    return hy.array, None, [y.array for y in ys]


def _make(name, n_layers=2, in_size=3, out_size=4, dropout=0.0, seed=0):
    cls, _, bi, use_cell = LINKS[name]
    link = cls(n_layers, in_size, out_size, dropout)
    rng = np.random.default_rng(seed)
    for _, param in link.namedparams():
        param.array = rng.uniform(-1, 1, param.shape)  # float64, biases nonzero too
    return link, bi, use_cell


@pytest.mark.parametrize("name", sorted(LINKS))
def test_parameter_names_and_shapes_follow_chainer(name):
    cls, n_weights, bi, _ = LINKS[name]
    link = cls(2, 3, 4, 0.0)
    params = dict(link.namedparams())
    directions = 2 if bi else 1
    expected = {f"/{k}/{kind}{j}" for k in range(2 * directions) for j in range(n_weights) for kind in "wb"}
    assert set(params) == expected
    for k in range(2 * directions):
        for j in range(n_weights):
            w_in = 4 if j >= n_weights // 2 else (3 if k < directions else 4 * directions)
            assert params[f"/{k}/w{j}"].shape == (4, w_in)
            assert params[f"/{k}/b{j}"].shape == (4,)
            assert np.all(params[f"/{k}/b{j}"].array == 0)  # biases start at 0
    assert link.ws[0][0] is params["/0/w0"] and link.bs[-1][-1] is params[f"/{2 * directions - 1}/b{n_weights - 1}"]


@pytest.mark.parametrize("name", sorted(LINKS))
def test_none_states_are_zeros(name):
    link, bi, use_cell = _make(name)
    xs = [np.random.default_rng(1).uniform(-1, 1, (n, 3)) for n in (3, 1)]
    zeros = np.zeros((2 * (2 if bi else 1), 2, 4))
    got = _call(link, use_cell, None, None, xs)
    want = _call(link, use_cell, zeros, zeros, xs)
    for a, b in zip(got[:2], want[:2]):
        if a is not None:
            np.testing.assert_array_equal(a, b)
    for a, b in zip(got[2], want[2]):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(LINKS))
def test_unsorted_sequences_come_back_in_the_callers_order(name):
    link, bi, use_cell = _make(name)
    rng = np.random.default_rng(2)
    xs = [rng.uniform(-1, 1, (n, 3)) for n in (2, 4, 1, 4)]
    n_states = 2 * (2 if bi else 1)
    hx, cx = rng.uniform(-1, 1, (n_states, 4, 4)), rng.uniform(-1, 1, (n_states, 4, 4))
    hy, cy, ys = _call(link, use_cell, hx, cx, xs)
    for i, x in enumerate(xs):  # each sequence alone, a batch of one
        hy_i, cy_i, (y_i,) = _call(link, use_cell, hx[:, i:i + 1], cx[:, i:i + 1], [x])
        np.testing.assert_allclose(hy[:, i], hy_i[:, 0], rtol=1e-12, atol=1e-12)
        if use_cell:
            np.testing.assert_allclose(cy[:, i], cy_i[:, 0], rtol=1e-12, atol=1e-12)
        assert ys[i].shape == (len(x), 4 * (2 if bi else 1))
        np.testing.assert_allclose(ys[i], y_i, rtol=1e-12, atol=1e-12)


def test_one_sequence_is_the_lstm_cell_step_by_step():
    link, _, _ = _make("NStepLSTM", n_layers=1, in_size=3, out_size=2)
    x = np.random.default_rng(3).uniform(-1, 1, (4, 3))
    hy, cy, (y,) = _call(link, True, None, None, [x])
    w, b = [p.array for p in link.ws[0]], [p.array for p in link.bs[0]]
    h, c = np.zeros((1, 2)), np.zeros((1, 2))
    for t in range(4):
        pre = [x[t:t + 1] @ w[j].T + h @ w[j + 4].T + b[j] + b[j + 4] for j in range(4)]
        c_var, h_var = F.lstm(c, np.stack([pre[2], pre[0], pre[1], pre[3]], axis=2).reshape(1, 8))
        c, h = c_var.array, h_var.array
        np.testing.assert_allclose(y[t], h[0], rtol=1e-12)
    np.testing.assert_allclose(hy[0], h, rtol=1e-12)
    np.testing.assert_allclose(cy[0], c, rtol=1e-12)


@pytest.mark.parametrize("name", ["NStepLSTM", "NStepBiGRU", "NStepRNNTanh"])
def test_dropout_is_the_identity_in_test_mode(name):
    link, bi, use_cell = _make(name, dropout=0.8)
    xs = [np.random.default_rng(4).uniform(-1, 1, (n, 3)) for n in (3, 2)]
    with mg.using_config("train", False):
        got = _call(link, use_cell, None, None, xs)
    link.dropout = 0.0
    want = _call(link, use_cell, None, None, xs)
    np.testing.assert_array_equal(got[0], want[0])
    for a, b in zip(got[2], want[2]):
        np.testing.assert_array_equal(a, b)
    link.dropout = 0.8
    trained = _call(link, use_cell, None, None, xs)  # training mode: the second layer's input is dropped
    assert not np.allclose(trained[0], want[0])


def test_gradients_reach_every_parameter():
    link, _, _ = _make("NStepBiLSTM")
    xs = [mg.Variable(np.random.default_rng(5).uniform(-1, 1, (n, 3))) for n in (1, 3)]
    hy, cy, ys = link(None, None, xs)
    link.cleargrads()  # fresh Parameters hold NaN gradients, as in Chainer
    F.sum(F.concat(ys, axis=0) ** 2).backward()
    for path, param in link.namedparams():
        assert param.grad is not None and np.abs(param.grad).sum() > 0, path
    assert all(x.grad.shape == x.shape for x in xs)


def test_float32_parameters_by_default():
    hy, cy, ys = L.NStepLSTM(1, 3, 2, 0.0)(None, None, [np.ones((2, 3), np.float32)])
    assert hy.dtype == cy.dtype == ys[0].dtype == np.float32


def test_bad_arguments_name_the_link_and_the_shapes():
    link = L.NStepLSTM(2, 3, 4, 0.0)
    xs = [np.ones((2, 3), np.float32)]
    with pytest.raises(ValueError, match=r"NStepLSTM: hx must have shape .* = \(2, 1, 4\), got \(1, 1, 4\)"):
        link(np.zeros((1, 1, 4), np.float32), None, xs)
    with pytest.raises(ValueError, match=r"NStepLSTM: cx must have shape .* = \(2, 1, 4\), got \(2, 2, 4\)"):
        link(None, np.zeros((2, 2, 4), np.float32), xs)
    with pytest.raises(ValueError, match=r"NStepLSTM: xs\[1\] must have shape \(length >= 1, 3\), got \(2, 5\)"):
        link(None, None, xs + [np.ones((2, 5), np.float32)])
    with pytest.raises(ValueError, match=r"NStepLSTM: xs\[0\] must have shape .*got \(0, 3\)"):
        link(None, None, [np.ones((0, 3), np.float32)])
    with pytest.raises(TypeError, match="NStepGRU: xs must be a non-empty list"):
        L.NStepGRU(1, 3, 4, 0.0)(None, np.ones((2, 3)))
    with pytest.raises(ValueError, match="NStepRNNTanh: out_size must be positive"):
        L.NStepRNNTanh(1, 3, 0, 0.0)


def test_the_link_runs_on_cupy_and_matches_numpy():
    from minigrad.testing import cupy_sim

    link, _, _ = _make("NStepBiLSTM")
    rng = np.random.default_rng(6)
    xs = [rng.uniform(-1, 1, (n, 3)) for n in (2, 3)]
    want = _call(link, True, None, None, xs)
    with cupy_sim.install() as cp:
        link.to_device("@cupy:0")
        with cupy_sim.count_transfers() as transfers:  # sorting, steps and the way back: no device-to-host read
            hy, cy, ys = link(None, None, [cp.asarray(x) for x in xs])
        assert transfers.device_to_host == 0
        assert isinstance(hy.array, cp.ndarray) and isinstance(ys[0].array, cp.ndarray)
        np.testing.assert_allclose(hy.array.get(), want[0], rtol=1e-12)
        np.testing.assert_allclose(cy.array.get(), want[1], rtol=1e-12)
        for y, w in zip(ys, want[2]):
            np.testing.assert_allclose(y.array.get(), w, rtol=1e-12)
        link.to_device("@numpy")
