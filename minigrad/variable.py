"""``Variable`` (an array plus its place in the graph) and ``Parameter``.

A Variable holds its array, its gradient (as another Variable, so that the
gradient can itself be differentiated) and ``creator``: the FunctionNode that
produced it, or ``None`` for a leaf. Arithmetic operators are installed onto
the class by ``minigrad.functions`` (the core never imports the op library);
Chainer's conveniences that are not the algorithm (devices, ``label``,
``debug_print``, ``repr``...) come from ``minigrad.variable_extras``.
"""

from __future__ import annotations

import weakref
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy

from minigrad import backend
from minigrad.variable_extras import VariableExtras, as_array

if TYPE_CHECKING:
    from minigrad.function_node import FunctionNode

__all__ = ["Variable", "VariableNode", "Parameter", "as_variable", "as_array", "check_array"]


def check_array(value: Any, argname: str = "data", where: str = "Variable") -> Any:
    """Check that ``value`` is an ndarray (a NumPy scalar becomes a 0-dim array).

    Raises ``TypeError`` for anything else: lists are refused so that no dtype
    is ever guessed. Array-likes that NumPy ops would treat differently are
    converted here, at the boundary: an ``np.matrix`` (2-D only, ``*`` is a
    matrix product) becomes a plain ndarray, an array in non-native byte order
    a native one; a masked array is refused (its mask would be dropped).

    Example:
        >>> import numpy as np
        >>> from minigrad.variable import check_array
        >>> check_array(np.float32(2.0)).shape
        ()
    """
    if backend.is_array(value):
        if type(value) is numpy.ndarray and value.dtype.isnative or not isinstance(value, numpy.ndarray):
            return value  # (the common case first: a plain array, or CuPy's)
        if isinstance(value, numpy.ma.MaskedArray):
            raise TypeError(f"{where}: {argname} is a masked array, whose mask minigrad would ignore; pass "
                            f"numpy.ma.filled(..., fill_value) or the data with the mask applied")
        return numpy.asarray(value).astype(value.dtype.newbyteorder("="), copy=False)
    if isinstance(value, numpy.generic):
        return numpy.asarray(value)
    raise TypeError(
        f"{where}: {argname} must be a numpy.ndarray or cupy.ndarray, got "
        f"{type(value).__name__}; pass an array, e.g. numpy.asarray(..., dtype=numpy.float32)"
    )


class Variable(VariableExtras):
    """An array that remembers how it was computed, so gradients can flow back.

    Args:
        data: a NumPy or CuPy array (or ``None``). Lists are a ``TypeError``.
        name: optional name, shown in graphs and error messages.
        grad: optional initial gradient array.
        requires_grad: whether backward should compute a gradient for it.
            Variables whose dtype is not floating point never receive one.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.array([1.0, 2.0]))
        >>> y = F.sum(x * x)
        >>> y.backward()
        >>> x.grad
        array([2., 4.])
    """

    # ``_index``: which output of ``creator`` this is (gradients wait for the creator under it);
    # ``_node``: its VariableNode once a node has taken it as an input (shared by every such node);
    # ``_grad_loss_scale``: see ``loss_scale`` (unset until a backward writes ``.grad``)
    __slots__ = ("_data", "_grad_var", "_creator", "rank", "name", "requires_grad", "_index", "_node",
                 "_grad_loss_scale", "__weakref__")
    __array_ufunc__ = None  # make ``ndarray <op> Variable`` defer to our reflected operators
    __array_priority__ = 200

    def __init__(
        self,
        data: Any = None,
        *,
        name: str | None = None,
        grad: Any = None,
        requires_grad: bool = True,
    ) -> None:
        if data is not None:
            data = check_array(data)
        self._data = data
        self._grad_var: Variable | None = None
        self._creator: FunctionNode | None = None
        self.rank = 0
        self.name = name
        self.requires_grad = bool(requires_grad) and (data is None or data.dtype.kind in "fc")
        self._index = 0
        self._node: VariableNode | None = None
        if grad is not None:
            self.grad = grad

    # --- the array ----------------------------------------------------------
    @property
    def array(self) -> Any:
        """The underlying NumPy/CuPy array."""
        return self._data

    @array.setter
    def array(self, value: Any) -> None:
        self._data = None if value is None else check_array(value, "array")
        self._node = None  # graphs made from now on see the new shape and dtype

    data = array

    @property
    def shape(self) -> tuple[int, ...]:
        return self._data.shape

    @property
    def ndim(self) -> int:
        return self._data.ndim

    @property
    def size(self) -> int:
        return self._data.size

    @property
    def dtype(self) -> numpy.dtype:
        return self._data.dtype

    @property
    def xp(self) -> ModuleType:
        """The array module (``numpy`` or ``cupy``) of the data."""
        return backend.get_array_module(self._data)

    def __len__(self) -> int:
        return len(self._data)

    # --- the gradient -------------------------------------------------------
    @property
    def loss_scale(self) -> float | None:
        """The ``loss_scale`` of the backward that last wrote ``.grad`` (None: none); an optimizer divides
        the gradient by it before the update (Chainer's loss scaling)."""
        return getattr(self, "_grad_loss_scale", None)

    @property
    def grad_var(self) -> Variable | None:
        """The gradient as a Variable (it has a creator after double backprop)."""
        return self._grad_var

    @grad_var.setter
    def grad_var(self, value: Variable | None) -> None:
        if value is not None:
            if not isinstance(value, Variable):
                raise TypeError(f"grad_var must be a Variable or None, got {type(value).__name__}")
            self._check_grad(value._data)
        self._grad_var = value

    @property
    def grad(self) -> Any:
        """The gradient array, or ``None``."""
        return None if self._grad_var is None else self._grad_var._data

    @grad.setter
    def grad(self, value: Any) -> None:
        if value is None:
            self._grad_var = None
            return
        if not backend.is_array(value):  # as in Chainer, even a NumPy scalar: a gradient has the variable's shape
            raise TypeError(f"grad must be a numpy.ndarray or cupy.ndarray (or None), got {type(value).__name__}")
        self._check_grad(value)
        self._grad_var = Variable(value)

    def _check_grad(self, grad: Any) -> None:
        data, what = self._data, f"variable{'' if self.name is None else ' ' + repr(self.name)}"
        if data is not None and grad.dtype != data.dtype:
            raise TypeError(f"gradient of dtype {grad.dtype} does not match {what} of dtype {data.dtype}")
        if data is not None and grad.shape != data.shape:
            raise ValueError(f"gradient of shape {grad.shape} does not match {what} of shape {data.shape}")

    def cleargrad(self) -> None:
        """Forget the gradient (set it to ``None``)."""
        self._grad_var = None

    # --- the graph ----------------------------------------------------------
    @property
    def creator(self) -> FunctionNode | None:
        """The FunctionNode that produced this variable (``None`` for a leaf); setting it sets ``rank``."""
        return self._creator

    @creator.setter
    def creator(self, node: FunctionNode | None) -> None:
        self._creator = node
        if node is not None:
            self.rank = node.rank + 1
        if self._node is not None:  # the nodes it feeds see the new creator too
            self._node.creator = node

    def backward(
        self,
        retain_grad: bool = False,
        enable_double_backprop: bool = False,
        loss_scale: float | None = None,
    ) -> None:
        """Backpropagate from this variable through the graph that made it.

        A scalar starts from a gradient of one; any other shape needs
        ``self.grad`` set first. Leaf gradients accumulate until ``cleargrad``.

        Args:
            retain_grad: keep the gradients of intermediate variables.
            enable_double_backprop: record the backward computation so that the
                gradients can be differentiated again.
            loss_scale: multiply the starting gradient by this factor (of a
                scalar without ``grad``); the variables whose ``.grad`` this
                backward writes remember it, and an optimizer divides their
                gradients by it before it updates them (as in Chainer).

        Example:
            >>> import numpy as np, minigrad as mg, minigrad.functions as F
            >>> x = mg.Variable(np.array([3.0]))
            >>> F.sum(x ** 2).backward()
            >>> x.grad
            array([6.])
        """
        from minigrad.function_node import backward_from

        backward_from(self, retain_grad, enable_double_backprop, loss_scale)

    def unchain(self) -> None:
        """Cut the link to the creator: this variable becomes a leaf (its ``rank`` stays), also for the
        nodes it feeds."""
        self.creator = None  # the setter keeps the rank and tells the VariableNode

    def unchain_backward(self) -> None:
        """Cut every link in the graph behind this variable (iteratively)."""
        pending = [self._creator] if self._creator is not None else []
        self.unchain()
        while pending:
            node = pending.pop()
            for x in node.inputs or ():
                if x.creator is not None:
                    pending.append(x.creator)
                    variable = x()
                    if variable is not None:
                        variable.unchain()
                    x.creator = None
            node.inputs = None

    # --- devices ------------------------------------------------------------
    def to_cpu(self) -> None:
        """Move the data and gradient to host memory, in place."""
        self.array = backend.to_cpu(self._data)
        if self._grad_var is not None:
            self._grad_var.to_cpu()

    def to_gpu(self) -> None:
        """Move the data and gradient to the GPU (needs CuPy), in place."""
        self.array = backend.to_gpu(self._data)
        if self._grad_var is not None:
            self._grad_var.to_gpu()


class VariableNode(weakref.ref):
    """An input's place in the graph without its array: what a FunctionNode keeps of each input.

    It is a weak reference: calling it gives the Variable while someone holds
    it, else ``None``. ``creator`` and ``index`` say which output of which node
    the Variable is (``creator`` is ``None`` for a leaf), and ``shape`` and
    ``dtype`` what its gradient must look like, so backward can run after the
    Variable and its array are gone (``name`` is kept for pictures of the
    graph). Every node that takes the same Variable
    shares its VariableNode. A node keeps the input Variables it retains
    (``retain_inputs``) separately, for its backward.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> x = mg.Variable(np.ones(3, dtype=np.float32))
        >>> node = (x * 2.0).creator.inputs[0]
        >>> node() is x, node.creator, node.shape, node.dtype
        (True, None, (3,), dtype('float32'))
    """

    __slots__ = ("creator", "index", "requires_grad", "shape", "dtype", "name", "__weakref__")

    @staticmethod
    def of(x: Variable) -> VariableNode:
        """The place of ``x`` in the graph, made the first time a node takes ``x`` as an input."""
        node = x._node
        if node is None:
            node = x._node = VariableNode(x)
            node.creator, node.index, node.requires_grad, node.name = x._creator, x._index, x.requires_grad, x.name
            data = x._data
            node.shape, node.dtype = data.shape, data.dtype
        return node


_new_object = object.__new__  # looked up once: the engine makes a Variable or two per op


def _output_variable(data: Any, creator: FunctionNode | None, rank: int, index: int) -> Variable:
    """The engine's constructor (no argument checks): output ``index`` of ``creator``, or, with
    ``creator`` None, a constant (what a node that joins no graph returns).

    It is a function, not a classmethod, because a classmethod call costs a bound
    method per Variable (about 2% of a tiny op, benchmarks.overhead). NumPy turns
    0-dim results into scalars; a Variable always holds an array.
    """
    if isinstance(data, numpy.generic):
        data = numpy.asarray(data)
    var = _new_object(Variable)
    var._data = data
    var._grad_var = None
    var._creator = creator
    var.rank = rank
    var.name = None
    var.requires_grad = creator is not None and data.dtype.kind in "fc"
    var._index = index
    var._node = None
    return var


def as_variable(value: Any) -> Variable:
    """Return ``value`` if it is a Variable, else wrap the array (no gradient needed).

    Example:
        >>> import numpy as np
        >>> from minigrad.variable import as_variable
        >>> as_variable(np.ones(2)).requires_grad
        False
    """
    if isinstance(value, Variable):
        return value
    return Variable(check_array(value, "input"), requires_grad=False)


from minigrad.parameter import Parameter  # noqa: E402  (Parameter subclasses Variable)
