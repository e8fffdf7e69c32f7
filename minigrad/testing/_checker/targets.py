"""What a check compares: targets (inputs and parameters), their scale bands and series (outputs).

A *target* is one input or parameter whose gradient is checked. Its elements
fall into *scale bands* by the magnitude of their reference gradient (a band
spans ``BAND_DECADES`` decades; elements with a zero gradient form a band of
their own), so that an error confined to the small elements of a gradient with
a wide dynamic range is compared at their own scale, not drowned by the large
ones. A band holding too few elements to matter as a group joins the band
above it. A *series* is what one probe measures: the sum over every output
(``ALL``), or, where the outputs' scales differ, each output alone.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy

from minigrad import backend
from minigrad.testing._checker.arrays import f64

ALL = -1  # the series key of the sum over every output
BAND_DECADES = 3.0  # one scale band spans this many decades of |reference gradient|
LOWEST_BAND = 6  # elements more than 6 bands (18 decades) below the largest count as zero
BAND_MIN_SHARE = 0.01  # a band with fewer than this fraction of the elements joins the band above


@dataclass
class Band:
    """Some elements of a target: ``flat`` (None for all of them), at one scale of the reference gradient."""

    flat: Any  # flat indices on the target's device, or None for every element
    size: int
    largest: float  # max |reference gradient| over the band
    smallest: float  # min |reference gradient| over the band
    label: str = ""


@dataclass
class Target:
    """One input or parameter whose gradient is checked."""

    name: str
    position: int  # index into the problem's arrays (inputs, then parameters)
    base: Any  # the array at the centre, in its own dtype
    base_nd: Any = None  # the same in the numerical dtype
    grad: Any = None  # backprop's gradient under test (own dtype), or None
    ref: Any = None  # the reference gradient (numerical dtype), or None
    part_grads: dict[int, Any] = field(default_factory=dict)  # output j -> its part of grad (own dtype)
    part_refs: dict[int, Any] = field(default_factory=dict)  # output j -> its part of ref
    scale: float = 1.0  # how far an element moves, in units of the step (the input's rms magnitude, at most 1)
    linear: bool = False  # declared linear in this input: checked with the adjoint identity
    is_param: bool = False
    bands: list[Band] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.name} (shape {self.base.shape}, {self.base.dtype})"

    def reference(self, series: int) -> Any:
        """The reference gradient of one series (``ALL``: of every output together)."""
        return self.ref if series == ALL else self.part_refs.get(series)


def scale_bands(ref: Any) -> list[Band]:
    """The elements of a gradient grouped by scale (decades of |ref| below its largest element)."""
    size = int(ref.size)
    if size == 0:
        return [Band(None, 0, 0.0, 0.0, "all elements")]
    magnitudes = abs(f64(ref)).ravel()
    largest = float(magnitudes.max())
    if not (largest > 0 and math.isfinite(largest)):
        return [Band(None, size, largest, largest, "all elements")]
    xp = backend.get_array_module(magnitudes)
    if int(xp.count_nonzero(magnitudes < largest * 10.0 ** -BAND_DECADES)) < BAND_MIN_SHARE * size:
        return [Band(None, size, largest, float(magnitudes.min()), "all elements")]  # the others would join it
    with numpy.errstate(divide="ignore"):
        levels = xp.floor(xp.log10(largest / magnitudes) / BAND_DECADES)
    levels = xp.where(levels > LOWEST_BAND, LOWEST_BAND + 1, levels).astype(numpy.int64)  # zero: its own band
    counts = numpy.bincount(backend.to_cpu(levels), minlength=LOWEST_BAND + 2)
    if counts[0] == size:
        return [Band(None, size, largest, float(magnitudes.min()), "all elements")]
    groups: list[list[int]] = []
    for level, count in enumerate(counts):
        if count == 0:
            continue
        if groups and count < BAND_MIN_SHARE * size:
            groups[-1].append(level)  # too few to matter as a group: checked with the band above
        else:
            groups.append([level])
    if len(groups) == 1:
        return [Band(None, size, largest, float(magnitudes.min()), "all elements")]
    bands = []
    for group in groups:
        flat = xp.flatnonzero(xp.isin(levels, xp.asarray(group)))
        values = magnitudes[flat]
        top, bottom = float(values.max()), float(values.min())
        label = "elements with a zero gradient" if top == 0 else \
            f"elements with |gradient| in [{bottom:.3g}, {top:.3g}]"
        bands.append(Band(flat, int(flat.size), top, bottom, label))
    return bands
