"""L.StatefulZoneoutLSTM: two steps against NumPy with the same random draws, gradients, ratios, state."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad import backend
from minigrad.testing import LinkTestCase


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _numpy_step(link, x, c, h, draw):
    """Chainer's zoneout LSTM step; ``draw(shape)`` gives the uniform numbers F.zoneout compares to the ratio."""
    W, b = link.upward.W.array.astype(np.float64), link.upward.b.array.astype(np.float64)
    gates = x @ W.T + b
    n = link.state_size
    if h is not None:
        gates = gates + h @ link.lateral.W.array.astype(np.float64).T
    c = np.zeros((len(x), n)) if c is None else c
    h = np.zeros((len(x), n)) if h is None else h
    g = gates.reshape(len(x), n, 4)
    c_tmp = np.tanh(g[..., 0]) * _sigmoid(g[..., 1]) + _sigmoid(g[..., 2]) * c
    keep_c = draw((len(x), n)) < link.c_ratio  # F.zoneout takes the new value where the draw >= ratio
    keep_h = draw((len(x), n)) < link.h_ratio
    return np.where(keep_c, c, c_tmp), np.where(keep_h, h, _sigmoid(g[..., 3]) * np.tanh(c_tmp))


class TestStatefulZoneoutLSTMTwoSteps(LinkTestCase):
    """Training mode; the backend's global generator (NumPy's or CuPy's, which F.zoneout draws from) is seeded
    before every forward, so each run, and the reference, draws the same zoneout masks."""

    def create_link(self, initializers):
        link = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.4, h_ratio=0.6)
        link.upward.b.array = self.rng.uniform(-1, 1, 8).astype(self.dtype)
        return link

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype), self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype)

    def forward(self, link, inputs):
        self.xp.random.seed(7)
        link.reset_state()
        link(inputs[0])
        return link(inputs[1])

    def forward_expected(self, link, inputs):
        self.xp.random.seed(7)

        def draw(shape):
            return backend.to_cpu(self.xp.random.random_sample(shape))

        c, h = _numpy_step(link, inputs[0], None, None, draw)
        return _numpy_step(link, inputs[1], c, h, draw)[1],


def test_both_kinds_of_unit_occur_and_test_mode_takes_every_new_value():
    link = L.StatefulZoneoutLSTM(3, 50, c_ratio=0.5, h_ratio=0.5)
    x = np.random.default_rng(0).uniform(-1, 1, (4, 3)).astype(np.float32)
    h1 = link(x).array.copy()
    h2 = link(x).array
    kept = h2 == h1
    assert 0.3 < kept.mean() < 0.7  # units kept with probability h_ratio
    with mg.using_config("train", False):
        link.reset_state()
        h1 = link(x).array.copy()
        assert not (link(x).array == h1).any()


def test_set_state_ratios_and_keywords():
    link = L.StatefulZoneoutLSTM(None, 2)
    link.set_state(np.zeros((3, 2), np.float32), np.ones((3, 2), np.float32))
    assert link(np.ones((3, 5), np.float32)).shape == (3, 2) and link.upward.W.shape == (8, 5)
    with pytest.raises(ValueError, match=r"StatefulZoneoutLSTM.set_state: h must have shape \(batch, 2\)"):
        link.set_state(np.zeros((3, 2), np.float32), np.zeros((3, 3), np.float32))
    with pytest.raises(ValueError, match=r"StatefulZoneoutLSTM: c_ratio must be in \[0, 1\], got 1.5"):
        L.StatefulZoneoutLSTM(3, 2, c_ratio=1.5)
    with pytest.raises(ValueError, match="StatefulZoneoutLSTM: h_ratio must be a finite number, got nan"):
        L.StatefulZoneoutLSTM(3, 2, h_ratio=float("nan"))
    with pytest.raises(TypeError, match=r"StatefulZoneoutLSTM: unexpected keyword argument\(s\) \['train'\]; use "
                                        r"minigrad.using_config\('train', ...\)"):
        L.StatefulZoneoutLSTM(3, 2, train=True)
