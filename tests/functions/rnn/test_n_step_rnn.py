"""F.n_step_lstm / n_step_gru / n_step_rnn and the bidirectional forms: what the registry sweep does not check.

Chainer's gate layout against F.lstm step by step, a ragged batch against each sequence run alone, the
backward direction against the forward function on reversed sequences, dropout (first layer never, test
mode never), and the errors.
"""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F


def _weights(rng, n_weights, n_layers, directions, in_size, out_size, dtype=np.float64):
    ws, bs = [], []
    for k in range(n_layers * directions):
        layer_in = in_size if k < directions else out_size * directions
        ws.append([rng.uniform(-1, 1, (out_size, layer_in if j < n_weights // 2 else out_size)).astype(dtype)
                   for j in range(n_weights)])
        bs.append([rng.uniform(-1, 1, out_size).astype(dtype) for _ in range(n_weights)])
    return ws, bs


def _time_major(sequences):
    """Sequences sorted longest first -> the per-step inputs the functions take."""
    return [np.stack([s[t] for s in sequences if len(s) > t]) for t in range(len(sequences[0]))]


KINDS = {  # function, bidirectional function, matrices per layer, has a cell state
    "lstm": (F.n_step_lstm, F.n_step_bilstm, 8, True),
    "gru": (F.n_step_gru, F.n_step_bigru, 6, False),
    "rnn": (F.n_step_rnn, F.n_step_birnn, 2, False),
}


def _run(kind, bi, n_layers, hx, cx, ws, bs, xs, dropout=0.0):
    uni_fn, bi_fn, _, use_cell = KINDS[kind]
    fn = bi_fn if bi else uni_fn
    if use_cell:
        hy, cy, ys = fn(n_layers, dropout, hx, cx, ws, bs, xs)
        return hy.array, cy.array, [y.array for y in ys]
    hy, ys = fn(n_layers, dropout, hx, ws, bs, xs)
    return hy.array, None, [y.array for y in ys]


def test_one_sequence_is_f_lstm_step_by_step_with_chainers_gate_layout():
    rng = np.random.default_rng(0)
    (w,), (b,) = _weights(rng, 8, 1, 1, 3, 2)
    xs = [rng.uniform(-1, 1, (1, 3)) for _ in range(4)]
    h, c = rng.uniform(-1, 1, (1, 2)), rng.uniform(-1, 1, (1, 2))
    hy, cy, ys = _run("lstm", False, 1, h[None], c[None], [w], [b], xs)
    for t, x in enumerate(xs):
        # matrices 0-3 on x, 4-7 on h; input, forget, cell input, output gate; F.lstm interleaves
        # (cell input, input, forget, output) per unit
        pre = [x @ w[j].T + h @ w[j + 4].T + b[j] + b[j + 4] for j in range(4)]
        gates = np.stack([pre[2], pre[0], pre[1], pre[3]], axis=2).reshape(1, 8)
        c_var, h_var = F.lstm(c, gates)
        c, h = c_var.array, h_var.array
        np.testing.assert_allclose(ys[t], h, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(hy[0], h, rtol=1e-12)
    np.testing.assert_allclose(cy[0], c, rtol=1e-12)


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("bi", [False, True], ids=["uni", "bi"])
def test_a_ragged_batch_equals_each_sequence_alone(kind, bi):
    rng = np.random.default_rng(1)
    n_layers, directions, out_size = 2, 2 if bi else 1, 3
    ws, bs = _weights(rng, KINDS[kind][2], n_layers, directions, 2, out_size)
    sequences = [rng.uniform(-1, 1, (n, 2)) for n in (4, 2, 2, 1)]
    hx = rng.uniform(-1, 1, (n_layers * directions, 4, out_size))
    cx = rng.uniform(-1, 1, hx.shape)
    hy, cy, ys = _run(kind, bi, n_layers, hx, cx, ws, bs, _time_major(sequences))
    for i, seq in enumerate(sequences):
        hy_i, cy_i, ys_i = _run(kind, bi, n_layers, hx[:, i:i + 1], cx[:, i:i + 1], ws, bs, [x[None] for x in seq])
        np.testing.assert_allclose(hy[:, i], hy_i[:, 0], rtol=1e-12, atol=1e-12)
        if cy is not None:
            np.testing.assert_allclose(cy[:, i], cy_i[:, 0], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(np.stack([ys[t][i] for t in range(len(seq))]), np.concatenate(ys_i),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_backward_direction_is_the_forward_function_on_the_reversed_sequence(kind):
    rng = np.random.default_rng(2)
    ws, bs = _weights(rng, KINDS[kind][2], 1, 2, 3, 2)
    seq = rng.uniform(-1, 1, (3, 3))
    hx, cx = rng.uniform(-1, 1, (2, 1, 2)), rng.uniform(-1, 1, (2, 1, 2))
    hy, cy, ys = _run(kind, True, 1, hx, cx, ws, bs, [x[None] for x in seq])
    f_hy, _, f_ys = _run(kind, False, 1, hx[:1], cx[:1], ws[:1], bs[:1], [x[None] for x in seq])
    b_hy, _, b_ys = _run(kind, False, 1, hx[1:], cx[1:], ws[1:], bs[1:], [x[None] for x in seq[::-1]])
    np.testing.assert_allclose(hy, np.concatenate([f_hy, b_hy]), rtol=1e-12)
    for t in range(3):
        np.testing.assert_allclose(ys[t], np.concatenate([f_ys[t], b_ys[2 - t]], axis=1), rtol=1e-12)


def _lstm_case(rng, n_layers):
    ws, bs = _weights(rng, 8, n_layers, 1, 3, 2)
    xs = _time_major([rng.uniform(-1, 1, (n, 3)) for n in (3, 2)])
    hx, cx = np.zeros((n_layers, 2, 2)), np.zeros((n_layers, 2, 2))
    return hx, cx, ws, bs, xs


def test_dropout_leaves_the_first_layers_input_alone_and_is_the_identity_in_test_mode():
    rng = np.random.default_rng(3)
    one_layer = _lstm_case(rng, 1)
    reference = _run("lstm", False, 1, *one_layer)
    dropped = _run("lstm", False, 1, *one_layer, dropout=0.9)  # training mode: still no dropout on layer 0
    np.testing.assert_array_equal(dropped[0], reference[0])

    two_layers = _lstm_case(rng, 2)
    reference = _run("lstm", False, 2, *two_layers)
    with mg.using_config("train", False):
        np.testing.assert_array_equal(_run("lstm", False, 2, *two_layers, dropout=0.9)[0], reference[0])
    trained = _run("lstm", False, 2, *two_layers, dropout=0.9)
    assert not np.allclose(trained[0][1], reference[0][1])  # the second layer's input was dropped
    np.testing.assert_array_equal(trained[0][0], reference[0][0])  # the first layer's state is untouched


def test_gradients_reach_every_input_of_a_bidirectional_stack():
    rng = np.random.default_rng(4)
    ws, bs = _weights(rng, 6, 2, 2, 2, 2)
    ws = [[mg.Variable(w) for w in row] for row in ws]
    xs = [mg.Variable(x) for x in _time_major([rng.uniform(-1, 1, (n, 2)) for n in (3, 1)])]
    hx = mg.Variable(rng.uniform(-1, 1, (4, 2, 2)))
    hy, ys = F.n_step_bigru(2, 0.0, hx, ws, bs, xs)
    F.sum(hy * hy + F.sum(F.concat(ys, axis=0))).backward()
    assert all(w.grad is not None and np.abs(w.grad).sum() > 0 for row in ws for w in row)
    assert all(x.grad is not None for x in xs) and hx.grad.shape == hx.shape


# --- errors -------------------------------------------------------------------

def test_unsorted_batches_are_refused():
    rng = np.random.default_rng(5)
    hx, cx, ws, bs, _ = _lstm_case(rng, 1)
    with pytest.raises(ValueError, match=r"n_step_lstm: the batch sizes of xs must be .*non-increasing.*\[1, 2\]"):
        F.n_step_lstm(1, 0.0, hx[:, :1], cx[:, :1], ws, bs, [np.ones((1, 3)), np.ones((2, 3))])


def test_wrong_state_shapes_are_refused_with_the_shapes():
    rng = np.random.default_rng(6)
    hx, cx, ws, bs, xs = _lstm_case(rng, 1)
    with pytest.raises(ValueError, match=r"n_step_lstm: hx must have shape .* \(1, 2, 2\) .*got \(1, 3, 2\)"):
        F.n_step_lstm(1, 0.0, np.zeros((1, 3, 2)), cx, ws, bs, xs)
    with pytest.raises(ValueError, match=r"n_step_lstm: cx must have hx's shape \(1, 2, 2\).*\(2, 2, 2\)"):
        F.n_step_lstm(1, 0.0, hx, np.zeros((2, 2, 2)), ws, bs, xs)
    with pytest.raises(ValueError, match=r"n_step_bigru: hx must have shape \(n_layers \* 2"):
        F.n_step_bigru(1, 0.0, np.zeros((1, 2, 2)), *_weights(rng, 6, 1, 2, 3, 2), xs)


def test_wrong_weights_are_refused_naming_the_matrix():
    rng = np.random.default_rng(7)
    hx, cx, ws, bs, xs = _lstm_case(rng, 1)
    with pytest.raises(ValueError, match=r"n_step_lstm: ws must have 1 entries, got 2"):
        F.n_step_lstm(1, 0.0, hx, cx, ws * 2, bs, xs)
    with pytest.raises(ValueError, match=r"n_step_lstm: ws\[0\] must have 8 entries, got 6"):
        F.n_step_lstm(1, 0.0, hx, cx, [ws[0][:6]], bs, xs)
    bad = [list(ws[0])]
    bad[0][5] = np.zeros((2, 3))
    with pytest.raises(ValueError, match=r"n_step_lstm: ws\[0\]\[5\] must have shape \(2, 2\).*got \(2, 3\)"):
        F.n_step_lstm(1, 0.0, hx, cx, bad, bs, xs)
    with pytest.raises(ValueError, match=r"n_step_lstm: ws\[0\]\[0\] must have shape \(2, 4\)"):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [np.ones((2, 4)), np.ones((1, 4))])
    with pytest.raises(ValueError, match=r"n_step_lstm: ws\[0\]\[0\] .*dtype float64.*float32"):
        F.n_step_lstm(1, 0.0, hx, cx, [[ws[0][0].astype(np.float32)] + ws[0][1:]], bs, xs)


def test_other_bad_arguments():
    rng = np.random.default_rng(8)
    ws, bs = _weights(rng, 2, 1, 1, 3, 2)
    hx, xs = np.zeros((1, 1, 2)), [np.ones((1, 3))]
    with pytest.raises(ValueError, match="n_step_rnn: activation must be 'tanh' or 'relu', got 'sigmoid'"):
        F.n_step_rnn(1, 0.0, hx, ws, bs, xs, activation="sigmoid")
    with pytest.raises(ValueError, match=r"n_step_rnn: dropout_ratio must be in \[0, 1\), got 1.0"):
        F.n_step_rnn(1, 1.0, hx, ws, bs, xs)
    with pytest.raises(ValueError, match="n_step_rnn: n_layers must be positive, got 0"):
        F.n_step_rnn(0, 0.0, hx, ws, bs, xs)
    with pytest.raises(TypeError, match="n_step_rnn: xs must be a non-empty list"):
        F.n_step_rnn(1, 0.0, hx, ws, bs, [])
    with pytest.raises(TypeError, match="n_step_gru: n_layers must be a positive int, got list"):
        F.n_step_gru([1], 0.0, hx, ws, bs, xs)
    with pytest.raises(ValueError, match=r"n_step_rnn: xs\[0\] must have shape \(batch, in_size\), got \(3,\)"):
        F.n_step_rnn(1, 0.0, hx, ws, bs, [np.ones(3)])


def test_float16_stays_float16():
    rng = np.random.default_rng(9)
    ws, bs = _weights(rng, 8, 1, 2, 3, 2, dtype=np.float16)
    xs = [np.ones((2, 3), np.float16), np.ones((1, 3), np.float16)]
    state = np.zeros((2, 2, 2), np.float16)
    hy, cy, ys = F.n_step_bilstm(1, 0.0, state, state, ws, bs, xs)
    assert hy.dtype == cy.dtype == ys[0].dtype == np.float16


def test_steps_of_different_sizes_or_dtypes_are_refused():
    rng = np.random.default_rng(10)
    hx, cx, ws, bs, _ = _lstm_case(rng, 1)
    with pytest.raises(ValueError, match=r"n_step_lstm: every xs\[t\] must have xs\[0\]'s size 3 .*xs\[1\] of shape "
                                         r"\(1, 4\)"):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [np.ones((2, 3)), np.ones((1, 4))])
    with pytest.raises(ValueError, match=r"n_step_lstm: every xs\[t\] .*dtype float64, got xs\[1\] .*float32"):
        F.n_step_lstm(1, 0.0, hx, cx, ws, bs, [np.ones((2, 3)), np.ones((1, 3), np.float32)])
