"""Noise injection: dropout, and gaussian (a reparameterised sample)."""

from minigrad.functions.noise.dropout import *  # noqa: F401,F403
from minigrad.functions.noise.gaussian import *  # noqa: F401,F403
