"""The normal-distribution initializers under Chainer's module path, ``chainer.initializers.normal``.

They are defined in :mod:`minigrad.initializers`; this module only gives them Chainer's path.

Example:
    >>> from minigrad import initializers
    >>> from minigrad.initializers import normal
    >>> normal.HeNormal is initializers.HeNormal
    True
"""

from minigrad.initializers import GlorotNormal, HeNormal, LeCunNormal, Normal  # noqa: F401
