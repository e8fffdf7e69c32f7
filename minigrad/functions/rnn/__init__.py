"""Recurrent units, as Chainer's ``chainer.functions.rnn``: lstm, slstm, tree_lstm and the n-step recurrent
layers (n_step_rnn, n_step_lstm, n_step_gru and their bidirectional forms)."""

from minigrad.functions.rnn.lstm import *  # noqa: F401,F403
from minigrad.functions.rnn.n_step_rnn import *  # noqa: F401,F403
from minigrad.functions.rnn.slstm import *  # noqa: F401,F403
from minigrad.functions.rnn.tree_lstm import *  # noqa: F401,F403
