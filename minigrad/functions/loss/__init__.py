"""Loss functions: regression errors, cross entropies, margin losses, covariance penalties and the
sampled-softmax losses of word2vec, the linear-chain CRF and CTC."""

from minigrad.functions.loss.black_out import *  # noqa: F401,F403
from minigrad.functions.loss.contrastive import *  # noqa: F401,F403
from minigrad.functions.loss.covariance import *  # noqa: F401,F403
from minigrad.functions.loss.crf1d import *  # noqa: F401,F403
from minigrad.functions.loss.ctc import *  # noqa: F401,F403
from minigrad.functions.loss.discriminative_margin_based_clustering_loss import *  # noqa: F401,F403
from minigrad.functions.loss.hinge import *  # noqa: F401,F403
from minigrad.functions.loss.huber_loss import *  # noqa: F401,F403
from minigrad.functions.loss.mean_absolute_error import *  # noqa: F401,F403
from minigrad.functions.loss.mean_squared_error import *  # noqa: F401,F403
from minigrad.functions.loss.negative_sampling import *  # noqa: F401,F403
from minigrad.functions.loss.sigmoid_cross_entropy import *  # noqa: F401,F403
from minigrad.functions.loss.softmax_cross_entropy import *  # noqa: F401,F403
from minigrad.functions.loss.triplet import *  # noqa: F401,F403
from minigrad.functions.loss.vae import *  # noqa: F401,F403
