"""``Classifier``: wrap a predictor with a loss and an accuracy."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import minigrad.functions as F
from minigrad.link import Chain, Link
from minigrad.variable import Variable

__all__ = ["Classifier"]


class Classifier(Chain):
    """``loss = lossfun(predictor(*inputs), t)``, also recording the accuracy.

    Calling it returns the loss and stores ``self.y`` (the prediction),
    ``self.loss`` and ``self.accuracy`` (``None`` when ``compute_accuracy`` is
    False) so a training loop can report them.

    Args:
        predictor: the link that maps the inputs to scores.
        lossfun: ``lossfun(y, t)``; default ``F.softmax_cross_entropy``.
        accfun: ``accfun(y, t)``; default ``F.accuracy``.
        label_key: which argument is the label: an int position (default -1,
            the last) or a keyword name.

    Example:
        >>> import numpy as np, minigrad.links as L
        >>> model = L.Classifier(L.Linear(3, 2, initialW=np.zeros((2, 3), np.float32)))
        >>> loss = model(np.ones((4, 3), np.float32), np.array([0, 1, 0, 1], np.int32))
        >>> round(float(loss.array), 4), float(model.accuracy.array)
        (0.6931, 0.5)
    """

    compute_accuracy: bool = True

    def __init__(self, predictor: Link, lossfun: Callable[..., Any] | None = None,
                 accfun: Callable[..., Any] | None = None, label_key: int | str = -1) -> None:
        if not isinstance(label_key, (int, str)) or isinstance(label_key, bool):
            raise TypeError(f"Classifier: label_key must be int or str, but is {type(label_key).__name__} "
                            f"({label_key!r})")
        super().__init__()
        self.lossfun = F.softmax_cross_entropy if lossfun is None else lossfun
        self.accfun = F.accuracy if accfun is None else accfun
        self.label_key = label_key
        self.y: Variable | None = None
        self.loss: Variable | None = None
        self.accuracy: Variable | None = None
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Variable:
        """Run the predictor on the inputs, return the loss against the label."""
        if isinstance(self.label_key, int):
            if not -len(args) <= self.label_key < len(args):
                raise ValueError(
                    f"Classifier: Label key {self.label_key} is out of bounds: only {len(args)} positional arguments "
                    f"were given"
                )
            t = args[self.label_key]
            index = self.label_key % len(args)
            args = args[:index] + args[index + 1:]
        else:
            if self.label_key not in kwargs:
                raise ValueError(f"Classifier: Label key {self.label_key!r} is not found among the keyword "
                                 f"arguments {sorted(kwargs)}")
            kwargs = dict(kwargs)
            t = kwargs.pop(self.label_key)
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        self.accuracy = self.accfun(self.y, t) if self.compute_accuracy else None
        return self.loss
