"""Activation functions: relu and friends, sigmoid-shaped units, softmax."""

from minigrad.functions.activation.crelu import *  # noqa: F401,F403
from minigrad.functions.activation.elu import *  # noqa: F401,F403
from minigrad.functions.activation.gelu import *  # noqa: F401,F403
from minigrad.functions.activation.maxout import *  # noqa: F401,F403
from minigrad.functions.activation.prelu import *  # noqa: F401,F403
from minigrad.functions.activation.relu import *  # noqa: F401,F403
from minigrad.functions.activation.rrelu import *  # noqa: F401,F403
from minigrad.functions.activation.sigmoid import *  # noqa: F401,F403
from minigrad.functions.activation.softmax import *  # noqa: F401,F403
from minigrad.functions.activation.softplus import *  # noqa: F401,F403
from minigrad.functions.activation.tanh import *  # noqa: F401,F403
