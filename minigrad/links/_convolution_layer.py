"""What the convolution and deconvolution layers (2-d and N-d) share: argument checks, lazy ``in_channels``, ``W``
and ``b``."""

from __future__ import annotations

from typing import Any

from minigrad import initializers
from minigrad.functions.connection.sliding_windows import ntuple
from minigrad.link import Link
from minigrad.links._utils import positive_int
from minigrad.variable import Parameter


class _ConvolutionLayer(Link):
    """Base of the convolution and deconvolution layers of any number of spatial axes (1-d, 2-d, 3-d, N-d,
    dilated, deformable); they differ only in the layout of ``W`` and in the function called.

    A subclass sets ``layer_name`` (used in error messages) and ``transposed`` (a deconvolution), and calls
    ``_initialize_from_input(x)`` first thing in ``forward``; the N-d ones pass ``ndim`` (the number of spatial
    axes).
    """

    layer_name = ""
    transposed = False  # a deconvolution (the transpose of a convolution): W's first two axes swap

    def __init__(
        self,
        in_channels: int | None,
        out_channels: int,
        ksize: Any,
        nobias: bool,
        initialW: Any,
        initial_bias: Any,
        groups: int,
        ndim: int = 2,
    ) -> None:
        super().__init__()
        self.ndim = positive_int(self.layer_name, "ndim", ndim)
        if ksize is None:  # Chainer's short form (out_channels, ksize)
            in_channels, out_channels, ksize = None, in_channels, out_channels
        self.in_channels = positive_int(self.layer_name, "in_channels", in_channels, allow_none=True)
        self.out_channels = positive_int(self.layer_name, "out_channels", out_channels)
        self.ksize = ntuple(self.layer_name, ksize, "ksize", 1, self.ndim, each=positive_int)
        self.groups = positive_int(self.layer_name, "groups", groups)
        self._check_divisible_by_groups("out_channels", self.out_channels)
        with self.init_scope():
            self.W = Parameter(initializers.get_initializer(initialW, initializers.LeCunNormal()))
            if self.in_channels is not None:
                self._initialize_params(self.in_channels)
            if nobias:
                self.b = None
            else:
                self.b = Parameter(initializers.get_initializer(initial_bias, initializers.Zero()), self.out_channels)

    def _weight_shape(self, in_channels: int) -> tuple[int, ...]:
        if self.transposed:  # a deconvolution's W maps out of in_channels: (in, out / groups, *ksize)
            return (in_channels, self.out_channels // self.groups, *self.ksize)
        return (self.out_channels, in_channels // self.groups, *self.ksize)

    def _check_divisible_by_groups(self, name: str, channels: int) -> None:
        if channels % self.groups:
            raise ValueError(f"{self.layer_name}: {name} ({channels}) must be divisible by groups ({self.groups})")

    def _initialize_params(self, in_channels: int, xp: Any = None) -> None:
        self._check_divisible_by_groups("in_channels", in_channels)
        self.in_channels = in_channels
        self.W.initialize(self._weight_shape(in_channels), xp=self.xp if xp is None else xp)

    def _initialize_from_input(self, x: Any) -> None:
        """Learn ``in_channels`` from the first input (axis 1) when it was not given."""
        self.initialize_from_input(self.W, x, self.ndim + 2, lambda x, xp: self._initialize_params(int(x.shape[1]), xp),
                                   self.layer_name)
