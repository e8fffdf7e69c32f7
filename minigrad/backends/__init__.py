"""Chainer's ``chainer.backends`` package: :mod:`~minigrad.backends.cuda` (CuPy, wherever minigrad finds it),
:mod:`~minigrad.backends.cpu` (the host, also under Chainer's private name ``_cpu``) and
:mod:`~minigrad.backends.intel64` (iDeep, which minigrad does not have: never available).

They are thin views of :mod:`minigrad.backend` and :mod:`minigrad.device` under the module paths that Chainer
code imports; importing them loads no CuPy.

Example:
    >>> import numpy as np
    >>> from minigrad.backends import cuda
    >>> cuda.to_cpu([np.ones(2), None])
    [array([1., 1.]), None]
"""
