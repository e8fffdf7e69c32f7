"""One way to write each thing in the op library and the links, held at the level of the source text.

Each test below reads every module of ``minigrad/functions`` and ``minigrad/links`` and names the lines that
write a thing another way than the chosen one, so a second idiom cannot creep back in.

**An op calls another op as ``F.name(...)``**, after ``import minigrad.functions as F``, and never imports it
from the module that defines it (``from minigrad.functions.math.exponential import exp``). Why this one:

- it is how a user calls an op, so an op's backward reads like user code, and the op's docs
  (``minigrad.functions.checks``) show one way, not two;
- ``F.name`` is looked up when the op runs, not when its module is imported, so no module of the package
  depends on the order the others are imported in: ``broadcast_to``'s backward calls ``sum_to`` and
  ``sum``'s calls ``broadcast_to``, and with direct imports such pairs need one side imported inside a
  function (the Variable operators had six such imports);
- a name such as ``sum``, ``max``, ``pow`` or ``abs`` never shadows the builtin in the module using it.

Its cost is one attribute lookup per call (tens of nanoseconds, beside microseconds of per-op overhead).
What ``minigrad.functions`` does not export (``checks``, a family's private helpers, array-level helpers
such as ``softmax_array``) is imported from its module: it is not an op.
"""

from __future__ import annotations

import ast
import types
from pathlib import Path

import minigrad
import minigrad.functions as F

PACKAGE = Path(minigrad.__file__).parent
OP_LIBRARY = ("functions", "links")


def library_modules() -> list[Path]:
    """Every module of the op library and the links, but the ``__init__`` files that gather their names."""
    return sorted(path for package in OP_LIBRARY for path in (PACKAGE / package).rglob("*.py")
                  if path.name != "__init__.py")


def _where(path: Path, node: ast.AST) -> str:
    return f"{path.relative_to(PACKAGE.parent)}:{node.lineno}"


def exported_ops() -> set[str]:
    """The names ``minigrad.functions`` exports that are ops: its functions and node classes, not modules."""
    return {name for name in dir(F) if not name.startswith("_") and not isinstance(getattr(F, name), types.ModuleType)}


def op_imports(source: str, ops: set[str]) -> list[tuple[int, str]]:
    """``(line, name)`` for each op imported by name from a module of ``minigrad.functions``, and for each
    import of the package spelled otherwise than ``import minigrad.functions as F``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("minigrad.functions"):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name in ops]
        elif isinstance(node, ast.ImportFrom) and node.module == "minigrad":
            found += [(node.lineno, alias.name) for alias in node.names if alias.name == "functions"]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {alias.name} as {alias.asname}") for alias in node.names
                      if alias.name.startswith("minigrad.functions")
                      and (alias.name, alias.asname) != ("minigrad.functions", "F")]
    return found


def test_the_op_import_finder_flags_each_other_spelling():
    source = ("import minigrad.functions as F\nfrom minigrad.functions.math.exponential import exp\n"
              "from minigrad.functions.checks import as_input\nfrom minigrad import functions\n"
              "import minigrad.functions as functions\nfrom minigrad.functions.activation.gelu import erf_array\n")
    assert op_imports(source, exported_ops()) == [
        (2, "exp"), (4, "functions"), (5, "import minigrad.functions as functions")]


def test_ops_call_other_ops_through_F():
    ops = exported_ops()
    assert {"exp", "reshape", "GetItem", "Tanh"} <= ops and "sliding_windows" not in ops
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {name}" for path in library_modules()
             for line, name in op_imports(path.read_text(encoding="utf-8"), ops)]
    assert not found, "ops imported by name (call them as F.name after `import minigrad.functions as F`):\n" + \
        "\n".join(found)


# --- an input that must be floating point ---------------------------------------------------------------------------
# **It is taken with ``as_input(op, value, argname, float_only=True)``**, the call that makes it a Variable; there is
# no separate check to call after it (the second spelling, ``require_float(op, x)``, is gone). One call per input
# cannot be forgotten between the two, and its message is written once, in ``checks.py``.

FLOAT_MESSAGE = "must have a floating-point dtype"


def hand_written_float_checks(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` for each call of a float check other than ``as_input`` and each copy of its message."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", ""))
            if name == "require_float":
                found.append((node.lineno, "require_float(...)"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and FLOAT_MESSAGE in node.value:
            found.append((node.lineno, f"the message {FLOAT_MESSAGE!r}"))
    return found


def test_the_float_check_finder_flags_a_second_spelling():
    source = ('x = as_input("relu", x, float_only=True)\nrequire_float("relu", x)\n'
              'raise TypeError(f"{op}: x must have a floating-point dtype, got {x.dtype}")\n')
    assert hand_written_float_checks(source) == [(2, "require_float(...)"), (3, f"the message {FLOAT_MESSAGE!r}")]


def test_float_inputs_are_checked_by_as_input_only():
    checks = PACKAGE / "functions" / "checks.py"
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {what}" for path in library_modules() if path != checks
             for line, what in hand_written_float_checks(path.read_text(encoding="utf-8"))]
    assert not found, "float checks written by hand (use as_input(op, x, argname, float_only=True)):\n" + \
        "\n".join(found)
    assert [what for _, what in hand_written_float_checks(checks.read_text(encoding="utf-8"))] == \
        [f"the message {FLOAT_MESSAGE!r}"]  # written once, in as_input


# --- an elementwise op of one input ---------------------------------------------------------------------------------
# **It is a row of a table**, ``Name = elementwise("Name", forward, backward, uses=..., params=...)`` from
# ``minigrad.functions._elementwise``: its forward beside its gradient, as the math functions were. The activations
# and the arithmetic with a Python scalar are rows too, so the hand-written node classes, the seven ``_WithConstant``
# subclasses, and their NumPy 1 re-wrapping (casting a 0-dim result back to the input's dtype) are written once.

ROWS = ("ReLU", "LeakyReLU", "ClippedReLU", "Sigmoid", "HardSigmoid", "ELU", "Softplus", "Tanh", "Neg", "Absolute",
        "AddConstant", "SubFromConstant", "MulConstant", "DivByConstant", "DivFromConstant", "PowVarConstant",
        "PowConstantVar", "Exp", "Log", "Sin", "Sqrt", "Erf", "LGamma")


def second_row_makers(source: str) -> list[tuple[int, str]]:
    """``(line, what)`` for each definition of a row maker or of a NumPy-version switch outside ``_elementwise``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name in (
                "elementwise", "UnaryElementwise", "_WithConstant", "_keeping_input_dtype"):
            found.append((node.lineno, f"defines {node.name}"))
        elif isinstance(node, ast.Attribute) and node.attr == "__version__" and getattr(node.value, "id", "") in (
                "numpy", "np"):
            found.append((node.lineno, "reads numpy.__version__"))
    return sorted(found)


def test_the_row_maker_finder_flags_a_second_one():
    source = ("import numpy\nLEGACY = numpy.__version__ < '2'\n\n\nclass _WithConstant:\n    pass\n\n\n"
              "def elementwise(name):\n    return name\n")
    assert second_row_makers(source) == [(2, "reads numpy.__version__"), (5, "defines _WithConstant"),
                                         (9, "defines elementwise")]


def test_one_input_elementwise_ops_are_rows_of_one_table():
    from minigrad.functions._elementwise import UnaryElementwise

    row_maker = PACKAGE / "functions" / "_elementwise.py"
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {what}" for path in library_modules() if path != row_maker
             for line, what in second_row_makers(path.read_text(encoding="utf-8"))]
    assert not found, "a second way to write an elementwise op (write it as a row: elementwise(...)):\n" + \
        "\n".join(found)
    assert [name for name in ROWS if not issubclass(getattr(F, name), UnaryElementwise)] == []


# --- small helpers written once ---------------------------------------------------------------------------------------
# **An int or an n-tuple of ints** (a kernel size, a stride) is read by ``ntuple``/``pair`` of
# ``functions/connection/sliding_windows.py`` (a layer passes ``each=positive_int`` for its own messages), and
# **CuPy is required** by ``_require_cupy`` of ``device.py``: each written once in the package but its testing tools.

ONCE = {"pair": "functions/connection/sliding_windows.py", "ntuple": "functions/connection/sliding_windows.py",
        "int_tuple": "functions/connection/sliding_windows.py", "_require_cupy": "device.py"}


def package_modules() -> list[Path]:
    """Every module of the package but its testing tools (``minigrad.testing``, whose spec helpers are their own)."""
    return sorted(path for path in PACKAGE.rglob("*.py") if "testing" not in path.relative_to(PACKAGE).parts)


def helper_definitions(source: str) -> list[tuple[int, str]]:
    """``(line, name)`` for each definition of a helper of ``ONCE`` (with or without its underscore), and each
    inline ``tuple(v) if isinstance(v, (tuple, list)) else (v,) * n`` or ``(v, v)`` (an ``ntuple`` by hand)."""
    names = {name.lstrip("_") for name in ONCE}
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") in names:
            found.append((node.lineno, node.name))
        elif (isinstance(node, ast.IfExp) and isinstance(node.test, ast.Call)
              and getattr(node.test.func, "id", "") == "isinstance" and "(value, value)" in ast.unparse(node.orelse)
              or isinstance(node, ast.IfExp) and ast.unparse(node.orelse).endswith(",) * n")):
            found.append((node.lineno, "an ntuple by hand"))
    return sorted(found)


def test_the_helper_finder_flags_a_second_definition_and_a_hand_written_ntuple():
    source = ("def _pair(v):\n    return v\n\n\ndef require_cupy(what):\n    return what\n\n\n"
              "k = tuple(value) if isinstance(value, (tuple, list)) else (value, value)\n"
              "s = tuple(value) if isinstance(value, list) else (value,) * n\n")
    assert helper_definitions(source) == [(1, "_pair"), (5, "require_cupy"), (9, "an ntuple by hand"),
                                          (10, "an ntuple by hand")]


def test_pair_ntuple_and_require_cupy_are_written_once():
    found = []
    for path in package_modules():
        where = str(path.relative_to(PACKAGE))
        found += [f"minigrad/{where}:{line}: {name}" for line, name in helper_definitions(path.read_text("utf-8"))
                  if ONCE.get(name, ONCE["ntuple"]) != where]
    assert not found, "a second pair/ntuple/_require_cupy (use the one in ONCE):\n" + "\n".join(found)


# **A value as a tuple** in the testing tools (an op's outputs, a check's inputs) is ``as_tuple`` of
# ``testing/_checker/arrays.py``, written once (``utils.conv_nd.as_tuple`` is Chainer's, of another signature).

def as_tuple_definitions(source: str) -> list[int]:
    """The lines defining ``as_tuple`` or ``_as_tuple``."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.FunctionDef) and node.name.lstrip("_") == "as_tuple")


def test_the_as_tuple_finder_flags_a_private_copy():
    assert as_tuple_definitions("def _as_tuple(x):\n    return (x,)\n\n\ndef other(x):\n    return x\n") == [1]


def test_as_tuple_is_written_once_in_the_testing_tools():
    found = [str(path.relative_to(PACKAGE)) for path in sorted((PACKAGE / "testing").rglob("*.py"))
             for _ in as_tuple_definitions(path.read_text("utf-8"))]
    assert found == ["testing/_checker/arrays.py"], found


# --- a link sized by its first input ----------------------------------------------------------------------------------
# **It calls ``Link.initialize_from_input(param, x, min_ndim, initialize)``** in ``forward``, which checks the input
# and gives ``initialize`` its array module once, while ``param`` has no array: no link writes that test by hand.

def lazy_sizing_by_hand(source: str) -> list[int]:
    """The lines of each ``if <param>.array is None:`` block that checks the input (``require_input``) itself."""
    return sorted(node.lineno for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.If) and ast.unparse(node.test).endswith(".array is None")
                  and "require_input(" in ast.unparse(node))


def test_the_lazy_sizing_finder_flags_one_written_by_hand():
    source = ("if self.W.array is None:\n    require_input('Linear', x, 2)\n    self._initialize_params(3)\n"
              "if self.avg_mean is None:\n    require_input('BatchNormalization', x, 2)\n")
    assert lazy_sizing_by_hand(source) == [1]


def test_links_are_sized_by_their_first_input_through_link_initialize_from_input():
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}" for path in sorted((PACKAGE / "links").rglob("*.py"))
             for line in lazy_sizing_by_hand(path.read_text(encoding="utf-8"))]
    assert not found, "lazy sizing written by hand (call self.initialize_from_input):\n" + "\n".join(found)


def test_links_read_their_initializer_arguments_with_the_public_get_initializer():
    found = [f"{path.relative_to(PACKAGE.parent)}:{number}" for path in library_modules()
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if "_get_initializer(" in line]
    assert not found, "initializers._get_initializer (use initializers.get_initializer):\n" + "\n".join(found)


# --- tolerances and checker options ---------------------------------------------------------------------------------
# **One vocabulary, Chainer's:** ``check_forward_options``, ``check_backward_options`` and
# ``check_double_backward_options`` (minigrad.testing.check_options), in OpSpec as in FunctionTestCase and
# LinkTestCase. OpSpec's old names (``forward_tolerance``, ``backward_options``, ...) only warn now: no spec uses them.

def old_option_names(source: str) -> list[tuple[int, str]]:
    """(line, name) of each keyword argument spelled with one of OpSpec's deprecated option names."""
    from minigrad.testing.check_options import DEPRECATED_SPEC_NAMES

    return sorted((node.lineno, node.arg) for node in ast.walk(ast.parse(source))
                  if isinstance(node, ast.keyword) and node.arg in DEPRECATED_SPEC_NAMES)


def test_the_old_option_name_finder_flags_each_old_name():
    source = ("OpSpec('a', f, inputs, forward_tolerance={'float16': (1, 1)})\n"
              "OpSpec('b', f, inputs, check_backward_options={'eps': 1e-3}, double_options={})\n")
    assert old_option_names(source) == [(1, "forward_tolerance"), (2, "double_options")]


def test_specs_name_their_options_in_the_one_vocabulary():
    specs = PACKAGE / "testing" / "op_specs"
    found = [f"{path.relative_to(PACKAGE.parent)}:{line}: {name}" for path in sorted(specs.rglob("*.py"))
             for line, name in old_option_names(path.read_text(encoding="utf-8"))]
    assert not found, "OpSpec's deprecated option names (use check_*_options):\n" + "\n".join(found)
