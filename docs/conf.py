"""Sphinx configuration for minigrad's docs.

Build (warnings are errors) and run every example:
    python -m sphinx -W --keep-going -b html docs docs/_build/html
    python -m sphinx -W --keep-going -b doctest docs docs/_build/doctest
"""

from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "_ext"))
sys.path.insert(0, os.path.dirname(HERE))  # document the working tree, installed or not

import minigrad  # noqa: E402

project = "minigrad"
author = "the minigrad authors"
copyright = "the minigrad authors"
release = version = minigrad.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.doctest",
    "sphinx.ext.viewcode",
    "sphinx-mathjax-offline",  # MathJax ships with the site, so formulas render without a network
    "minigrad_docs",
    "minigrad_notebooks",  # each tutorial step also as a notebook, made from the page, linked at its top
]

exclude_patterns = ["_build", "_generated", "README-snippet.md", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []

# --- HTML ---------------------------------------------------------------------
html_theme = "furo"
html_title = f"minigrad {release}"
html_static_path = ["_static"]
html_theme_options = {"source_directory": "docs/", "navigation_with_keys": True}
pygments_style = "sphinx"
pygments_dark_style = "monokai"

# --- API reference ------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_typehints_format = "short"
autodoc_default_options = {"undoc-members": False}
autosummary_generate = False  # the minigrad-api directive writes the pages' content itself
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
napoleon_use_ivar = True  # dataclass fields are documented once, by autodoc
napoleon_custom_sections = [("Override", "params_style")]  # LinkTestCase: the methods a subclass writes
# Every public name of these packages must appear somewhere in the reference (else a warning).
minigrad_api_packages = [
    "minigrad",
    "minigrad.functions",
    "minigrad.links",
    "minigrad.optimizers",
    "minigrad.optimizer_hooks",
    "minigrad.initializers",
    "minigrad.serializers",
    "minigrad.testing",
    "minigrad.computational_graph",
    "minigrad.backward_steps",
    "minigrad.functional",
]

# --- doctest: every example in the docs (and in docstrings pulled in by autodoc) --
# No set-up for the examples: every page imports what it uses, so that it runs when pasted into a fresh
# interpreter (tests/test_docs_pasteable.py runs each page that way). `gpu_available` is only for the
# `:skipif: not gpu_available` option of the GPU examples, which Sphinx evaluates in this set-up.
doctest_global_setup = """
from minigrad import backend as _backend
gpu_available = _backend.is_cupy_available()
"""
import doctest  # noqa: E402

doctest_default_flags = (
    doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE | doctest.DONT_ACCEPT_TRUE_FOR_1
)
