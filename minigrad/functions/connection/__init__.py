"""Connection ops: linear, bilinear, convolution_2d (dilated, depthwise), deconvolution_2d, the N-d ones,
embed_id, shift (the n-step recurrent layers are in ``minigrad.functions.rnn``, as in Chainer)."""

from minigrad.functions.connection.bilinear import *  # noqa: F401,F403
from minigrad.functions.connection.convolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.convolution_nd import *  # noqa: F401,F403
from minigrad.functions.connection.deconvolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.deconvolution_nd import *  # noqa: F401,F403
from minigrad.functions.connection.deformable_convolution_2d_sampler import *  # noqa: F401,F403
from minigrad.functions.connection.depthwise_convolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.dilated_convolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.embed_id import *  # noqa: F401,F403
from minigrad.functions.connection.linear import *  # noqa: F401,F403
from minigrad.functions.connection.local_convolution_2d import *  # noqa: F401,F403
from minigrad.functions.connection.shift import *  # noqa: F401,F403
