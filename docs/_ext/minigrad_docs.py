"""Sphinx extension for minigrad's docs: graph pictures and API pages that follow the code.

``.. minigrad-graph:: NAME``
    Runs the Python code in its body (``np``, ``mg``, ``F`` and
    ``build_computational_graph`` are predefined; the code must assign a
    ``ComputationalGraph`` to ``graph``), draws the graph to SVG with
    ``minigrad.computational_graph.render`` (Graphviz's ``dot``), and shows the
    code (unless ``:hide-code:``) and the picture with ``:caption:``/``:alt:``.
    Without Graphviz the build logs one error saying how to install it (so
    ``sphinx-build -W`` fails) and shows the DOT text in place of each picture;
    ``MINIGRAD_DOCS_SKIP_GRAPHS=1`` makes that fallback deliberate (no error).

``.. minigrad-api:: MODULE``
    Documents every public name of MODULE (its ``__all__``, or for a package
    whose ``__init__`` star-imports its submodules, their ``__all__``): a summary
    table, then ``autofunction``/``autoclass`` for each function and class.
    New ops, links or optimizers appear without editing the docs. A function
    family lists its FunctionNode classes in a table only (their wrappers carry
    the docs). ``:optional:`` turns a missing module into a note instead of a
    warning.

At the end of the build, every public name of ``minigrad``,
``minigrad.functions`` and the packages named in ``minigrad_api_packages``
that no ``minigrad-api`` (or hand-written autodoc) covered is a warning, so
``sphinx-build -W`` fails until it is documented.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import pkgutil
import shutil
from types import ModuleType
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

GRAPH_DIR = "_generated/graphs"  # under the source directory; ignored by git
SKIP_GRAPHS_ENV = "MINIGRAD_DOCS_SKIP_GRAPHS"
GRAPH_PRELUDE = (
    "import numpy as np\n"
    "import minigrad as mg\n"
    "import minigrad.functions as F\n"
    "from minigrad.computational_graph import build_computational_graph\n"
)


# --- graph pictures -------------------------------------------------------------

class MinigradGraph(SphinxDirective):
    required_arguments = 1
    has_content = True
    option_spec = {
        "caption": directives.unchanged,
        "alt": directives.unchanged,
        "hide-code": directives.flag,
        "width": directives.length_or_percentage_or_unitless,
    }

    def run(self) -> list[nodes.Node]:
        from minigrad.computational_graph import ComputationalGraph, render

        code = "\n".join(self.content)
        namespace: dict[str, Any] = {}
        where = f"{self.env.docname}.rst, minigrad-graph {self.arguments[0]!r}"
        try:
            exec(compile(GRAPH_PRELUDE + code, where, "exec"), namespace)
        except Exception as error:
            raise self.error(f"{where}: the code raised {type(error).__name__}: {error}") from error
        graph = namespace.get("graph")
        if not isinstance(graph, ComputationalGraph):
            raise self.error(f"{where}: the code must assign a ComputationalGraph to `graph`")

        result: list[nodes.Node] = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code, language="python")
            self.set_source_info(block)
            result.append(block)

        dot_text = graph.dump()
        if os.environ.get(SKIP_GRAPHS_ENV) or shutil.which("dot") is None:  # see _check_graphviz
            block = nodes.literal_block(dot_text, dot_text, language="dot")
            self.set_source_info(block)
            return [*result, block]

        stem = f"{self.env.docname.replace('/', '-')}-{self.arguments[0]}"
        digest = hashlib.sha1(dot_text.encode()).hexdigest()[:10]
        relative = f"{GRAPH_DIR}/{stem}-{digest}.svg"  # the digest makes browsers reload a changed picture
        target = os.path.join(self.env.srcdir, relative)
        if not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            render(dot_text, target + ".tmp", format="svg")
            os.replace(target + ".tmp", target)

        image = nodes.image(uri="/" + relative, alt=self.options.get("alt", self.options.get("caption", "")))
        if "width" in self.options:
            image["width"] = self.options["width"]
        figure = nodes.figure("", image, classes=["minigrad-graph"])
        if "caption" in self.options:
            parsed, _ = self.state.inline_text(self.options["caption"], self.lineno)
            figure += nodes.caption(self.options["caption"], "", *parsed)
        self.set_source_info(figure)
        return [*result, figure]


# --- a backward pass, step by step -------------------------------------------------

class MinigradBackwardSteps(SphinxDirective):
    """``.. minigrad-backward-steps:: NAME``: one picture per step of a backward pass, with Prev/Next buttons.

    The body is Python that assigns a :class:`minigrad.backward_steps.BackwardSteps` to ``steps`` (it imports
    what it uses: nothing is predefined). Each frame is drawn without a title (so all have one size) and
    captioned with ``steps.describe(frame)``. Without JavaScript every frame shows, one below the other.
    """

    required_arguments = 1
    has_content = True
    option_spec = {"hide-code": directives.flag, "alt": directives.unchanged}

    def run(self) -> list[nodes.Node]:
        from minigrad.backward_steps import BackwardSteps
        from minigrad.computational_graph import render

        code = "\n".join(self.content)
        namespace: dict[str, Any] = {}
        where = f"{self.env.docname}.rst, minigrad-backward-steps {self.arguments[0]!r}"
        try:
            exec(compile(code, where, "exec"), namespace)
        except Exception as error:
            raise self.error(f"{where}: the code raised {type(error).__name__}: {error}") from error
        steps = namespace.get("steps")
        if not isinstance(steps, BackwardSteps):
            raise self.error(f"{where}: the code must assign a BackwardSteps (record_backward's result) to `steps`")
        result: list[nodes.Node] = []
        if "hide-code" not in self.options:
            block = nodes.literal_block(code, code, language="python")
            self.set_source_info(block)
            result.append(block)
        stepper = nodes.container(classes=["minigrad-stepper"])
        for frame in range(len(steps) + 1):
            dot_text = steps.dump(frame, title=False)
            if os.environ.get(SKIP_GRAPHS_ENV) or shutil.which("dot") is None:  # see _check_graphviz
                figure = nodes.figure("", nodes.literal_block(dot_text, dot_text, language="dot"))
            else:
                stem = f"{self.env.docname.replace('/', '-')}-{self.arguments[0]}-{frame}"
                relative = f"{GRAPH_DIR}/{stem}-{hashlib.sha1(dot_text.encode()).hexdigest()[:10]}.svg"
                target = os.path.join(self.env.srcdir, relative)
                if not os.path.exists(target):
                    os.makedirs(os.path.dirname(target), exist_ok=True)
                    render(dot_text, target + ".tmp", format="svg")
                    os.replace(target + ".tmp", target)
                alt = f"{self.options.get('alt', 'backward pass')}, frame {frame}: {steps.describe(frame)}"
                figure = nodes.figure("", nodes.image(uri="/" + relative, alt=alt), classes=["minigrad-graph"])
            figure += nodes.caption("", steps.describe(frame))
            stepper += figure
        self.set_source_info(stepper)
        return [*result, stepper]


# --- API pages --------------------------------------------------------------------

def _public_names(module: ModuleType) -> list[tuple[str, Any, str]]:
    """(name, object, defining module) for each public name, in ``__all__`` order.

    A package without ``__all__`` (the function families) is the union of its
    submodules' ``__all__``, submodules in alphabetical order.
    """
    names = getattr(module, "__all__", None)
    if names is not None:
        return [(n, getattr(module, n), module.__name__) for n in names]
    entries: list[tuple[str, Any, str]] = []
    pending = [module]
    while pending:  # subpackages without __all__ (minigrad.functions -> its families) are walked too
        package = pending.pop(0)
        for info in sorted(pkgutil.iter_modules(getattr(package, "__path__", [])), key=lambda i: i.name):
            if info.name.startswith("_"):
                continue
            sub = importlib.import_module(f"{package.__name__}.{info.name}")
            if not hasattr(sub, "__all__"):
                pending.append(sub)
                continue
            for n in sub.__all__:
                exported = getattr(module, n, None)  # a family keeps the module where a function has its name
                if exported is not None and (exported is getattr(sub, n, None) or exported is sub):
                    entries.append((n, getattr(sub, n), sub.__name__))
    return entries


def _is_node_class(obj: Any) -> bool:
    from minigrad.function_node import FunctionNode

    return inspect.isclass(obj) and issubclass(obj, FunctionNode)


class MinigradApi(SphinxDirective):
    required_arguments = 1
    has_content = False
    option_spec = {
        "optional": directives.flag,
        "exclude": directives.unchanged,
        "no-members": directives.flag,
    }

    def run(self) -> list[nodes.Node]:
        module_name = self.arguments[0]
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            if "optional" in self.options:
                note = nodes.note()
                note += nodes.paragraph(text=f"{module_name} is not part of this version of minigrad yet.")
                return [note]
            raise self.error(f"minigrad-api: cannot import {module_name}: {error}") from error
        exclude = {n.strip() for n in self.options.get("exclude", "").split(",") if n.strip()}
        entries = [e for e in _public_names(module) if e[0] not in exclude and not inspect.ismodule(e[1])]
        is_family = module_name.startswith("minigrad.functions.")
        documented = [e for e in entries if not (is_family and _is_node_class(e[1]))]
        nodes_only = [e for e in entries if is_family and _is_node_class(e[1])]
        # A family's functions are documented under ``minigrad.functions`` (what users type as F.x).
        prefix = "minigrad.functions" if is_family else module_name

        lines: list[str] = []
        if documented:
            lines += [".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   ~{prefix}.{name}" for name, _, _ in documented]
            lines.append("")
        members = "" if "no-members" in self.options else "   :members:"
        for name, obj, _ in documented:
            if inspect.isclass(obj):
                lines += [f".. autoclass:: {prefix}.{name}"]
                if members:
                    lines += [members, "   :show-inheritance:"]
                lines.append("")
            elif callable(obj):
                lines += [f".. autofunction:: {prefix}.{name}", ""]
            else:
                lines += [f".. autodata:: {prefix}.{name}", "   :no-value:", ""]
        if nodes_only:
            lines += [".. rubric:: FunctionNode classes", "",
                      "The nodes these functions apply (see :doc:`/tutorial/02-function-node`):", "",
                      ".. autosummary::", "   :nosignatures:", ""]
            lines += [f"   ~{module}.{name}" for name, _, module in nodes_only]
            lines.append("")

        covered = _covered(self.env).setdefault(self.env.docname, set())
        for name, obj, origin in entries:
            covered.add(f"{prefix}.{name}")
            covered.add(f"{origin}.{name}")
            covered.add(_key(obj))

        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source=f"<minigrad-api {module_name}>"), container)
        return list(container.children)


def _key(obj: Any) -> str:
    """Where an object is defined (its module and qualified name), to match it however it is reached."""
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', repr(obj))}"


def _covered(env: Any) -> dict[str, set[str]]:
    if not hasattr(env, "minigrad_api_covered"):
        env.minigrad_api_covered = {}
    return env.minigrad_api_covered


def _purge(app: Sphinx, env: Any, docname: str) -> None:
    _covered(env).pop(docname, None)


def _merge(app: Sphinx, env: Any, docnames: set[str], other: Any) -> None:
    for docname, names in _covered(other).items():
        if docname in docnames:
            _covered(env)[docname] = names


def _outdated(app: Sphinx, env: Any, added: set[str], changed: set[str], removed: set[str]) -> list[str]:
    """Re-read the API pages on every build: what they list depends on the code, not on their text."""
    return [docname for docname in _covered(env) if docname not in removed]


def _check_coverage(app: Sphinx, env: Any) -> None:
    """Warn about each public name that no page documents."""
    covered: set[str] = set().union(*_covered(env).values()) if _covered(env) else set()
    covered |= set(env.get_domain("py").objects)  # hand-written autodoc entries count too
    for package in app.config.minigrad_api_packages:
        try:
            module = importlib.import_module(package)
        except ImportError:
            continue
        for name, obj, _ in _public_names(module):
            if inspect.ismodule(obj) or name.startswith("__"):
                continue
            if f"{package}.{name}" not in covered and _key(obj) not in covered:
                logger.warning(f"API reference: {package}.{name} is public but documented nowhere; "
                               f"add it (or its module) to a page under docs/reference/")


def _check_graphviz(app: Sphinx) -> None:
    """No Graphviz: one clear error (so ``-W`` fails), and the pages show DOT text instead of pictures."""
    if shutil.which("dot") is None and not os.environ.get(SKIP_GRAPHS_ENV):
        logger.error(
            "the graph pictures need Graphviz's `dot` program, which is not on PATH. Install Graphviz "
            "(Debian/Ubuntu: `sudo apt-get install graphviz`; macOS: `brew install graphviz`; conda: "
            f"`conda install graphviz`), or set {SKIP_GRAPHS_ENV}=1 to build without pictures (DOT text instead)."
        )


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("minigrad_api_packages", [], "env")
    app.add_directive("minigrad-graph", MinigradGraph)
    app.add_directive("minigrad-api", MinigradApi)
    app.add_directive("minigrad-backward-steps", MinigradBackwardSteps)
    app.connect("builder-inited", _check_graphviz)
    app.connect("env-purge-doc", _purge)
    app.connect("env-merge-info", _merge)
    app.connect("env-get-outdated", _outdated)
    app.connect("env-check-consistency", _check_coverage)
    app.add_css_file("minigrad.css")
    app.add_js_file("minigrad-stepper.js")
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
