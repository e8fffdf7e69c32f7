"""Step through a backward pass: which node runs, what it receives and sends, and what still waits (teaching).

``record_backward(y)`` runs ``y.backward()`` once, for real, and notes each node's backward call as the engine
makes it: the gradients the node received for its outputs, and those it sent to its inputs. Nothing in the engine
changes: before the pass, each node of the graph gets an instance attribute ``backward`` that calls its class's
``backward`` and takes notes (removed again afterwards), so the steps are the engine's own order, not a replay.

From the notes, :class:`BackwardSteps` rebuilds what the engine held after each step (every Variable's gradient
so far, the nodes waiting in the heap) and draws it: one picture per step, the graph of
:mod:`minigrad.computational_graph` with each Variable as ``name | data | grad`` (as micrograd's ``draw_dot``),
the node that ran in red, the gradients it received and sent on its edges, the waiting nodes in orange.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy

from minigrad import backend
from minigrad.computational_graph import ComputationalGraph, build_computational_graph, render
from minigrad.function_node import FunctionNode
from minigrad.variable import Variable, VariableNode

__all__ = ["BackwardStep", "BackwardSteps", "record_backward"]

_MAX_VALUES = 6  # larger arrays are shown by their shape and range
_LEAF, _MADE = "#fff2cc", "#dae8fc"  # the colours of computational_graph's pictures
_RUNNING, _WAITING, _CHANGED = "#f8cecc", "#ffe6cc", "#f8cecc"
_RECEIVE_COLOR, _SEND_COLOR = "#1f5fbf", "#c0392b"


@dataclass(frozen=True)
class BackwardStep:
    """One node's backward call, as the engine made it.

    Attributes:
        node: the FunctionNode the engine popped from its heap and ran.
        received: the gradient of each of its outputs (a NumPy array, or ``None`` where none arrived).
        sent: ``{input index: gradient}`` for each input it returned a gradient for.
    """

    node: FunctionNode
    received: tuple[numpy.ndarray | None, ...]
    sent: dict[int, numpy.ndarray]


def _place(item: Variable | VariableNode) -> VariableNode:
    return VariableNode.of(item) if isinstance(item, Variable) else item


def _key(item: Variable | VariableNode) -> tuple[Any, ...]:
    """Names a Variable by its place in the graph: a leaf by its VariableNode, any other by (creator, output index)."""
    node = _place(item)
    return ("leaf", id(node)) if node.creator is None else (id(node.creator), node.index)


def _host_copy(gradient: Variable | None) -> numpy.ndarray | None:
    return None if gradient is None else numpy.array(backend.to_cpu(gradient.array))


def _per_target(node: FunctionNode, targets: tuple[int, ...], gxs: Any) -> tuple[Any, ...]:
    """What backward returned, one gradient per target input (it may return one per input)."""
    gxs = gxs if isinstance(gxs, tuple) else tuple(gxs) if isinstance(gxs, list) else (gxs,)
    if len(gxs) != len(targets) and len(gxs) == len(node.inputs or ()):
        gxs = tuple(gxs[i] for i in targets)
    return gxs


def _recording(node: FunctionNode, method: Callable[..., Any], steps: list[BackwardStep]) -> Callable[..., Any]:
    def backward(targets: tuple[int, ...], grad_outputs: tuple[Variable | None, ...], *more: Any) -> Any:
        gxs = method(targets, grad_outputs, *more)
        sent = {i: _host_copy(gx) for i, gx in zip(targets, _per_target(node, tuple(targets), gxs)) if gx is not None}
        steps.append(BackwardStep(node, tuple(_host_copy(g) for g in grad_outputs), sent))
        return gxs
    return backward


def record_backward(y: Variable, **backward_options: Any) -> BackwardSteps:
    """Run ``y.backward(**backward_options)`` and return its steps, to print or to draw.

    Args:
        y: the output to backpropagate from (a scalar, or a Variable whose ``grad`` is set).
        backward_options: passed to :meth:`Variable.backward <minigrad.Variable.backward>`
            (``retain_grad``, ``enable_double_backprop``, ``loss_scale``).

    Returns:
        A :class:`BackwardSteps`: ``print`` it for the steps as text, ``render`` it for one picture per step.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.backward_steps import record_backward
        >>> x = mg.Variable(np.array([1.0, 2.0]), name="x")
        >>> loss = F.sum(x * x)
        >>> loss.name = "loss"
        >>> steps = record_backward(loss)
        >>> print(steps)
        start: loss receives 1.0
            waiting: Sum (rank 1)
        step 1: Sum (rank 1) runs: receives 1.0; sends [1. 1.] to input 0
            waiting: Mul (rank 0)
        step 2: Mul (rank 0) runs: receives [1. 1.]; sends [1. 2.] to x, [1. 2.] to x
            waiting: none
        >>> x.grad
        array([2., 4.])
    """
    if not isinstance(y, Variable):
        raise TypeError(f"record_backward: y must be a Variable, got {type(y).__name__}")
    if y.creator is None:
        raise ValueError("record_backward: y has no creator (a leaf or a constant): there is no backward pass to step "
                         "through")
    graph = build_computational_graph(y)  # before backward, which drops the gradients of intermediates
    seed = y.grad if y.grad is not None else y.xp.ones_like(y.array)
    steps: list[BackwardStep] = []
    for node in graph.functions:
        # an instance attribute shadows the class's method: the engine calls it like any backward
        name = "backward" if type(node).backward_accumulate is FunctionNode.backward_accumulate \
            else "backward_accumulate"
        setattr(node, name, _recording(node, getattr(node, name), steps))
    try:
        y.backward(**backward_options)
    finally:
        for node in graph.functions:
            node.__dict__.pop("backward", None)
            node.__dict__.pop("backward_accumulate", None)
    return BackwardSteps(y, numpy.array(backend.to_cpu(seed)), steps, graph)


class BackwardSteps:
    """The steps of one backward pass (made by :func:`record_backward`), as text or as pictures.

    Frame 0 is the start (only ``y`` has a gradient, its creator waits); frame ``k`` is the state after step
    ``k``: every Variable's gradient so far and the nodes still waiting, highest rank first (the order the heap
    pops them).

    Attributes:
        steps: the :class:`BackwardStep` of each node's backward call, in the order the engine ran them.
        graph: the :class:`~minigrad.computational_graph.ComputationalGraph` of ``y``, taken before the pass.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.backward_steps import record_backward
        >>> x = mg.Variable(np.array([1.0, 2.0]), name="x")
        >>> steps = record_backward(F.sum(F.exp(x) * x))
        >>> len(steps), [step.node.label for step in steps.steps]
        (3, ['Sum', 'Mul', 'Exp'])
        >>> for part in steps.describe(2).split("; "):
        ...     print(part)
        step 2: Mul (rank 1) runs: receives [1. 1.]
        sends [1. 2.] to input 0, [2.7183 7.3891] to x
        waiting: Exp (rank 0)
        >>> gradients, waiting = steps.state(2)
        >>> [node.label for node in waiting]
        ['Exp']
        >>> "runs now" in steps.dump(2)     # Graphviz DOT text of the picture of step 2
        True
    """

    def __init__(self, y: Variable, seed: numpy.ndarray, steps: list[BackwardStep], graph: ComputationalGraph):
        self.y = y
        self.seed = seed
        self.steps = steps
        self.graph = graph
        self._places = {_key(item): item for item in graph.variables}

    def __len__(self) -> int:
        return len(self.steps)

    def state(self, frame: int) -> tuple[dict[tuple[Any, ...], numpy.ndarray], list[FunctionNode]]:
        """After ``frame`` steps: ``{variable key: its gradient so far}``, and the waiting nodes in heap order."""
        if not 0 <= frame <= len(self.steps):
            raise ValueError(f"BackwardSteps.state: frame must be in 0..{len(self.steps)}, got {frame}")
        gradients = {_key(self.y): self.seed}
        reached = [self.y.creator]  # in the order gradients first reached them (the heap's tie-break)
        for step in self.steps[:frame]:
            for i, gx in step.sent.items():
                place = step.node.inputs[i]
                key = _key(place)
                gradients[key] = gx if key not in gradients else gradients[key] + gx
                if place.creator is not None and place.creator not in reached:
                    reached.append(place.creator)
        ran = {id(step.node) for step in self.steps[:frame]}
        waiting = [node for node in reached if id(node) not in ran]
        waiting.sort(key=lambda node: -node.rank)  # stable: equal ranks stay first-reached first
        return gradients, waiting

    # --- text ---------------------------------------------------------------------
    def _input_name(self, node: FunctionNode, index: int) -> str:
        place = node.inputs[index]
        item = self._places.get(_key(place))
        name = getattr(item, "name", None)
        return name if name is not None else f"input {index}"

    def describe(self, frame: int) -> str:
        """One line saying what happened in ``frame`` (0: the start) and what waits after it."""
        _, waiting = self.state(frame)
        waits = ", ".join(f"{node.label} (rank {node.rank})" for node in waiting) or "none"
        if frame == 0:
            return f"start: {self.y.name or 'y'} receives {_values(self.seed)}; waiting: {waits}"
        step = self.steps[frame - 1]
        received = ", ".join("nothing" if g is None else _values(g) for g in step.received)
        sent = ", ".join(f"{_values(g)} to {self._input_name(step.node, i)}" for i, g in step.sent.items()) or "nothing"
        return (f"step {frame}: {step.node.label} (rank {step.node.rank}) runs: receives {received}; sends {sent}; "
                f"waiting: {waits}")

    def __str__(self) -> str:  # describe's lines, each with what waits on a line of its own
        return "\n".join(self.describe(frame).replace("; waiting: ", "\n    waiting: ")
                         for frame in range(len(self.steps) + 1))

    # --- pictures -----------------------------------------------------------------
    # Every frame is laid out alike (each label keeps the size it has in its widest frame), so that stepping
    # from one picture to the next moves nothing but the colours and the numbers.
    def dump(self, frame: int, title: bool = True) -> str:
        """Graphviz DOT text of the picture of ``frame``: the graph, with values, gradients and the step marked.

        With ``title`` (the default) the picture is headed by :meth:`describe`'s line; without it, every frame
        has the same size (for a page that shows the line as a caption instead).
        """
        gradients, waiting = self.state(frame)
        step = self.steps[frame - 1] if frame else None
        changed = {_key(self.y)} if step is None else {_key(step.node.inputs[i]) for i in step.sent}
        ran = {id(s.node) for s in self.steps[:frame]}
        names = {id(item): ("f" if isinstance(item, FunctionNode) else "v") + str(n)
                 for n, item in enumerate(self.graph.nodes)}
        lines = ["digraph backward_step {",
                 '  rankdir="TB"; graph [ranksep="0.3", nodesep="0.5", fontname="Helvetica,Arial,sans-serif"];',
                 '  node [fontname="Helvetica,Arial,sans-serif", fontsize="11"];',
                 '  edge [fontname="Helvetica,Arial,sans-serif", fontsize="10", color="#888888"];']
        widths = self._grad_widths()
        for item in self.graph.variables:
            key = _key(item)
            partial = item.creator is not None and item.creator in waiting and key != _key(self.y)
            grad = _grad_text(gradients.get(key), partial)  # "so far": its creator waits, more may come
            table = _variable_table(item, grad, widths[key], key in changed)
            lines.append(f"  {names[id(item)]} [shape=plain, label=<{table}>];")
        for node in self.graph.functions:
            state = ("runs now" if step is not None and node is step.node else "waiting" if node in waiting
                     else "done" if id(node) in ran else "not reached")
            lines.append(f"  {names[id(node)]} [{_dot_attributes(_function_style(node, state))}];")
        for source, target, node, text in self._edge_texts():
            active = step is not None and node is step.node
            color = _SEND_COLOR if node is target else _RECEIVE_COLOR  # input -> node: it sends; else receives
            attributes = {"dir": "back", "color": color, "penwidth": "2"} if active and text else {}
            label = _edge_label(text if active else "", len(text), color)
            lines.append(f"  {names[id(source)]} -> {names[id(target)]} [label=<{label}>"
                         + "".join(f", {_dot_attributes({k: v})}" for k, v in attributes.items()) + "];")
        if title:
            heading = self.describe(frame).replace("; waiting", "\nwaiting")
            lines.append(f'  labelloc="t"; fontsize="12"; label="{_dot_text(heading)}";')
        lines.append("}")
        return "\n".join(lines) + "\n"

    def _edge_texts(self) -> list[tuple[Any, Any, FunctionNode, str]]:
        """Every edge (source, target, its FunctionNode, the text its node's step writes on it), forward direction:
        input -> node edges carry what the node sends, node -> output edges what it receives."""
        by_node = {id(step.node): step for step in self.steps}
        texts = []
        for node in self.graph.functions:
            step = by_node.get(id(node))
            for index, place in enumerate(node.inputs or ()):
                sent = None if step is None else step.sent.get(index)
                texts.append((self._places[_key(place)], node, node, "" if sent is None else f"sends {_values(sent)}"))
        for source, target in self.graph.edges:
            if isinstance(source, FunctionNode):
                step = by_node.get(id(source))
                received = None if step is None else step.received[_place(target).index]
                text = "" if step is None else f"receives {'nothing' if received is None else _values(received)}"
                texts.append((source, target, source, text))
        return texts

    def _grad_widths(self) -> dict[tuple[Any, ...], int]:
        """The widest gradient text of each Variable over all frames (in characters)."""
        widths = {_key(item): len(_grad_text(None, partial=False)) for item in self.graph.variables}
        for frame in range(len(self.steps) + 1):
            for key, gradient in self.state(frame)[0].items():
                widths[key] = max(widths.get(key, 0), len(_grad_text(gradient, partial=True)))
        return widths

    def render(self, directory: str | os.PathLike[str], format: str = "svg", prefix: str = "step",
               title: bool = True) -> list[str]:
        """Draw every frame into ``directory`` as ``{prefix}-0.{format}``, ... (needs Graphviz's ``dot``).

        Returns the paths written, frame 0 (the start) first. ``title`` as in :meth:`dump`.
        """
        os.makedirs(directory, exist_ok=True)
        return [render(self.dump(frame, title), os.path.join(os.fspath(directory), f"{prefix}-{frame}.{format}"),
                       format) for frame in range(len(self.steps) + 1)]


def _values(array: numpy.ndarray) -> str:
    """Small arrays by their values (as NumPy prints them), larger ones by shape and range."""
    if array.ndim == 0 and array.dtype.kind == "f":
        return numpy.format_float_positional(array.item(), precision=4, trim="0")
    if array.size <= _MAX_VALUES:
        return numpy.array2string(array, precision=4, suppress_small=True)
    return f"{array.shape} in [{array.min():.4g}, {array.max():.4g}]"


def _grad_text(gradient: numpy.ndarray | None, partial: bool) -> str:
    """``grad`` and its values; ``grad so far`` while the Variable's creator waits for more of it."""
    return "grad —" if gradient is None else f"grad{' so far' if partial else ''} {_values(gradient)}"


def _variable_table(item: Variable | VariableNode, grad: str, grad_width: int, changed: bool) -> str:
    """An HTML-like Graphviz label: name | data | grad, as micrograd draws a value."""
    fill = _MADE if item.creator is not None else _LEAF
    name = html.escape(item.name) if item.name is not None else "&nbsp;"
    if isinstance(item, Variable):
        data = _values(numpy.asarray(backend.to_cpu(item.array)))
    else:  # nobody holds the Variable any more: only its place in the graph is left
        data = f"{tuple(item.shape)} {item.dtype}"
    grad_fill = f' bgcolor="{_CHANGED}"' if changed else ""
    return (f'<table border="0" cellborder="1" cellspacing="0" cellpadding="4" bgcolor="{fill}"><tr>'
            f"<td><b>{name}</b></td><td>data {html.escape(data)}</td>"
            f'<td{grad_fill} fixedsize="true" width="{_text_width(grad_width, 11)}" height="22">'
            f"{html.escape(grad)}</td></tr></table>")


def _function_style(node: FunctionNode, state: str) -> dict[str, str]:
    """A FunctionNode's box: its label, rank and state (runs now, waiting, done, not reached); one size in all."""
    style = {"shape": "box", "style": "filled", "fillcolor": "#e6e6e6", "fixedsize": "true", "height": "0.62",
             "width": f"{_text_width(max(len(node.label), len('not reached')), 11) / 72 + 0.25:.2f}",
             "label": f"{node.label}\nrank {node.rank}\n{state}"}
    if state == "runs now":
        style.update(fillcolor=_RUNNING, penwidth="2.5", color=_SEND_COLOR)
    elif state == "waiting":
        style.update(fillcolor=_WAITING, color="#d79b00", penwidth="1.5")
    elif state == "done":
        style.update(fillcolor="#ffffff", fontcolor="#888888", color="#bbbbbb")
    return style


def _edge_label(text: str, width: int, color: str) -> str:
    """A fixed-size label (``width`` characters), so that the layout is the same whether it is shown or not."""
    content = f'<font color="{color}">{html.escape(text)}</font>' if text else ""
    return (f'<table border="0" cellborder="0" cellpadding="0" cellspacing="0"><tr>'
            f'<td fixedsize="true" width="{_text_width(width, 10)}" height="14">{content}</td></tr></table>')


def _text_width(characters: int, font_size: int) -> int:
    """Points that ``characters`` of Helvetica at ``font_size`` need, with a margin (digits are 0.56 em)."""
    return max(1, round(characters * font_size * 0.58) + 8)


def _dot_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _dot_attributes(attributes: dict[str, str]) -> str:
    return ", ".join(f'{name}="{_dot_text(str(value))}"' for name, value in attributes.items())
