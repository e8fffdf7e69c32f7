"""Chainer's module paths (issue 31): ``minigrad.functions.<family>.<name>`` is the module, ``F.<name>`` the function.

Chainer's tests reach into the modules (``F.math.sparse_matmul.CooMatMul``,
``from chainer.functions.math import einsum`` then ``einsum.DiagEinSum``); a
family that re-exported a function over its module made that depend on the
import order.
"""

import importlib
import pkgutil
import subprocess
import sys
import types

import pytest

import minigrad.functions as F

FAMILIES = sorted(info.name for info in pkgutil.iter_modules(F.__path__) if info.ispkg)


def _submodules(family):
    package = importlib.import_module(f"minigrad.functions.{family}")
    return [info.name for info in pkgutil.iter_modules(package.__path__) if not info.name.startswith("_")]


@pytest.mark.parametrize("family", FAMILIES)
def test_every_module_of_a_family_is_reached_as_the_module(family):
    package = importlib.import_module(f"minigrad.functions.{family}")
    for name in _submodules(family):
        assert isinstance(getattr(package, name), types.ModuleType), f"minigrad.functions.{family}.{name}"


@pytest.mark.parametrize("family", FAMILIES)
def test_a_function_named_as_its_module_is_still_the_function_in_F(family):
    package = importlib.import_module(f"minigrad.functions.{family}")
    for name in _submodules(family):
        module = getattr(package, name)
        if name in getattr(module, "__all__", ()):
            assert getattr(F, name) is getattr(module, name), f"F.{name}"
            assert callable(getattr(F, name))


@pytest.mark.parametrize("first_import", [
    "from minigrad.functions.math import sparse_matmul",
    "import minigrad.functions.math.sparse_matmul",
    "import minigrad.links",
    "import minigrad.functions as F",
])
def test_the_module_path_does_not_depend_on_what_was_imported_first(first_import):
    code = (f"{first_import}\n"
            "import types, minigrad.functions as F\n"
            "from minigrad.functions.math import sparse_matmul as m\n"
            "assert isinstance(m, types.ModuleType) and F.math.sparse_matmul is m, m\n"
            "assert m.CooMatMul and callable(F.sparse_matmul) and F.sparse_matmul is m.sparse_matmul\n"
            "assert F.math.exp is F.exp  # a function whose module has another name stays re-exported\n")
    subprocess.run([sys.executable, "-c", code], check=True)
