"""Mathematical ops: arithmetic, elementwise functions, reductions, products."""

from minigrad.functions.math.basic_math import *  # noqa: F401,F403
from minigrad.functions.math.exponential import *  # noqa: F401,F403
from minigrad.functions.math.matmul import *  # noqa: F401,F403
from minigrad.functions.math.sum import *  # noqa: F401,F403
