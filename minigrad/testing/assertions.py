"""assert_allclose with a message that says where and by how much arrays differ."""

from __future__ import annotations

from typing import Any

import numpy

from minigrad import backend

__all__ = ["assert_allclose"]


def assert_allclose(x: Any, y: Any, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True) -> None:
    """Assert ``|x - y| <= atol + rtol * |y|`` elementwise (arrays, Variables or scalars).

    NaN matches NaN and an infinity matches the same infinity; the shapes must
    broadcast. The failure message gives the worst element's index, both values,
    its absolute and relative error, and how many elements fail; with
    ``verbose`` (and at most 100 elements) it also prints both arrays.

    Args:
        x: the actual values (NumPy/CuPy array, Variable or scalar).
        y: the expected values.
        atol: absolute tolerance.
        rtol: relative tolerance, relative to ``|y|``.
        verbose: print the arrays in the message.

    Example:
        >>> import numpy as np
        >>> from minigrad.testing import assert_allclose
        >>> assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9]))
        >>> try:
        ...     assert_allclose(np.array([1.0, 2.0]), np.array([1.0, 2.5]), verbose=False)
        ... except AssertionError as e:
        ...     for part in str(e).split("; "):
        ...         print(part)
        arrays are not close (atol=1e-05, rtol=0.0001): 1 of 2 elements differ
        worst at index (1,): actual 2.0, expected 2.5, absolute error 0.5, relative error 0.2
    """
    x = numpy.asarray(backend.to_cpu(getattr(x, "array", x)))
    y = numpy.asarray(backend.to_cpu(getattr(y, "array", y)))
    try:
        xb, yb = numpy.broadcast_arrays(x, y)
    except ValueError:
        raise AssertionError(f"assert_allclose: shapes {x.shape} and {y.shape} differ") from None
    xf, yf = xb.astype(numpy.float64), yb.astype(numpy.float64)
    with numpy.errstate(invalid="ignore"):  # inf - inf: judged by same_nonfinite below
        err = numpy.abs(xf - yf)
        tol = atol + rtol * numpy.abs(yf)
        same_nonfinite = (xf == yf) | (numpy.isnan(xf) & numpy.isnan(yf))
        bad = ~((err <= tol) | same_nonfinite)
        if not bad.any():
            return
        excess = numpy.where(bad, numpy.nan_to_num(err - tol, nan=numpy.inf), -numpy.inf)
    worst = numpy.unravel_index(int(numpy.argmax(excess)), excess.shape) if excess.ndim else ()
    actual, expected, error = float(xf[worst]), float(yf[worst]), float(err[worst])
    message = (
        f"arrays are not close (atol={atol}, rtol={rtol}): {int(bad.sum())} of {bad.size} elements differ; "
        f"worst at index {tuple(int(i) for i in worst)}: actual {actual!r}, expected {expected!r}, "
        f"absolute error {error!r}, relative error {error / max(abs(expected), 1e-300)!r}"
    )
    if verbose and x.size <= 100:
        message += f"\nactual:   {x!r}\nexpected: {y!r}"
    raise AssertionError(message)
