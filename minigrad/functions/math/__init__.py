"""Mathematical ops: arithmetic, elementwise functions, reductions, products."""

from minigrad.functions.math.average import *  # noqa: F401,F403
from minigrad.functions.math.basic_math import *  # noqa: F401,F403
from minigrad.functions.math.bias import *  # noqa: F401,F403
from minigrad.functions.math.cumsum import *  # noqa: F401,F403
from minigrad.functions.math.exponential import *  # noqa: F401,F403
from minigrad.functions.math.fmod import *  # noqa: F401,F403
from minigrad.functions.math.hyperbolic import *  # noqa: F401,F403
from minigrad.functions.math.logsumexp import *  # noqa: F401,F403
from minigrad.functions.math.matmul import *  # noqa: F401,F403
from minigrad.functions.math.minmax import *  # noqa: F401,F403
from minigrad.functions.math.power import *  # noqa: F401,F403
from minigrad.functions.math.prod import *  # noqa: F401,F403
from minigrad.functions.math.rounding import *  # noqa: F401,F403
from minigrad.functions.math.sum import *  # noqa: F401,F403
from minigrad.functions.math.tensordot import *  # noqa: F401,F403
from minigrad.functions.math.trigonometric import *  # noqa: F401,F403
