"""Argument checks shared by the sampled-softmax losses (``negative_sampling``, ``black_out``)."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend
from minigrad.functions.checks import as_input, require_integer, require_ndim
from minigrad.variable import Variable


def inputs_and_weights(op: str, x: Any, t: Any, W: Any) -> tuple[Variable, Variable, Variable]:
    """``x`` ``(N, D)`` and ``W`` ``(V, D)`` floats of one dtype, ``t`` ``(N,)`` integers."""
    x = as_input(op, x, "x", float_only=True)
    t = as_input(op, t, "t")
    W = as_input(op, W, "W", float_only=True)
    require_ndim(op, x, 2, "x")
    require_integer(op, t, "t")
    require_ndim(op, t, 1, "t")
    require_ndim(op, W, 2, "W")
    if x.dtype != W.dtype:
        raise TypeError(f"{op}: x and W must have the same dtype, got {x.dtype} and {W.dtype}")
    if t.shape[0] != x.shape[0]:
        raise ValueError(f"{op}: t must have one label per row of x, got t of shape {t.shape} and x of shape {x.shape}")
    if W.shape[1] != x.shape[1]:
        raise ValueError(f"{op}: W must have one column per feature of x, got W of shape {W.shape} "
                         f"and x of shape {x.shape}")
    return x, t, W


def require_ids(op: str, ids: Any, n_vocab: int, argname: str, allowed: int | None = None) -> None:
    """Every id in ``[0, n_vocab)`` (or equal to ``allowed``), else a ValueError naming a few bad ones."""
    bad = (ids < 0) | (ids >= n_vocab)
    if allowed is not None:
        bad &= ids != allowed
    if bool(bad.any()):
        wrong = backend.to_cpu(ids[bad]).reshape(-1)[:5].tolist()
        extra = f" or {allowed}" if allowed is not None else ""
        raise ValueError(f"{op}: {argname} (shape {ids.shape}) must hold ids in [0, {n_vocab}){extra} "
                         f"for W with {n_vocab} rows; got {wrong}")


def on_device_of(op: str, samples: Any, like: Variable, argname: str) -> Any:
    """``samples`` as an integer array of ``like``'s array module (a sampler may answer on the host)."""
    if not backend.is_array(samples):
        raise TypeError(f"{op}: {argname} must be an integer numpy.ndarray or cupy.ndarray, "
                        f"got {type(samples).__name__}")
    if samples.dtype.kind not in "iu":
        raise TypeError(f"{op}: {argname} must hold integer ids, got dtype {samples.dtype}")
    xp = backend.get_array_module(like)
    return backend.to_cpu(samples) if xp is numpy else xp.asarray(samples)
