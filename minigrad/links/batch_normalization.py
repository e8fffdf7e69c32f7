"""``BatchNormalization``: normalize with batch statistics in training, running averages in inference."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad import initializers
from minigrad.backend import get_array_module
from minigrad.configuration import config
from minigrad.dtypes import get_dtype
from minigrad.functions.checks import normalize_axes, require_real
from minigrad.link import Link
from minigrad.links._utils import positive_int, require_input
from minigrad.utils import argument
from minigrad.variable import Parameter, Variable

_NAME = "BatchNormalization"

__all__ = ["BatchNormalization"]


class BatchNormalization(Link):
    """Batch normalization layer with learned ``gamma``/``beta`` and running ``avg_mean``/``avg_var``.

    While ``config.train`` is True it normalizes with the statistics of the
    batch and updates the running averages
    (``avg = decay * avg + (1 - decay) * batch_stat``, unbiased variance);
    otherwise (``with mg.using_config("train", False):``) it uses the running
    averages, so a prediction does not depend on the rest of the batch.

    Args:
        size: the shape of ``gamma`` (an int for the channel axis: ``C`` of
            ``(N, C)`` or ``(N, C, H, W)``), or ``None`` to learn it from the
            first input.
        decay: decay of the running averages.
        eps: added to the variance.
        dtype: dtype of the parameters and statistics (by default
            ``config.dtype``; float32 under ``mixed16``, as in Chainer). The
            input may have another float dtype (float16 under ``mixed16``): the
            layer then computes in the promoted dtype and returns the input's.
        use_gamma, use_beta: learn the scale / the shift (else fixed 1 / 0).
        initial_gamma, initial_beta: their initializers (default 1 / 0).
        axis: the axes to normalize over (default: 0 and every axis after the
            channel axes).
        initial_avg_mean, initial_avg_var: initializers of the running
            statistics (default 0 / 1).

    Attributes:
        avg_mean, avg_var, N: the running statistics and the number of
            batches seen (persistent: saved by ``save_npz``).

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.links as L
        >>> bn = L.BatchNormalization(2)
        >>> x = np.array([[0.0, 1.0], [2.0, 5.0]], dtype=np.float32)
        >>> bn(x).array.round(3)
        array([[-1., -1.],
               [ 1.,  1.]], dtype=float32)
        >>> bn.avg_mean
        array([0.1, 0.3], dtype=float32)
        >>> with mg.using_config("train", False):
        ...     bn(x).array.round(3)
        array([[-0.095,  0.537],
               [ 1.812,  3.605]], dtype=float32)
    """

    def __init__(
        self,
        size: Any = None,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype: Any = None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma: Any = None,
        initial_beta: Any = None,
        axis: Any = None,
        initial_avg_mean: Any = None,
        initial_avg_var: Any = None,
    ) -> None:
        super().__init__()
        decay, eps = require_real(_NAME, decay, "decay"), require_real(_NAME, eps, "eps", positive=True)
        if not 0 <= decay <= 1:
            raise ValueError(f"BatchNormalization: decay must be in [0, 1], got {decay}")
        self.decay, self.eps, self.axis = decay, eps, axis
        self._dtype = get_dtype(dtype, map_mixed16=numpy.float32)  # (taken now, as Chainer does)
        self._initial_avg_mean = initializers.get_initializer(initial_avg_mean, initializers.Zero())
        self._initial_avg_var = initializers.get_initializer(initial_avg_var, initializers.One())
        self.add_persistent("avg_mean", None)
        self.add_persistent("avg_var", None)
        self.add_persistent("N", 0)
        with self.init_scope():
            self.gamma = Parameter(initializers.get_initializer(initial_gamma, initializers.One())) if use_gamma \
                else None
            self.beta = Parameter(initializers.get_initializer(initial_beta, initializers.Zero())) if use_beta \
                else None
        if size is not None:
            sizes = tuple(size) if isinstance(size, (tuple, list)) else (size,)
            self._initialize_params(tuple(positive_int(_NAME, "size", s) for s in sizes), self._dtype, self.xp)

    def _initialize_params(self, shape: tuple[int, ...], dtype: Any, xp: Any) -> None:
        for param in (self.gamma, self.beta):
            if param is not None:
                param.initialize(shape, dtype, xp)
        self.avg_mean = initializers.generate_array(self._initial_avg_mean, shape, xp, dtype)
        self.avg_var = initializers.generate_array(self._initial_avg_var, shape, xp, dtype)

    def _kept_shape(self, x: Any) -> tuple[int, ...]:
        if self.axis is None:
            require_input("BatchNormalization", x, 2)
            return (int(x.shape[1]),)
        axes = normalize_axes("BatchNormalization", self.axis, x.ndim)
        return tuple(int(n) for i, n in enumerate(x.shape) if i not in axes)

    def _scale_and_shift(self, xp: Any) -> tuple[Any, Any]:
        shape, dtype = self.avg_mean.shape, self.avg_mean.dtype
        gamma = self.gamma if self.gamma is not None else xp.ones(shape, dtype)
        beta = self.beta if self.beta is not None else xp.zeros(shape, dtype)
        return gamma, beta

    def forward(self, x: Any, *, finetune: bool = False, **kwargs: Any) -> Variable:
        """Normalize ``x``; ``finetune=True`` makes the running averages plain means over all batches so far.

        As in Chainer, ``finetune`` is keyword-only, and Chainer 1's ``test=`` is a ``ValueError`` naming
        its replacement.
        """
        argument.parse_kwargs(kwargs, test="BatchNormalization: the test argument is not supported anymore (as in "
                                           "Chainer); call the link inside `with minigrad.using_config('train', "
                                           "False):`")
        if self.avg_mean is None:
            self._initialize_params(self._kept_shape(x), self._dtype, get_array_module(x))
        gamma, beta = self._scale_and_shift(get_array_module(x))
        if not config.train:
            dtype = gamma.dtype  # the statistics are constants: in the parameters' dtype, whatever set them
            mean, var = self.avg_mean.astype(dtype, copy=False), self.avg_var.astype(dtype, copy=False)
            return F.fixed_batch_normalization(x, gamma, beta, mean, var, self.eps, axis=self.axis)
        decay = 1.0 - 1.0 / (self.N + 1) if finetune else self.decay
        y = self._normalize_batch(x, gamma, beta, decay)
        if not config.in_recomputing:
            self.N += finetune  # counted once the batch is (a bad one raises above and leaves N alone)
        return y

    def _normalize_batch(self, x: Any, gamma: Any, beta: Any, decay: float) -> Variable:
        """Training: normalize with the batch's statistics and update the running averages.

        Not when ``F.forget`` calls the layer again in backward (``config.in_recomputing``): the batch
        was counted on the first call.
        """
        update = not config.in_recomputing
        return F.batch_normalization(x, gamma, beta, self.eps, running_mean=self.avg_mean if update else None,
                                     running_var=self.avg_var if update else None, decay=decay, axis=self.axis)

    def start_finetuning(self) -> None:
        """Reset the batch counter used by ``finetune=True``."""
        self.N = 0
