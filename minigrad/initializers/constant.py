"""The constant initializers (and ``Identity``) under Chainer's module path, ``chainer.initializers.constant``.

They are defined in :mod:`minigrad.initializers`; this module only gives them Chainer's path.

Example:
    >>> from minigrad import initializers
    >>> from minigrad.initializers import constant
    >>> constant.Zero is initializers.Zero
    True
"""

from minigrad.initializers import Constant, Identity, NaN, One, Zero  # noqa: F401
