"""numerical_grad(..., detect_nondifferentiable=True): flags a kink, a jump or a NaN/Inf boundary within eps
of an input, and nothing else (Chainer's contract, eps an absolute step)."""

from __future__ import annotations

import numpy as np
import pytest

from minigrad.testing import NondifferentiableError, numerical_grad

EPS = 1e-3


def _with_nan(x):
    with np.errstate(invalid="ignore"):
        return np.where(x > 0, x, np.nan)


def _log(x):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(x)


def _reciprocal(x):
    with np.errstate(divide="ignore"):
        return 1.0 / x


# (name, f, point, kink): kink is True when f has a kink, jump or NaN/Inf boundary within EPS of the point
TABLE = [
    # smooth, stationary points included
    ("x**2 at 0", lambda x: x ** 2, 0.0, False),
    ("x**3 at 0", lambda x: x ** 3, 0.0, False),
    ("exp at 0", np.exp, 0.0, False),
    ("exp at 10", np.exp, 10.0, False),
    ("cos at 0", np.cos, 0.0, False),
    ("sin(30x) at 0.3", lambda x: np.sin(30 * x), 0.3, False),
    # steep slopes
    ("1e8 x at 0.3", lambda x: 1e8 * x, 0.3, False),
    ("tanh(100x) at 0.004", lambda x: np.tanh(100 * x), 0.004, False),
    # kinks
    ("|x| at 0", np.abs, 0.0, True),
    ("|x| at 0.5 eps", np.abs, 0.5 * EPS, True),
    ("|x| at -0.9 eps", np.abs, -0.9 * EPS, True),
    ("|x| at 1.2 eps", np.abs, 1.2 * EPS, False),
    ("|x| at -2 eps", np.abs, -2 * EPS, False),
    ("relu at 0.3 eps", lambda x: np.maximum(x, 0), 0.3 * EPS, True),
    ("relu at 1.5 eps", lambda x: np.maximum(x, 0), 1.5 * EPS, False),
    # jumps
    ("step at 0.5 eps", lambda x: (x > 0).astype(x.dtype), 0.5 * EPS, True),
    ("step at 1.2 eps", lambda x: (x > 0).astype(x.dtype), 1.2 * EPS, False),
    ("floor at 1 - 0.5 eps", np.floor, 1 - 0.5 * EPS, True),
    ("floor at 1 - 1.2 eps", np.floor, 1 - 1.2 * EPS, False),
    ("floor at 2.5", np.floor, 2.5, False),
    # NaN boundaries
    ("NaN segment, boundary 0.5 eps away", _with_nan, 0.5 * EPS, True),
    ("NaN segment, boundary 1.2 eps away", _with_nan, 1.2 * EPS, False),
    ("sqrt at 0.5 eps", lambda x: np.sqrt(np.maximum(x, 0)) + _with_nan(x) * 0, 0.5 * EPS, True),
    # infinities
    ("log at 0", _log, 0.0, True),
    ("log at 0.5 eps", _log, 0.5 * EPS, True),
    ("log at 10 eps", _log, 10 * EPS, False),
    ("1/x at 0.5 eps", _reciprocal, -0.5 * EPS, True),
    ("1/x at 10 eps", _reciprocal, 10 * EPS, False),
    ("log at 5", _log, 5.0, False),
]


@pytest.mark.parametrize("name, f, point, kink", TABLE, ids=[row[0] for row in TABLE])
def test_detects_exactly_what_is_within_eps(name, f, point, kink):
    x = np.array([point])
    gy = np.ones(1)

    def run():
        return numerical_grad(lambda: (f(x),), (x,), (gy,), eps=EPS, detect_nondifferentiable=True)

    if kink:
        with pytest.raises(NondifferentiableError, match=r"inputs\[0\] element \(0,\)"):
            run()
    else:
        gx, = run()
        h = 1e-7 * max(1.0, abs(point))  # an independent reference: a central difference with a tiny step
        reference = (f(np.array([point + h])) - f(np.array([point - h])))[0] / (2 * h)
        assert np.isclose(gx[0], reference, rtol=1e-3, atol=1e-6 * max(1.0, abs(reference))), (gx[0], reference)


def test_eps_is_absolute_and_the_step_never_goes_further():
    x = np.array([1.0])
    seen = []

    def f():
        seen.append(float(x[0]))
        return (x * 1.0,)
    numerical_grad(f, (x,), (np.ones(1),), eps=0.01)
    numerical_grad(f, (x,), (np.ones(1),), eps=0.01, detect_nondifferentiable=True)
    assert max(abs(s - 1.0) for s in seen) <= 0.01 + 1e-15


def test_without_detection_nothing_is_raised():
    x = np.array([0.0])
    gx, = numerical_grad(lambda: (np.abs(x),), (x,), (np.ones(1),))
    assert abs(gx[0]) < 1e-12  # the symmetric difference of |x| at its kink


def test_scalar_outputs_and_gradients():
    # as in Chainer: f may return a scalar, and a grad_output may be a scalar
    x = np.array([1.0, 2.0])
    gx, = numerical_grad(lambda: float((x ** 2).sum()), (x,), (2.0,))
    np.testing.assert_allclose(gx, 4 * x, rtol=1e-9)
    x0 = np.array(3.0)
    gx0, = numerical_grad(lambda: x0 * x0, (x0,), (np.float64(1.0),))
    assert gx0.shape == () and np.isclose(gx0, 6.0)


@pytest.mark.parametrize("eps", [0, -1e-3, 0.0, float("nan"), float("inf")])
def test_eps_must_be_positive_as_in_chainer(eps):
    x = np.ones(2)
    with pytest.raises(AssertionError, match="eps must be a positive finite number"):  # Chainer: assert eps > 0
        numerical_grad(lambda: (x,), (x,), (np.ones(2),), eps=eps)
    with pytest.raises(ValueError):
        numerical_grad(lambda: (x,), (x,), (np.ones(2),), eps=eps)


def test_complex_inputs_are_refused():
    x = np.ones(2, dtype=np.complex128)
    with pytest.raises(TypeError, match=r"inputs\[0\].*complex"):
        numerical_grad(lambda: (x,), (x,), (np.ones(2),))
