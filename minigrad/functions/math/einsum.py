"""einsum: Einstein summation over labelled axes, like ``numpy.einsum``, in both of Chainer's input formats.

One node, ``EinSum``, computes ``y[out] = sum of prod_k x_k[labels_k]`` for
labels that may repeat inside an operand (a diagonal) and, internally, in the
output (the result is zero off that diagonal) or be absent from the operands
(the result is constant along that axis). That generality makes it closed
under differentiation: the gradient of operand ``i`` is the same sum with
``gy`` (labelled like the output) in place of ``x_i`` and ``x_i``'s labels as
the output, i.e. another ``EinSum``, so every order is differentiable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy

import minigrad.functions as F
from minigrad.backend import get_array_module
from minigrad.function_node import FunctionNode
from minigrad.functions.checks import as_input
from minigrad.variable import Variable

__all__ = ["EinSum", "einsum"]

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"  # sublist integer k is LETTERS[k], as in NumPy


def _einsum_array(xp: Any, in_labels: tuple[str, ...], out_labels: str, out_shape: tuple[int, ...],
                  arrays: Sequence[Any]) -> Any:
    present = set("".join(in_labels))
    unique = "".join(dict.fromkeys(out_labels))
    core = "".join(c for c in unique if c in present)
    options = {"optimize": True} if xp is numpy and len(arrays) > 2 else {}
    r = xp.asarray(xp.einsum(",".join(in_labels) + "->" + core, *arrays, **options))
    if core == out_labels:
        return r
    size = {c: out_shape[out_labels.index(c)] for c in unique}
    grid = xp.broadcast_to(r[tuple(slice(None) if c in present else None for c in unique)],
                           tuple(size[c] for c in unique))  # one axis per distinct output label
    if unique == out_labels:  # no repeated output label: only broadcasting
        return xp.ascontiguousarray(grid)
    y = xp.zeros(out_shape, dtype=r.dtype)
    index = tuple(xp.arange(size[c]).reshape(tuple(-1 if d == c else 1 for d in unique)) for c in out_labels)
    y[index] = grid  # the diagonal of the repeated labels; zero elsewhere
    return y


class EinSum(FunctionNode):
    def __init__(self, in_labels: tuple[str, ...], out_labels: str, out_shape: tuple[int, ...]) -> None:
        self.in_labels = in_labels  # one string of single-letter labels per operand, no ellipsis left
        self.out_labels = out_labels
        self.out_shape = out_shape

    def forward(self, inputs):
        self.in_shapes = tuple(x.shape for x in inputs)
        if len(inputs) > 1:  # the gradient of a single operand needs only gy
            self.retain_inputs(tuple(range(len(inputs))))
        return _einsum_array(get_array_module(*inputs), self.in_labels, self.out_labels, self.out_shape, inputs),

    def backward(self, indexes, grad_outputs):
        inputs = self.get_retained_inputs() if len(self.in_labels) > 1 else (None,)
        gy, = grad_outputs
        grads = []
        for i in indexes:
            labels = self.in_labels[:i] + (self.out_labels,) + self.in_labels[i + 1:]
            operands = inputs[:i] + (gy,) + inputs[i + 1:]
            grads.append(EinSum(labels, self.in_labels[i], self.in_shapes[i]).apply(operands)[0])
        return tuple(grads)


def _sublist_subscripts(operands: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """``(x0, sub0, x1, sub1, ..., [sub_out])`` -> a subscripts string and the operands."""
    arrays, sublists = operands[0::2], list(operands[1::2])
    if len(operands) % 2:  # an odd count ends with the output sublist
        arrays, output = arrays[:-1], arrays[-1]
    else:
        output = None

    def spell(sub: Any, where: str) -> str:
        if not isinstance(sub, (list, tuple)):
            raise TypeError(f"einsum: {where} must be a list of ints in [0, 52) and Ellipsis, got {type(sub).__name__}")
        text = ""
        for s in sub:
            if s is Ellipsis:
                text += "..."
            elif isinstance(s, (int, numpy.integer)) and not isinstance(s, bool) and 0 <= s < len(LETTERS):
                text += LETTERS[s]
            else:
                raise ValueError(f"einsum: {where} must hold ints in [0, 52) and Ellipsis, got {s!r} in {sub!r}")
        return text

    for k, x in enumerate(arrays):
        as_input("einsum", x, f"operands[{2 * k}]")  # a TypeError naming einsum for a non-array operand
    subscripts = ",".join(spell(sub, f"the sublist of operand {k}") for k, sub in enumerate(sublists))
    if output is not None:
        subscripts += "->" + spell(output, "the output sublist")
    return subscripts, arrays


def _parse(subscripts: str, xs: list[Variable]) -> tuple[tuple[str, ...], str]:
    """Labels per operand and of the output, each ``...`` replaced by the same fresh letters."""
    spec = subscripts.replace(" ", "")
    bad = sorted(set(spec) - set(LETTERS + ".,->"))
    if bad:
        raise ValueError(f"einsum: subscripts {subscripts!r} hold invalid characters {bad}; use letters a-z, A-Z")
    if spec.count("->") > 1 or spec.count("-") != spec.count("->") or spec.count(">") != spec.count("->"):
        raise ValueError(f"einsum: subscripts {subscripts!r} must hold at most one '->', and '-', '>' only there")
    terms_text, arrow, output = spec.partition("->")
    terms = terms_text.split(",")
    if len(terms) != len(xs):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(terms)} operand(s) but {len(xs)} were given")
    for text in terms + [output]:
        if text.replace("...", "@").count(".") or text.count("...") > 1:
            raise ValueError(f"einsum: subscripts {subscripts!r} hold a misplaced '.': write '...' once per term")
    ellipsis_shape = None
    for k, (text, x) in enumerate(zip(terms, xs)):
        named = len(text.replace("...", ""))
        if ("..." in text and named > x.ndim) or ("..." not in text and named != x.ndim):
            raise ValueError(f"einsum: subscripts {text!r} of operand {k} name {named} axes, "
                             f"but its shape is {x.shape}")
        if "..." in text:
            start = text.index("...")
            shape = x.shape[start:x.ndim - (named - start)]
            if ellipsis_shape is not None and shape != ellipsis_shape:
                raise ValueError(f"einsum: '...' covers shape {shape} in operand {k} but {ellipsis_shape} before "
                                 "(all of them must be equal; broadcasting is not supported, as in Chainer)")
            ellipsis_shape = shape
    fresh = [c for c in LETTERS if c not in spec]
    n_ellipsis = len(ellipsis_shape or ())
    if n_ellipsis > len(fresh):
        raise ValueError(f"einsum: too many axes under '...' in {subscripts!r}: no free letters are left for them")
    dots = "".join(fresh[:n_ellipsis])
    in_labels = tuple(t.replace("...", dots) for t in terms)
    everything = "".join(in_labels)
    if not arrow:  # implicit output: '...' first, then the labels used once, in alphabetical order
        return in_labels, dots + "".join(sorted(c for c in set(everything) if everything.count(c) == 1 and
                                                c not in dots))
    if n_ellipsis and "..." not in output:
        raise ValueError(f"einsum: {subscripts!r} sums over the {n_ellipsis} axes under '...', which is not supported "
                         "(as in Chainer); name them with letters to sum over them")
    out_labels = output.replace("...", dots)
    for c in out_labels:
        if out_labels.count(c) > 1:
            raise ValueError(f"einsum: output label {c!r} appears more than once in {subscripts!r}")
        if c not in everything:
            raise ValueError(f"einsum: output label {c!r} of {subscripts!r} appears in no operand")
    return in_labels, out_labels


def einsum(*operands: Any) -> Variable:
    """Einstein summation: the sum over shared labels of the product of the operands, like ``numpy.einsum``.

    Two formats, as in Chainer:

    - ``einsum(subscripts, x0, x1, ...)``: ``subscripts`` labels each axis of
      each operand with a letter (``"ij,jk->ik"`` is a matrix product). A label
      repeated within one operand takes its diagonal (``"ii->i"``, the trace
      ``"ii->"``); labels missing from the output are summed over. Without
      ``"->"`` (implicit mode) the output is the labels that appear exactly
      once, in alphabetical order (uppercase first). ``...`` stands for the same
      leading/middle axes (batch axes) in every operand that writes it; they
      must have equal shapes (no broadcasting, as in Chainer) and stay in the
      output (summing over ``...`` is refused, as in Chainer).
    - ``einsum(x0, sublist0, x1, sublist1, ..., [sublist_out])``: each sublist
      holds ints in ``[0, 52)`` (labels) and ``Ellipsis``.

    Every operand must be floating point; mixed dtypes are promoted as in NumPy.

    Example:
        >>> import numpy as np, minigrad.functions as F
        >>> a, b = np.arange(6.0).reshape(2, 3), np.ones((3, 2))
        >>> F.einsum("ij,jk->ik", a, b).array
        array([[ 3.,  3.],
               [12., 12.]])
        >>> F.einsum("ii", np.arange(4.0).reshape(2, 2)).array   # the trace, implicit mode
        array(3.)
        >>> F.einsum("...j,j", np.ones((4, 2, 3)), np.arange(3.0)).shape
        (4, 2)
        >>> F.einsum(a, [0, 1], b, [1, 2], [0, 2]).shape
        (2, 2)
    """
    if not operands:
        raise ValueError("einsum: no operands given; call einsum(subscripts, *operands)")
    if isinstance(operands[0], str):
        subscripts, arrays = operands[0], operands[1:]
    else:
        subscripts, arrays = _sublist_subscripts(operands)
    xs = [as_input("einsum", x, f"operands[{k}]", float_only=True) for k, x in enumerate(arrays)]
    in_labels, out_labels = _parse(subscripts, xs)
    size: dict[str, tuple[int, int]] = {}  # label -> (length, operand that set it)
    for k, (labels, x) in enumerate(zip(in_labels, xs)):
        for c, n in zip(labels, x.shape):
            if c in size and size[c][0] != n:
                first = size[c][1]
                raise ValueError(f"einsum: label {c!r} of {subscripts!r} has length {size[c][0]} in operand {first} "
                                 f"(shape {xs[first].shape}) but {n} in operand {k} (shape {x.shape})")
            size.setdefault(c, (n, k))
    dtype = numpy.result_type(*[x.dtype for x in xs])
    xs = [x if x.dtype == dtype else F.cast(x, dtype) for x in xs]
    out_shape = tuple(size[c][0] for c in out_labels)
    return EinSum(in_labels, out_labels, out_shape).apply(tuple(xs))[0]
