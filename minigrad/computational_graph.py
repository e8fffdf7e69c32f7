"""Draw the graph behind a Variable: Graphviz DOT text, and pictures through ``dot``.

``build_computational_graph(outputs)`` walks back from ``outputs`` through
``creator`` and ``inputs`` links and records every Variable and FunctionNode it
meets. ``dump()`` turns that into DOT text (variables as ellipses, function
nodes as boxes); ``render(path)`` runs the ``dot`` program of Graphviz to make
a PNG, SVG or PDF picture of it. Meant for teaching and debugging: the walk
reads the graph, it never changes it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import deque
from collections.abc import Iterable, Mapping
from typing import Any

import numpy

from minigrad import backend
from minigrad.function_node import FunctionNode
from minigrad.variable import Variable, VariableNode

__all__ = ["ComputationalGraph", "build_computational_graph", "render", "GraphvizNotFoundError"]

RENDER_FORMATS: tuple[str, ...] = ("png", "svg", "pdf")

# Leaves that need a gradient, the Variables ops made, and constants look different,
# so that a picture shows at a glance where gradients end up.
_LEAF_STYLE = {"shape": "ellipse", "style": "filled", "fillcolor": "#fff2cc"}
_INTERMEDIATE_STYLE = {"shape": "ellipse", "style": "filled", "fillcolor": "#dae8fc"}
_CONSTANT_STYLE = {"shape": "ellipse", "style": "dashed"}
_FUNCTION_STYLE = {"shape": "box", "style": "filled", "fillcolor": "#e6e6e6"}
_FONT = "Helvetica,Arial,sans-serif"
_MAX_GRAD_VALUES = 9  # larger gradients are summarised by their range


class GraphvizNotFoundError(RuntimeError):
    """The ``dot`` program of Graphviz is not installed (or not on ``PATH``)."""


def _quote(text: str) -> str:
    """A DOT double-quoted string; newlines become DOT's centred line breaks."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _attributes(attrs: Mapping[str, Any]) -> str:
    return ", ".join(f"{key}={_quote(str(value))}" for key, value in attrs.items())


def _grad_text(var: Variable | VariableNode) -> str:
    grad = var.grad if isinstance(var, Variable) else None
    if grad is None:
        return "grad: None"
    grad = numpy.asarray(backend.to_cpu(grad))
    if grad.size <= _MAX_GRAD_VALUES:
        return "grad: " + numpy.array2string(grad, precision=4, separator=", ", suppress_small=True)
    return f"grad in [{grad.min():.4g}, {grad.max():.4g}]"


class ComputationalGraph:
    """The Variables and FunctionNodes behind some outputs, and the edges between them.

    Made by :func:`build_computational_graph`; holds the graph's objects (so
    they stay alive while it exists).

    Attributes:
        nodes: Variables and FunctionNodes, in the order the walk met them
            (outputs first, then backwards).
        edges: ``(source, target)`` pairs in the direction of the forward
            computation: ``(input, node)`` and ``(node, output)``. A Variable
            used twice by one node gives two edges.
    """

    def __init__(
        self,
        nodes: list[Variable | FunctionNode],
        edges: list[tuple[Variable | FunctionNode, Variable | FunctionNode]],
        *,
        show_name: bool = True,
        show_grad: bool = False,
        show_rank: bool = False,
        rankdir: str = "TB",
        variable_style: Mapping[str, Any] | None = None,
        function_style: Mapping[str, Any] | None = None,
    ) -> None:
        self.nodes = nodes
        self.edges = edges
        self.show_name = show_name
        self.show_grad = show_grad
        self.show_rank = show_rank
        self.rankdir = rankdir
        self.variable_style = dict(variable_style or {})
        self.function_style = dict(function_style or {})

    @property
    def variables(self) -> list[Variable | VariableNode]:
        """The Variables of the graph (a VariableNode stands for one that nobody holds any more)."""
        return [n for n in self.nodes if not isinstance(n, FunctionNode)]

    @property
    def functions(self) -> list[FunctionNode]:
        """The FunctionNodes of the graph."""
        return [n for n in self.nodes if isinstance(n, FunctionNode)]

    def _variable_label(self, var: Variable | VariableNode) -> str:
        lines = []
        if self.show_name and var.name is not None:
            lines.append(str(var.name))
        if isinstance(var, VariableNode):  # nobody holds the Variable any more: its place in the graph
            lines.append(f"{tuple(var.shape)} {var.dtype}")
        else:
            data = var.array
            lines.append("no data" if data is None else f"{tuple(data.shape)} {data.dtype}")
        if self.show_rank:
            rank = var.rank if isinstance(var, Variable) else 0 if var.creator is None else var.creator.rank + 1
            lines.append(f"rank {rank}")
        if self.show_grad:
            lines.append(_grad_text(var))
        return "\n".join(lines)

    def _function_label(self, node: FunctionNode) -> str:
        return f"{node.label}\nrank {node.rank}" if self.show_rank else node.label

    def _variable_style(self, var: Variable | VariableNode) -> dict[str, Any]:
        if not var.requires_grad:
            style = _CONSTANT_STYLE
        elif var.creator is None:
            style = _LEAF_STYLE
        else:
            style = _INTERMEDIATE_STYLE
        return {**style, **self.variable_style}

    def dump(self, format: str = "dot") -> str:
        """The graph as Graphviz DOT text (the only format).

        Nodes are named ``v0, v1, ...`` (Variables) and ``f0, f1, ...``
        (FunctionNodes) in the order of :attr:`nodes`, so the text is the same
        on every run.

        Example:
            >>> import numpy as np, minigrad as mg
            >>> from minigrad.computational_graph import build_computational_graph
            >>> x = mg.Variable(np.array([1.0, 2.0]), name="x")
            >>> y = -x
            >>> print(build_computational_graph(y).dump())
            digraph computational_graph {
              rankdir="TB";
              graph [ranksep="0.3", nodesep="0.3"];
              node [fontname="Helvetica,Arial,sans-serif", fontsize="11", height="0.3"];
              v0 [label="(2,) float64", shape="ellipse", style="filled", fillcolor="#dae8fc"];
              f0 [label="Neg", shape="box", style="filled", fillcolor="#e6e6e6"];
              v1 [label="x\\n(2,) float64", shape="ellipse", style="filled", fillcolor="#fff2cc"];
              f0 -> v0;
              v1 -> f0;
            }
        """
        if format != "dot":
            raise ValueError(f"ComputationalGraph.dump: format must be 'dot', got {format!r}")
        names: dict[int, str] = {}
        counts = {"v": 0, "f": 0}
        lines = [
            "digraph computational_graph {",
            f"  rankdir={_quote(self.rankdir)};",
            f"  graph [ranksep={_quote('0.3')}, nodesep={_quote('0.3')}];",
            f"  node [fontname={_quote(_FONT)}, fontsize={_quote('11')}, height={_quote('0.3')}];",
        ]
        for node in self.nodes:
            if not isinstance(node, FunctionNode):
                prefix, label, style = "v", self._variable_label(node), self._variable_style(node)
            else:
                prefix, label = "f", self._function_label(node)
                style = {**_FUNCTION_STYLE, **self.function_style}
            names[id(node)] = f"{prefix}{counts[prefix]}"
            counts[prefix] += 1
            lines.append(f"  {names[id(node)]} [{_attributes({'label': label, **style})}];")
        for source, target in self.edges:
            lines.append(f"  {names[id(source)]} -> {names[id(target)]};")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def render(self, path: str | os.PathLike[str], format: str | None = None) -> str:
        """Write a picture of the graph with Graphviz (see :func:`render`)."""
        return render(self, path, format)

    def _repr_svg_(self) -> str | None:  # Jupyter shows the picture when Graphviz is there
        dot = shutil.which("dot")
        if dot is None:
            return None
        done = subprocess.run([dot, "-Tsvg"], input=self.dump().encode(), capture_output=True, timeout=60)
        return done.stdout.decode() if done.returncode == 0 else None


def _as_outputs(outputs: Any) -> list[Variable]:
    if isinstance(outputs, Variable):
        return [outputs]
    if not isinstance(outputs, Iterable) or isinstance(outputs, (str, bytes)):
        raise TypeError(
            f"build_computational_graph: outputs must be a Variable or a sequence of Variables, "
            f"got {type(outputs).__name__}"
        )
    outputs = list(outputs)
    for i, y in enumerate(outputs):
        if not isinstance(y, Variable):
            raise TypeError(
                f"build_computational_graph: outputs[{i}] must be a Variable, got {type(y).__name__}"
            )
    return outputs


def build_computational_graph(
    outputs: Variable | Iterable[Variable],
    *,
    show_name: bool = True,
    show_grad: bool = False,
    show_rank: bool = False,
    rankdir: str = "TB",
    variable_style: Mapping[str, Any] | None = None,
    function_style: Mapping[str, Any] | None = None,
) -> ComputationalGraph:
    """Collect the graph that produced ``outputs``, for drawing.

    Walks from the outputs back through each Variable's ``creator`` and each
    node's ``inputs``: everything the outputs depend on, nothing else.

    In the picture, leaf Variables that need a gradient are yellow, Variables
    made by ops are blue, constants (``requires_grad=False``) have a dashed
    outline, and FunctionNodes are grey boxes labelled with their ``label``.

    Args:
        outputs: a Variable or a sequence of Variables.
        show_name: put each Variable's ``name`` (when set) above its shape and dtype.
        show_grad: add each Variable's gradient (its values when small, else
            their range; ``None`` when it has none).
        show_rank: add the rank (generation) that orders the backward pass.
        rankdir: Graphviz layout direction: ``"TB"`` (top to bottom) or ``"LR"``.
        variable_style: Graphviz attributes for every Variable (override the defaults).
        function_style: Graphviz attributes for every FunctionNode.

    Returns:
        A :class:`ComputationalGraph`; call ``.dump()`` for DOT text or
        ``.render("graph.svg")`` for a picture.

    Example:
        >>> import numpy as np, minigrad as mg, minigrad.functions as F
        >>> from minigrad.computational_graph import build_computational_graph
        >>> x = mg.Variable(np.array([1.0, 2.0]), name="x")
        >>> y = F.sum(x * x)
        >>> graph = build_computational_graph(y)
        >>> [n.label if isinstance(n, mg.FunctionNode) else n.name for n in graph.nodes]
        [None, 'Sum', None, 'Mul', 'x']
        >>> len(graph.edges)  # x enters Mul twice
        5
    """
    queue = deque(_as_outputs(outputs))
    nodes: list[Variable | FunctionNode] = list(queue)
    seen = {id(y) for y in queue}
    edges: list[tuple[Variable | FunctionNode, Variable | FunctionNode]] = []

    def visit(obj: Variable | FunctionNode) -> None:
        if id(obj) not in seen:
            seen.add(id(obj))
            nodes.append(obj)
            queue.append(obj)

    # Breadth-first with a queue, not recursion: graphs can be far deeper than
    # Python's recursion limit (a 100,000-step chain is fine).
    while queue:
        obj = queue.popleft()
        if not isinstance(obj, FunctionNode):
            if obj.creator is not None:
                visit(obj.creator)
                edges.append((obj.creator, obj))
        else:
            for x in obj.inputs or ():  # None once unchained
                variable = x()  # the input Variable while someone holds it, else draw its VariableNode
                x = x if variable is None else variable
                visit(x)
                edges.append((x, obj))
    return ComputationalGraph(
        nodes, edges, show_name=show_name, show_grad=show_grad, show_rank=show_rank, rankdir=rankdir,
        variable_style=variable_style, function_style=function_style,
    )


def _format_of(path: str, format: str | None) -> str:
    if format is None:
        format = os.path.splitext(path)[1].lstrip(".").lower()
    if format not in RENDER_FORMATS:
        raise ValueError(
            f"render: cannot tell the picture format of {path!r}: give a path ending in "
            f"{', '.join('.' + f for f in RENDER_FORMATS)} or pass format= one of {RENDER_FORMATS}"
        )
    return format


def render(
    graph: ComputationalGraph | str,
    path: str | os.PathLike[str],
    format: str | None = None,
    *,
    dot_command: str = "dot",
) -> str:
    """Draw ``graph`` (a ComputationalGraph or DOT text) into a PNG, SVG or PDF file.

    Runs the ``dot`` program of Graphviz. The format comes from the file's
    suffix unless ``format`` is given.

    Args:
        graph: a :class:`ComputationalGraph`, or DOT text.
        path: the file to write.
        format: ``"png"``, ``"svg"`` or ``"pdf"``; default: the suffix of ``path``.
        dot_command: the Graphviz program to run (a name on ``PATH`` or a path).

    Returns:
        ``path`` as a string.

    Raises:
        GraphvizNotFoundError: ``dot`` is not installed; the message says how
            to install it.
        RuntimeError: ``dot`` failed (its error output is in the message).

    Example:
        >>> import os, tempfile, numpy as np, minigrad as mg
        >>> from minigrad.computational_graph import build_computational_graph, render
        >>> y = mg.Variable(np.ones(2)) * 2.0
        >>> path = os.path.join(tempfile.mkdtemp(), "graph.svg")
        >>> from minigrad.computational_graph import GraphvizNotFoundError
        >>> try:
        ...     written = render(build_computational_graph(y), path)
        ... except GraphvizNotFoundError:  # no Graphviz on this machine
        ...     written = None
        >>> written is None or open(written).read().count("<svg") == 1
        True
    """
    path = os.fspath(path)
    format = _format_of(path, format)
    if isinstance(graph, ComputationalGraph):
        text = graph.dump()
    elif isinstance(graph, str):
        text = graph
    else:
        raise TypeError(f"render: graph must be a ComputationalGraph or DOT text, got {type(graph).__name__}")
    program = shutil.which(dot_command)
    if program is None:
        raise GraphvizNotFoundError(
            f"render: the Graphviz program {dot_command!r} was not found on PATH, so no {format.upper()} "
            "can be drawn. Install Graphviz (Debian/Ubuntu: `sudo apt-get install graphviz`; macOS: "
            "`brew install graphviz`; conda: `conda install graphviz`), or write the DOT text of "
            "graph.dump() to a file and render it elsewhere."
        )
    done = subprocess.run(
        [program, f"-T{format}", "-o", path], input=text.encode(), capture_output=True, timeout=120
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"render: {program} -T{format} failed with exit status {done.returncode}: "
            f"{done.stderr.decode(errors='replace').strip()}"
        )
    return path
