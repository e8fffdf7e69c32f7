"""Optimizer hyperparameters are checked when they are set (issue 27): a NaN, an infinity or an out-of-range
value of a common hyperparameter is a ValueError naming it, whether given to the constructor or set later; before,
each was accepted and turned the parameters into NaN (or stepped uphill) at the next update."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

import minigrad.functions as F
import minigrad.links as L
import minigrad.optimizers as O

OPTIMIZERS = [getattr(O, n) for n in O.__all__ if inspect.isclass(getattr(O, n))
              and issubclass(getattr(O, n), O.Optimizer) and getattr(O, n) is not O.Optimizer]
NUMERIC = [(cls, p.name) for cls in OPTIMIZERS for p in inspect.signature(cls).parameters.values()
           if isinstance(p.default, (int, float)) and not isinstance(p.default, bool)]


def _step(optimizer: O.Optimizer) -> L.Linear:
    model = L.Linear(3, 2, initialW=np.full((2, 3), 0.5, np.float32))
    optimizer.setup(model)
    loss = F.sum(model(np.ones((1, 3), np.float32)))
    model.cleargrads()
    loss.backward()
    optimizer.update()
    return model


def test_every_optimizer_has_numeric_hyperparameters_to_check():
    assert len(OPTIMIZERS) >= 6 and len(NUMERIC) >= 15


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
@pytest.mark.parametrize("cls, name", NUMERIC, ids=[f"{c.__name__}-{n}" for c, n in NUMERIC])
def test_a_non_finite_hyperparameter_is_refused_naming_it(cls, name, value):
    with pytest.raises(ValueError, match=rf"{cls.__name__}: hyperparameter {name} must be a finite number"):
        cls(**{name: value})


@pytest.mark.parametrize("cls, name", NUMERIC, ids=[f"{c.__name__}-{n}" for c, n in NUMERIC])
def test_the_defaults_and_a_valid_setting_update_to_finite_values(cls, name):
    default = inspect.signature(cls).parameters[name].default
    model = _step(cls(**{name: default / 2 if default else 0}))
    assert np.isfinite(model.W.array).all() and not np.array_equal(model.W.array, np.full((2, 3), 0.5))


@pytest.mark.parametrize("cls, name, value", [
    (O.SGD, "lr", -0.1), (O.MomentumSGD, "momentum", 1.5), (O.Adam, "beta1", -0.1), (O.Adam, "eps", -1e-8),
    (O.RMSprop, "eps", -1.0), (O.AdamW, "weight_decay_rate", -0.01),
])
def test_an_out_of_range_hyperparameter_is_refused(cls, name, value):
    with pytest.raises(ValueError, match=rf"hyperparameter {name} must be a finite number in"):
        cls(**{name: value})


def test_setting_one_later_is_checked_too_and_leaves_the_old_value():
    optimizer = O.SGD(lr=0.1)
    model = L.Linear(3, 2)
    optimizer.setup(model)
    with pytest.raises(ValueError, match="hyperparameter lr must be a finite number"):
        optimizer.lr = math.nan
    with pytest.raises(ValueError, match="hyperparameter lr"):
        model.W.update_rule.hyperparam.lr = math.inf
    assert optimizer.lr == 0.1 and model.W.update_rule.hyperparam.lr == 0.1


def test_flags_and_unknown_names_are_the_optimizers_to_read():
    assert O.Adam(amsgrad=True).hyperparam.amsgrad is True
    h = O.Hyperparameter()
    h.schedule = "cosine"
    h.anything = -5.0  # a name with no known range: only finiteness is checked
    assert (h.schedule, h.anything) == ("cosine", -5.0)
    with pytest.raises(ValueError, match="hyperparameter anything must be a finite number, got nan"):
        h.anything = math.nan
