"""The uniform-distribution initializers under Chainer's module path, ``chainer.initializers.uniform``.

They are defined in :mod:`minigrad.initializers`; this module only gives them Chainer's path.

Example:
    >>> from minigrad import initializers
    >>> from minigrad.initializers import uniform
    >>> uniform.HeUniform is initializers.HeUniform
    True
"""

from minigrad.initializers import GlorotUniform, HeUniform, LeCunUniform, Uniform  # noqa: F401
