"""The orthogonal initializer under Chainer's module path, ``chainer.initializers.orthogonal``.

They are defined in :mod:`minigrad.initializers`; this module only gives them Chainer's path.

Example:
    >>> from minigrad import initializers
    >>> from minigrad.initializers import orthogonal
    >>> orthogonal.Orthogonal is initializers.Orthogonal
    True
"""

from minigrad.initializers import Orthogonal  # noqa: F401
