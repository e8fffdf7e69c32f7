"""The optimizer machinery: ``Optimizer``, per-parameter ``UpdateRule`` and ``Hyperparameter``.

An optimizer is attached to a link with ``setup(link)``. Each parameter gets
its own ``UpdateRule`` (looked up by its path, e.g. ``'/l1/W'``, in
``optimizer.rules``) holding the per-parameter state (momentum, moment
estimates...) and a ``Hyperparameter`` that falls back to the optimizer's, so
one parameter's learning rate can be changed alone. Updates write the new
values into the parameter arrays in place; gradient arrays are only read
(they may be read-only views shared with other variables). A float16
parameter is updated in float32 arithmetic, with float32 state, and rounded
back: in float16, ``eps = 1e-8`` is 0 and a small gradient's square is 0, so
Adam, RMSprop and AdaGrad would divide by zero.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from minigrad import backend
from minigrad.variable import Parameter

__all__ = ["Hyperparameter", "UpdateRule", "Optimizer"]

_HOOK_TIMINGS = ("auto", "pre", "post")


# The ranges of the hyperparameters that share a name across optimizers; a value outside is refused when it is set,
# as is a NaN or an infinite value of any numeric hyperparameter (either would turn every parameter into NaN, or
# step backwards, without a word)
HYPERPARAMETER_RANGES: dict[str, str] = {
    "lr": "[0, inf)", "alpha": "[0, inf)", "eta": "[0, inf)", "eps": "[0, inf)", "weight_decay_rate": "[0, inf)",
    "momentum": "[0, 1]", "rho": "[0, 1]", "beta1": "[0, 1)", "beta2": "[0, 1)",
}


def _in_range(value: float, interval: str) -> bool:
    """Whether ``value`` lies in ``interval``, written ``[low, high]`` or ``[low, high)``."""
    low, high = (float(s) for s in interval[1:-1].split(","))
    return low <= value and (value <= high if interval.endswith("]") else value < high)


def _checked_hyperparameter(name: str, value: Any) -> Any:
    """``value`` if it is a valid setting of the hyperparameter ``name``; numbers must be finite and in range."""
    if isinstance(value, (bool, numpy.bool_)) or not isinstance(value, (int, float, numpy.integer, numpy.floating)):
        return value  # flags (amsgrad) and other settings are the optimizer's to read
    interval = HYPERPARAMETER_RANGES.get(name)
    if not (math.isfinite(value) and (interval is None or _in_range(value, interval))):
        wanted = "a finite number" + (f" in {interval}" if interval else "")
        raise ValueError(f"hyperparameter {name} must be {wanted}, got {value!r}")
    return value


class Hyperparameter:
    """A bag of hyperparameters; a missing one is looked up in ``parent``.

    Numbers are checked when they are set: a NaN or an infinity is refused, and so is a value out of the range
    ``HYPERPARAMETER_RANGES`` gives a common name (a negative ``lr`` or ``eps``, a ``momentum`` above 1).

    Example:
        >>> from minigrad.optimizers import Hyperparameter
        >>> base = Hyperparameter(); base.lr = 0.1
        >>> child = Hyperparameter(base)
        >>> child.lr
        0.1
        >>> child.lr = 0.5; base.lr
        0.1
        >>> child.lr = float("nan")
        Traceback (most recent call last):
        ...
        ValueError: hyperparameter lr must be a finite number in [0, inf), got nan
    """

    def __init__(self, parent: Hyperparameter | None = None) -> None:
        self.__dict__["_parent"] = parent

    def __setattr__(self, name: str, value: Any) -> None:
        self.__dict__[name] = _checked_hyperparameter(name, value)

    def __getattr__(self, name: str) -> Any:  # only called when ``name`` is not set here
        parent = self.__dict__.get("_parent")
        if parent is None or name.startswith("__"):
            raise AttributeError(f"no hyperparameter {name!r}")
        return getattr(parent, name)

    def get_dict(self) -> dict[str, Any]:
        """All hyperparameters visible from here (own values override the parent's)."""
        parent = self.__dict__["_parent"]
        values = {} if parent is None else parent.get_dict()
        values.update({k: v for k, v in self.__dict__.items() if not k.startswith("_")})
        return values

    def __repr__(self) -> str:
        return f"Hyperparameter({self.get_dict()})"


class _HyperparameterProxy:
    """``optimizer.lr`` reads and writes ``optimizer.hyperparam.lr``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, objtype: Any = None) -> Any:
        return self if obj is None else getattr(obj.hyperparam, self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        setattr(obj.hyperparam, self.name, value)


class _HookRegistry:
    """``add_hook`` / ``remove_hook``, shared by ``Optimizer`` (hooks around the whole update) and
    ``UpdateRule`` (hooks around one parameter's update)."""

    _hooks: dict[str, tuple[Callable[..., Any], str]]

    def add_hook(self, hook: Callable[..., Any], name: str | None = None, timing: str = "auto") -> None:
        """Register a hook, called before (``'pre'``) or after (``'post'``) each update.

        On an ``UpdateRule`` a hook is called as ``hook(rule, param)``. On an
        ``Optimizer``, a hook with ``call_for_each_param = True`` is called as
        ``hook(rule, param)`` for each parameter that has a gradient; any other
        as ``hook(optimizer)``. ``'auto'`` uses the hook's ``timing``
        attribute, defaulting to ``'pre'``; the name defaults to the hook's
        ``name`` attribute, then to its class name.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> link = mg.Link()
            >>> with link.init_scope():
            ...     link.w = mg.Parameter(np.array([1.0, 1.0]))
            >>> opt = mg.optimizers.SGD(lr=1.0).setup(link)
            >>> link.w.update_rule.add_hook(mg.optimizer_hooks.GradientHardClipping(-0.5, 0.5))
            >>> link.w.grad = np.array([2.0, 0.25]); opt.update(); link.w.array
            array([0.5 , 0.75])
        """
        where = f"{type(self).__name__}.add_hook"
        if not callable(hook):
            raise TypeError(f"{where}: hook must be callable, got {type(hook).__name__}")
        if timing not in _HOOK_TIMINGS:
            raise ValueError(f"{where}: timing must be one of {_HOOK_TIMINGS}, got {timing!r}")
        name = name or getattr(hook, "name", None) or type(hook).__name__
        if name in self._hooks:
            raise KeyError(f"{where}: a hook named {name!r} is already registered")
        if timing == "auto":
            timing = getattr(hook, "timing", "pre")
        self._hooks[name] = (hook, timing)

    def remove_hook(self, name: str) -> None:
        """Unregister the hook ``name``."""
        if name not in self._hooks:
            raise KeyError(f"{type(self).__name__}.remove_hook: no hook named {name!r}; hooks: {list(self._hooks)}")
        del self._hooks[name]


def _working_dtype(dtype: numpy.dtype) -> numpy.dtype:
    """The dtype an update is computed in: float32 for float16, else the parameter's own."""
    return numpy.dtype(numpy.float32) if dtype == numpy.float16 else dtype


class UpdateRule(_HookRegistry):
    """How one parameter is updated; subclasses define ``state_names`` and ``update_core``.

    ``add_hook`` registers a hook for this parameter alone (``hook(rule, param)``,
    before or after its update), as Chainer's ``UpdateRule.add_hook`` does.

    Attributes:
        hyperparam: this parameter's hyperparameters (falling back to the optimizer's).
        state: dict of state arrays (created at the first update), or ``None``.
        t: how many times this parameter has been updated.
        enabled: set to ``False`` to freeze the parameter.
    """

    state_names: tuple[str, ...] = ()

    def __init__(self, parent_hyperparam: Hyperparameter) -> None:
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.state: dict[str, Any] | None = None
        self.t = 0
        self.enabled = True
        self._hooks = {}

    def init_state(self, param: Parameter) -> None:
        """Allocate the state arrays (zeros like the parameter; float32 for a float16 one)."""
        xp = param.xp
        dtype = _working_dtype(param.array.dtype)
        self.state = {name: xp.zeros_like(param.array, dtype=dtype) for name in self.state_names}

    def _state_to(self, xp: Any) -> None:
        for name, value in self.state.items():
            if backend.get_array_module(value) is not xp:
                self.state[name] = backend.to_cpu(value) if xp is numpy else backend.to_gpu(value)

    def update(self, param: Parameter) -> None:
        """Update ``param.array`` in place from ``param.grad`` (no-op without a gradient)."""
        if not self.enabled or param.array is None or param.grad is None:
            return
        if self.state is None:
            self.init_state(param)
        else:
            self._state_to(param.xp)
        self.t += 1
        if param.loss_scale is not None:  # set by backward(loss_scale=...): undone before the hooks (a new
            param.grad = param.grad / param.grad.dtype.type(param.loss_scale)  # array: grads may be read-only)
        self._call_hooks("pre", param)
        data, dtype = param.array, _working_dtype(param.array.dtype)
        if dtype == data.dtype:
            self.update_core(data, param.grad, self.state)
        else:
            working = data.astype(dtype)  # float16 in float32: see the module docstring
            self.update_core(working, param.grad.astype(dtype), self.state)
            data[...] = working
        self._call_hooks("post", param)

    def _call_hooks(self, timing: str, param: Parameter) -> None:
        for hook, when in self._hooks.values():
            if when == timing:
                hook(self, param)

    def update_core(self, data: Any, grad: Any, state: dict[str, Any]) -> None:
        """Write the new value into ``data`` in place; never modify ``grad``."""
        raise NotImplementedError

    def serialize(self, serializer: Any, param: Parameter | None = None) -> None:
        """Save or load ``t`` and the state arrays (loaded state must have the shape of ``param``, if given)."""
        self.t = serializer("t", self.t)
        if not getattr(serializer, "is_loading", False):
            for name, value in (self.state or {}).items():
                serializer(name, value)
            return
        if not any(name in serializer for name in self.state_names):  # saved before its first update
            if not getattr(serializer, "dry_run", False):
                self.state = None
        elif self.state is not None:
            for name in self.state_names:
                self.state[name] = serializer(name, self.state[name])
        elif param is not None and param.array is not None:  # state saved, none here yet: loaded into fresh
            self.init_state(param)                              # state, so the file's shapes are checked
            fresh, self.state = self.state, None
            loaded = {name: serializer(name, fresh[name]) for name in self.state_names}
            if not getattr(serializer, "dry_run", False):
                self.state = loaded
        else:  # state saved, none here yet (and no parameter to check it against)
            loaded = {name: serializer(name, None) for name in self.state_names}
            if all(value is not None for value in loaded.values()):  # (None during a dry run)
                self.state = loaded


class Optimizer(_HookRegistry):
    """Base class of the gradient-based optimizers.

    Usage: ``opt.setup(model)``, then either compute gradients yourself and call
    ``opt.update()``, or let it do so: ``opt.update(lossfun, *args)`` calls
    ``lossfun(*args)``, clears the gradients, backpropagates and updates.
    ``loss_scaling()`` turns on Chainer's (dynamic) loss scaling for float16 training.

    Attributes:
        target: the link being optimized (``None`` before ``setup``).
        t: the number of updates so far.
        epoch: a counter advanced by ``new_epoch()``.
        rules: path (``'/l1/W'``) -> ``UpdateRule``, filled as parameters are seen; each
            parameter's ``update_rule`` is the same object (a rule assigned to
            ``param.update_rule`` later replaces it, as in Chainer).
    """

    rule_class: type[UpdateRule] = UpdateRule
    _loss_scale: float | None = None  # see loss_scaling
    _loss_scale_max = 65504.0  # the largest float16
    _loss_scaling_is_dynamic = False

    def __init__(self, **hyperparameters: Any) -> None:
        """``hyperparameters`` (e.g. ``lr=0.01``) become the defaults of every parameter's rule."""
        self.hyperparam = Hyperparameter()
        for name, value in hyperparameters.items():
            try:
                setattr(self.hyperparam, name, value)
            except ValueError as error:
                raise ValueError(f"{type(self).__name__}: {error}") from None
        self.target: Any = None
        self.t = 0
        self.epoch = 0
        self.rules: dict[str, UpdateRule] = {}
        self._hooks: dict[str, Any] = {}

    def setup(self, link: Any) -> Optimizer:
        """Attach the optimizer to ``link`` (a Link); returns self."""
        from minigrad.link import Link

        if not isinstance(link, Link):
            raise TypeError(f"{type(self).__name__}.setup: optimization target must be a link (a Link or a Chain), "
                            f"got {type(link).__name__}")
        self.target = link
        self.t = 0
        self.epoch = 0
        self.rules = {}
        for _ in self._named_rules():  # create the rules of the parameters known now (state comes later)
            pass
        return self

    def create_update_rule(self) -> UpdateRule:
        return self.rule_class(self.hyperparam)

    def _check_setup(self, what: str) -> None:
        if self.target is None:
            raise RuntimeError(
                f"{type(self).__name__}.{what}: the optimizer has no target; call optimizer.setup(model) first"
            )

    def _named_rules(self) -> Iterator[tuple[str, Parameter, UpdateRule]]:
        """``(path, param, rule)`` for each distinct parameter (a shared one is updated once)."""
        seen: set[int] = set()
        for path, param in self.target.namedparams():
            if id(param) in seen:
                continue
            seen.add(id(param))
            rule = self.rules.get(path)
            if rule is None:
                rule = self.rules[path] = self.create_update_rule()
                if param.update_rule is not None:  # a parameter frozen before (link.disable_update) stays frozen
                    rule.enabled = param.update_rule.enabled
                param.update_rule = rule  # as in Chainer: ``link.W.update_rule.enabled = False`` freezes W
            elif param.update_rule is not None and param.update_rule is not rule:  # the user gave it a new rule
                rule = self.rules[path] = param.update_rule
            yield path, param, rule

    # --- hooks: add_hook and remove_hook come from _HookRegistry ------------
    def _call_hooks(self, timing: str, rules: list[tuple[str, Parameter, UpdateRule]]) -> None:
        for hook, when in self._hooks.values():
            if when != timing:
                continue
            if getattr(hook, "call_for_each_param", False):
                for _, param, rule in rules:
                    if rule.enabled and param.array is not None and param.grad is not None:
                        hook(rule, param)
            else:
                hook(self)

    # --- updating -----------------------------------------------------------
    def update(self, lossfun: Callable[..., Any] | None = None, *args: Any, **kwds: Any) -> None:
        """Update every parameter from its gradient.

        With ``lossfun``: compute ``loss = lossfun(*args, **kwds)``, clear the gradients,
        call ``loss.backward()`` and then update. (In that order, as in Chainer: a
        parameter that the forward pass initializes gets a NaN gradient, which the
        clearing removes.)
        """
        self._check_setup("update")
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            self.target.cleargrads()
            if not hasattr(loss, "backward"):
                raise TypeError(
                    f"{type(self).__name__}.update: lossfun must return a Variable, got {type(loss).__name__}"
                )
            loss.backward(loss_scale=self._loss_scale)
            del loss
        rules = list(self._named_rules())
        self.check_nan_in_grads()
        self._call_hooks("pre", rules)
        self.t += 1
        if self.is_safe_to_update():
            for _, param, rule in rules:
                rule.update(param)
        self._call_hooks("post", rules)
        self.update_loss_scale()

    # --- loss scaling (Chainer's) ---------------------------------------------
    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Scale the loss before backward, so that small float16 gradients do not underflow to zero.

        ``update(lossfun)`` then calls ``loss.backward(loss_scale=...)``, and each
        parameter's gradient is divided by the factor its backward used before the
        parameter is updated (also after a ``backward(loss_scale=...)`` of your own).

        Args:
            interval: with dynamic scaling, the number of updates over which the
                factor doubles once a non-finite gradient has been seen (before
                that it doubles at every update).
            scale: a fixed factor ("static" scaling); ``None`` for dynamic
                scaling: the factor starts at 1 and doubles after each update, an
                update whose gradients hold an infinity or NaN is skipped (with a
                warning) and halves it, and it stays within ``[1, 65504]``.

        Example:
            >>> import numpy as np, minigrad as mg, minigrad.links as L, minigrad.functions as F
            >>> from minigrad import optimizers
            >>> model = L.Linear(2, 1, initialW=np.ones((1, 2), np.float32), nobias=True)
            >>> optimizer = optimizers.SGD(lr=0.1).setup(model)
            >>> optimizer.loss_scaling(scale=8.0)
            >>> optimizer.update(lambda: F.sum(model(np.array([[1.0, 2.0]], np.float32))))
            >>> model.W.array  # the gradient [1, 2] was scaled by 8 in backward, then divided by 8
            array([[0.9, 0.8]], dtype=float32)
        """
        if scale is None:
            if isinstance(interval, bool) or not isinstance(interval, (int, numpy.integer)) or interval < 1:
                raise ValueError(f"{type(self).__name__}.loss_scaling: interval must be an int of at least 1, "
                                 f"got {interval!r}")
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = 2.0 ** (1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if isinstance(scale, bool) or not isinstance(scale, (int, float, numpy.number)) \
                    or not math.isfinite(scale) or scale <= 0:
                raise ValueError(f"{type(self).__name__}.loss_scaling: scale must be a finite positive number (or "
                                 f"None for dynamic scaling), got {scale!r}")
            self._loss_scaling_is_dynamic = False
            self._loss_scale = float(scale)

    def set_loss_scale(self, loss_scale: float) -> None:
        """A fixed loss scale: ``loss_scaling(scale=loss_scale)`` (Chainer's older name)."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """With dynamic loss scaling, note (and warn about) a gradient holding an infinity or a NaN."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, param in self.target.namedparams():
            if param.grad is not None and not bool(param.xp.isfinite(param.grad).all()):
                self._loss_scaling_isnan = self._loss_scaling_isnan_ever = True
                warnings.warn(f"Non finite number found in param.grad of {name} (iteration: {self.t}, "
                              f"loss_scale: {self._loss_scale})", stacklevel=3)

    def is_safe_to_update(self) -> bool:
        """False when dynamic loss scaling found a non-finite gradient: the update is skipped."""
        return not getattr(self, "_loss_scaling_isnan", False)

    def update_loss_scale(self) -> None:
        """Dynamic loss scaling's rule: halve after a non-finite gradient, else grow (see ``loss_scaling``)."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        self._loss_scale = max(1.0, min(self._loss_scale_max, self._loss_scale * multiplier))

    def new_epoch(self) -> None:
        """Advance the epoch counter."""
        self.epoch += 1

    def serialize(self, serializer: Any) -> None:
        """Save or load ``t``, ``epoch`` and every parameter's state."""
        self._check_setup("serialize")
        self.t = serializer("t", self.t)
        self.epoch = serializer("epoch", self.epoch)
        for path, param, rule in self._named_rules():
            rule.serialize(serializer[path[1:]], param)
