"""Array manipulation ops: shapes, axes, indexing, joining and splitting."""

from minigrad.functions.array.broadcast import *  # noqa: F401,F403
from minigrad.functions.array.cast import *  # noqa: F401,F403
from minigrad.functions.array.concat import *  # noqa: F401,F403
from minigrad.functions.array.device_copy import *  # noqa: F401,F403
from minigrad.functions.array.expand_dims import *  # noqa: F401,F403
from minigrad.functions.array.flatten import *  # noqa: F401,F403
from minigrad.functions.array.flip import *  # noqa: F401,F403
from minigrad.functions.array.forget import *  # noqa: F401,F403
from minigrad.functions.array.get_item import *  # noqa: F401,F403
from minigrad.functions.array.identity import *  # noqa: F401,F403
from minigrad.functions.array.im2col import *  # noqa: F401,F403
from minigrad.functions.array.moveaxis import *  # noqa: F401,F403
from minigrad.functions.array.pad import *  # noqa: F401,F403
from minigrad.functions.array.pad_sequence import *  # noqa: F401,F403
from minigrad.functions.array.permutate import *  # noqa: F401,F403
from minigrad.functions.array.repeat import *  # noqa: F401,F403
from minigrad.functions.array.reshape import *  # noqa: F401,F403
from minigrad.functions.array.select_item import *  # noqa: F401,F403
from minigrad.functions.array.separate import *  # noqa: F401,F403
from minigrad.functions.array.split_axis import *  # noqa: F401,F403
from minigrad.functions.array.squeeze import *  # noqa: F401,F403
from minigrad.functions.array.stack import *  # noqa: F401,F403
from minigrad.functions.array.swapaxes import *  # noqa: F401,F403
from minigrad.functions.array.tile import *  # noqa: F401,F403
from minigrad.functions.array.transpose import *  # noqa: F401,F403
from minigrad.functions.array.where import *  # noqa: F401,F403
