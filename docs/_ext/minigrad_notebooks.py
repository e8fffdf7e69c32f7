"""Each tutorial step as a Jupyter notebook, made from its page (the page stays the one source).

Why a converter of our own: the pages are reStructuredText with doctest examples, Sphinx directives and our own
graph directives; jupytext reads Markdown/MyST and scripts, not reST, and MyST-NB would mean rewriting every page
in MyST. The pages need little: each ``>>>`` example becomes a code cell (a cell ends at an example that shows
output, so that Jupyter shows that output; an example that raises gets a cell of its own, tagged
``raises-exception``), the prose between them becomes Markdown, a graph picture becomes a cell that draws it,
and a ``literalinclude`` of minigrad's code becomes a cell that prints that code with ``inspect``. The JSON is
written directly (nbformat 4.5), so the docs build needs nothing more.

As a Sphinx extension it writes ``_generated/notebooks/<step>.ipynb`` when the build starts and puts a download
link at the top of each step. From the command line it builds them and, with ``--execute``, runs each in a
Jupyter kernel (the ``notebooks`` extra: nbclient, ipykernel) and compares every output with the page's, as
doctest does (ELLIPSIS, NORMALIZE_WHITESPACE); anything on stderr (a warning) is a failure too:

    python docs/_ext/minigrad_notebooks.py --out docs/_build/notebooks --execute
"""

from __future__ import annotations

import argparse
import doctest
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parents[1]
TUTORIAL_STEPS = "tutorial/[0-9]*.rst"  # every numbered step, found by glob: a new step gets its notebook
NOTEBOOK_DIR = "_generated/notebooks"  # under the docs source directory (ignored by git)
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
DIRECTIVE = re.compile(r"^\.\. (?P<name>[\w:-]+)::\s*(?P<argument>.*)$")
HEADING_LEVELS = {"=": "#", "-": "##", "~": "###", "^": "####"}


# --- reST prose -> Markdown ------------------------------------------------------------------

def inline_markdown(text: str) -> str:
    """reST inline markup as Markdown: literals, roles, links; bold and emphasis are the same in both."""
    text = re.sub(r"``(.+?)``", r"`\1`", text)
    text = re.sub(r":math:`(.+?)`", r"$\1$", text)
    text = re.sub(r":(?:doc|ref):`([^`<]+?)\s*<[^`]+>`", r"\1", text)  # a titled cross-reference: its title
    text = re.sub(r":doc:`/?(?:\w+/)*([^`]+)`", r"\1", text)
    text = re.sub(r":ref:`([^`]+)`", r"\1", text)
    text = re.sub(r":\w+:`([^`<]+?)\s*<[^`]+>`", r"`\1`", text)  # :meth:`title <target>`: the title
    text = re.sub(r":\w+:`~([\w.]+\.)?([^`]+)`", r"`\2`", text)  # :class:`~minigrad.Variable` -> `Variable`
    text = re.sub(r":\w+:`([^`]+)`", r"`\1`", text)
    return re.sub(r"`([^`<]+?)\s*<(https?://[^>]+)>`_", r"[\1](\2)", text)


def prose_markdown(lines: list[str]) -> str:
    """A stretch of reST between examples as Markdown (headings, literal blocks, math, notes)."""
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and nxt and set(nxt.strip()) <= set(HEADING_LEVELS) and len(nxt.strip()) >= len(line.strip()):
            out.append(f"{HEADING_LEVELS[nxt.strip()[0]]} {inline_markdown(line.strip())}")
            i += 2
            continue
        directive = DIRECTIVE.match(line)
        body, end = _indented_block(lines, i + 1)
        if directive:
            out.append(_directive_markdown(directive["name"], directive["argument"], body))
            i = end
            continue
        if line.rstrip().endswith("::") and not line.strip().startswith(".."):
            out.append(inline_markdown(line.rstrip()[:-1]))
            out.append("```python\n" + "\n".join(body).strip("\n") + "\n```")
            i = end
            continue
        out.append(inline_markdown(line))
        i += 1
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip()


def _indented_block(lines: list[str], start: int) -> tuple[list[str], int]:
    """The lines from ``start`` that are indented or blank (a directive's options and body), dedented."""
    end = start
    while end < len(lines) and (not lines[end].strip() or lines[end][:1].isspace()):
        end += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return textwrap.dedent("\n".join(lines[start:end])).splitlines(), end


def _body(block: list[str]) -> list[str]:
    """A directive's body without its ``:option:`` lines."""
    return [line for line in block if not re.match(r"^:[\w-]+:", line)]


def _directive_markdown(name: str, argument: str, block: list[str]) -> str:
    body = _body(block)
    if name == "math":
        return "$$\n" + "\n".join(body).strip() + "\n$$"
    if name in ("code-block", "code"):
        return f"```{argument or ''}\n" + "\n".join(body).strip("\n") + "\n```"
    if name in ("note", "tip", "warning", "admonition"):
        return "\n".join("> " + inline_markdown(line) for line in body)
    return ""  # toctree, testsetup, only, figures drawn elsewhere: nothing to show in a notebook


# --- the page -> cells ---------------------------------------------------------------------------

def markdown_cell(text: str) -> dict[str, Any]:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code_cell(source: str, expected: str | None = None, raises: str | None = None) -> dict[str, Any]:
    metadata: dict[str, Any] = {}
    if expected is not None or raises is not None:
        metadata["minigrad"] = {"expected": expected or "", "raises": raises}
    if raises is not None:
        metadata["tags"] = ["raises-exception"]
    return {"cell_type": "code", "execution_count": None, "metadata": metadata, "outputs": [], "source": source}


def _example_cells(examples: list[doctest.Example]) -> list[dict[str, Any]]:
    """Consecutive examples as cells, each ending at one that shows output (Jupyter shows only the last)."""
    cells, pending = [], []
    for example in examples:
        if example.exc_msg is not None:  # raises: a cell of its own, so the cells before it all run
            if pending:
                cells.append(code_cell("".join(pending).rstrip("\n")))
                pending = []
            cells.append(code_cell(example.source.rstrip("\n"), raises=example.exc_msg))
            continue
        pending.append(example.source)
        if example.want:
            cells.append(code_cell("".join(pending).rstrip("\n"), expected=example.want))
            pending = []
    if pending:
        cells.append(code_cell("".join(pending).rstrip("\n")))
    return cells


def _literalinclude_cell(argument: str, block: list[str]) -> dict[str, Any] | None:
    """``literalinclude`` of minigrad's code with ``:pyobject:``: a cell that prints that code."""
    options = dict(re.findall(r"^:([\w-]+):\s*(.*)$", "\n".join(block), flags=re.M))
    match = re.match(r"(?:\.\./)+(minigrad/.+)\.py$", argument)
    if not match or "pyobject" not in options:
        return None
    module = match[1].replace("/", ".")
    return code_cell(f"import inspect\nimport {module}\n\nprint(inspect.getsource({module}.{options['pyobject']}))")


def _drawing_cell(name: str, argument: str, block: list[str]) -> dict[str, Any]:
    """A graph picture as a cell that draws it (Graphviz's ``dot`` needed); it runs in a function of its own,
    so that the names of the page keep their values."""
    code = textwrap.indent("\n".join(_body(block)).strip(), "    ")
    if name == "minigrad-graph":
        return code_cell("from minigrad.computational_graph import build_computational_graph\n\n\n"
                         f"def draw():  # the picture {argument!r} of the page\n{code}\n    return graph\n\n\ndraw()")
    return code_cell("import tempfile\nfrom IPython.display import SVG, display\n\n\n"
                     f"def steps_to_draw():  # the pictures {argument!r} of the page\n{code}\n    return steps\n\n\n"
                     "for path in steps_to_draw().render(tempfile.mkdtemp(), title=True):\n"
                     "    display(SVG(filename=path))")


def page_cells(text: str, source_name: str) -> list[dict[str, Any]]:
    """The notebook cells of one page: prose, examples, pictures and quoted code, in the page's order."""
    lines = text.splitlines()
    starting: dict[int, list[doctest.Example]] = {}
    for example in doctest.DocTestParser().get_examples(text):
        starting.setdefault(example.lineno, []).append(example)
    cells = [markdown_cell(f"*Made from `{source_name}`: the page of minigrad's docs has the same text, with the "
                           "pictures drawn and the links working.*")]
    prose: list[str] = []

    def flush_prose() -> None:
        markdown = prose_markdown(prose)
        if markdown:
            cells.append(markdown_cell(markdown))
        prose.clear()

    i = 0
    while i < len(lines):
        if i in starting:  # a block of examples: each starts where the one before it ends
            flush_prose()
            group: list[doctest.Example] = []
            while i in starting:
                for example in starting[i]:
                    group.append(example)
                    i = example.lineno + example.source.count("\n") + example.want.count("\n")
            cells.extend(_example_cells(group))
            continue
        directive = DIRECTIVE.match(lines[i].strip())
        if directive and directive["name"] == "doctest":  # its examples are found above; drop its options
            i += 1
            while i < len(lines) and re.match(r"^\s+:[\w-]+:", lines[i]):
                i += 1
            continue
        if directive and directive["name"] in ("minigrad-graph", "minigrad-backward-steps", "literalinclude"):
            block, i = _indented_block(lines, i + 1)
            cell = (_literalinclude_cell(directive["argument"], block) if directive["name"] == "literalinclude"
                    else _drawing_cell(directive["name"], directive["argument"], block))
            if cell is not None:
                flush_prose()
                cells.append(cell)
            continue
        prose.append(lines[i])
        i += 1
    flush_prose()
    return cells


def notebook(page: Path) -> dict[str, Any]:
    """The notebook of one page, as nbformat 4.5 JSON data."""
    source_name = page.relative_to(DOCS.parent).as_posix() if page.is_relative_to(DOCS.parent) else page.name
    cells = page_cells(page.read_text(encoding="utf-8"), source_name)
    for number, cell in enumerate(cells):
        cell["id"] = f"cell-{number}"
    return {"cells": cells, "nbformat": 4, "nbformat_minor": 5,
            "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                         "language_info": {"name": "python"}}}


def write_notebooks(out: Path, pages: list[Path] | None = None) -> list[Path]:
    """Write the notebook of each page (default: every tutorial step) into ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for page in pages or sorted(DOCS.glob(TUTORIAL_STEPS)):
        path = out / f"{page.stem}.ipynb"
        text = json.dumps(notebook(page), indent=1, ensure_ascii=False) + "\n"
        if not path.exists() or path.read_text(encoding="utf-8") != text:  # unchanged: keep the file (and its time)
            path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


# --- running them ------------------------------------------------------------------------------

def _cell_text(cell: dict[str, Any]) -> tuple[str, str, dict[str, Any] | None]:
    """What a run cell printed and displayed as text, what it wrote to stderr, and its error (if any)."""
    out, err, error = [], [], None
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            (out if output["name"] == "stdout" else err).append("".join(output["text"]))
        elif kind in ("execute_result", "display_data") and "text/plain" in output["data"] \
                and not any(key.startswith("image/") for key in output["data"]):
            out.append("".join(output["data"]["text/plain"]) + "\n")
        elif kind == "error":
            error = output
    return "".join(out), "".join(err), error


def check_outputs(nb: dict[str, Any], name: str) -> list[str]:
    """Each executed code cell against the output its page shows: the problems found (none: it matches)."""
    checker, problems = doctest.OutputChecker(), []
    for number, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        out, err, error = _cell_text(cell)
        where = f"{name}, cell {number}:\n{textwrap.indent(''.join(cell['source']), '    ')}\n"
        if err.strip():
            problems.append(f"{where}  wrote to stderr (a warning?):\n{textwrap.indent(err, '    ')}")
        expected = cell["metadata"].get("minigrad")
        if expected is None:
            continue
        if expected["raises"] is not None:
            got = "no exception" if error is None else f"{error['ename']}: {error['evalue']}\n"
            want = re.sub(r"^[\w.]+\.(\w+):", r"\1:", expected["raises"])  # Jupyter names the class alone
            if not checker.check_output(want, got, FLAGS):
                problems.append(f"{where}  expected {want!r}\n  got {got!r}")
        elif not checker.check_output(expected["expected"], out, FLAGS):
            problems.append(f"{where}  expected:\n{textwrap.indent(expected['expected'], '    ')}"
                            f"  got:\n{textwrap.indent(out, '    ')}")
    return problems


def execute(path: Path, workdir: Path) -> list[str]:
    """Run the notebook at ``path`` in a fresh kernel (in ``workdir``), save it run, and check its outputs."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(workdir)}})
    try:
        client.execute()
    except CellExecutionError as error:  # an exception no example expects
        return [f"{path.name}: {str(error).strip()[-3000:]}"]
    nbformat.write(nb, path)
    return check_outputs(nb, path.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the tutorial's notebooks from its pages (and run them).")
    parser.add_argument("--out", type=Path, required=True, help="where to write the .ipynb files")
    parser.add_argument("--execute", action="store_true", help="run each in a Jupyter kernel and compare outputs")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to convert (default: every tutorial step)")
    args = parser.parse_args(argv)
    paths = write_notebooks(args.out, [page.resolve() for page in args.pages] or None)
    print(f"{len(paths)} notebooks in {args.out}: {', '.join(path.name for path in paths)}")
    if not args.execute:
        return 0
    import tempfile
    import time

    failures = []
    for path in paths:
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as workdir:
            problems = execute(path, Path(workdir))
        print(f"  {path.name}: {'ok' if not problems else f'{len(problems)} problems'} "
              f"({time.perf_counter() - start:.1f}s)")
        failures += problems
    for problem in failures:
        print(f"\n{problem}", file=sys.stderr)
    return 1 if failures else 0


# --- the Sphinx extension ----------------------------------------------------------------------

def _is_step(docname: str) -> bool:
    return Path(docname + ".rst").match(TUTORIAL_STEPS)


def _build_notebooks(app: Any) -> None:
    write_notebooks(Path(app.srcdir) / NOTEBOOK_DIR)


def _add_link(app: Any, docname: str, source: list[str]) -> None:
    """Every tutorial step gets the link; the directive's note moves to the top of the page (``_move_link``)."""
    if _is_step(docname):
        source[0] += "\n\n.. minigrad-notebook::\n"


def _move_link(app: Any, doctree: Any) -> None:
    from docutils import nodes

    for note in list(doctree.findall(lambda node: isinstance(node, nodes.Element)
                                     and "minigrad-notebook" in node.get("classes", []))):
        section = next(iter(doctree.findall(nodes.section)), None)
        if section is not None:
            note.parent.remove(note)
            section.insert(1, note)  # after the title


def setup(app: Any) -> dict[str, Any]:
    from docutils import nodes
    from docutils.statemachine import StringList
    from sphinx.util.docutils import SphinxDirective

    class NotebookLink(SphinxDirective):
        """``.. minigrad-notebook::``: "this step as a notebook", with a download link to the page's notebook."""

        def run(self) -> list[Any]:
            stem = Path(self.env.docname).name
            text = (f"This step is also a Jupyter notebook, made from this page: "
                    f":download:`{stem}.ipynb </{NOTEBOOK_DIR}/{stem}.ipynb>` (run it with ``pip install "
                    f"jupyter`` and ``jupyter notebook {stem}.ipynb``).")
            note = nodes.admonition(classes=["minigrad-notebook", "tip"])
            note += nodes.title("", "Notebook")
            self.state.nested_parse(StringList([text], source=f"<notebook link of {stem}>"), self.content_offset, note)
            return [note]

    app.add_directive("minigrad-notebook", NotebookLink)
    app.connect("builder-inited", _build_notebooks)
    app.connect("source-read", _add_link)
    app.connect("doctree-read", _move_link)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}


if __name__ == "__main__":
    sys.exit(main())
