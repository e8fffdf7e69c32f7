"""Evaluation metrics (not differentiable): accuracy."""

from minigrad.functions.evaluation.accuracy import *  # noqa: F401,F403
