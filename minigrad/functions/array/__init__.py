"""Array manipulation ops: shapes, axes, indexing, joining and splitting."""

from minigrad.functions.array.broadcast import *  # noqa: F401,F403
from minigrad.functions.array.cast import *  # noqa: F401,F403
from minigrad.functions.array.get_item import *  # noqa: F401,F403
from minigrad.functions.array.identity import *  # noqa: F401,F403
from minigrad.functions.array.reshape import *  # noqa: F401,F403
from minigrad.functions.array.transpose import *  # noqa: F401,F403
