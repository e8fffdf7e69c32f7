"""``Parameter``: a Variable that a Link owns and an optimizer updates.

A parameter may start uninitialized (no array yet, e.g. ``L.Linear(None, 10)``)
and get its array from its initializer when the shape is known. As in Chainer,
``initialize`` also creates the gradient, filled with NaN, so that a gradient
that was never cleared (``cleargrads``) cannot pass unnoticed.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy

from minigrad import backend, initializers
from minigrad.device import CpuDevice, Device, get_device
from minigrad.dtypes import get_dtype
from minigrad.variable import Variable

__all__ = ["Parameter"]

# What ``initialize`` fills the gradient with: NaN (new), zeros (after ``zerograd``) or nothing (after ``cleargrad``)
_GRAD_FILL = {"nan": numpy.nan, "zero": 0}


class Parameter(Variable):
    """A Variable owned by a Link and updated by an optimizer.

    Args:
        initializer: an array (used as the data), a scalar (``Constant``), a
            callable ``initializer(array)`` that fills an array in place, or
            ``None`` (``initializers.NaN``).
        shape: the shape to allocate now; ``None`` leaves a non-array
            initializer uninitialized until ``initialize(shape)``.
        name: the parameter's name.

    Attributes:
        initializer: what fills the data array in ``initialize``.
        update_rule: the optimizer's ``UpdateRule`` for this parameter (set by
            ``optimizer.setup(link)``); ``update_rule.enabled = False`` freezes it.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> W = mg.Parameter(np.zeros((2, 3), dtype=np.float32))
        >>> W.shape, W.requires_grad
        ((2, 3), True)
        >>> b = mg.Parameter(0.5, (2,))     # a new parameter's gradient is NaN until cleared
        >>> b.array, b.grad
        (array([0.5, 0.5], dtype=float32), array([nan, nan], dtype=float32))
    """

    __slots__ = ("initializer", "update_rule", "_grad_fill", "_initial_device")

    def __init__(self, initializer: Any = None, shape: Any = None, *, name: str | None = None) -> None:
        self.update_rule: Any = None
        self._initial_device: Device = CpuDevice()
        self._grad_fill: str | None = "nan"
        is_array = backend.is_array(initializer) or isinstance(initializer, numpy.generic)
        if is_array and shape is None:
            super().__init__(initializer, name=name)
            self.initializer: Any = None
            return
        super().__init__(None, name=name)
        self.initializer = _as_initializer(initializer, is_array)
        if shape is not None:
            self.initialize(shape, xp=_array_module_of(initializer) if is_array else None)

    @property
    def dtype(self) -> numpy.dtype:
        """The array's dtype; before ``initialize``, the initializer's (``config.dtype`` if it has none)."""
        if self.array is not None:
            return self.array.dtype
        dtype = getattr(self.initializer, "dtype", None)
        return get_dtype(dtype)

    @property
    def is_initialized(self) -> bool:
        return self.array is not None

    def initialize(self, shape: Any, dtype: Any = None, xp: ModuleType | None = None) -> None:
        """Allocate the array of ``shape``, fill it with the initializer, and create the gradient.

        The gradient is NaN-filled (zeros after ``zerograd()``, none after ``cleargrad()``).

        Args:
            shape: the shape.
            dtype: defaults to :attr:`dtype` (the initializer's, else ``config.dtype``).
            xp: the array module; defaults to the device given to ``to_device`` (NumPy).

        Raises:
            TypeError, ValueError: ``shape`` holds a non-integer or negative size, or more elements than
                ``minigrad.functions.checks.MAX_SIZE`` (refused before anything is allocated).

        Example:
            >>> import minigrad as mg
            >>> p = mg.Parameter(mg.initializers.One())
            >>> p.initialize((2,)); p.array, p.grad
            (array([1., 1.], dtype=float32), array([nan, nan], dtype=float32))
        """
        from minigrad.functions.checks import normalize_shape  # the op library's size rules; imported late

        shape = normalize_shape(f"Parameter {self.name!r}" if self.name else "Parameter", shape)
        xp = self._initial_device.xp if xp is None else xp
        data = xp.empty(shape, dtype=self.dtype if dtype is None else dtype)
        self.initializer(data)
        self.array = data
        self.requires_grad = True
        fill = self._grad_fill
        self.grad_var = None if fill is None else Variable(xp.full_like(data, _GRAD_FILL[fill]))

    def cleargrad(self) -> None:
        """Forget the gradient; an uninitialized parameter will be initialized without one."""
        super().cleargrad()
        if self.array is None:
            self._grad_fill = None

    def zerograd(self) -> None:
        """Deprecated (as in Chainer): fill the gradient with zeros; prefer ``cleargrad``."""
        super().zerograd()
        if self.array is None:
            self._grad_fill = "zero"

    def to_device(self, device: Any) -> None:
        """Move the arrays to ``device``; an uninitialized parameter will be initialized there.

        Example:
            >>> import minigrad as mg
            >>> p = mg.Parameter(); p.to_device("@numpy"); p.device
            <CpuDevice (numpy)>
        """
        device = get_device(device)
        if self.array is None:
            self._initial_device = device
        super().to_device(device)

    @property
    def device(self) -> Device:
        """Where the array lives; for an uninitialized parameter, where it will be created."""
        return self._initial_device if self.array is None else super().device

    def _pickled_state(self) -> Any:
        """The parameter's own attributes, for pickling (the array and gradient travel as a Variable's)."""
        slots = {name: getattr(self, name) for name in Parameter.__slots__}
        return getattr(self, "__dict__", None) or None, slots

    def update(self) -> None:
        """Update the array from the gradient with ``update_rule`` (nothing without one).

        Example:
            >>> import numpy as np, minigrad as mg
            >>> link = mg.Link()
            >>> with link.init_scope():
            ...     link.w = mg.Parameter(np.array([1.0]))
            >>> opt = mg.optimizers.SGD(lr=0.5).setup(link)
            >>> link.w.grad = np.array([1.0]); link.w.update(); link.w.array
            array([0.5])
        """
        if self.update_rule is not None:
            self.update_rule.update(self)


def _array_module_of(array: Any) -> ModuleType:
    return backend.get_array_module(array)


def _as_initializer(initializer: Any, is_array: bool) -> Any:
    if initializer is None:
        return initializers.NaN()
    if is_array:
        return initializers.Constant(initializer, dtype=initializer.dtype)
    if isinstance(initializer, (int, float)) and not isinstance(initializer, bool):
        return initializers.Constant(initializer)
    if callable(initializer):
        return initializer
    raise TypeError(
        f"Parameter: initializer must be None, a scalar, an array or a callable init(array), "
        f"got {type(initializer).__name__}"
    )
