"""What a base install (``pip install minigrad``: NumPy only) can do, checked with pytest and hypothesis hidden.

Each test runs a fresh interpreter whose import system refuses ``pytest`` and
``hypothesis`` (a meta-path finder that raises ``ModuleNotFoundError`` for them,
as on a machine without the test extras), so a new top-level import of a
test-only package anywhere in minigrad fails here, not on a user's machine.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
import textwrap

import minigrad

TEST_ONLY = ("pytest", "hypothesis", "_pytest", "pluggy")

# Installed before anything else in the child interpreter.
REFUSE_TEST_EXTRAS = textwrap.dedent(f"""
    import importlib.abc, sys
    TEST_ONLY = {TEST_ONLY!r}
    for name in list(sys.modules):
        if name.split(".")[0] in TEST_ONLY:
            del sys.modules[name]
    class RefuseTestExtras(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in TEST_ONLY:
                raise ModuleNotFoundError(f"No module named {{name!r}} (hidden: a base install)", name=name)
            return None
    sys.meta_path.insert(0, RefuseTestExtras())
""")

# Modules that exist only to be loaded by pytest.
PYTEST_ONLY_MODULES = {"minigrad.testing.pytest_plugin"}


def run_without_test_extras(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", REFUSE_TEST_EXTRAS + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300)


def public_modules() -> list[str]:
    names = ["minigrad"]
    for info in pkgutil.walk_packages(minigrad.__path__, "minigrad."):
        if not any(part.startswith("_") and part != "__main__" for part in info.name.split(".")[1:]):
            names.append(info.name)
    return sorted(names)


def test_the_hook_really_hides_pytest():
    result = run_without_test_extras("import pytest")
    assert result.returncode != 0 and "hidden: a base install" in result.stderr


def test_every_public_module_imports_without_test_extras():
    modules = [m for m in public_modules() if m not in PYTEST_ONLY_MODULES]
    # One interpreter imports them all (__main__ guards its work behind `if __name__ == "__main__"`).
    result = run_without_test_extras(f"""
        import importlib, json, traceback
        failures = {{}}
        for module in {modules!r}:
            try:
                importlib.import_module(module)
            except Exception:
                failures[module] = traceback.format_exc(limit=-3)
        print(json.dumps(failures))
    """)
    assert result.returncode == 0, result.stderr
    failures = json.loads(result.stdout.splitlines()[-1])
    assert failures == {}, "\n".join(f"{name}:\n{trace}" for name, trace in failures.items())


def test_the_walk_finds_the_modules_users_import():
    modules = public_modules()
    for module in ("minigrad.testing", "minigrad.testing.link_test_case", "minigrad.testing.function_test_case",
                   "minigrad.testing.gradient_check", "minigrad.functions", "minigrad.links", "minigrad.__main__"):
        assert module in modules


def test_pytest_plugin_without_pytest_names_the_extra():
    result = run_without_test_extras("import minigrad.testing.pytest_plugin")
    assert result.returncode != 0
    assert 'pip install "minigrad[test]"' in result.stderr


def test_a_plain_script_checks_a_custom_op_and_runs_the_test_cases():
    result = run_without_test_extras("""
        import unittest
        import numpy as np
        import minigrad as mg
        import minigrad.functions as F
        import minigrad.links as L
        from minigrad.testing import (FunctionTestCase, LinkTestCase, assert_allclose, check_backward,
                                      check_double_backward, numerical_grad)

        class Cube(mg.FunctionNode):
            def forward(self, inputs):
                self.retain_inputs((0,))
                return inputs[0] ** 3,
            def backward(self, indexes, grad_outputs):
                x, = self.get_retained_inputs()
                return 3 * x * x * grad_outputs[0],

        cube = lambda x: Cube().apply((x,))[0]
        x = np.random.default_rng(0).uniform(-1, 1, (3, 4))
        assert check_backward(cube, x, np.ones((3, 4))).passed
        assert check_double_backward(cube, x, np.ones((3, 4)), np.ones((3, 4))).passed
        gx, = numerical_grad(lambda: (x ** 3,), (x,), (np.ones((3, 4)),))
        assert_allclose(gx, 3 * x * x, atol=1e-6, rtol=1e-6)

        class TestExp(FunctionTestCase):
            def generate_inputs(self):
                return self.rng.uniform(-1, 1, (2, 3)).astype(self.dtype),
            def forward(self, inputs, device):
                return F.exp(inputs[0]),
            def forward_expected(self, inputs):
                return np.exp(inputs[0]),
        TestExp().run_case("numpy", "float64")

        class TestLinear(LinkTestCase):
            param_names = None
            def create_link(self, initializers):
                return L.Linear(3, 2)
            def generate_inputs(self):
                return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype),
            def forward_expected(self, link, inputs):
                x, = inputs
                return x @ link.W.array.T.astype(np.float64) + link.b.array,
        case = TestLinear()
        case.test_forward(np, "float64")
        case.test_backward(np, "float64")
        case.skip_double_backward_test = True
        try:
            case.test_double_backward(np, "float64")
        except unittest.SkipTest as skipped:   # without pytest, a skip is unittest's
            print("skipped:", skipped)
        print("ok")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["skipped: skip_double_backward_test is set", "ok"]


def test_main_job_runs_without_test_extras():
    result = run_without_test_extras("""
        import runpy, sys
        sys.argv = ["python -m minigrad", "check", "--ops", "tanh,relu,linear", "--quiet"]
        runpy.run_module("minigrad", run_name="__main__")
    """)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 failed" in result.stdout, result.stdout
