"""The host device under Chainer's module path (``chainer.backends._cpu``): :class:`CpuDevice`.

Example:
    >>> import numpy as np
    >>> from minigrad.backends import cpu
    >>> cpu.CpuDevice().send(np.ones(2)).dtype
    dtype('float64')
"""

from minigrad.device import CpuDevice

__all__ = ["CpuDevice"]
