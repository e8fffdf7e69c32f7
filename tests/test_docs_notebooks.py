"""The tutorial's notebooks (docs/_ext/minigrad_notebooks.py): made from the pages, every example in a code cell in
the page's order, and a run whose outputs differ from the page's is caught. Running them needs a Jupyter kernel
(the ``notebooks`` extra); CI does that in its own step (.ci/run), so this file only converts and compares."""

from __future__ import annotations

import doctest
import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("minigrad_notebooks", ROOT / "docs" / "_ext" / "minigrad_notebooks.py")
notebooks = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("minigrad_notebooks", notebooks)
_spec.loader.exec_module(notebooks)

STEPS = sorted((ROOT / "docs").glob(notebooks.TUTORIAL_STEPS))
DRAWING = ("def draw():", "def steps_to_draw():", "import inspect")


def example_cells(nb):
    return [c for c in nb["cells"] if c["cell_type"] == "code" and not any(m in c["source"] for m in DRAWING)]


def test_every_numbered_step_gets_a_notebook(tmp_path):
    assert len(STEPS) >= 8 and all(page.name[:2].isdigit() for page in STEPS)
    paths = notebooks.write_notebooks(tmp_path)
    assert [p.name for p in paths] == [page.stem + ".ipynb" for page in STEPS]
    for path in paths:
        nb = json.loads(path.read_text(encoding="utf-8"))
        assert nb["nbformat"] == 4 and nb["metadata"]["kernelspec"]["name"] == "python3"
        assert len({cell["id"] for cell in nb["cells"]}) == len(nb["cells"])


@pytest.mark.parametrize("page", STEPS, ids=lambda page: page.name)
def test_every_example_is_in_a_code_cell_in_the_pages_order(page):
    examples = doctest.DocTestParser().get_examples(page.read_text(encoding="utf-8"))
    cells = example_cells(notebooks.notebook(page))
    assert "".join(cell["source"] + "\n" for cell in cells) == "".join(example.source for example in examples)
    shown = [c["metadata"]["minigrad"]["expected"] for c in cells if c["metadata"].get("minigrad", {}).get("expected")]
    assert shown == [example.want for example in examples if example.want and example.exc_msg is None]


def test_a_cell_ends_at_each_output_and_an_exception_has_a_cell_of_its_own():
    text = ("Title\n=====\n\nSome ``code`` and :class:`~minigrad.Variable`::\n\n    literal\n\n"
            ">>> a = 1\n>>> a + 1\n2\n>>> b = 3\n>>> 1 / 0\nTraceback (most recent call last):\n  ...\n"
            "ZeroDivisionError: division by zero\n>>> b\n3\n\n.. math::\n\n   x^2\n\nEnd.\n")
    cells = notebooks.page_cells(text, "page.rst")
    kinds = [(c["cell_type"], c["source"]) for c in cells[1:]]
    assert kinds[0] == ("markdown", "# Title\n\nSome `code` and `Variable`:\n```python\nliteral\n```")
    assert kinds[1:5] == [("code", "a = 1\na + 1"), ("code", "b = 3"), ("code", "1 / 0"), ("code", "b")]
    assert cells[4]["metadata"]["tags"] == ["raises-exception"]
    assert kinds[5] == ("markdown", "$$\nx^2\n$$\n\nEnd.")


def test_graph_pictures_and_quoted_code_become_cells_that_draw_and_print_them():
    nb = notebooks.notebook(ROOT / "docs" / "tutorial" / "03-backward.rst")
    sources = [c["source"] for c in nb["cells"] if c["cell_type"] == "code"]
    assert any("print(inspect.getsource(minigrad.function_node._backprop))" in s for s in sources)
    assert any(s.startswith("from minigrad.computational_graph import build_computational_graph") for s in sources)
    assert any("steps_to_draw().render(" in s for s in sources)


def run_cell(source, outputs, expected=None, raises=None):
    cell = notebooks.code_cell(source, expected=expected, raises=raises)
    cell["outputs"] = outputs
    return {"cells": [cell]}


def stdout(text):
    return {"output_type": "stream", "name": "stdout", "text": text}


def result(text):
    return {"output_type": "execute_result", "data": {"text/plain": text}, "metadata": {}, "execution_count": 1}


def test_a_run_is_compared_with_the_page_as_doctest_compares():
    assert notebooks.check_outputs(run_cell("f(x)", [result("array([1., 2.])")], expected="array([1., ...])\n"),
                                   "nb") == []
    assert notebooks.check_outputs(run_cell("print(1)", [stdout("1\n")], expected="1\n"), "nb") == []
    wrong = notebooks.check_outputs(run_cell("f(x)", [result("array([1., 3.])")], expected="array([1., 2.])\n"),
                                    "nb")
    assert len(wrong) == 1 and "expected:" in wrong[0] and "array([1., 3.])" in wrong[0]
    warned = notebooks.check_outputs(run_cell("g()", [{"output_type": "stream", "name": "stderr",
                                                        "text": "DeprecationWarning: old\n"}]), "nb")
    assert len(warned) == 1 and "stderr" in warned[0]
    error = {"output_type": "error", "ename": "GradientCheckError", "evalue": "check_backward: wrong", "traceback": []}
    raising = run_cell("check()", [error], raises="minigrad.testing.gradient_check.GradientCheckError: check_backward:"
                                                  " wrong\n")
    assert notebooks.check_outputs(raising, "nb") == []
    assert notebooks.check_outputs(run_cell("check()", [], raises="ValueError: x\n"), "nb") != []


def test_markdown_keeps_the_meaning_of_inline_markup():
    md = notebooks.inline_markdown
    assert md(":func:`~minigrad.testing.check_backward`") == "`check_backward`"
    assert md(":meth:`FunctionNode.apply <minigrad.FunctionNode.apply>`") == "`FunctionNode.apply`"
    assert md(":doc:`08-checking`") == "08-checking" and md(":doc:`the how-tos </howto/index>`") == "the how-tos"
    assert md(":math:`x^2`") == "$x^2$" and md("`CuPy <https://cupy.dev>`_") == "[CuPy](https://cupy.dev)"
