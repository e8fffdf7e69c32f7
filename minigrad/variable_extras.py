"""Chainer's conveniences on ``Variable`` that are not the autograd algorithm.

``Variable`` inherits them from :class:`VariableExtras`, so ``variable.py``
keeps only what backprop needs: the array, the gradient, the creator. Here:
printing (``repr``, ``str``, ``label``, ``summary``, ``debug_print``), Chainer's
spellings of graph edits (``creator_node``, ``set_creator``), the
gradient helpers optimizers and ``Link.copyparams`` style code use
(``zerograd``, ``addgrad``, ``copydata``), and devices (``device``,
``to_device``).

``v.node`` is the Variable's
:class:`~minigrad.variable.VariableNode`: its place in the graph, which the
nodes it feeds keep instead of the Variable (and its array).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy

import minigrad.variable as variable_module  # VariableNode, looked up when used (variable.py imports this module)
from minigrad.device import CpuDevice, Device, get_device, get_device_from_array

if TYPE_CHECKING:
    from minigrad.function_node import FunctionNode
    from minigrad.variable import Variable, VariableNode

__all__ = ["VariableExtras", "as_array"]


def _host_copy(array: Any) -> Any:
    return array if array is None or isinstance(array, numpy.ndarray) else CpuDevice().send(array)


class VariableExtras:
    """The mixin ``Variable`` inherits Chainer's conveniences from (no state of its own).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> x = mg.Variable(np.array([0.0, 1.0], dtype=np.float32), name="x")
        >>> x, x.label, x.summary(), x.item() if x.size == 1 else None
        (variable x([0., 1.]), '(2), float32', '<variable x>', None)
    """

    __slots__ = ()

    # --- printing -----------------------------------------------------------
    def _prefix(self: Any) -> str:
        return "variable" if not self.name else f"variable {self.name}"

    def __repr__(self: Any) -> str:
        """``variable([0., 1.])``, ``variable x([...])`` when named, ``variable(None)`` without data.

        Empty arrays other than shape ``(0,)`` show their shape: ``variable([], shape=(0, 3))``.
        """
        prefix, array = self._prefix(), _host_copy(self.array)
        if array is None:
            body = "None"
        elif array.size > 0 or array.shape == (0,):
            body = numpy.array2string(array, separator=", ", prefix=prefix + "(")
        else:
            body = f"[], shape={array.shape!r}"
        return f"{prefix}({body})"

    def __str__(self: Any) -> str:
        """Like ``repr`` with NumPy's ``str`` spacing: ``variable([0. 1.])``."""
        prefix, array = self._prefix(), _host_copy(self.array)
        body = "None" if array is None else numpy.array2string(array, separator=" ", prefix=prefix + "(")
        return f"{prefix}({body})"

    @property
    def label(self: Any) -> str:
        """Shape and dtype as Chainer writes them: ``'(2, 3), float32'``; a 0-dim one is just ``'float32'``.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> mg.Variable(np.zeros(10, dtype=np.float32)).label, mg.Variable(np.float64(1)).label
            ('(10), float32', 'float64')
        """
        if self.array is None:
            return "None"
        if self.array.shape == ():
            return str(self.array.dtype)
        return f"({', '.join(map(str, self.array.shape))}), {self.array.dtype}"

    def summary(self: Any) -> str:
        """``'<variable NAME>'``, or ``'<variable at 0x...>'`` for an unnamed one."""
        return f"<variable {self.name}>" if self.name else f"<variable at 0x{id(self):x}>"

    def debug_print(self: Any) -> str:
        """A multi-line description: summary, device, array type, shape, dtype, statistics, gradient.

        The statistics are ``mean=..., std=...`` (8 decimals); the gradient line
        reads ``None``, ``0`` when it is all zeros, or its statistics.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> print(mg.Variable(np.array([1.0, 3.0]), name="x").debug_print())
            <variable x>
            - device: CPU
            - backend: <class 'numpy.ndarray'>
            - shape: (2,)
            - dtype: float64
            - statistics: mean=2.00000000, std=1.00000000
            - grad: None
        """
        array, grad = self.array, self.grad

        def stats(a: Any) -> str:
            xp = get_device_from_array(a).xp
            return f"mean={float(xp.mean(a)):.8f}, std={float(xp.std(a)):.8f}"

        if grad is None:
            grad_line: Any = None
        elif not bool(get_device_from_array(grad).xp.all(grad == 0)):
            grad_line = stats(grad)
        else:
            grad_line = 0
        lines = [
            self.summary(),
            f"- device: {None if array is None else 'CPU' if isinstance(array, numpy.ndarray) else array.device}",
            f"- backend: {None if array is None else type(array)}",
            f"- shape: {None if array is None else array.shape}",
            f"- dtype: {None if array is None else array.dtype}",
            f"- statistics: {None if array is None else stats(array)}",
            f"- grad: {grad_line}",
        ]
        return "\n".join(lines)

    def item(self: Any) -> Any:
        """The single element as a Python scalar (a ``ValueError`` unless ``size == 1``).

        Example:
            >>> import numpy as np, minigrad as mg
            >>> mg.Variable(np.array([[2.5]])).item()
            2.5
        """
        if self.array is None:
            raise ValueError("item(): the variable has no data")
        return self.array.item()

    # --- comparisons and truth: refused, as in Chainer ------------------------
    # ``x == 0`` used to be identity (False) and ``bool(x)`` the length: silent answers to questions
    # about values. A Variable still hashes by identity: the engine keeps Variables in dicts and sets,
    # whose lookups never fall back to ``==`` for distinct objects.
    __hash__ = object.__hash__

    def _refuse_comparison(self: Any, operator: str) -> None:
        raise TypeError(f"Variables do not support the {operator} operator (as in Chainer): compare their arrays "
                        f"(x.array {operator} ...), or use 'is' to ask whether two Variables are the same one")

    def __eq__(self: Any, other: object) -> bool:
        """Not supported: a ``TypeError`` (compare ``x.array``)."""
        self._refuse_comparison("==")

    def __ne__(self: Any, other: object) -> bool:
        """Not supported: a ``TypeError`` (compare ``x.array``)."""
        self._refuse_comparison("!=")

    def __lt__(self: Any, other: object) -> bool:
        """Not supported: a ``TypeError`` (compare ``x.array``)."""
        self._refuse_comparison("<")

    def __le__(self: Any, other: object) -> bool:
        """Not supported: a ``TypeError`` (compare ``x.array``)."""
        self._refuse_comparison("<=")

    def __gt__(self: Any, other: object) -> bool:
        """Not supported: a ``TypeError`` (compare ``x.array``)."""
        self._refuse_comparison(">")

    def __ge__(self: Any, other: object) -> bool:
        """Not supported: a ``TypeError`` (compare ``x.array``)."""
        self._refuse_comparison(">=")

    def __bool__(self: Any) -> bool:
        """Not supported: a ``TypeError`` (test ``x.array``, or ``x is not None``)."""
        raise TypeError("a Variable cannot be evaluated as a Python bool (as in Chainer): test its array "
                        "(bool(x.array.any()), x.array.item() > 0), or write 'x is not None' to ask whether it exists")

    # --- the graph in Chainer's words ----------------------------------------
    @property
    def creator_node(self: Any) -> FunctionNode | None:
        """Same as ``creator`` (minigrad has only FunctionNodes); setting it sets ``rank``, ``None`` unchains."""
        return self.creator

    @creator_node.setter
    def creator_node(self: Any, node: FunctionNode | None) -> None:
        self.creator = node

    def set_creator(self: Any, gen_func: FunctionNode) -> None:
        """``self.creator = gen_func``."""
        self.creator = gen_func

    def set_creator_node(self: Any, fnode: FunctionNode) -> None:
        """``self.creator_node = fnode``."""
        self.creator = fnode

    @property
    def node(self: Any) -> VariableNode:
        """The graph node of this variable: its VariableNode, shared by the nodes it feeds."""
        return variable_module.VariableNode.of(self)

    # --- gradient and data helpers -------------------------------------------
    def zerograd(self: Any) -> None:
        """Deprecated (as in Chainer; it warns): fill the gradient with zeros, creating it if needed.

        The gradient is cut from any graph it belongs to. Prefer ``cleargrad()``.
        """
        warnings.warn("Variable.zerograd is deprecated. Use Variable.cleargrad instead.", DeprecationWarning,
                      stacklevel=2)
        if self.array is None:
            return
        if self.grad_var is None:
            self.grad = get_device_from_array(self.array).xp.zeros_like(self.array)
        else:
            self.grad_var.unchain()
            self.grad_var.array.fill(0)

    def addgrad(self: Any, var: Variable) -> None:
        """Add ``var``'s gradient to this one (copied across devices); nothing when ``var`` has none.

        An uninitialized Parameter is first initialized with ``var``'s shape.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> a, b = mg.Variable(np.ones(2)), mg.Variable(np.ones(2), grad=np.array([1.0, 2.0]))
            >>> a.addgrad(b); a.addgrad(b); a.grad
            array([2., 4.])
        """
        if not isinstance(var, VariableExtras):
            raise TypeError(f"addgrad: var must be a Variable, got {type(var).__name__}")
        source = var.grad
        if source is None:
            return
        if self.array is None:
            self._initialize_like("addgrad", var)
        if source.shape != self.array.shape or source.dtype != self.array.dtype:
            raise ValueError(f"addgrad: var's gradient has shape {source.shape} and dtype {source.dtype}; this "
                             f"variable has shape {self.array.shape} and dtype {self.array.dtype}")
        target_device = get_device_from_array(self.array)
        if get_device_from_array(source) != target_device:
            source = target_device.send(source)
        elif self.grad is None:
            source = source.copy()  # never share var's gradient: an in-place change to one (a hook) is not the other's
        # a new array, not ``+=``: the old one may be referenced elsewhere
        self.grad = source if self.grad is None else self.grad + source

    def copydata(self: Any, var: Variable) -> None:
        """Copy ``var``'s array into this one in place (across devices).

        If only one of the two has an array, the other (a Parameter) is initialized
        with its shape first; if neither has one, nothing happens.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> a = mg.Variable(np.zeros(2)); a.copydata(mg.Variable(np.array([1.0, 2.0]))); a.array
            array([1., 2.])
        """
        if not isinstance(var, VariableExtras):
            raise TypeError(f"copydata: var must be a Variable, got {type(var).__name__}")
        source, target = var.array, self.array
        if source is None and target is None:
            return
        if source is None:
            var._initialize_like("copydata", self)
            source = var.array
        elif target is None:
            self._initialize_like("copydata", var)
            target = self.array
        if source.shape != target.shape:
            raise ValueError(f"copydata: shapes differ: {source.shape} (source) and {target.shape} (target)")
        device = get_device_from_array(target)
        target[...] = device.send(source)

    def _initialize_like(self: Any, what: str, other: Any) -> None:
        if not hasattr(self, "initialize"):
            raise ValueError(f"{what}: this variable has no array and is not a Parameter that can initialize one")
        self.initialize(other.shape)

    # --- devices --------------------------------------------------------------
    @property
    def device(self: Any) -> Device:
        """The device that holds the array (the host for a variable without one)."""
        return CpuDevice() if self.array is None else get_device_from_array(self.array)

    def to_device(self: Any, device: Any) -> None:
        """Move the array and gradient to ``device``, in place (``'@numpy'``, ``'@cupy:0'``, ``-1``, ``0``...).

        Example:
            >>> import numpy as np, minigrad as mg
            >>> x = mg.Variable(np.ones(2)); x.to_device("@numpy"); x.device
            <CpuDevice (numpy)>
        """
        device = get_device(device)
        if self.array is not None:
            self.array = device.send(self.array)
        if self.grad_var is not None:
            self.grad_var.to_device(device)

    # --- pickling -------------------------------------------------------------
    def __reduce__(self: Any) -> tuple[Any, ...]:
        """Pickle (and copy) as Chainer does: the array, gradient, name and flags, without the graph.

        The copy is a leaf (no ``creator``): the graph's nodes hold only weak
        references to their inputs, which cannot be pickled, and a training
        state (a model, an optimizer) needs none of it.

        Example:
            >>> import pickle, numpy as np, minigrad as mg
            >>> y = mg.Variable(np.ones(2), name="x") * 2
            >>> z = pickle.loads(pickle.dumps(y))
            >>> z.array, z.creator, y.creator is not None
            (array([2., 2.]), None, True)
        """
        return _leaf, (type(self), self.array, self.grad, self.name, self.requires_grad), self._pickled_state()

    def _pickled_state(self: Any) -> Any:
        """What a subclass adds to the pickle: its own attributes (``None``: nothing)."""
        return getattr(self, "__dict__", None) or None


def _leaf(cls: type, array: Any, grad: Any, name: str | None, requires_grad: bool) -> Any:
    """An unpickled Variable (of class ``cls``): a leaf made through the public constructor."""
    var = cls.__new__(cls)
    variable_module.Variable.__init__(var, array, name=name, grad=grad, requires_grad=requires_grad)
    return var


def as_array(obj: Any) -> Any:
    """The array of a Variable, or ``obj`` itself when it is not one (Chainer's ``as_array``).

    Example:
        >>> import numpy as np, minigrad as mg
        >>> a = np.ones(2)
        >>> mg.as_array(mg.Variable(a)) is a, mg.as_array(a) is a
        (True, True)
    """
    return obj.array if isinstance(obj, VariableExtras) else obj
