"""Layers with parameters (``import minigrad.links as L``).

The containers ``Link``, ``Chain``, ``ChainList`` and ``Sequential`` are
defined in ``minigrad/link.py`` (they are top-level names: ``mg.Chain``) and
re-exported here.

Example:
    >>> import numpy as np, minigrad as mg, minigrad.functions as F, minigrad.links as L
    >>> model = mg.Sequential(L.Linear(None, 8), F.relu, L.Linear(8, 2))
    >>> model(np.ones((3, 4), dtype=np.float32)).shape
    (3, 2)
    >>> [name for name, _ in model.namedparams()]
    ['/0/W', '/0/b', '/2/W', '/2/b']
"""

from minigrad.link import Chain, ChainList, Link, Sequential  # noqa: F401
from minigrad.links.batch_normalization import BatchNormalization  # noqa: F401
from minigrad.links.batch_renormalization import BatchRenormalization  # noqa: F401
from minigrad.links.bias import Bias  # noqa: F401
from minigrad.links.bilinear import Bilinear  # noqa: F401
from minigrad.links.black_out import BlackOut  # noqa: F401
from minigrad.links.classifier import Classifier  # noqa: F401
from minigrad.links.convolution_2d import Convolution2D  # noqa: F401
from minigrad.links.convolution_nd import Convolution1D, Convolution3D, ConvolutionND  # noqa: F401
from minigrad.links.crf1d import CRF1d  # noqa: F401
from minigrad.links.deconvolution_2d import Deconvolution2D  # noqa: F401
from minigrad.links.deconvolution_nd import Deconvolution1D, Deconvolution3D, DeconvolutionND  # noqa: F401
from minigrad.links.decorrelated_batch_normalization import DecorrelatedBatchNormalization  # noqa: F401
from minigrad.links.deformable_convolution_2d import DeformableConvolution2D, DeformableConvolution2DSampler  # noqa: F401
from minigrad.links.depthwise_convolution_2d import DepthwiseConvolution2D  # noqa: F401
from minigrad.links.dilated_convolution_2d import DilatedConvolution2D  # noqa: F401
from minigrad.links.embed_id import EmbedID  # noqa: F401
from minigrad.links.group_normalization import GroupNormalization  # noqa: F401
from minigrad.links.gru import GRU, StatefulGRU, StatelessGRU  # noqa: F401
from minigrad.links.hierarchical_softmax import BinaryHierarchicalSoftmax  # noqa: F401
from minigrad.links.highway import Highway  # noqa: F401
from minigrad.links.inception import Inception  # noqa: F401
from minigrad.links.inception_bn import InceptionBN  # noqa: F401
from minigrad.links.layer_normalization import LayerNormalization  # noqa: F401
from minigrad.links.linear import Linear  # noqa: F401
from minigrad.links.local_convolution_2d import LocalConvolution2D  # noqa: F401
from minigrad.links.lstm import LSTM, StatelessLSTM  # noqa: F401
from minigrad.links.maxout import Maxout  # noqa: F401
from minigrad.links.mgu import StatefulMGU, StatelessMGU  # noqa: F401
from minigrad.links.mlp_convolution_2d import MLPConvolution2D  # noqa: F401
from minigrad.links.n_step_rnn import (  # noqa: F401
    NStepBiGRU,
    NStepBiLSTM,
    NStepBiRNNReLU,
    NStepBiRNNTanh,
    NStepGRU,
    NStepLSTM,
    NStepRNNReLU,
    NStepRNNTanh,
)
from minigrad.links.negative_sampling import NegativeSampling  # noqa: F401
from minigrad.links.parameter import Parameter  # noqa: F401
from minigrad.links.peephole_lstm import StatefulPeepholeLSTM  # noqa: F401
from minigrad.links.prelu import PReLU  # noqa: F401
from minigrad.links.scale import Scale  # noqa: F401
from minigrad.links.simplified_dropconnect import SimplifiedDropconnect  # noqa: F401
from minigrad.links.swish import Swish  # noqa: F401
from minigrad.links.tree_lstm import ChildSumTreeLSTM, NaryTreeLSTM  # noqa: F401
from minigrad.links.zoneout_lstm import StatefulZoneoutLSTM  # noqa: F401

__all__ = [
    "Link", "Chain", "ChainList", "Sequential",
    "Linear", "Convolution2D", "Deconvolution2D", "DilatedConvolution2D", "DepthwiseConvolution2D",
    "ConvolutionND", "DeconvolutionND", "Convolution1D", "Convolution3D", "Deconvolution1D", "Deconvolution3D",
    "EmbedID", "BatchNormalization", "BatchRenormalization", "LayerNormalization", "GroupNormalization",
    "Bias", "Bilinear", "Scale", "Classifier", "PReLU", "Maxout", "LSTM", "GRU", "StatefulGRU", "StatelessGRU",
    "NStepLSTM", "NStepBiLSTM", "NStepGRU", "NStepBiGRU", "NStepRNNTanh", "NStepRNNReLU", "NStepBiRNNTanh",
    "NStepBiRNNReLU", "NegativeSampling", "BlackOut", "SimplifiedDropconnect", "CRF1d",
    "LocalConvolution2D", "Highway", "Swish",
    "DecorrelatedBatchNormalization", "DeformableConvolution2D", "DeformableConvolution2DSampler",
    "ChildSumTreeLSTM", "NaryTreeLSTM",
    "StatelessLSTM", "StatefulPeepholeLSTM", "StatefulZoneoutLSTM", "StatefulMGU", "StatelessMGU",
    "MLPConvolution2D", "Inception", "InceptionBN", "BinaryHierarchicalSoftmax", "Parameter",
]
