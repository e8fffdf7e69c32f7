"""Derive the public names of a pinned CuPy release from its source, for the CuPy simulator.

Reads the release's files straight from a git clone of github.com/cupy/cupy (``git show TAG:path``),
parses each module with ``ast`` (nothing is imported or executed) and writes one section per module:
every name bound at module level (imports, assignments, ``def``, ``class``, in ``if``/``try`` branches
too) that does not start with ``_``, plus the subpackages a ``from cupy.X... import`` binds as a side
effect, plus the names a module-level ``__getattr__`` serves lazily (listed by hand below, with the
line of source that serves them). For ``cupy.ndarray``: the ``def``/``cpdef``/``property`` names of
``_ndarray_base`` in ``cupy/_core/core.pyx`` and its ``readonly`` attributes in ``core.pxd`` (Cython
files, so a regex over the class body).

    python scripts/derive_cupy_names.py /path/to/cupy.git v13.6.0 > minigrad/testing/cupy_sim/cupy_names.txt
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys

MODULES = {  # section -> file in the CuPy tree
    "cupy": "cupy/__init__.py",
    "cupy.random": "cupy/random/__init__.py",
    "cupy.lib.stride_tricks": "cupy/lib/stride_tricks.py",
    "cupy.linalg": "cupy/linalg/__init__.py",
    "cupyx": "cupyx/__init__.py",
}
LAZY = {  # served by the module's __getattr__
    "cupy.random": ["Generator"],  # `if key == 'Generator':` in cupy/random/__init__.py
}


def show(repo: str, tag: str, path: str) -> str:
    return subprocess.run(["git", "--git-dir", repo, "show", f"{tag}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def module_names(source: str, package: str) -> set[str]:
    names: set[str] = set()
    root = package.split(".")[0]

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for alias in node.names:
                    if isinstance(node, ast.Import):  # `import cupy.x` binds `cupy`; `import a as b` binds b
                        if alias.asname:
                            names.add(alias.asname)
                    else:
                        names.add(alias.asname or alias.name)
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                    parts = node.module.split(".")  # `from cupy.lib._x import y` binds cupy.lib too
                    if parts[0] == root and ".".join(parts[:len(package.split("."))]) == package \
                            and len(parts) > len(package.split(".")):
                        names.add(parts[len(package.split("."))])
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                for target in node.targets:
                    for leaf in ast.walk(target):
                        if isinstance(leaf, ast.Name):
                            names.add(leaf.id)
            elif isinstance(node, ast.If):
                visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)

    visit(ast.parse(source).body)
    return {n for n in names if not n.startswith("_")}


def ndarray_names(core_pyx: str) -> set[str]:
    start = core_pyx.index("cdef class _ndarray_base")
    end = core_pyx.index("\ncdef ", start + 1)
    body = core_pyx[start:end]
    found = re.findall(r"^    (?:cpdef|def) (?:[A-Za-z_]+ )?([A-Za-z_][A-Za-z_0-9]*)\(", body, re.M)
    found += re.findall(r"^    property ([A-Za-z_][A-Za-z_0-9]*):", body, re.M)
    return {n for n in found if not n.startswith("_")}


def ndarray_attributes(core_pxd: str) -> set[str]:
    found = re.findall(r"^\s+(?:readonly|public) \S+ ([A-Za-z_][A-Za-z_0-9]*)\s*$", core_pxd, re.M)
    return {n for n in found if not n.startswith("_")}


def main(repo: str, tag: str) -> None:
    print(f"# Public names of CuPy {tag}, derived by scripts/derive_cupy_names.py from the CuPy source tree")
    print("# (ast over each module, no import; see the script's docstring). One section per module.")
    for section, path in MODULES.items():
        names = module_names(show(repo, tag, path), section) | set(LAZY.get(section, ()))
        print(f"\n[{section}]")
        print("\n".join(sorted(names)))
    print("\n[cupy.ndarray]")
    names = ndarray_names(show(repo, tag, "cupy/_core/core.pyx"))
    names |= ndarray_attributes(show(repo, tag, "cupy/_core/core.pxd"))
    print("\n".join(sorted(names)))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
