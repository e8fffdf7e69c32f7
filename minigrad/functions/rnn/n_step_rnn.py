"""n_step_rnn, n_step_lstm, n_step_gru and their bidirectional forms: stacked recurrent layers over sequences.

Each is composed of verified minigrad ops (``F.linear``, ``F.lstm``, the gate
arithmetic, ``F.split_axis`` / ``F.concat`` / ``F.stack``), so every
derivative order works. One loop over layers, directions and time steps
(``_n_step``) serves all three cell types; a cell function per type computes
one step. The weights follow Chainer's layout: per layer (and direction:
``ws[direction * layer + d]``, ``d = 0`` forward, ``1`` backward) a list of
matrices of shape ``(N, in)``, the first half acting on the layer's input
and the second half on the previous hidden state, and one bias vector of
shape ``(N,)`` per matrix.

``xs`` is time-major, as in Chainer: ``xs[t]`` holds the inputs of time
``t`` of every sequence still running, shape ``(B_t, I)``, with the
sequences sorted longest first so that ``B_0 >= B_1 >= ...``
(``L.NStepLSTM`` and the other links sort and transpose a list of sequences
for you). The hidden state of a sequence that has ended is carried to
``hy`` unchanged.

Dropout (ratio ``dropout_ratio``, training mode only) applies to the input
of every layer after the first, independently for each direction, as in
Chainer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy

import minigrad.functions as F  # other ops, called as a user would (no import cycle)
from minigrad.configuration import config
from minigrad.functions.checks import as_input, require_real
from minigrad.variable import Variable

__all__ = ["n_step_rnn", "n_step_birnn", "n_step_lstm", "n_step_bilstm", "n_step_gru", "n_step_bigru"]

# --- the cells: one time step of one layer and direction, (x, h, c, ws, bs) -> (h_new, c_new) ---

def _interleave(arrays: Sequence[Variable]) -> Variable:
    """``(k, N, ...)`` stacked as ``(N, k, ...)`` and flattened: F.lstm's per-unit gate layout."""
    stacked = F.stack(arrays, axis=1)
    return F.reshape(stacked, (stacked.shape[0] * stacked.shape[1],) + stacked.shape[2:])


def _lstm_weights(w: Sequence[Variable], b: Sequence[Variable]) -> tuple[Variable, ...]:
    # Chainer's (and cuDNN's) matrices: input gate 0, forget gate 1, cell input 2, output gate 3 (4-7 on h);
    # F.lstm wants each unit's (cell input, input, forget, output) side by side.
    order_x, order_h = (2, 0, 1, 3), (6, 4, 5, 7)
    return (_interleave([w[j] for j in order_x]), _interleave([b[j] for j in order_x]),
            _interleave([w[j] for j in order_h]), _interleave([b[j] for j in order_h]))


def _lstm_cell(x, h, c, weights):
    xw, xb, hw, hb = weights
    c_new, h_new = F.lstm(c, F.linear(x, xw, xb) + F.linear(h, hw, hb))
    return h_new, c_new


def _gru_weights(w: Sequence[Variable], b: Sequence[Variable]) -> tuple[Variable, ...]:
    return (F.concat(w[:3], axis=0), F.concat(b[:3], axis=0), F.concat(w[3:], axis=0), F.concat(b[3:], axis=0))


def _gru_cell(x, h, c, weights):
    """``r = sigmoid(W0 x + W3 h + b0 + b3)``, ``z = sigmoid(W1 x + W4 h + b1 + b4)``,
    ``h_bar = tanh(W2 x + b2 + r * (W5 h + b5))``, ``h_new = (1 - z) * h_bar + z * h``."""
    xw, xb, hw, hb = weights
    x_r, x_z, x_h = F.split_axis(F.linear(x, xw, xb), 3, axis=1)
    h_r, h_z, h_h = F.split_axis(F.linear(h, hw, hb), 3, axis=1)
    r = F.sigmoid(x_r + h_r)
    z = F.sigmoid(x_z + h_z)
    h_bar = F.tanh(x_h + r * h_h)
    return F.linear_interpolate(z, h, h_bar), None


def _plain_weights(w: Sequence[Variable], b: Sequence[Variable]) -> tuple[Variable, ...]:
    return w[0], b[0], w[1], b[1]


def _plain_cell(activation: str) -> Callable:
    act = getattr(F, activation)  # F.tanh or F.relu, looked up when the op runs

    def cell(x, h, c, weights):
        xw, xb, hw, hb = weights
        return act(F.linear(x, xw, xb) + F.linear(h, hw, hb)), None
    return cell


# --- the shared loop -----------------------------------------------------------

def _checked_int(op: str, value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        raise TypeError(f"{op}: {name} must be a positive int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{op}: {name} must be positive, got {value}")
    return int(value)


def _checked_list(op: str, value: Any, name: str, length: int) -> list:
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{op}: {name} must be a list, got {type(value).__name__}")
    if len(value) != length:
        raise ValueError(f"{op}: {name} must have {length} entries, got {len(value)}")
    return list(value)


def _n_step(op: str, n_weights: int, make_weights: Callable, cell: Callable, n_layers: Any, dropout_ratio: Any,
            hx: Any, cx: Any, ws: Any, bs: Any, xs: Any, directions: int,
            use_cell: bool) -> tuple[Variable, Variable | None, list[Variable]]:
    n_layers = _checked_int(op, n_layers, "n_layers")
    dropout_ratio = require_real(op, dropout_ratio, "dropout_ratio")
    if not 0.0 <= dropout_ratio < 1.0:
        raise ValueError(f"{op}: dropout_ratio must be in [0, 1), got {dropout_ratio}")
    if not isinstance(xs, (list, tuple)) or not xs:
        raise TypeError(f"{op}: xs must be a non-empty list of arrays (one per time step), got "
                        f"{type(xs).__name__ if not isinstance(xs, (list, tuple)) else 'an empty list'}")
    xs = [as_input(op, x, f"xs[{t}]", float_only=True) for t, x in enumerate(xs)]
    hx = as_input(op, hx, "hx", float_only=True)
    n_states = n_layers * directions
    ws = [_checked_list(op, w, f"ws[{k}]", n_weights) for k, w in enumerate(_checked_list(op, ws, "ws", n_states))]
    bs = [_checked_list(op, b, f"bs[{k}]", n_weights) for k, b in enumerate(_checked_list(op, bs, "bs", n_states))]
    ws = [[as_input(op, w, f"ws[{k}][{j}]", float_only=True) for j, w in enumerate(row)] for k, row in enumerate(ws)]
    bs = [[as_input(op, b, f"bs[{k}][{j}]", float_only=True) for j, b in enumerate(row)] for k, row in enumerate(bs)]

    dtype = hx.dtype
    for t, x in enumerate(xs):
        if x.ndim != 2:
            raise ValueError(f"{op}: xs[{t}] must have shape (batch, in_size), got {x.shape}")
        if x.shape[1] != xs[0].shape[1] or x.dtype != dtype:
            raise ValueError(f"{op}: every xs[t] must have xs[0]'s size {xs[0].shape[1]} and hx's dtype {dtype}, "
                             f"got xs[{t}] of shape {x.shape} and dtype {x.dtype}")
    batches = [x.shape[0] for x in xs]
    if any(b1 < b2 for b1, b2 in zip(batches, batches[1:])) or batches[-1] == 0:
        raise ValueError(f"{op}: the batch sizes of xs must be positive and non-increasing (sequences sorted "
                         f"longest first, then transposed, e.g. by L.NStepLSTM), got {batches}")
    out_size = ws[0][0].shape[0] if ws[0][0].ndim == 2 else -1
    in_size = xs[0].shape[1]
    for k, (w_row, b_row) in enumerate(zip(ws, bs)):
        layer = k // directions
        for j, (w, b) in enumerate(zip(w_row, b_row)):
            w_in = out_size if j >= n_weights // 2 else (in_size if layer == 0 else out_size * directions)
            if w.shape != (out_size, w_in) or w.dtype != dtype:
                raise ValueError(f"{op}: ws[{k}][{j}] must have shape {(out_size, w_in)} and dtype {dtype} "
                                 f"(in_size {in_size}, out_size {out_size}), got {w.shape} {w.dtype}")
            if b.shape != (out_size,) or b.dtype != dtype:
                raise ValueError(f"{op}: bs[{k}][{j}] must have shape {(out_size,)} and dtype {dtype}, "
                                 f"got {b.shape} {b.dtype}")
    state_shape = (n_states, batches[0], out_size)
    if hx.shape != state_shape:
        raise ValueError(f"{op}: hx must have shape (n_layers * {directions}, batch, out_size) = {state_shape} "
                         f"for xs[0] of shape {xs[0].shape}, got {hx.shape}")
    if use_cell:
        cx = as_input(op, cx, "cx", float_only=True)
        if cx.shape != state_shape or cx.dtype != dtype:
            raise ValueError(f"{op}: cx must have hx's shape {state_shape} and dtype {dtype}, got {cx.shape} "
                             f"{cx.dtype}")

    h_initial = F.separate(hx, axis=0)
    c_initial = F.separate(cx, axis=0) if use_cell else (None,) * n_states
    hy, cy = [], []
    layer_input = xs
    for layer in range(n_layers):
        outputs = []
        for direction in range(directions):
            k = directions * layer + direction
            inputs = layer_input
            if layer > 0 and dropout_ratio > 0 and config.train:
                inputs = [F.dropout(x, dropout_ratio) for x in inputs]
            steps = inputs if direction == 0 else inputs[::-1]
            h, c, ys = _one_direction(cell, make_weights(ws[k], bs[k]), steps, h_initial[k], c_initial[k])
            hy.append(h)
            cy.append(c)
            outputs.append(ys if direction == 0 else ys[::-1])
        layer_input = outputs[0] if directions == 1 else [F.concat(pair, axis=1) for pair in zip(*outputs)]
    return F.stack(hy, axis=0), (F.stack(cy, axis=0) if use_cell else None), list(layer_input)


def _one_direction(cell, weights, steps, h, c):
    """Run ``cell`` over ``steps``; rows past a step's batch keep their state (their sequence has ended)."""
    ys = []
    for x in steps:
        batch = x.shape[0]
        split = h.shape[0] > batch
        if split:
            h, h_rest = F.split_axis(h, [batch], axis=0)
            if c is not None:
                c, c_rest = F.split_axis(c, [batch], axis=0)
        h, c = cell(x, h, c, weights)
        ys.append(h)
        if split:
            h = F.concat((h, h_rest), axis=0)
            if c is not None:
                c = F.concat((c, c_rest), axis=0)
    return h, c, ys


# --- the public functions ------------------------------------------------------

def n_step_lstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any, ws: Any, bs: Any,
                xs: Sequence[Any]) -> tuple[Variable, Variable, list[Variable]]:
    """A stack of ``n_layers`` LSTM layers run over a batch of sequences: returns ``(hy, cy, ys)``.

    Per layer, with ``ws[layer] = [W0, ..., W7]`` and ``bs[layer] = [b0, ..., b7]``
    (the layout Chainer and cuDNN use)::

        i = sigmoid(W0 x + W4 h + b0 + b4)     # input gate
        f = sigmoid(W1 x + W5 h + b1 + b5)     # forget gate
        a = tanh(W2 x + W6 h + b2 + b6)        # cell input
        o = sigmoid(W3 x + W7 h + b3 + b7)     # output gate
        c_new = f * c + i * a;   h_new = o * tanh(c_new)

    Args:
        n_layers: the number of layers ``S``.
        dropout_ratio: dropout on the input of every layer but the first, in
            training mode (``minigrad.config.train``).
        hx, cx: the initial hidden and cell states, ``(S, B, N)``.
        ws: ``S`` lists of 8 matrices: ``ws[0][0:4]`` are ``(N, I)``, the others ``(N, N)``.
        bs: ``S`` lists of 8 vectors ``(N,)``.
        xs: the inputs per time step, ``xs[t]`` of shape ``(B_t, I)`` with
            ``B = B_0 >= B_1 >= ...`` (sequences sorted longest first, then
            transposed; see the module docstring).

    Returns:
        ``hy`` and ``cy``, the final states ``(S, B, N)`` (each sequence's
        state after its last step), and ``ys``, the last layer's outputs,
        ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> N, I = 2, 3
        >>> ws = [[np.zeros((N, I))] * 4 + [np.zeros((N, N))] * 4]
        >>> bs = [[np.zeros(N)] * 8]
        >>> xs = [np.ones((2, I)), np.ones((1, I))]   # two sequences, of lengths 2 and 1
        >>> hy, cy, ys = F.n_step_lstm(1, 0.0, np.zeros((1, 2, N)), np.zeros((1, 2, N)), ws, bs, xs)
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((1, 2, 2), (1, 2, 2), [(2, 2), (1, 2)])
    """
    return _n_step("n_step_lstm", 8, _lstm_weights, _lstm_cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                   directions=1, use_cell=True)


def n_step_bilstm(n_layers: int, dropout_ratio: float, hx: Any, cx: Any, ws: Any, bs: Any,
                  xs: Sequence[Any]) -> tuple[Variable, Variable, list[Variable]]:
    """A stack of bidirectional LSTM layers (see ``n_step_lstm``): returns ``(hy, cy, ys)``.

    Each layer runs one LSTM forward in time (weights ``ws[2 * layer]``) and
    one backward (``ws[2 * layer + 1]``, each sequence starting from its own
    last step); its output ``[h_forward; h_backward]`` of size ``2N`` is the
    next layer's input.

    Args:
        n_layers: the number of layers ``S``.
        dropout_ratio: dropout on the input of every layer but the first (training mode).
        hx, cx: the initial states, ``(2S, B, N)``, ordered like ``ws``.
        ws: ``2S`` lists of 8 matrices: ``ws[0][0:4]`` and ``ws[1][0:4]`` are
            ``(N, I)``, ``ws[k][0:4]`` of later layers ``(N, 2N)``, the others ``(N, N)``.
        bs: ``2S`` lists of 8 vectors ``(N,)``.
        xs: the inputs per time step, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` non-increasing.

    Returns:
        ``hy``, ``cy`` of shape ``(2S, B, N)`` and ``ys``, ``ys[t]`` of shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> N, I = 2, 3
        >>> ws = [[np.zeros((N, I))] * 4 + [np.zeros((N, N))] * 4] * 2
        >>> bs = [[np.zeros(N)] * 8] * 2
        >>> hy, cy, ys = F.n_step_bilstm(1, 0.0, np.zeros((2, 1, N)), np.zeros((2, 1, N)), ws, bs, [np.ones((1, I))])
        >>> hy.shape, ys[0].shape
        ((2, 1, 2), (1, 4))
    """
    return _n_step("n_step_bilstm", 8, _lstm_weights, _lstm_cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs,
                   directions=2, use_cell=True)


def n_step_gru(n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any,
               xs: Sequence[Any]) -> tuple[Variable, list[Variable]]:
    """A stack of ``n_layers`` GRU layers run over a batch of sequences: returns ``(hy, ys)``.

    Per layer, with ``ws[layer] = [W0, ..., W5]`` and ``bs[layer] = [b0, ..., b5]``::

        r = sigmoid(W0 x + W3 h + b0 + b3)          # reset gate
        z = sigmoid(W1 x + W4 h + b1 + b4)          # update gate
        h_bar = tanh(W2 x + b2 + r * (W5 h + b5))
        h_new = (1 - z) * h_bar + z * h

    Args:
        n_layers: the number of layers ``S``.
        dropout_ratio: dropout on the input of every layer but the first (training mode).
        hx: the initial hidden state, ``(S, B, N)``.
        ws: ``S`` lists of 6 matrices: ``ws[0][0:3]`` are ``(N, I)``, the others ``(N, N)``.
        bs: ``S`` lists of 6 vectors ``(N,)``.
        xs: the inputs per time step, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` non-increasing.

    Returns:
        ``hy`` of shape ``(S, B, N)`` and ``ys``, ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> N, I = 2, 3
        >>> ws, bs = [[np.zeros((N, I))] * 3 + [np.zeros((N, N))] * 3], [[np.zeros(N)] * 6]
        >>> hy, ys = F.n_step_gru(1, 0.0, np.ones((1, 1, N)), ws, bs, [np.ones((1, I))])
        >>> hy.array  # z = 0.5, h_bar = 0: half of the state survives
        array([[[0.5, 0.5]]])
    """
    hy, _, ys = _n_step("n_step_gru", 6, _gru_weights, _gru_cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                        directions=1, use_cell=False)
    return hy, ys


def n_step_bigru(n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any,
                 xs: Sequence[Any]) -> tuple[Variable, list[Variable]]:
    """A stack of bidirectional GRU layers (see ``n_step_gru`` and ``n_step_bilstm``): returns ``(hy, ys)``.

    Args:
        n_layers: the number of layers ``S``.
        dropout_ratio: dropout on the input of every layer but the first (training mode).
        hx: the initial hidden state, ``(2S, B, N)``, ordered like ``ws``.
        ws: ``2S`` lists of 6 matrices (forward ``ws[2 * layer]``, backward
            ``ws[2 * layer + 1]``); ``ws[k][0:3]`` are ``(N, I)`` in the first
            layer and ``(N, 2N)`` after it, the others ``(N, N)``.
        bs: ``2S`` lists of 6 vectors ``(N,)``.
        xs: the inputs per time step, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` non-increasing.

    Returns:
        ``hy`` of shape ``(2S, B, N)`` and ``ys``, ``ys[t]`` of shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> N, I = 2, 3
        >>> ws, bs = [[np.zeros((N, I))] * 3 + [np.zeros((N, N))] * 3] * 2, [[np.zeros(N)] * 6] * 2
        >>> hy, ys = F.n_step_bigru(1, 0.0, np.zeros((2, 2, N)), ws, bs, [np.ones((2, I)), np.ones((1, I))])
        >>> hy.shape, [y.shape for y in ys]
        ((2, 2, 2), [(2, 4), (1, 4)])
    """
    hy, _, ys = _n_step("n_step_bigru", 6, _gru_weights, _gru_cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                        directions=2, use_cell=False)
    return hy, ys


def _activation(op: str, activation: Any) -> Callable:
    if activation not in ("tanh", "relu"):
        raise ValueError(f"{op}: activation must be 'tanh' or 'relu', got {activation!r}")
    return _plain_cell(activation)


def n_step_rnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Sequence[Any],
               activation: str = "tanh") -> tuple[Variable, list[Variable]]:
    """A stack of ``n_layers`` plain RNN layers run over a batch of sequences: returns ``(hy, ys)``.

    Per layer, ``h_new = act(W0 x + W1 h + b0 + b1)`` with ``ws[layer] = [W0, W1]``,
    ``bs[layer] = [b0, b1]`` and ``act`` tanh or relu.

    Args:
        n_layers: the number of layers ``S``.
        dropout_ratio: dropout on the input of every layer but the first (training mode).
        hx: the initial hidden state, ``(S, B, N)``.
        ws: ``S`` lists of 2 matrices: ``ws[0][0]`` is ``(N, I)``, the others ``(N, N)``.
        bs: ``S`` lists of 2 vectors ``(N,)``.
        xs: the inputs per time step, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` non-increasing.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``hy`` of shape ``(S, B, N)`` and ``ys``, ``ys[t]`` of shape ``(B_t, N)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> ws, bs = [[np.eye(2), np.eye(2)]], [[np.zeros(2), np.zeros(2)]]
        >>> hy, ys = F.n_step_rnn(1, 0.0, np.zeros((1, 1, 2)), ws, bs, [np.ones((1, 2))] * 2, activation="relu")
        >>> [y.array for y in ys]  # h1 = x, h2 = x + h1
        [array([[1., 1.]]), array([[2., 2.]])]
    """
    cell = _activation("n_step_rnn", activation)
    hy, _, ys = _n_step("n_step_rnn", 2, _plain_weights, cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                        directions=1, use_cell=False)
    return hy, ys


def n_step_birnn(n_layers: int, dropout_ratio: float, hx: Any, ws: Any, bs: Any, xs: Sequence[Any],
                 activation: str = "tanh") -> tuple[Variable, list[Variable]]:
    """A stack of bidirectional plain RNN layers (see ``n_step_rnn`` and ``n_step_bilstm``): returns ``(hy, ys)``.

    Args:
        n_layers: the number of layers ``S``.
        dropout_ratio: dropout on the input of every layer but the first (training mode).
        hx: the initial hidden state, ``(2S, B, N)``, ordered like ``ws``.
        ws: ``2S`` lists of 2 matrices (forward ``ws[2 * layer]``, backward
            ``ws[2 * layer + 1]``); ``ws[k][0]`` is ``(N, I)`` in the first
            layer and ``(N, 2N)`` after it, ``ws[k][1]`` is ``(N, N)``.
        bs: ``2S`` lists of 2 vectors ``(N,)``.
        xs: the inputs per time step, ``xs[t]`` of shape ``(B_t, I)``, ``B_t`` non-increasing.
        activation: ``'tanh'`` or ``'relu'``.

    Returns:
        ``hy`` of shape ``(2S, B, N)`` and ``ys``, ``ys[t]`` of shape ``(B_t, 2N)``.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> ws, bs = [[np.eye(2), np.eye(2)]] * 2, [[np.zeros(2), np.zeros(2)]] * 2
        >>> hy, ys = F.n_step_birnn(1, 0.0, np.zeros((2, 1, 2)), ws, bs, [np.ones((1, 2))] * 2, activation="relu")
        >>> [y.array for y in ys]  # [forward; backward]: the backward direction starts at the end
        [array([[1., 1., 2., 2.]]), array([[2., 2., 1., 1.]])]
    """
    cell = _activation("n_step_birnn", activation)
    hy, _, ys = _n_step("n_step_birnn", 2, _plain_weights, cell, n_layers, dropout_ratio, hx, None, ws, bs, xs,
                        directions=2, use_cell=False)
    return hy, ys
