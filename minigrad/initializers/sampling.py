"""The up- and down-sampling filter initializers under Chainer's module path, ``chainer.initializers.sampling``.

They are defined in :mod:`minigrad.initializers`; this module only gives them Chainer's path.

Example:
    >>> from minigrad import initializers
    >>> from minigrad.initializers import sampling
    >>> sampling.UpsamplingDeconvFilter is initializers.UpsamplingDeconvFilter
    True
"""

from minigrad.initializers import DownsamplingConvFilter, UpsamplingDeconvFilter  # noqa: F401
