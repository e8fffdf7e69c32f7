"""What the links share: small argument checks, and the state of the recurrent links."""

from __future__ import annotations

from typing import Any

import numpy

import minigrad.functions as F
from minigrad.functions.checks import MAX_SIZE
from minigrad.variable import Variable, as_variable


def positive_int(where: str, name: str, value: Any, allow_none: bool = False) -> int | None:
    """``value`` as an int > 0 (or None when allowed), else a TypeError/ValueError naming it."""
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)):
        expected = "a positive int or None" if allow_none else "a positive int"
        raise TypeError(f"{where}: {name} must be {expected}, got {value!r}")
    if value <= 0:
        raise ValueError(f"{where}: {name} must be positive, got {value}")
    if value > MAX_SIZE:
        raise ValueError(f"{where}: {name}={value} is larger than the size limit {MAX_SIZE} "
                         "(minigrad.functions.checks.MAX_SIZE)")
    return int(value)


def require_input(where: str, x: Any, min_ndim: int) -> None:
    """``x`` (array or Variable) must have at least ``min_ndim`` axes."""
    ndim = getattr(x, "ndim", None)
    if ndim is None:
        raise TypeError(f"{where}: the input must be an array or a Variable, got {type(x).__name__}")
    if ndim < min_ndim:
        raise ValueError(f"{where}: the input needs at least {min_ndim} axes, got shape {tuple(x.shape)}")


def per_channel(params: Any, x: Any, xp: Any) -> None:
    """Give lazily sized ``params`` one value per channel of ``x`` (its axis 1), on ``xp``, in ``x``'s dtype unless
    an initializer fixes one (the normalization links' first call, through ``Link.initialize_from_input``)."""
    for param in params:
        dtype = x.dtype if getattr(param.initializer, "dtype", None) is None else None
        param.initialize((int(x.shape[1]),), dtype, xp)


class RecurrentState:
    """What the stateful recurrent links share: the Variables named in ``state_names`` (kept between
    calls), ``reset_state``, their checks in ``set_state``, and their moves in ``to_gpu`` / ``to_cpu``."""

    state_names: tuple[str, ...] = ()
    state_size: int

    def reset_state(self) -> None:
        """Forget the state (the next call starts without one)."""
        for name in self.state_names:
            setattr(self, name, None)

    def _checked_state(self, name: str, value: Any) -> Variable:
        value = as_variable(value)
        if value.ndim != 2 or value.shape[1] != self.state_size:
            raise ValueError(f"{type(self).__name__}.set_state: {name} must have shape (batch, {self.state_size}), "
                             f"got {value.shape}")
        return value

    def _check_state_batch(self, batch: int) -> None:
        """A kept state must have the new input's batch (for the links that neither grow nor shrink it)."""
        for name in self.state_names:
            state = getattr(self, name)
            if state is not None and state.shape[0] != batch:
                raise ValueError(f"{type(self).__name__}: x has a batch of {batch}, but the state {name} kept from "
                                 f"the previous call has {state.shape[0]}; call reset_state() to start new sequences")

    def _move_state(self, device: str) -> None:
        """``to_cpu`` / ``to_gpu`` move the state too, as in Chainer."""
        for name in self.state_names:
            state = getattr(self, name)
            if state is not None:
                state.to_cpu() if device == "cpu" else state.to_gpu()


def split_gates(gates: Variable, units: int) -> tuple[Variable, ...]:
    """The four interleaved gate pre-activations ``(a, i, f, o)`` of ``gates`` (batch, 4 * units), laid out as
    ``F.lstm`` reads them: unit ``k``'s four are ``gates[:, 4k:4k+4]``."""
    columns = F.split_axis(F.reshape(gates, (gates.shape[0], units, 4)), 4, axis=2)
    return tuple(F.reshape(g, (gates.shape[0], units)) for g in columns)


def given_params(where: str, W: Any, b: Any, ndim: int | None = None) -> tuple[Any, Any]:
    """``from_params``' ``W`` and ``b`` as arrays (Variables give theirs), checked: ``W`` of ``ndim`` dimensions
    (at least 3 when None) and ``b`` of one element per row of ``W``."""
    W = W.array if isinstance(W, Variable) else W
    b = b.array if isinstance(b, Variable) else b
    if not hasattr(W, "shape") or (W.ndim != ndim if ndim is not None else W.ndim < 3):
        wanted = f"{ndim}-dimensional" if ndim is not None else "(out, in, *ksize)-shaped"
        raise ValueError(f"{where}.from_params: W must be a {wanted} array or Variable, got "
                         f"{getattr(W, 'shape', type(W).__name__)}")
    if b is not None and b.size != W.shape[0]:
        raise ValueError(f"{where}.from_params: b has {b.size} elements, but W of shape {W.shape} has {W.shape[0]} "
                         f"outputs")
    return W, b
