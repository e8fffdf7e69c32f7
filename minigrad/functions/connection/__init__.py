"""Connection ops: linear, convolution_2d, deconvolution_2d, embed_id, the n-step recurrent layers (n_step_*)."""

from minigrad.functions.connection.convolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.deconvolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.embed_id import *  # noqa: F401,F403
from minigrad.functions.connection.linear import *  # noqa: F401,F403
from minigrad.functions.connection.n_step_rnn import *  # noqa: F401,F403
