"""Connection ops: linear, convolution_2d, deconvolution_2d, embed_id."""

from minigrad.functions.connection.linear import *  # noqa: F401,F403
