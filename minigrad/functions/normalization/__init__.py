"""Normalization ops: batch_normalization, fixed_batch_normalization, layer_normalization, group_normalization,
normalize, local_response_normalization."""

from minigrad.functions.normalization.batch_normalization import *  # noqa: F401,F403
from minigrad.functions.normalization.batch_renormalization import *  # noqa: F401,F403
from minigrad.functions.normalization.decorrelated_batch_normalization import *  # noqa: F401,F403
from minigrad.functions.normalization.group_normalization import *  # noqa: F401,F403
from minigrad.functions.normalization.l2_normalization import *  # noqa: F401,F403
from minigrad.functions.normalization.layer_normalization import *  # noqa: F401,F403
from minigrad.functions.normalization.local_response_normalization import *  # noqa: F401,F403
