"""Noise injection: dropout, gaussian (a reparameterised sample), gumbel_softmax, zoneout and simplified_dropconnect."""

from minigrad.functions.noise.dropout import *  # noqa: F401,F403
from minigrad.functions.noise.gaussian import *  # noqa: F401,F403
from minigrad.functions.noise.gumbel_softmax import *  # noqa: F401,F403
from minigrad.functions.noise.simplified_dropconnect import *  # noqa: F401,F403
from minigrad.functions.noise.zoneout import *  # noqa: F401,F403
