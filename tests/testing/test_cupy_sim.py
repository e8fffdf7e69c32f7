"""The CuPy simulator itself: CuPy's rules, its scope, its name list, and the names minigrad uses."""

from __future__ import annotations

import ast
import pickle
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from minigrad import backend
from minigrad.testing import cupy_sim

PACKAGE = Path(__file__).resolve().parents[2] / "minigrad"


@pytest.fixture
def cp():
    with cupy_sim.install() as module:
        yield module


def test_install_restores_sys_modules_and_the_backend_cache():
    if cupy_sim.is_installed():
        pytest.skip("the session runs on the simulator (--minigrad-backend=cupy-sim)")
    before = {k: v for k, v in sys.modules.items() if k.split(".")[0] in ("cupy", "cupyx")}
    cache = backend.cupy_or_none()
    sentinel = type(sys)("cupy")  # stands for a real CuPy: it must come back untouched
    sys.modules["cupy"] = sentinel
    try:
        with cupy_sim.install() as cp:
            import cupy
            import cupyx

            assert cupy is cp and cupyx.__name__ == "cupyx" and backend.cupy_or_none() is cp
            assert cupy_sim.is_installed()
        assert sys.modules["cupy"] is sentinel and "cupyx" not in sys.modules or "cupyx" in before
        assert backend.cupy_or_none() is cache
        assert not cupy_sim.is_installed()
    finally:
        sys.modules.pop("cupy", None)
        sys.modules.update(before)


def test_install_restores_after_an_exception():
    if cupy_sim.is_installed():
        pytest.skip("the session runs on the simulator")
    with pytest.raises(RuntimeError), cupy_sim.install():
        raise RuntimeError("boom")
    assert "cupy" not in sys.modules or sys.modules["cupy"].__file__ != cupy_sim._module.__file__


def test_the_array_is_not_a_numpy_array_and_refuses_implicit_conversion(cp):
    x = cp.arange(3.0)
    assert not isinstance(x, np.ndarray)
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array is not allowed"):
        np.asarray(x)
    with pytest.raises(TypeError, match="Implicit conversion"):
        np.array([x, x])


@pytest.mark.parametrize("mix", [
    lambda cp, x: x + np.ones(3),
    lambda cp, x: np.ones(3) + x,
    lambda cp, x: cp.add(x, np.ones(3)),
    lambda cp, x: cp.exp([1.0, 2.0]),
    lambda cp, x: x * [1.0, 2.0, 3.0],
    lambda cp, x: cp.nonzero(np.ones(3, dtype=bool)),
    lambda cp, x: cp.concatenate([x, np.ones(3)]),
    lambda cp, x: cp.maximum(np.float64(0.5) * np.ones(3), x),
])
def test_functions_and_ufuncs_refuse_host_arrays_and_lists(cp, mix):
    with pytest.raises(TypeError):
        mix(cp, cp.arange(3.0))


def test_scalars_mix_with_device_arrays(cp):
    x = cp.arange(3.0)
    for y in (2.0 + x, x * 2, np.float64(1.0) - x, x ** np.float32(2), cp.maximum(0.5, x)):
        assert isinstance(y, cp.ndarray)
    assert (2.0 - x).get().tolist() == [2.0, 1.0, 0.0]


def test_reductions_and_scalar_indexing_return_0d_arrays(cp):
    x = cp.arange(6.0).reshape(2, 3)
    for y in (x.sum(), cp.sum(x), x.max(), x[1, 2], cp.vdot(x, x), x.argmax()):
        assert isinstance(y, cp.ndarray) and y.shape == ()


def test_explicit_transfers_work_and_are_counted(cp):
    x = cp.asarray(np.array([1.5, 2.5]))
    with cupy_sim.count_transfers() as counts:
        assert x.get().tolist() == [1.5, 2.5]
        assert cp.asnumpy(x).tolist() == [1.5, 2.5]
        assert x[0].item() == 1.5 and float(x[1]) == 2.5 and int(x[1]) == 2 and bool(x[0])
        repr(x)
    assert counts.device_to_host == 7 and counts.host_to_device == 0
    with cupy_sim.count_transfers() as counts:
        x[np.array([0])]  # a host index array is copied to the device
        cp.asarray([1, 2])
    assert counts.host_to_device == 2


def test_indexing_converts_host_indices_and_wraps_out_of_bounds_arrays(cp):
    x = cp.arange(4.0)
    assert x[[0, 5]].get().tolist() == [0.0, 1.0]  # CuPy wraps: 5 -> 1
    assert x[np.array([-5, 2])].get().tolist() == [3.0, 2.0]
    assert x[np.array([True, False, True, False])].get().tolist() == [0.0, 2.0]
    m = cp.arange(6.0).reshape(2, 3)
    assert m[..., [3]].get().tolist() == [[0.0], [3.0]]
    assert m[None, 1, [4]].get().tolist() == [[4.0]]
    with pytest.raises(IndexError):
        x[7]  # scalar indices are bounds-checked, as in CuPy


def test_setitem_rules(cp):
    x = cp.zeros(3)
    x[...] = 1.0
    x[cp.asarray([0])] = cp.asarray([5.0])
    x[:] = np.array([1.0, 2.0, 3.0])  # the one host copy CuPy allows: same shape and dtype, x[:]
    assert x.get().tolist() == [1.0, 2.0, 3.0]
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray"):
        x[:2] = np.ones(2)


def test_scatter_add_warns_and_add_at_does_not(cp):
    import cupyx

    a = cp.zeros(3)
    with pytest.warns(DeprecationWarning, match="cupy.add.at"):
        cupyx.scatter_add(a, cp.asarray([0, 0]), cp.ones(2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cp.add.at(a, (cp.asarray([2, 2, 2]),), cp.ones(3))
    assert a.get().tolist() == [2.0, 0.0, 3.0]


def test_linalg_errors_are_numpys_class_and_can_be_caught(cp):
    assert cp.linalg.LinAlgError is np.linalg.LinAlgError  # as in CuPy, which re-exports NumPy's
    with pytest.raises(cp.linalg.LinAlgError):
        cp.linalg.inv(cp.zeros((2, 2)))


def test_random_has_its_own_seedable_generator(cp):
    cp.random.seed(3)
    a = cp.random.random_sample((4,)).get()
    np.random.seed(3)
    cp.random.seed(3)
    b = cp.random.random_sample((4,)).get()
    np.testing.assert_array_equal(a, b)
    assert isinstance(cp.random.default_rng(1).random(2), cp.ndarray)


def test_cuda_device_and_runtime(cp):
    assert cp.cuda.runtime.getDeviceCount() == 1
    with cp.cuda.Device(0) as device:
        device.synchronize()
        assert cp.cuda.Device().id == 0 and cp.arange(2).device == device
    with pytest.raises(RuntimeError, match="invalid device"):
        cp.cuda.Device(1)


def test_pickle_and_copy_go_through_the_host(cp):
    x = cp.arange(3.0)
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, cp.ndarray) and y.get().tolist() == [0.0, 1.0, 2.0]


def test_only_the_pinned_release_names_exist(cp):
    names = cupy_sim.public_names()
    assert set(names["cupy"]) <= set(dir(cp)) | {"__version__"}
    for missing in ("asmatrix", "ndenumerate", "nditer", "busday_count", "fromregex", "memmap"):
        assert missing not in names["cupy"], missing  # NumPy has them; CuPy 13.6 does not
        assert not hasattr(cp, missing)
    assert not hasattr(cp.arange(2), "resize") and not hasattr(cp.arange(2), "byteswap")
    with pytest.raises(AttributeError, match="has no attribute .nditer."):
        getattr(cp, "nditer")  # noqa: B009


def _xp_names_used_by_the_package() -> set[tuple[str, ...]]:
    """Every ``xp.a`` / ``xp.a.b`` (also ``cupy.``/``cupyx.``) attribute chain in minigrad's source."""
    found: set[tuple[str, ...]] = set()
    for path in PACKAGE.rglob("*.py"):
        if "cupy_sim" in path.parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                chain = []
                inner = node
                while isinstance(inner, ast.Attribute):
                    chain.append(inner.attr)
                    inner = inner.value
                if isinstance(inner, ast.Name) and inner.id in ("xp", "cupy", "cupyx"):
                    found.add((inner.id, *reversed(chain)))
    return found


def test_every_xp_name_the_package_uses_exists_in_the_pinned_cupy():
    names = cupy_sim.public_names()
    used = _xp_names_used_by_the_package()
    assert ("xp", "take_along_axis") in used and ("xp", "random", "random_sample") in used  # the scan works
    missing = []
    for root, first, *rest in (c for c in used if len(c) > 1):
        section = "cupyx" if root == "cupyx" else "cupy"
        if first.startswith("__"):
            continue
        if first not in names[section]:
            missing.append(".".join((root, first)))
        elif rest and first in ("random", "linalg") and rest[0] not in names[f"cupy.{first}"]:
            missing.append(".".join((root, first, rest[0])))
        elif rest and first == "lib" and rest[0] == "stride_tricks" and len(rest) > 1 \
                and rest[1] not in names["cupy.lib.stride_tricks"]:
            missing.append(".".join((root, first, *rest[:2])))
    assert not missing, f"names CuPy 13.6 does not have: {sorted(missing)}"


@pytest.mark.real_gpu(reason="compares the pinned name list with the CuPy actually installed")
def test_the_pinned_names_match_the_installed_cupy():
    import cupy

    names = cupy_sim.public_names()
    missing = [n for n in names["cupy"] if not hasattr(cupy, n)]
    assert len(missing) <= 5, f"cupy {cupy.__version__} lacks {missing}: re-derive cupy_names.txt for it"
    assert not [n for n in names["cupy.ndarray"] if not hasattr(cupy.ndarray, n)]


def test_compare_backends_script_runs_on_the_simulator(tmp_path):
    import json
    import subprocess

    script = PACKAGE.parent / "scripts" / "compare_backends.py"
    out = tmp_path / "rows.json"
    done = subprocess.run([sys.executable, str(script), "--backend", "cupy-sim", "--ops", "tanh,get_item*",
                           "--json", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = json.loads(out.read_text())
    assert {r["op"] for r in rows} >= {"tanh", "get_item[bool]"} and all(r["status"] == "pass" for r in rows)
    assert "numpy vs cupy-sim" in done.stdout


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_the_pytest_option_runs_cupy_cases_on_the_simulator(tmp_path, workers):
    import subprocess

    (tmp_path / "test_sample.py").write_text(
        "import pytest\n"
        "def test_xp(xp):\n"
        "    assert xp.__name__ == ('cupy' if xp.__name__ != 'numpy' else 'numpy')\n"
        "    assert type(xp.ones(2)).__module__ == xp.__name__\n"
        "@pytest.mark.gpu\n"
        "def test_gpu():\n"
        "    import cupy\n"
        "    assert cupy.cuda.runtime.getDeviceCount() == 1\n"
        "@pytest.mark.real_gpu(reason='measures TF32 error')\n"
        "def test_real():\n"
        "    raise AssertionError('must not run on the simulator')\n"
        "@pytest.mark.gpu\n"
        "@pytest.mark.xfail(reason='a known failure still runs', strict=True)\n"
        "def test_known():\n"
        "    raise AssertionError\n")
    # under pytest-xdist the workers collect, so the summary counts from the reports (an xfail ran)
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs", *workers,
                           "--minigrad-backend=cupy-sim", "test_sample.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    out = done.stdout
    assert done.returncode == 0, out + done.stderr
    assert "2 passed, 1 skipped, 1 xfailed" in out
    assert "cupy-sim: 3 CuPy cases ran on the simulator, 1 still skipped" in out
    assert "test_sample.py::test_real: needs a real GPU, not cupy-sim: measures TF32 error" in out


def test_the_simulator_summary_leaves_deselected_items_out(tmp_path):
    # -k deselected CuPy cases: pytest keeps the items themselves (no outcome) among its stats, and the summary
    # crashed on them with AttributeError: 'Function' object has no attribute 'outcome'
    import subprocess

    (tmp_path / "test_sample.py").write_text("def test_kept(xp):\n    pass\ndef test_left_out(xp):\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "kept",
                           "--minigrad-backend=cupy-sim", "test_sample.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "cupy-sim: 1 CuPy cases ran on the simulator, 0 still skipped" in done.stdout
