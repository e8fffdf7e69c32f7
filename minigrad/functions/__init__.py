"""The op library: ``import minigrad.functions as F``.

Each family is a subpackage whose modules hold FunctionNodes and their
lower-case wrapper functions; every public name is re-exported here.
"""

from minigrad.functions.activation import *  # noqa: F401,F403
from minigrad.functions.array import *  # noqa: F401,F403
from minigrad.functions.connection import *  # noqa: F401,F403
from minigrad.functions.evaluation import *  # noqa: F401,F403
from minigrad.functions.loss import *  # noqa: F401,F403
from minigrad.functions.math import *  # noqa: F401,F403
from minigrad.functions.math.basic_math import install_variable_operators as _install
from minigrad.functions.noise import *  # noqa: F401,F403
from minigrad.functions.normalization import *  # noqa: F401,F403
from minigrad.functions.pooling import *  # noqa: F401,F403

_install()
