"""Pooling ops: max_pooling_2d, average_pooling_2d, unpooling_2d, upsampling_2d (and their N-d forms)."""

from minigrad.functions.pooling.average_pooling_2d import *  # noqa: F401,F403
from minigrad.functions.pooling.average_pooling_nd import *  # noqa: F401,F403
from minigrad.functions.pooling.max_pooling_2d import *  # noqa: F401,F403
from minigrad.functions.pooling.max_pooling_nd import *  # noqa: F401,F403
from minigrad.functions.pooling.roi_pooling import *  # noqa: F401,F403
from minigrad.functions.pooling.spatial_pyramid_pooling_2d import *  # noqa: F401,F403
from minigrad.functions.pooling.unpooling_2d import *  # noqa: F401,F403
from minigrad.functions.pooling.unpooling_nd import *  # noqa: F401,F403
from minigrad.functions.pooling.upsampling_2d import *  # noqa: F401,F403
