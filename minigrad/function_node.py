"""``FunctionNode`` (one op in the graph), the backward traversal and ``grad``.

A node is applied once: ``apply`` runs ``forward`` on raw arrays and, when a
gradient is needed, links the output Variables to the node (``creator``). Of
its inputs the node keeps their places in the graph (``VariableNode``s, no
arrays) and the Variables it retains for backward; of its outputs, only the
arrays it retains. So a graph lives exactly as long as the user holds its
outputs, and holds no array that backward does not need. During backward, the
gradients of a node's outputs wait in a table keyed by the node until it runs.
"""

from __future__ import annotations

import itertools
import operator
import os
import traceback
import warnings
from collections.abc import Iterable, Sequence
from heapq import heappop, heappush
from typing import Any

import numpy

from minigrad import backend
from minigrad.configuration import config, using_config
from minigrad.variable import Variable, VariableNode, _output_variable, as_variable

__all__ = ["FunctionNode", "grad", "backward", "backward_from"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))
_data_of = operator.attrgetter("_data")  # map(_data_of, xs) runs no Python frame; on 3.11 a comprehension does
recording_hook: Any = None  # set by minigrad.testing.record_graph; None (the default) costs one test per op


class FunctionNode:
    """One differentiable operation; subclass it to write an op.

    Override ``forward(inputs)`` (or ``forward_cpu`` / ``forward_gpu``) on
    arrays and ``backward(target_input_indexes, grad_outputs)`` on Variables,
    using minigrad functions so that backward is differentiable too.

    Example:
        >>> import numpy as np, minigrad as mg
        >>> class Square(mg.FunctionNode):
        ...     def forward(self, inputs):
        ...         self.retain_inputs((0,))
        ...         return inputs[0] ** 2,
        ...     def backward(self, target_input_indexes, grad_outputs):
        ...         x, = self.get_retained_inputs()
        ...         return 2 * x * grad_outputs[0],
        >>> x = mg.Variable(np.array([3.0]))
        >>> y, = Square().apply((x,))
        >>> y.grad = np.ones(1); y.backward(); x.grad
        array([6.])
    """

    inputs: tuple[VariableNode, ...] | None = None  # where its inputs sit in the graph (None: not in one)
    output_count: int = 0  # how many outputs forward returned (set when the node joins a graph)
    rank: int = 0
    stack: list[traceback.FrameSummary] | None = None  # where it was created (debug mode)
    _applied: bool = False
    _retained_input_indexes: tuple[int, ...] | None = None  # None: forward never called retain_inputs
    _retained_output_indexes: tuple[int, ...] | None = None
    _retained_inputs: tuple[Variable, ...] = ()  # what backward gets from get_retained_inputs
    _retained_output_data: tuple[Any, ...] = ()  # the arrays get_retained_outputs wraps

    @property
    def label(self) -> str:
        """A short name for graphs and error messages (the class name)."""
        return type(self).__name__

    def __repr__(self) -> str:
        return f"<{self.label} rank={self.rank}>"

    # --- forward ------------------------------------------------------------
    def apply(self, inputs: Iterable[Any]) -> tuple[Variable, ...]:
        """Run the op on Variables (or arrays) and return its output Variables.

        The node joins the graph when recording is on (``config.enable_backprop``)
        and some input needs a gradient: it keeps a ``VariableNode`` per input,
        the input Variables named in ``retain_inputs`` and the output arrays
        named in ``retain_outputs``, and is the outputs' ``creator``. Otherwise
        the outputs are constants and the node is forgotten.
        """
        if self._applied:
            raise RuntimeError(f"{self.label} node has already been applied; create a new node for each call")
        if type(inputs) is not tuple:
            inputs = tuple(inputs)
        for x in inputs:
            if not isinstance(x, Variable):  # arrays are inputs that need no gradient
                inputs = tuple(map(as_variable, inputs))
                break
        if recording_hook is not None:  # minigrad.testing.record_graph sees every node before it runs
            recording_hook(self, inputs)
        self._applied = True
        debug = config.debug
        if debug:  # where the node was created, for the messages of errors found later
            self.stack = traceback.extract_stack()[:-1]
        try:
            # one input is the common case; skipping map for it saves ~4% of a tiny op (benchmarks.overhead_floor)
            out_data = self.forward((inputs[0]._data,) if len(inputs) == 1 else tuple(map(_data_of, inputs)))
        except Exception as error:
            _explain_forward_error(self, inputs, error)
            raise
        if type(out_data) is not tuple:
            raise TypeError(f"{self.label}.forward must return a tuple of arrays, got {type(out_data).__name__}")
        rank = -1  # the highest rank among inputs that need a gradient; -1: none does, the node is not recorded
        if config.enable_backprop:
            for x in inputs:
                if x.requires_grad and x.rank > rank:
                    rank = x.rank
        creator = None if rank < 0 else self  # None: the outputs are constants
        if creator is not None:  # the node joins the graph
            self.rank = rank
            # as for forward above: skipping map for one input saves ~4% of a tiny op (benchmarks.overhead_floor)
            self.inputs = (VariableNode.of(inputs[0]),) if len(inputs) == 1 else tuple(map(VariableNode.of, inputs))
            self.output_count = len(out_data)
            if self._retained_input_indexes:
                self._retained_inputs = _pick(inputs, self._retained_input_indexes)
            if self._retained_output_indexes:  # a NumPy scalar stays one: get_retained_outputs makes it an array
                self._retained_output_data = _pick(out_data, self._retained_output_indexes)
        if len(out_data) == 1:  # most ops; no call and no comprehension for them saves ~10% of a tiny op (same)
            outputs = (_output_variable(out_data[0], creator, rank + 1, 0),)
        else:
            outputs = _output_variables(out_data, creator, rank + 1)
        if debug:
            for i, y in enumerate(outputs):
                _check_finite(y._data, f"forward computation of {self.label} (output {i})", self)
        return outputs

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        """Compute the outputs from input arrays; dispatches to forward_cpu/forward_gpu."""
        if backend.get_array_module(*inputs) is numpy:
            return self.forward_cpu(inputs)
        return self.forward_gpu(inputs)

    def forward_cpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements neither forward nor forward_cpu")

    def forward_gpu(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        raise NotImplementedError(f"{self.label} implements neither forward nor forward_gpu")

    # --- backward -----------------------------------------------------------
    def backward(
        self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Variable | None, ...]
    ) -> tuple[Variable | None, ...]:
        """Gradients w.r.t. the inputs, one per input or one per target index."""
        raise NotImplementedError(f"{self.label} does not implement backward")

    def backward_accumulate(
        self, target_input_indexes: tuple[int, ...], grad_outputs: tuple[Variable | None, ...],
        grad_inputs: tuple[Variable | None, ...],
    ) -> tuple[Variable | None, ...]:
        """``backward`` plus the gradients the inputs already have (``grad_inputs``, ``None`` for none).

        Override this instead of ``backward`` to fuse the gradient with its
        accumulation: the engine then hands over the gradient gathered so far for
        each target input and takes the returned sums as the new totals.
        """
        gxs = _gradient_tuple(self, target_input_indexes, self.backward(target_input_indexes, grad_outputs))
        return tuple([gx if g is None else g if gx is None else _sum_gradients(g, gx)
                      for gx, g in zip(gxs, grad_inputs)])

    def unchain(self) -> None:
        """Drop this node's inputs: backward stops here (its outputs keep it as ``creator``)."""
        self.inputs = None

    def retain_inputs(self, indexes: Iterable[int]) -> None:
        """Call in forward: these inputs are needed by backward."""
        self._retained_input_indexes = tuple(indexes)

    def retain_outputs(self, indexes: Iterable[int]) -> None:
        """Call in forward: these outputs are needed by backward."""
        self._retained_output_indexes = tuple(indexes)

    def get_retained_inputs(self) -> tuple[Variable, ...]:
        """The inputs named in ``retain_inputs``, as the Variables the node was applied to.

        A ``RuntimeError`` naming the node when its forward never called ``retain_inputs``.
        """
        if self._retained_input_indexes is None:
            _not_retained(self, "inputs")
        return self._retained_inputs

    def get_retained_outputs(self) -> tuple[Variable, ...]:
        """The outputs named in ``retain_outputs``, as Variables of the graph.

        The node keeps only the arrays, so each call makes new Variables: output
        ``i`` of this node, like the originals, so that double backprop through
        them reaches this node exactly as through the Variables ``apply`` returned.
        """
        kept, data = self._retained_output_indexes, self._retained_output_data
        if kept is None:
            _not_retained(self, "outputs")
        if len(kept) == 1:  # as in apply (benchmarks.overhead)
            return (_output_variable(data[0], self, self.rank + 1, kept[0]),)
        return _output_variables(data, self, self.rank + 1, kept)


def _not_retained(node: FunctionNode, what: str) -> None:
    raise RuntimeError(f"{node.label}.get_retained_{what}() was called, but {node.label}.forward did not call "
                       f"retain_{what}: call self.retain_{what}((0, ...)) in forward with the indexes of the {what} "
                       "backward needs (a node keeps no other arrays)")


def _output_variables(arrays: tuple[Any, ...], creator: Any, rank: int,
                      indexes: Iterable[int] | None = None) -> tuple[Variable, ...]:
    """One Variable per array: outputs ``indexes`` (by default all, in order) of ``creator`` (``_output_variable``)."""
    return tuple([_output_variable(y, creator, rank, i) for y, i in zip(arrays, indexes or range(len(arrays)))])


def _pick(values: tuple[Any, ...], indexes: tuple[int, ...]) -> tuple[Any, ...]:
    """``values[i]`` for each of ``indexes`` (what a node retains)."""
    # one index is the common case; no comprehension for it saves ~5% of tanh (benchmarks.overhead)
    return (values[indexes[0]],) if len(indexes) == 1 else tuple([values[i] for i in indexes])


# --- backward traversal -----------------------------------------------------

def _source_line(node: FunctionNode | None) -> str:
    if node is None:
        return "given by the caller"
    if node.stack is None:
        return "(set minigrad.config.debug = True before the forward pass to see where it was created)"
    for frame in reversed(node.stack):
        if not os.path.abspath(frame.filename).startswith(_PACKAGE_DIR):
            return f"created at {frame.filename}:{frame.lineno}: {frame.line}"
    return "created inside minigrad"


def _explain_forward_error(node: FunctionNode, inputs: tuple[Variable, ...], error: Exception) -> None:
    """After ``node.forward`` raised ``error``: in debug mode, add where the node was created; name mixed devices."""
    if config.debug:
        _add_creation_stack(error, node)
    if len(inputs) > 1:
        _check_same_device(node, inputs, error)


def _check_same_device(node: FunctionNode, inputs: tuple[Variable, ...], error: Exception) -> None:
    """After a failed forward: inputs on different devices (a CuPy and a NumPy array) are the likely cause."""
    devices = [type(x._data).__module__.split(".")[0] + "." + type(x._data).__name__ for x in inputs]
    other = next((i for i, device in enumerate(devices) if device != devices[0]), None)
    if other is not None:
        raise TypeError(f"{node.label}: input {other} is a {devices[other]} but input 0 is a {devices[0]}; put every "
                        f"input on the same device (minigrad.backend.to_cpu / to_gpu)") from error


def _check_finite(array: Any, computation: str, node: FunctionNode | None) -> None:
    """Debug mode: a RuntimeError for NaN (as in Chainer) and also for Inf."""
    xp = backend.get_array_module(array)
    if array.dtype.kind in "fc" and not bool(xp.isfinite(array).all()):
        what = "NaN" if bool(xp.isnan(array).any()) else "Inf"
        raise RuntimeError(f"{what} is detected on {computation}; {_source_line(node)}")


def _add_creation_stack(error: Exception, node: FunctionNode) -> None:
    """Debug mode: append where ``node`` was created to the message of ``error`` (re-raised as it is)."""
    stack = "".join(traceback.format_list(node.stack or []))
    note = f"\n(in {node.label}, {_source_line(node)})\nStacktrace of the function is below:\n{stack}"
    error.args = (f"{error.args[0]}{note}",) + error.args[1:] if error.args else (note,)


def _chainer_message(node: FunctionNode, message: str) -> str:
    return f"{message}\n  function={node.label}\n  {_source_line(node)}"


def _sum_gradients(a: Variable, b: Variable) -> Variable:
    """Add two gradients without mutating either (one may be referenced elsewhere)."""
    if config.enable_backprop:  # double backprop: the sum must be part of the graph
        from minigrad.functions.math.basic_math import add

        return add(a, b)
    return _output_variable(a._data + b._data, None, 0, 0)  # it makes 0-dim + 0-dim (a scalar) an array


def _gradient_tuple(node: FunctionNode, targets: tuple[int, ...], gxs: Any) -> tuple[Any, ...]:
    """What ``node.backward`` returned, as one gradient per target input (it may also give one per input)."""
    if type(gxs) is not tuple:
        gxs = tuple(gxs) if isinstance(gxs, list) else (gxs,)
    if len(gxs) == len(targets):
        return gxs
    if len(gxs) == len(node.inputs):
        return tuple(gxs[i] for i in targets)
    expected = f"{len(node.inputs)}" + ("" if len(node.inputs) == len(targets) else f" or {len(targets)}")
    raise ValueError(_chainer_message(
        node, f"number of gradients returned from backward is incorrect: {len(gxs)} != expected {expected} "
              f"({node.label}.backward returned {len(gxs)} gradients; expected one per input or per target index)"))


class GradientTypeError(TypeError, ValueError):
    """A backward returned something other than a Variable (or ``None``) as a gradient.

    A ``TypeError``, and also the ``ValueError`` Chainer raises for it in debug
    mode, so code written for either catches it; in and out of debug mode alike.

    Example:
        >>> from minigrad.function_node import GradientTypeError
        >>> issubclass(GradientTypeError, TypeError), issubclass(GradientTypeError, ValueError)
        (True, True)
    """


def _check_gradient(node: FunctionNode, index: int, x: VariableNode, gx: Any) -> None:
    """Raise, naming the node, unless ``gx`` is a Variable of input ``index``'s shape and dtype.

    One mistake, one exception and one message, in debug mode or not; the first
    words are Chainer's (its tests match on them), the rest says what to do.
    """
    if not isinstance(gx, Variable):
        raise GradientTypeError(_chainer_message(
            node, f"type of gradients returned from backward is incorrect: {node.label}.backward returned "
                  f"{type(gx).__name__} for input {index}; gradients must be Variables (or None): compute them with "
                  "minigrad functions on the Variables backward gets (grad_outputs, get_retained_inputs()), not on "
                  "their .array"))
    g = gx._data
    if g.shape != x.shape or g.dtype != x.dtype:
        what, actual, expected = ("shape", g.shape, x.shape) if g.shape != x.shape else ("dtype", g.dtype, x.dtype)
        raise ValueError(_chainer_message(
            node, f"{what} of gradients returned from backward is incorrect: input-index={index}, actual {actual} != "
                  f"expected {expected}: {node.label}.backward returned a gradient of shape {g.shape} and dtype "
                  f"{g.dtype} for input {index}, which has shape {x.shape} and dtype {x.dtype}"
                  + _broadcast_hint(x.shape, g.shape)))
    if config.debug:
        _check_finite(g, f"backward computation of {node.label} (the gradient w.r.t. input {index})", node)


def _broadcast_hint(shape: tuple[int, ...], grad_shape: tuple[int, ...]) -> str:
    """A hint when the gradient has the shape ``shape`` broadcasts to: the reduction backward forgot."""
    try:
        broadcast = numpy.broadcast_shapes(shape, grad_shape) == grad_shape
    except ValueError:
        return ""
    return (f"\n  hint: looks like a missing reduction: the input was broadcast to {grad_shape} in forward, and "
            "backward returned the gradient of the broadcast result; check that backward sums it back to the input's "
            "shape (F.sum_to(gx, x.shape))") if broadcast else ""


def _collect_key(x: VariableNode) -> Any:
    """How ``grad`` names a variable: a leaf by the Variable, any other by (creator, output index),
    so a Variable that ``get_retained_outputs`` made for the same output counts as the same one."""
    return x() if x.creator is None else (x.creator, x.index)


# --- backward: the gradients in flight, then the loop -----------------------

class _GradientTable:
    """The gradients in flight during one backward pass (``Variable.backward``, ``minigrad.backward``).

    ``pending`` maps each node that has received a gradient and not yet run
    to the gradients of its outputs so far (a list, ``None`` where none has
    arrived). A leaf's gradient, and with ``retain_grad`` an intermediate's,
    waits in ``staged`` and reaches ``.grad`` only in ``write``, once every node
    has run: a backward that raises changes no gradient, and a retry gives the
    right answer. Every ``.grad`` written records ``loss_scale`` (for the
    optimizers to undo).
    """

    def __init__(self, retain_grad: bool = False, loss_scale: float | None = None) -> None:
        self.pending: dict[FunctionNode, list[Variable | None]] = {}
        self.retain_grad = retain_grad
        self.loss_scale = loss_scale
        self.staged: dict[int, tuple[Variable, Variable | None]] = {}  # id -> (Variable, its .grad after the pass)

    def add(self, x: VariableNode, gx: Variable) -> bool:
        """Add ``gx`` to the gradient of ``x``; ``True`` when it is the first for ``x``'s creator (which now waits)."""
        creator = x.creator
        if creator is None:  # a leaf (whose gradient is dropped if nobody holds it any more)
            variable = x()
            if variable is not None:
                previous = self.staged[id(variable)][1] if id(variable) in self.staged else variable._grad_var
                self.staged[id(variable)] = (variable, gx if previous is None else _sum_gradients(previous, gx))
            return False
        grads = self.pending.get(creator)
        first = grads is None
        if first:
            grads = self.pending[creator] = [None] * creator.output_count
        else:
            previous = grads[x.index]
            gx = gx if previous is None else _sum_gradients(previous, gx)
        grads[x.index] = gx
        if self.retain_grad and x() is not None:  # only a Variable someone still holds can show its gradient
            self.staged[id(x())] = (x(), gx)
        return first

    def targets(self, node: FunctionNode) -> tuple[int, ...]:
        """The inputs of ``node`` that need a gradient: those that require one (none once ``node`` is unchained)."""
        inputs = node.inputs
        if inputs is None:
            return ()
        # a one-input node in the graph needs that input's gradient: no comprehension for it saves ~5% of a tiny op
        return (0,) if len(inputs) == 1 else tuple([i for i, x in enumerate(inputs) if x.requires_grad])

    def take(self, x: VariableNode) -> Variable | None:
        """Remove and return the gradient gathered so far for ``x`` (``backward_accumulate`` returns the total)."""
        creator = x.creator
        if creator is None:
            variable = x()
            if variable is None:
                return None
            gx = self.staged[id(variable)][1] if id(variable) in self.staged else variable._grad_var
            self.staged[id(variable)] = (variable, None)
            return gx
        grads = self.pending.get(creator)
        if grads is None:
            return None
        gx, grads[x.index] = grads[x.index], None
        return gx

    def write(self) -> None:
        """Every node has run: write the staged gradients to ``.grad``."""
        for variable, gx in self.staged.values():
            variable._grad_var, variable._grad_loss_scale = gx, self.loss_scale


class _GradientsOfInputs(_GradientTable):
    """The table of ``grad``: it gathers the gradients of ``inputs`` in ``gathered`` and writes no ``.grad`` of a leaf.

    As in Chainer, only the nodes on a path from one of ``inputs`` to one of
    ``outputs`` run (``on_paths``, the variables on such paths, says which).
    """

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable], retain_grad: bool) -> None:
        super().__init__(retain_grad)
        self.keys = [_collect_key(VariableNode.of(x)) for x in inputs]
        self.gathered: dict[Any, Variable | None] = dict.fromkeys(self.keys)
        self.on_paths = _keys_on_paths(outputs, self.keys)

    def targets(self, node: FunctionNode) -> tuple[int, ...]:
        """The inputs of ``node`` on a path between ``grad``'s inputs and outputs (none: ``node`` need not run)."""
        return tuple([i for i, x in enumerate(node.inputs or ()) if _collect_key(x) in self.on_paths])

    def add(self, x: VariableNode, gx: Variable) -> bool:
        key = _collect_key(x)
        if key in self.gathered:
            previous = self.gathered[key]
            self.gathered[key] = gx if previous is None else _sum_gradients(previous, gx)
        return x.creator is not None and super().add(x, gx)  # a leaf's .grad is left alone

    def take(self, x: VariableNode) -> Variable | None:
        key = _collect_key(x)
        gx = self.gathered.get(key)
        if key in self.gathered:
            self.gathered[key] = None  # the total comes back through add
        return gx if x.creator is None else super().take(x)

    def results(self) -> list[Variable | None]:
        """The gradient of each input, in order (``None`` where none flowed)."""
        return [self.gathered[key] for key in self.keys]


def _backprop(outputs: Sequence[Variable], seeds: Sequence[Variable], table: _GradientTable,
              enable_double_backprop: bool) -> None:
    """Push the gradients ``seeds`` of ``outputs`` back through the graph, gathering them in ``table``."""
    debug = config.debug
    heap: list[tuple[int, int, FunctionNode]] = []  # (-rank, order, node): the highest rank pops first
    order = itertools.count()  # equal ranks: first reached, first run (and nodes are never compared)
    with using_config("enable_backprop", enable_double_backprop):  # record backward's ops for double backprop
        for y, gy in zip(outputs, seeds):
            if table.add(VariableNode.of(y), gy):  # the first gradient for y's creator: it waits in the heap
                heappush(heap, (-y.creator.rank, next(order), y.creator))
        while heap:
            node = heappop(heap)[2]  # every node that uses its outputs has run
            grad_outputs = tuple(table.pending.pop(node))
            targets = table.targets(node)  # the inputs that need a gradient
            if not targets:  # unchained, or (for grad) off every path
                continue
            try:
                if type(node).backward_accumulate is _default_backward_accumulate:
                    gxs = node.backward(targets, grad_outputs)
                else:  # the node adds its gradients to the totals itself
                    gxs = _backward_accumulate(node, targets, grad_outputs, table)
            except Exception as error:
                if debug:  # say where the node was created
                    _add_creation_stack(error, node)
                raise
            if type(gxs) is not tuple or len(gxs) != len(targets):  # a list, or one gradient per input
                gxs = _gradient_tuple(node, targets, gxs)
            inputs = node.inputs
            for i, gx in zip(targets, gxs):
                if gx is not None:
                    x = inputs[i]
                    if debug or type(gx) is not Variable or gx._data.shape != x.shape or gx._data.dtype != x.dtype:
                        _check_gradient(node, i, x, gx)  # raises, naming the node, unless gx fits x
                    if table.add(x, gx):  # the first gradient for x's creator: it waits in the heap
                        heappush(heap, (-x.creator.rank, next(order), x.creator))
    table.write()  # every node ran: only now is any .grad changed


def _backward_accumulate(node: FunctionNode, targets: tuple[int, ...], grad_outputs: tuple[Variable | None, ...],
                         table: _GradientTable) -> tuple[Variable | None, ...]:
    """``node.backward_accumulate``, for a node that overrides it: it gets the gradients gathered so far for its
    targets, taken out of ``table``, and returns the totals, which ``table.add`` then puts back."""
    return node.backward_accumulate(targets, grad_outputs, tuple([table.take(node.inputs[i]) for i in targets]))


def _seed(y: Variable, gy: Any, loss_scale: float | None = None, scalar_only: bool = False) -> Variable:
    """The starting gradient for ``y``: ``gy``, or ones (times ``loss_scale``) when ``gy`` is None."""
    if gy is None:
        if scalar_only and y._data.size != 1:
            raise ValueError(
                f"backward() on an output of shape {y.shape} needs a starting gradient: "
                "set y.grad (an array of the same shape and dtype) first, or reduce y to a scalar"
            )
        if scalar_only and y._data.ndim != 0:
            warnings.warn("Treating a variable with only one element as a scalar in Variable.backward is "
                          "deprecated (as in Chainer): reduce it to 0-dim (F.squeeze or F.sum), or set its grad",
                          DeprecationWarning, stacklevel=4)
        ones = y.xp.ones_like(y._data)
        return Variable(ones if loss_scale is None else ones * ones.dtype.type(loss_scale), requires_grad=False)
    if not isinstance(gy, Variable):
        gy = Variable(gy, requires_grad=False)
    if gy._data.shape != y._data.shape or gy._data.dtype != y._data.dtype:
        raise ValueError(
            f"the starting gradient has shape {gy.shape} and dtype {gy.dtype}, but the output "
            f"has shape {y.shape} and dtype {y.dtype}"
        )
    return gy


def backward_from(
    y: Variable, retain_grad: bool, enable_double_backprop: bool, loss_scale: float | None
) -> None:
    """Implementation of ``Variable.backward`` (see there): it consumes ``y.grad_var``, as in Chainer."""
    if y._data is None:
        raise ValueError("backward() on a Variable without data")
    seed = _seed(y, y._grad_var, loss_scale, scalar_only=True)
    if config.debug:
        _check_finite(seed._data, "the starting gradient", None)
    consumed, y._grad_var = y._grad_var, None  # a leaf gets it back from the traversal, an intermediate only
    try:                                         # with retain_grad
        _backprop([y], [seed], _GradientTable(retain_grad, loss_scale), enable_double_backprop)
    except BaseException:  # the pass wrote no gradient: put the starting one back too, so a retry can run
        y._grad_var = consumed
        raise


def backward(outputs: Sequence[Variable], grad_outputs: Sequence[Any] | None = None, **kwargs: Any) -> None:
    """Backpropagate from several outputs at once (Chainer's ``chainer.backward``).

    Args:
        outputs: a list or tuple of Variables.
        grad_outputs: their starting gradients (``None`` entries are skipped); by
            default each output's ``grad_var``, which is consumed. There is no
            default gradient: an output without one is skipped with a warning.
        enable_double_backprop: (keyword) as in ``Variable.backward``.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.array([1.0, 2.0]))
        >>> mg.backward([F.sum(x), F.sum(x * x)], [np.array(1.0), np.array(1.0)])
        >>> x.grad
        array([3., 5.])
    """
    enable_double_backprop = kwargs.pop("enable_double_backprop", False)
    for name in ("retain_grad", "loss_scale"):
        if name in kwargs:
            raise ValueError(f"backward: {name} is not supported by minigrad.backward (as in Chainer); "
                             "use Variable.backward")
    if kwargs:
        raise TypeError(f"backward: unexpected keyword arguments {sorted(kwargs)}")
    _check_sequences("backward", outputs=outputs, grad_outputs=grad_outputs)
    consumed = [(y, y._grad_var) for y in outputs] if grad_outputs is None else []
    if grad_outputs is None:
        grad_outputs = []
        for y in outputs:
            if y._grad_var is None:
                warnings.warn("backward: an output has no grad_var (or appears twice); minigrad.backward has no "
                              "default gradient, so it is skipped", RuntimeWarning, stacklevel=2)
            grad_outputs.append(y._grad_var)
            y._grad_var = None
    elif len(grad_outputs) != len(outputs):
        raise ValueError(f"backward: {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    try:
        pairs = [(y, _seed(y, gy)) for y, gy in zip(outputs, grad_outputs) if gy is not None]
        _backprop([y for y, _ in pairs], [gy for _, gy in pairs], _GradientTable(), enable_double_backprop)
    except BaseException:  # the pass wrote no gradient: the starting ones come back too (the first, if repeated)
        for y, gy in reversed(consumed):
            y._grad_var = gy
        raise


def _check_sequences(where: str, **sequences: Any) -> None:
    """Chainer's argument checks: lists or tuples (``None`` allowed for the gradients), outputs/inputs Variables."""
    for name, seq in sequences.items():
        if seq is None and name.startswith("grad_"):
            continue
        if not isinstance(seq, (list, tuple)):
            raise TypeError(f"{where}: {name} must be a list or a tuple, got {type(seq).__name__}")
        if not name.startswith("grad_"):
            for v in seq:
                if not isinstance(v, Variable):
                    raise TypeError(f"{where}: every entry of {name} must be a Variable, got {type(v).__name__}")


def grad(
    outputs: Sequence[Variable],
    inputs: Sequence[Variable],
    grad_outputs: Sequence[Any] | None = None,
    grad_inputs: Sequence[Any] | None = None,
    set_grad: bool = False,
    retain_grad: bool = False,
    enable_double_backprop: bool = False,
    loss_scale: float | None = None,
) -> list[Variable | None]:
    """Gradients of ``outputs`` w.r.t. ``inputs``, without touching any ``.grad``.

    As in Chainer, only the nodes on a path from an input to an output run
    backward: nothing upstream of the inputs, nor on a branch that reaches no
    input, is differentiated (so ``retain_grad`` keeps only those paths' gradients).

    Args:
        outputs: Variables to differentiate.
        inputs: Variables to differentiate with respect to.
        grad_outputs: starting gradients (a ``None`` entry means ones of the output's shape).
        grad_inputs: initial gradients of the inputs: they are added to the
            results and flow back from there like any other gradient.
        set_grad: also store the results in ``inputs[i].grad_var``.
        retain_grad: keep the gradients of intermediate variables.
        enable_double_backprop: make the returned gradients differentiable.
        loss_scale: multiply the implied starting gradients (the ones) by this factor.

    Returns:
        One Variable (or ``None`` where no gradient flows) per input.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> x = mg.Variable(np.array([1.0, 2.0]))
        >>> gx, = mg.grad([F.sum(x ** 2)], [x])
        >>> gx.array, x.grad
        (array([2., 4.]), None)
    """
    _check_sequences("grad", outputs=outputs, inputs=inputs, grad_outputs=grad_outputs, grad_inputs=grad_inputs)
    outputs, inputs = list(outputs), list(inputs)
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise ValueError(f"grad: {len(grad_outputs)} grad_outputs for {len(outputs)} outputs")
    if grad_inputs is not None and len(grad_inputs) != len(inputs):
        raise ValueError(f"grad: {len(grad_inputs)} grad_inputs for {len(inputs)} inputs")
    seeds = [_seed(y, gy, loss_scale) for y, gy in zip(outputs, grad_outputs)]
    for x, gx in zip(inputs, grad_inputs or ()):  # seeded like the outputs' gradients
        if gx is not None:
            outputs.append(x)
            seeds.append(_seed(x, gx))
    table = _GradientsOfInputs(inputs, outputs, retain_grad)
    _backprop(outputs, seeds, table, enable_double_backprop)
    results = table.results()
    if set_grad:
        for x, gx in zip(inputs, results):
            x._grad_var = gx
    return results


def _keys_on_paths(outputs: Sequence[Variable], input_keys: list[Any]) -> set[Any]:
    """The variables (by ``_collect_key``) on some path from one of ``input_keys`` to one of ``outputs``.

    As in Chainer's ``grad``: walk back from the outputs, noting the nodes
    that consume each variable, then forward from the inputs through them.
    """
    consumers: dict[Any, list[FunctionNode]] = {}
    pending = [y.creator for y in outputs if y.creator is not None]
    seen = set(pending)
    while pending:
        node = pending.pop()
        for x in node.inputs or ():  # None: unchained
            if x.requires_grad:
                consumers.setdefault(_collect_key(x), []).append(node)
                if x.creator is not None and x.creator not in seen:
                    seen.add(x.creator)
                    pending.append(x.creator)
    on_paths, keys, seen = set(), list(input_keys), set()
    while keys:
        key = keys.pop()
        if key not in on_paths:
            on_paths.add(key)
            for node in set(consumers.get(key, ())) - seen:
                seen.add(node)
                keys += [(node, i) for i in range(node.output_count)]
    return on_paths


_default_backward_accumulate = FunctionNode.backward_accumulate
