"""einsum: cross-checks with matmul/tensordot/numpy.einsum, both input formats, implicit mode, errors, gradients."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
from minigrad.testing import check_backward, check_double_backward

RNG = np.random.default_rng(0)


def _draw(*shapes):
    return [RNG.standard_normal(s) for s in shapes]


def test_matches_matmul_and_tensordot():
    a, b, c = _draw((2, 3), (3, 4), (2, 3, 4))
    np.testing.assert_allclose(F.einsum("ij,jk->ik", a, b).array, F.matmul(a, b).array, rtol=1e-13)
    np.testing.assert_allclose(F.einsum("ijk,jk->i", c, b).array, F.tensordot(c, b, axes=2).array, rtol=1e-13)
    d, = _draw((5, 4))
    np.testing.assert_allclose(F.einsum("ijk,lk->jil", c, d).array,
                               F.tensordot(c, d, axes=([2], [1])).array.transpose(1, 0, 2), rtol=1e-13)
    p, q = _draw((5, 3, 2), (5, 2, 4))
    np.testing.assert_allclose(F.einsum("bij,bjk->bik", p, q).array, F.matmul(p, q).array, rtol=1e-13)


@pytest.mark.parametrize("subscripts, shapes", [
    ("ij,jk", [(2, 3), (3, 4)]), ("ji,jk", [(3, 2), (3, 4)]), ("ba", [(2, 3)]), ("Ab,ba", [(2, 3), (3, 2)]),
    ("ii", [(3, 3)]), ("i,i", [(4,), (4,)]), ("...i,...i", [(2, 3, 4), (2, 3, 4)]), ("i...,i", [(3, 2), (3,)]),
    ("ij,jk,kl", [(2, 3), (3, 4), (4, 2)]), ("iij->j", [(2, 2, 3)]), ("ij->", [(2, 3)]), (",i->i", [(), (3,)]),
])
def test_matches_numpy_einsum_including_implicit_output_order(subscripts, shapes):
    xs = _draw(*shapes)
    y = F.einsum(subscripts, *xs)
    expected = np.einsum(subscripts, *xs)
    assert y.shape == np.shape(expected)
    np.testing.assert_allclose(y.array, expected, rtol=1e-12, atol=1e-12)


def test_sublist_format_equals_the_string_format():
    x1, x2, w = _draw((3, 4), (3, 5), (4, 5, 6))
    y = F.einsum("ij,ik,jkl->il", x1, x2, w).array
    np.testing.assert_allclose(F.einsum(x1, [0, 1], x2, [0, 2], w, [1, 2, 3], [0, 3]).array, y, rtol=1e-12)
    np.testing.assert_allclose(F.einsum(x1, [Ellipsis, 1], x2, [Ellipsis, 2], w, [1, 2, 3]).array, y, rtol=1e-12)
    np.testing.assert_allclose(F.einsum("...j,...k,jkl", x1, x2, w).array, y, rtol=1e-12)


@pytest.mark.parametrize("subscripts, shapes", [
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("iij,jk->ik", [(2, 2, 3), (3, 2)]), ("ij->j", [(2, 3)]),
    ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]), ("i,j->ij", [(2,), (3,)]), ("ij,ij->i", [(2, 3), (2, 3)]),
])
def test_first_and_second_order(subscripts, shapes):
    xs = _draw(*shapes)
    gy = RNG.standard_normal(np.shape(np.einsum(subscripts, *xs)))
    f = lambda *v: F.einsum(subscripts, *v)  # noqa: E731
    check_backward(f, tuple(xs), gy, seed=0)
    check_double_backward(f, tuple(xs), gy, tuple(_draw(*shapes)), seed=0)


def test_diagonal_gradient_is_zero_off_the_diagonal():
    x = mg.Variable(np.ones((3, 3)))
    F.einsum("ii->", x).backward()
    np.testing.assert_array_equal(x.grad, np.eye(3))


def test_same_variable_twice_sums_both_paths():
    x = mg.Variable(np.array([1.0, 2.0, 3.0]))
    F.einsum("i,i->", x, x).backward()  # d(x.x) = 2x
    np.testing.assert_array_equal(x.grad, 2 * x.array)


def test_non_contiguous_inputs():
    a = RNG.standard_normal((4, 6))[::2, ::2]           # (2, 3), strided
    b = np.asfortranarray(RNG.standard_normal((3, 5)))  # Fortran order
    np.testing.assert_allclose(F.einsum("ij,jk->ik", a, b).array, np.ascontiguousarray(a) @ b, rtol=1e-13)


def test_float16_and_mixed_dtypes():
    x = mg.Variable(np.ones((2, 3), np.float16))
    y = F.einsum("ij->i", x)
    F.sum(y).backward()
    assert y.dtype == x.grad.dtype == np.float16
    a = mg.Variable(np.ones((2, 3), np.float32))
    b = mg.Variable(np.ones(3, np.float64))
    z = F.einsum("ij,j->i", a, b)
    F.sum(z).backward()
    assert z.dtype == np.float64 and a.grad.dtype == np.float32 and b.grad.dtype == np.float64


@pytest.mark.parametrize("args, error, match", [
    (("ij,jk->ik", np.ones((2, 3)), np.ones((4, 5))), ValueError,
     r"einsum: label 'j' of 'ij,jk->ik' has length 3 in operand 0 \(shape \(2, 3\)\) but 4 in operand 1 "
     r"\(shape \(4, 5\)\)"),
    (("ii", np.ones((2, 3))), ValueError, r"label 'i' .* has length 2 in operand 0 \(shape \(2, 3\)\) but 3"),
    (("ijk", np.ones((2, 3))), ValueError, r"einsum: subscripts 'ijk' of operand 0 name 3 axes, but its shape is"),
    (("ij,jk", np.ones((2, 3))), ValueError, r"einsum: subscripts 'ij,jk' name 2 operand\(s\) but 1 were given"),
    (("ij->ik", np.ones((2, 3))), ValueError, r"einsum: output label 'k' of 'ij->ik' appears in no operand"),
    (("ij->ii", np.ones((2, 2))), ValueError, r"einsum: output label 'i' appears more than once"),
    (("i1", np.ones((2, 3))), ValueError, r"einsum: subscripts 'i1' hold invalid characters \['1'\]"),
    (("i->j->k", np.ones(2)), ValueError, "at most one '->'"),
    (("i-j", np.ones(2)), ValueError, "at most one '->'"),
    (("i..j", np.ones((2, 3))), ValueError, "misplaced '.'"),
    (("...i->i", np.ones((2, 3))), ValueError, r"sums over the 1 axes under '\.\.\.', which is not supported"),
    (("...i,...i->...", np.ones((2, 3)), np.ones((4, 3))), ValueError,
     r"'\.\.\.' covers shape \(4,\) in operand 1 but \(2,\) before"),
    (("ij", np.ones((2, 3), np.int64)), TypeError, "einsum: operands\\[0\\] must have a floating-point dtype"),
    (("ij", [[1.0]]), TypeError, r"einsum: operands\[0\] must be"),
    ((), ValueError, "einsum: no operands given"),
    ((np.ones(2), [0.5]), ValueError, r"einsum: the sublist of operand 0 must hold ints in \[0, 52\)"),
    ((np.ones(2), "i"), TypeError, "einsum: the sublist of operand 0 must be a list"),
])
def test_bad_subscripts_and_shapes_name_einsum(args, error, match):
    with pytest.raises(error, match=match):
        F.einsum(*args)
