"""Where a check went wrong: the worst elements of a wrong target, the elements next to a kink.

Both work by probing subsets of one target's elements (the direction masked
to the subset): each element of a small input, a bisection over element
subsets of a large one.
"""

from __future__ import annotations

from typing import Any

from minigrad import backend
from minigrad.testing._checker import probing
from minigrad.testing._checker.arrays import element_index
from minigrad.testing._checker.probing import Probe, ProbeSetup
from minigrad.testing._checker.report import ElementDisagreement

ELEMENTWISE_LIMIT = 32  # inputs up to this size are localised element by element
SHOWN_ELEMENTS = 3
MAX_ISOLATED = 4  # kink elements isolated from a target before the check gives up on it


def subset(direction: Any, flat_indices: Any, keep: bool = True) -> Any:
    """``direction`` restricted to the elements ``flat_indices`` (or, ``keep=False``, to all the others)."""
    xp = backend.get_array_module(direction)
    mask = xp.zeros(direction.size, dtype=direction.dtype) if keep else xp.ones(direction.size, direction.dtype)
    mask[list(flat_indices)] = 1.0 if keep else 0.0
    return direction * mask.reshape(direction.shape)


def _element(setup: ProbeSetup, k: int, flat: int, direction: Any) -> tuple[ElementDisagreement, float]:
    t = setup.targets[k]
    p = probing.probe(setup, k, subset(direction, [flat]))
    index = element_index(flat, t.base.shape)
    v = float(direction[index]) if direction.ndim else float(direction)
    ref = 0.0 if t.ref is None else float(t.ref[index])
    tol = probing.tolerance(p.total, p.norm, setup.args) / abs(v)
    numerical = p.total.numerical / v
    error = abs(ref - numerical)
    return ElementDisagreement(index, ref, numerical, error, tol), error / tol if tol else float("inf")


def worst_elements(setup: ProbeSetup, k: int, direction: Any) -> list[ElementDisagreement]:
    """The elements of target ``k`` whose own probes disagree most (at most ``SHOWN_ELEMENTS``)."""
    t = setup.targets[k]
    size = t.base.size
    if size == 0:
        return []
    candidates = [i for i in range(size) if float(direction.ravel()[i]) != 0.0]
    # bisection: keep the half whose own probe disagrees most (8 evaluations per level)
    while len(candidates) > ELEMENTWISE_LIMIT // 4 and size > ELEMENTWISE_LIMIT:
        half = len(candidates) // 2
        halves = (candidates[:half], candidates[half:])
        margins = [probing.margin(probing.probe(setup, k, subset(direction, h)), setup.args) for h in halves]
        candidates = halves[int(margins[1] > margins[0])]
    if not candidates:
        return []
    scored = [_element(setup, k, flat, direction) for flat in candidates]
    # of the elements beyond their tolerance (or the one closest to it), the largest absolute errors first
    wrong = [element for element, m in scored if m >= 1.0] or [max(scored, key=lambda pair: pair[1])[0]]
    return sorted(wrong, key=lambda element: -element.error)[:SHOWN_ELEMENTS]


def kink_element(setup: ProbeSetup, k: int, direction: Any, step: float, *, detect: bool = False,
                 scale: float = 0.0) -> int:
    """The flat index of the element of target ``k`` next to which ``f`` has a kink.

    A bisection on the finite difference's error indicators at ``step`` (the
    step where the probe stayed untrusted); with ``detect`` on the 4th
    differences against ``kink_threshold`` at the first step.
    """
    candidates = [i for i in range(setup.targets[k].base.size) if float(direction.ravel()[i]) != 0.0]
    while len(candidates) > 1:
        half = len(candidates) // 2
        halves = (candidates[:half], candidates[half:])
        scores = []
        for h in halves:
            p = probing.evaluate(setup, k, subset(direction, h), step, kinks=detect)
            scores.append(p.kink / probing.kink_threshold(p, scale) if detect else _badness(p))
        candidates = halves[int(scores[1] > scores[0])]
    return candidates[0]


def _badness(p: Probe) -> float:
    if any(line.numerical != line.numerical for line in p.lines.values()):
        return float("inf")
    return max(line.untrusted_excess for line in p.lines.values())


def isolate_kinks(setup: ProbeSetup, k: int, untrusted: Probe) -> tuple[list[int], Probe | None, Any]:
    """Take the elements next to a kink out of target ``k``'s direction, one at a time, until the
    rest can be trusted. Returns the isolated flat indices and the trusted probe of the rest
    (None when ``MAX_ISOLATED`` elements were not enough, or nothing is left) and the direction
    without them."""
    t = setup.targets[k]
    direction, isolated, current = untrusted.vector, [], untrusted
    while not current.trusted and len(isolated) < MAX_ISOLATED:
        isolated.append(kink_element(setup, k, direction, current.step))
        direction = subset(direction, isolated, keep=False)
        if len(isolated) == t.base.size:
            return isolated, None, direction
        current = probing.probe(setup, k, direction)
    return isolated, (current if current.trusted else None), direction
