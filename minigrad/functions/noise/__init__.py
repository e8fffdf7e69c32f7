"""Noise injection: dropout."""

from minigrad.functions.noise.dropout import *  # noqa: F401,F403
