"""Normalization ops: batch_normalization, fixed_batch_normalization, layer_normalization, normalize."""

from minigrad.functions.normalization.batch_normalization import *  # noqa: F401,F403
