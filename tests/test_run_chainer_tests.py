"""scripts/run_chainer_tests.py: its import rewriting and test matching (the runs need a Chainer checkout)."""

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run_chainer_tests.py"


def _runner():
    spec = importlib.util.spec_from_file_location("run_chainer_tests", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_imports_are_rewritten_to_minigrad_and_the_harness():
    source = "\n".join([
        "import unittest", "import mock", "import chainer", "import chainer.functions as F",
        "from chainer import testing, gradient_check as gc", "from chainer.backends import cuda",
        "from chainer.utils import type_check", "x = chainer.testing.assert_allclose",
        "@mock.patch('chainer.functions.relu')", "def f(): pass"])
    out = _runner().rewrite(source).splitlines()
    # the header, before the first import
    assert out[0].startswith("import _chainer_testing, _chainer_type_check, minigrad.backends.cuda")
    assert "from unittest import mock" in out
    assert "import minigrad as chainer" in out and "import minigrad.functions as F" in out
    assert "import _chainer_testing as testing" in out
    assert "import minigrad.testing.gradient_check as gc" in out
    assert "import minigrad.backends.cuda as cuda" in out and "import _chainer_type_check as type_check" in out
    assert "x = _chainer_testing.assert_allclose" in out
    assert "@mock.patch('minigrad.functions.relu')" in out
    assert not [line for line in out if "chainer." in line and "minigrad" not in line and "_chainer" not in line]


def test_chainer_and_minigrad_ids_of_one_test_share_a_key():
    runner = _runner()
    chainer_id = ("chainer_tests/functions_tests/math_tests/test_x.py::TestX_use_chainerx_false__chainerx_device_None"
                  "__use_cuda_false__cuda_device_None__use_cudnn_never__cudnn_deterministic_false__autotune_false"
                  "__cudnn_fast_batch_normalization_false__use_ideep_never_param_3_{dtype=float32, shape=()}"
                  "::test_forward")
    minigrad_id = "chainer_tests/functions_tests/math_tests/test_x.py::TestX_param_3_{dtype=float32, shape=()}" \
                  "::test_forward[numpy-float32]"
    assert runner.test_key(chainer_id) == runner.test_key(minigrad_id) \
        == "chainer_tests/functions_tests/math_tests/test_x.py::TestX_param_3::test_forward"


def test_failures_are_classified():
    classify = _runner().classify
    assert classify("AttributeError: module 'minigrad.functions' has no attribute 'shift'", "a.py::T::t") \
        == ("missing name", "shift")
    assert classify("TypeError: f() got an unexpected keyword argument 'axis'", "a.py::T::t")[0] \
        == "missing keyword or feature"
    assert classify("AssertionError: \nNot equal to tolerance rtol=1e-4", "a.py::T::t")[0] == "value difference"
    assert classify("GradientCheckError: ...", "loss_tests/test_contrastive.py::T::t")[0] == "deliberate difference"
    assert classify("AssertionError: 2 != 1", "serializers_tests/test_npz.py::TestLoadNpz_param_0_{compress=False}"
                    "::test_load_without_strict")[0] == "deliberate difference"
    assert classify("AssertionError: 2 != 1", "serializers_tests/test_npz.py::TestNpzDeserializer_param_0_"
                    "{compress=False}::test_deserialize")[0] != "deliberate difference"  # only the named methods


def test_reading_chainers_nodes_or_underscore_names_is_private_not_a_missing_name(tmp_path):
    runner = _runner()
    functions = tmp_path / "chainer" / "functions" / "math"
    functions.mkdir(parents=True)
    (functions / "einsum.py").write_text("class EinSum(function_node.FunctionNode):\n    pass\n\n\n"
                                         "class DiagEinSum(EinSum):\n    pass\n\n\nclass Helper(object):\n    pass\n")
    nodes = runner.chainer_node_classes(tmp_path)
    assert nodes == {"EinSum", "DiagEinSum"}
    private = "reads Chainer's private internals"
    for message in ("AttributeError: module 'minigrad.functions.math.einsum' has no attribute 'DiagEinSum'",
                    "ImportError: cannot import name '_stride_array' from 'minigrad.functions.array.as_strided'",
                    "AttributeError: 'EinSum' object has no attribute 'mask'"):
        assert runner.classify(message, "a.py::T::t", nodes) == (private, None), message
    assert runner.classify("AttributeError: module 'minigrad.functions' has no attribute 'Helper'", "a.py::T::t",
                           nodes) == ("missing name", "Helper")


def test_a_cpu_suffixed_chainer_test_matches_the_function_test_case_item():
    runner = _runner()
    chainer_id = "chainer_tests/functions_tests/math_tests/test_sin.py::TestSin_param_0_{dtype=float16}" \
                 "::test_forward_cpu"
    minigrad_id = "chainer_tests/functions_tests/math_tests/test_sin.py::TestSin_param_0_{dtype=float16}" \
                  "::test_forward[numpy-float16]"
    assert runner.test_key(chainer_id) == runner.test_key(minigrad_id)


def test_stacked_parameterize_keeps_every_index_in_the_key():
    runner = _runner()
    name = "t.py::TestOptimizer_param_0_{shape=(2, 3)}_param_15_{kwargs={'weight_decay_rate': 0.5}, optimizer='Adam'}"
    assert runner.test_key(name + "::test_optimizer") == "t.py::TestOptimizer_param_0_param_15::test_optimizer"


def test_chainers_link_groups_map_to_minigrads_flat_links():
    out = _runner().rewrite("from chainer.links.connection import convolution_nd\n"
                            "import chainer.links.normalization.batch_normalization as bn\n").splitlines()
    assert "from minigrad.links import convolution_nd as convolution_nd" in out
    assert "import minigrad.links.batch_normalization as bn" in out
