"""Evaluation metrics (not differentiable): accuracy, classification summaries, the R^2 score."""

from minigrad.functions.evaluation.accuracy import *  # noqa: F401,F403
from minigrad.functions.evaluation.classification_summary import *  # noqa: F401,F403
from minigrad.functions.evaluation.r2_score import *  # noqa: F401,F403
