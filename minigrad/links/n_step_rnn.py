"""The stacked recurrent links over whole sequences: ``NStepLSTM``, ``NStepGRU``, ``NStepRNNTanh``, ... and the
bidirectional ``NStepBi*`` forms, each holding the weights of ``F.n_step_lstm`` and its siblings.

Unlike the functions, the links take a plain list of sequences, in any
order and of any lengths: they sort them longest first, transpose them to
the time-major steps the functions take, and put the outputs (and the rows
of ``hy``, ``cy``) back in the callers' order.
"""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import initializers
from minigrad.link import ChainList, Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter, Variable

__all__ = ["NStepLSTM", "NStepBiLSTM", "NStepGRU", "NStepBiGRU",
           "NStepRNNTanh", "NStepRNNReLU", "NStepBiRNNTanh", "NStepBiRNNReLU"]


class NStepRNNBase(ChainList):
    """What the n-step links share: one child link per layer and direction (``/0``, ``/1``, ... in the order of
    ``ws``), each holding ``w0``, ``w1``, ... and ``b0``, ``b1``, ... as Chainer names them.

    Args:
        n_layers: the number of layers.
        in_size: the size of the input vectors.
        out_size: the size of the hidden states (outputs are ``2 * out_size`` wide when bidirectional).
        dropout: the dropout ratio on the input of every layer but the first (training mode only).
        initialW: initializer of the weights (default ``LeCunNormal``).
        initial_bias: initializer of the biases (default 0).
    """

    n_weights: int  # matrices (and biases) per layer and direction
    use_bi_direction: bool
    use_cell = False  # LSTM's cell state: forward takes (hx, cx, xs)

    def __init__(self, n_layers: int, in_size: int, out_size: int, dropout: float, initialW: Any = None,
                 initial_bias: Any = None) -> None:
        super().__init__()
        name = type(self).__name__
        self.n_layers = positive_int(name, "n_layers", n_layers)
        self.in_size = positive_int(name, "in_size", in_size)
        self.out_size = positive_int(name, "out_size", out_size)
        self.dropout = dropout
        self.direction = 2 if self.use_bi_direction else 1
        w_init = initializers.get_initializer(initialW, initializers.LeCunNormal())
        b_init = initializers.get_initializer(initial_bias, initializers.Zero())
        for layer in range(self.n_layers):
            for _ in range(self.direction):
                weights = Link()
                with weights.init_scope():
                    for j in range(self.n_weights):
                        if j >= self.n_weights // 2:
                            w_in = self.out_size  # acts on the hidden state
                        else:
                            w_in = self.in_size if layer == 0 else self.out_size * self.direction
                        setattr(weights, f"w{j}", Parameter(w_init, (self.out_size, w_in)))
                        setattr(weights, f"b{j}", Parameter(b_init, self.out_size))
                self.add_link(weights)

    @property
    def ws(self) -> list[list[Parameter]]:
        """The weight matrices, ``ws[direction * layer + d][j]``, as the functions take them."""
        return [[getattr(child, f"w{j}") for j in range(self.n_weights)] for child in self]

    @property
    def bs(self) -> list[list[Parameter]]:
        """The bias vectors, ``bs[direction * layer + d][j]``."""
        return [[getattr(child, f"b{j}") for j in range(self.n_weights)] for child in self]

    @property
    def n_cells(self) -> int:
        """How many state arrays the link takes and returns (2 for LSTM: ``h`` and ``c``)."""
        return 2 if self.use_cell else 1

    def init_hx(self, xs: list[Any]) -> Variable:
        """A zero state, ``(n_layers * direction, len(xs), out_size)`` of the inputs' dtype."""
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        return Variable(self.xp.zeros(shape, dtype=xs[0].dtype), requires_grad=False)

    def rnn(self, *args: Any) -> tuple:
        """The function this link calls (``F.n_step_lstm`` etc.) with the time-major arguments."""
        raise NotImplementedError

    def _call(self, states: list[Any], xs: Any) -> tuple[list[Variable], list[Variable]]:
        name = type(self).__name__
        if not isinstance(xs, (list, tuple)) or not xs:
            raise TypeError(f"{name}: xs must be a non-empty list of sequences, got "
                            f"{type(xs).__name__ if not isinstance(xs, (list, tuple)) else 'an empty list'}")
        for i, x in enumerate(xs):
            shape = getattr(x, "shape", None)
            if shape is None:
                raise TypeError(f"{name}: xs[{i}] must be an array or a Variable, got {type(x).__name__}")
            if len(shape) != 2 or shape[0] == 0 or shape[1] != self.in_size:
                raise ValueError(f"{name}: xs[{i}] must have shape (length >= 1, {self.in_size}), got {tuple(shape)}")
        state_shape = (self.n_layers * self.direction, len(xs), self.out_size)
        for state_name, state in zip(("hx", "cx"), states):
            if state is not None and tuple(getattr(state, "shape", ())) != state_shape:
                raise ValueError(f"{name}: {state_name} must have shape (n_layers * {self.direction}, len(xs), "
                                 f"out_size) = {state_shape}, got {getattr(state, 'shape', type(state).__name__)}")
        lengths = numpy.array([x.shape[0] for x in xs])
        order = numpy.argsort(-lengths, kind="stable")  # longest first
        sorted_xs = [xs[i] for i in order]
        states = [self.init_hx(xs) if s is None else F.get_item(s, (slice(None), order)) for s in states]

        steps = F.transpose_sequence(sorted_xs)
        *finals, ys = self.rnn(self.n_layers, self.dropout, *states, self.ws, self.bs, steps)

        inverse = numpy.argsort(order)  # host indices, like order: get_item checks them without a device sync
        finals = [F.get_item(h, (slice(None), inverse)) for h in finals]
        sorted_ys = F.transpose_sequence(ys)  # its own inverse: back to sequences, longest first
        outputs: list[Variable] = [None] * len(xs)  # type: ignore[list-item]
        for position, k in enumerate(order):
            outputs[k] = sorted_ys[position]
        return finals, outputs

    def forward(self, hx: Any, xs: Any) -> tuple[Variable, list[Variable]]:
        """``hx`` (``None``: zeros) of shape ``(n_layers * direction, len(xs), out_size)`` and ``xs``, a list
        of sequences ``(L_i, in_size)`` -> ``(hy, ys)``, ``ys[i]`` of shape ``(L_i, direction * out_size)``."""
        (hy,), ys = self._call([hx], xs)
        return hy, ys


class _LSTMForward:
    use_cell = True
    n_weights = 8

    def forward(self, hx: Any, cx: Any, xs: Any) -> tuple[Variable, Variable, list[Variable]]:
        """``hx``, ``cx`` (``None``: zeros) of shape ``(n_layers * direction, len(xs), out_size)`` and
        ``xs``, a list of sequences ``(L_i, in_size)`` -> ``(hy, cy, ys)``."""
        (hy, cy), ys = self._call([hx, cx], xs)  # type: ignore[attr-defined]
        return hy, cy, ys


class NStepLSTM(_LSTMForward, NStepRNNBase):
    """A stack of LSTM layers over a list of sequences (``F.n_step_lstm``): ``hy, cy, ys = link(hx, cx, xs)``.

    Args: see ``NStepRNNBase`` (``n_layers, in_size, out_size, dropout``).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> rnn = L.NStepLSTM(2, 3, 4, 0.0)
        >>> hy, cy, ys = rnn(None, None, [np.ones((5, 3), np.float32), np.ones((2, 3), np.float32)])
        >>> hy.shape, cy.shape, [y.shape for y in ys]
        ((2, 2, 4), (2, 2, 4), [(5, 4), (2, 4)])
        >>> [name for name, _ in rnn.namedparams()][:3]
        ['/0/w0', '/0/b0', '/0/w1']
    """

    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_lstm(*args)


class NStepBiLSTM(_LSTMForward, NStepRNNBase):
    """A stack of bidirectional LSTM layers (``F.n_step_bilstm``): ``hy, cy, ys = link(hx, cx, xs)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, cy, ys = L.NStepBiLSTM(1, 3, 4, 0.0)(None, None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_bilstm(*args)


class NStepGRU(NStepRNNBase):
    """A stack of GRU layers over a list of sequences (``F.n_step_gru``): ``hy, ys = link(hx, xs)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, ys = L.NStepGRU(1, 3, 4, 0.0)(None, [np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)])
        >>> hy.shape, [y.shape for y in ys]
        ((1, 2, 4), [(2, 4), (3, 4)])
    """

    n_weights = 6
    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_gru(*args)


class NStepBiGRU(NStepRNNBase):
    """A stack of bidirectional GRU layers (``F.n_step_bigru``): ``hy, ys = link(hx, xs)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, ys = L.NStepBiGRU(2, 3, 4, 0.0)(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((4, 1, 4), (2, 8))
    """

    n_weights = 6
    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_bigru(*args)


class NStepRNNTanh(NStepRNNBase):
    """A stack of tanh RNN layers (``F.n_step_rnn(..., activation='tanh')``): ``hy, ys = link(hx, xs)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, ys = L.NStepRNNTanh(1, 3, 4, 0.0)(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((1, 1, 4), (2, 4))
    """

    n_weights = 2
    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_rnn(*args, activation="tanh")


class NStepRNNReLU(NStepRNNBase):
    """A stack of relu RNN layers (``F.n_step_rnn(..., activation='relu')``): ``hy, ys = link(hx, xs)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, ys = L.NStepRNNReLU(1, 3, 4, 0.0)(None, [np.ones((2, 3), np.float32)])
        >>> bool((ys[0].array >= 0).all())
        True
    """

    n_weights = 2
    use_bi_direction = False

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_rnn(*args, activation="relu")


class NStepBiRNNTanh(NStepRNNBase):
    """A stack of bidirectional tanh RNN layers (``F.n_step_birnn``): ``hy, ys = link(hx, xs)``.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, ys = L.NStepBiRNNTanh(1, 3, 4, 0.0)(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    n_weights = 2
    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_birnn(*args, activation="tanh")


class NStepBiRNNReLU(NStepRNNBase):
    """A stack of bidirectional relu RNN layers (``F.n_step_birnn(..., activation='relu')``).

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> hy, ys = L.NStepBiRNNReLU(1, 3, 4, 0.0)(None, [np.ones((2, 3), np.float32)])
        >>> hy.shape, ys[0].shape
        ((2, 1, 4), (2, 8))
    """

    n_weights = 2
    use_bi_direction = True

    def rnn(self, *args: Any) -> tuple:
        return F.n_step_birnn(*args, activation="relu")
