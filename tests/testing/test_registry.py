"""The public registry API: OpSpec validation, Registry, register's origins, load_specs and its errors."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest

import minigrad.functions as F
from minigrad.testing import OpSpec, Registry, SpecLoadError, load_specs, register
from minigrad.testing.registry import DEFAULT_REGISTRY


def _inputs(rng, dt):
    return (rng.uniform(-1, 1, (2, 3)).astype(dt),)


def test_opspec_rejects_bad_fields_naming_the_spec():
    with pytest.raises(TypeError, match="OpSpec 'e': func must be a callable"):
        OpSpec("e", "exp", _inputs)
    with pytest.raises(ValueError, match="OpSpec 'e': unknown dtypes \\['int32'\\]"):
        OpSpec("e", F.exp, _inputs, dtypes=("int32",))
    with pytest.raises(ValueError, match="dtypes must be a non-empty tuple"):
        OpSpec("e", F.exp, _inputs, dtypes="float32")
    with pytest.raises(ValueError, match="expected_failures key 'float32-sideways' names no check"):
        OpSpec("e", F.exp, _inputs, expected_failures={"float32-sideways": "why"})
    with pytest.raises(ValueError, match="needs a reason"):
        OpSpec("e", F.exp, _inputs, expected_failures={"double": ""})
    with pytest.raises(ValueError, match="output_dtype='float64' needs preserves_dtype=False"):
        OpSpec("e", F.exp, _inputs, output_dtype="float64")
    with pytest.raises(TypeError, match="non-empty string"):
        OpSpec("", F.exp, _inputs)


def test_expected_failure_keys():
    spec = OpSpec("e", F.exp, _inputs, expected_failures={"double": "a", "float16-backward": "b",
                                                          "float32-cupy-sim-views": "c"})
    assert spec.expected_failure("float64", "numpy", "double") == "a"
    assert spec.expected_failure("float16", "cupy", "backward") == "b"
    assert spec.expected_failure("float32", "numpy", "backward") is None
    assert spec.expected_failure("float32", "cupy-sim", "views") == "c"
    assert spec.expected_failure("float32", "numpy", "views") is None
    assert OpSpec("f", F.exp, _inputs, second_order=False).expected_failure("float32", "numpy", "double")


def test_registry_keeps_order_and_rejects_a_second_spec_with_one_name():
    ops = Registry()
    a = ops.register(OpSpec("a", F.exp, _inputs))
    b = ops.register(OpSpec("b", F.tanh, _inputs))
    assert list(ops) == [a, b] and ops["b"] is b and len(ops) == 2
    with pytest.raises(ValueError, match="'a' is registered twice.*tests.testing.test_registry"):
        ops.register(OpSpec("a", F.sin, _inputs))
    with pytest.raises(KeyError, match="no op spec named 'c'"):
        ops["c"]
    with pytest.raises(TypeError, match="expected an OpSpec"):
        ops.register("a")


def _names(specs):
    """The names of the specs a module registers (load_specs adds the bad cases it derives from each after it)."""
    return [s.name for s in specs if "bad:" not in s.name]


def _write(directory, name, text):
    path = directory / name
    path.write_text(textwrap.dedent(text))
    return path


SPEC_MODULE = """
    import numpy as np
    import minigrad.functions as F
    from minigrad.testing import OpSpec, register

    register(OpSpec("{name}", F.exp, lambda rng, dt: (rng.uniform(-1, 1, (2, 3)).astype(dt),), np.exp))
"""


@pytest.fixture
def on_path(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        del sys.modules[name]


def test_load_specs_by_module_name_and_by_file_path(on_path):
    _write(on_path, "i13_ops_one.py", SPEC_MODULE.format(name="i13_exp_one"))
    path = _write(on_path, "i13_ops_two.py", SPEC_MODULE.format(name="i13_exp_two"))
    assert _names(load_specs("i13_ops_one")) == ["i13_exp_one"]
    assert _names(load_specs(str(path))) == ["i13_exp_two"]
    assert _names(load_specs("i13_ops_one", str(path))) == ["i13_exp_one", "i13_exp_two"]
    assert "i13_exp_one" in {s.name for s in DEFAULT_REGISTRY}
    assert not {"i13_exp_one", "i13_exp_two"} & {s.name for s in load_specs("minigrad.testing.op_specs")}


def test_a_package_collects_its_submodules_and_a_bound_registry(on_path):
    package = on_path / "i13_pkg"
    package.mkdir()
    _write(package, "__init__.py", "from . import first, second\n")
    _write(package, "first.py", SPEC_MODULE.format(name="i13_pkg_exp"))
    _write(package, "second.py", """
        import numpy as np
        import minigrad.functions as F
        from minigrad.testing import OpSpec, Registry

        OPS = Registry()
        OPS.register(OpSpec("i13_pkg_tanh", F.tanh, lambda rng, dt: (np.zeros(3, dt),), np.tanh))
    """)
    assert _names(load_specs("i13_pkg")) == ["i13_pkg_exp"]
    assert _names(load_specs("i13_pkg.second")) == ["i13_pkg_tanh"]
    assert _names(load_specs(str(package / "first.py"))) == ["i13_pkg_exp"]  # imported as i13_pkg.first


def test_load_errors_name_the_module(on_path):
    _write(on_path, "i13_broken.py", "raise RuntimeError('boom')\n")
    _write(on_path, "i13_empty.py", "x = 1\n")
    _write(on_path, "i13_twice.py", SPEC_MODULE.format(name="i13_dup") + SPEC_MODULE.format(name="i13_dup"))
    with pytest.raises(SpecLoadError, match="cannot import i13_broken: RuntimeError: boom"):
        load_specs("i13_broken")
    with pytest.raises(SpecLoadError, match="i13_empty registers no op specs"):
        load_specs("i13_empty")
    with pytest.raises(SpecLoadError, match="cannot import i13_twice: ValueError: op spec 'i13_dup' is "
                                            "registered twice"):
        load_specs("i13_twice")
    with pytest.raises(SpecLoadError, match="no such file"):
        load_specs(str(on_path / "missing.py"))
    _write(on_path, "i13_a.py", SPEC_MODULE.format(name="i13_same"))
    ops = Registry()
    ops.register(OpSpec("i13_same", F.exp, _inputs))
    with pytest.raises(SpecLoadError, match="'i13_same' is registered twice \\(i13_a and the given Registry\\)"):
        load_specs("i13_a", ops)


def test_a_module_imported_afresh_replaces_its_earlier_specs(on_path):
    _write(on_path, "i13_again.py", SPEC_MODULE.format(name="i13_again_exp"))
    first = load_specs("i13_again")[0]
    del sys.modules["i13_again"]  # what an in-process pytest run (pytester) does between runs
    second = load_specs("i13_again")[0]
    assert second is not first and DEFAULT_REGISTRY["i13_again_exp"] is second


def test_register_records_the_calling_module():
    spec = register(OpSpec("i13_registered_here", F.exp, _inputs, np.exp))
    assert DEFAULT_REGISTRY.specs(__name__) == [spec]
