"""The core's underscore names stay in the core: the op library, links, optimizers and the testing
tools use only its public API (an op author's part of it is ``minigrad.functions.checks``), so
the core can change inside without breaking them."""

from __future__ import annotations

import ast
from pathlib import Path

import minigrad

PACKAGE = Path(minigrad.__file__).parent
CORE = ("variable", "function_node", "configuration", "backend")
CLIENT_PACKAGES = ("functions", "links", "optimizers", "testing")


def _private(name: str) -> bool:
    return len(name) > 1 and name.startswith("_") and not name.startswith("__")


def core_private_names() -> set[str]:
    """Every underscore name the core defines: globals, functions, classes, methods, class
    attributes, ``__slots__`` entries and the attributes it assigns (``self._x = ...``)."""
    names: set[str] = set()
    for module in CORE:
        for node in ast.walk(ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                names.add(node.value)
    return {name for name in names if _private(name) and name.isidentifier()}


def uses_of(names: set[str], source: str) -> list[tuple[int, str]]:
    """``(line, name)`` for each attribute access, import from the core, or string naming one of ``names``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            used = [node.attr]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] in CORE:
            used = [alias.name for alias in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):  # getattr(x, "_data")
            used = [node.value]
        else:
            continue
        found += [(node.lineno, name) for name in used if name in names]
    return sorted(found)


def test_the_finder_knows_the_names_it_guards():
    names = core_private_names()
    assert {"_data", "_grad_var", "_index"} <= names, sorted(names)  # Variable's slots
    assert all(name.startswith("_") for name in names)


def test_the_finder_flags_imports_attributes_and_getattr():
    source = "from minigrad.variable import Variable, _x\ny = v._data\nz = getattr(v, '_grad_var')\nw = v.data\n"
    assert uses_of({"_x", "_data", "_grad_var"}, source) == [(1, "_x"), (2, "_data"), (3, "_grad_var")]


def test_no_underscore_name_of_the_core_outside_it():
    names = core_private_names()
    clients = [path for package in CLIENT_PACKAGES for path in (PACKAGE / package).rglob("*.py")]
    clients += [path for path in PACKAGE.glob("*.py") if path.stem not in CORE]  # link.py, serializers.py, ...
    uses = [f"{path.relative_to(PACKAGE.parent)}:{line}: {name}" for path in sorted(clients)
            for line, name in uses_of(names, path.read_text(encoding="utf-8"))]
    assert not uses, "underscore names of the core used outside it:\n" + "\n".join(uses)
