"""minigrad's CuPy code paths, run on the CuPy simulator: the GPU bugs it found stay fixed.

Each test installs ``minigrad.testing.cupy_sim`` itself, so it runs in every
suite run (not only with ``--minigrad-backend=cupy-sim``).
"""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad import backend
from minigrad.testing import FunctionTestCase, check_backward, cupy_sim


@pytest.fixture
def cp():
    with cupy_sim.install() as module:
        yield module


def test_backend_doctests_pass_where_cupy_is_available(cp):
    # they run with the suite, so a doctest that prints an array on a GPU machine fails scripts/gpu-check.sh
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(backend):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_get_item_takes_a_numpy_boolean_mask_for_a_gpu_input(cp):
    x = mg.Variable(cp.arange(4.0))
    mask = np.array([True, False, True, False])
    y = F.get_item(x, mask)
    assert isinstance(y.array, cp.ndarray) and y.array.get().tolist() == [0.0, 2.0]
    F.sum(y).backward()
    assert x.grad.get().tolist() == [1.0, 0.0, 1.0, 0.0]
    assert F.get_item(x, (np.array([3, 1]),)).array.get().tolist() == [3.0, 1.0]  # a NumPy integer index too


@pytest.mark.parametrize("index", [
    lambda cp: cp.asarray([0, 4]),
    lambda cp: np.array([-5]),
    lambda cp: [1, 9],
    lambda cp: (slice(None), cp.asarray([2])),
])
def test_get_item_raises_for_out_of_bounds_index_arrays_on_the_gpu(cp, index):
    x = mg.Variable(cp.arange(4.0).reshape(4, 1) if isinstance(index(cp), tuple) else cp.arange(4.0))
    with pytest.raises(IndexError, match="out of bounds"):  # CuPy itself would wrap them silently
        F.get_item(x, index(cp))


def test_select_item_and_embed_id_refuse_out_of_range_ids_on_the_gpu(cp):
    with pytest.raises(ValueError, match="outside"):
        F.select_item(cp.zeros((2, 3)), cp.asarray([0, 3]))
    with pytest.raises(ValueError, match="must be in"):
        F.embed_id(cp.asarray([0, 5]), cp.zeros((3, 2)))


def test_a_python_scalar_before_a_raw_gpu_array(cp):
    a = cp.asarray(np.array([0.25, 1.0], dtype=np.float32))
    for y in (F.add(2.0, a), F.maximum(0.5, a), F.minimum(0.5, a), F.sub(1.0, a) if hasattr(F, "sub") else None):
        if y is not None:
            assert isinstance(y.array, cp.ndarray) and y.dtype == np.float32
    assert F.maximum(0.5, a).array.get().tolist() == [0.5, 1.0]


def test_a_numpy_scalar_operand_with_a_gpu_variable(cp):
    x = mg.Variable(cp.asarray(np.array([1.0, 2.0], dtype=np.float32)))
    for y in (x * np.float32(2), np.float32(2) * x, x + np.float64(1), F.maximum(x, np.float32(1.5))):
        assert isinstance(y.array, cp.ndarray)
    assert (x * np.float32(2)).dtype == np.float32 and (x * np.float32(2)).array.get().tolist() == [2.0, 4.0]


def test_scatter_gradients_use_add_at_without_a_deprecation_warning(cp):
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        x = mg.Variable(cp.arange(3.0))
        F.sum(F.get_item(x, cp.asarray([0, 0, 2]))).backward()
        assert x.grad.get().tolist() == [2.0, 0.0, 1.0]
        W = mg.Variable(cp.ones((3, 2)))
        F.sum(F.embed_id(cp.asarray([1, 1]), W)).backward()
        assert W.grad.get().tolist() == [[0.0, 0.0], [2.0, 2.0], [0.0, 0.0]]


def test_copyparams_from_a_gpu_link_into_a_cpu_link(cp):
    gpu, cpu = L.Linear(3, 2), L.Linear(3, 2)
    gpu.to_device("@cupy:0")
    cpu.copyparams(gpu)
    assert type(cpu.W.array) is np.ndarray
    np.testing.assert_array_equal(cpu.W.array, gpu.W.array.get())


def test_copyparams_puts_uninitialised_params_and_persistents_on_the_target_device(cp):
    source = L.Linear(3, 2)
    target = L.Linear(None, 2)  # W not initialised yet
    target.to_device("@cupy:0")
    target.copyparams(source)
    assert isinstance(target.W.array, cp.ndarray) and isinstance(target.b.array, cp.ndarray)
    gpu_bn, cpu_bn = L.BatchNormalization(2), L.BatchNormalization(2)
    gpu_bn.to_device("@cupy:0")
    cpu_bn.copyparams(gpu_bn)
    assert type(cpu_bn.avg_mean) is np.ndarray and type(cpu_bn.avg_var) is np.ndarray
    back = L.BatchNormalization(2)
    back.to_device("@cupy:0")
    back.copyparams(cpu_bn)
    assert isinstance(back.avg_mean, cp.ndarray)


class _DropoutCase(FunctionTestCase):
    def generate_inputs(self):
        return (np.ones((4, 5), dtype=self.dtype),)

    def forward(self, inputs, device):
        return F.dropout(inputs[0], 0.5)


def test_dropout_on_the_gpu_is_reproducible_under_the_test_seeding(cp):
    draws = []
    for _ in range(2):
        case = _DropoutCase()
        case._prepare("cupy", "float32")
        cp.random.random_sample(7)  # whatever ran before must not matter: the seeding is per case
        case._prepare("cupy", "float32")
        draws.append(F.dropout(cp.ones((4, 5), dtype=np.float32), 0.5).array.get())
    np.testing.assert_array_equal(draws[0], draws[1])


def test_a_custom_op_checked_on_the_simulated_gpu(cp):
    class Cube(mg.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            x, = inputs
            return x * x * x,

        def backward(self, indexes, grad_outputs):
            x, = self.get_retained_inputs()
            return 3.0 * x * x * grad_outputs[0],

    x = cp.asarray(np.linspace(-1, 1, 5))
    assert check_backward(lambda v: Cube().apply((v,))[0], x, cp.ones(5), seed=0).passed


def test_the_cli_sweeps_ops_on_the_simulator(capsys):
    from minigrad.__main__ import main

    assert main(["check", "--backend", "cupy-sim", "--ops", "get_item*,embed_id", "--dtype", "float32"]) == 0
    out = capsys.readouterr().out
    assert " cupy-sim " in out and "0 failed" in out and "ran the CuPy cases on minigrad's CPU simulator" in out
    skipped = [line.split()[0] for line in out.splitlines() if " skip " in line]
    # the CuPy cases ran instead of being skipped; the only skips are bad cases whose spec's func indexes its input
    # itself (get_item[basic]: x[...]), which say nothing about the op on any backend
    assert skipped and all(op.startswith("get_item[") and "bad:" in op for op in skipped), skipped


def test_get_item_refuses_a_boolean_mask_of_the_wrong_shape():
    # found while fixing the mask path: nonzero() turned a too-short mask into valid indices (NumPy too)
    with pytest.raises(IndexError, match="does not match"):
        F.get_item(np.ones(3), np.array([True, False]))
    with pytest.raises(IndexError, match="does not match"):
        F.get_item(np.ones((2, 3)), (Ellipsis, np.array([True, False])))
    assert F.get_item(np.ones((2, 3)), (Ellipsis, np.array([True, False, True]))).shape == (2, 2)


# Ops allowed to synchronise with the device (device-to-host reads), how often in forward and in backward, and why.
# Any other op, or more reads than listed, fails: a read stalls the GPU pipeline, so each one must be worth it.
SYNC_BUDGET = {
    "get_item[bool]": (1, 0, "nonzero of the mask: the output size depends on the data"),
    "scatter_add[bool]": (1, 0, "nonzero of the mask, as get_item"),
    "repeat[counts]": (1, 0, "the output size is the sum of the counts"),
    "select_item": (1, 0, "checks that every t[i] is in [0, K)"),
    "average": (1, 0, "checks that the weights do not sum to zero"),
    "softmax_cross_entropy": (1, 0, "checks the labels are in range"),
    "sigmoid_cross_entropy": (1, 0, "checks the labels are in {0, 1} or ignore_label"),
    "embed_id": (1, 0, "checks the ids are in [0, n_vocab)"),
    "hinge": (1, 0, "checks the labels are in [0, K)"),
    "crf1d": (1, 0, "checks the labels of every step are in [0, K), at once"),
    "connectionist_temporal_classification": (1, 0, "checks the lengths and the labels at once"),
    "contrastive": (1, 0, "checks the labels are 0 or 1"),
    "permutate": (2, 0, "checks the indices are a permutation (and, given as a Variable, reads them once)"),
    "sparse_matmul": (1, 0, "the CooMatrix made in the spec's function checks its entries are inside its shape"),
    "roi_pooling_2d": (1, 0, "the boxes are read on the host, which turns them into pixel indices"),
    "roi_max_pooling_2d": (2, 0, "the boxes and their batch indices are read on the host, as roi_pooling_2d"),
    "roi_average_pooling_2d": (2, 0, "as roi_max_pooling_2d"),
    "roi_average_align_2d": (2, 0, "as roi_max_pooling_2d (the sample points and their weights)"),
    "roi_max_align_2d": (2, 0, "as roi_average_align_2d"),
    "spatial_transformer_sampler": (2, 0, "the neighbours of the grid's points are found on the host"),
    "deformable_convolution_2d_sampler": (2, 0, "its taps are read by spatial_transformer_sampler"),
    "inv": (1, 0, "a singular matrix: CuPy returns non-finite values where NumPy raises"),
    "batch_inv": (1, 0, "as inv"),
    "cholesky": (1, 1, "symmetric and positive definite (CuPy returns NaN where NumPy raises); inv in backward"),
    "det": (0, 1, "backward refuses a singular matrix, as in Chainer"),
    "batch_det": (0, 1, "as det"),
    "max_pooling_2d[return_indices]": (2, 0, "the indexes are made on the host side of the argmax (to be reduced)"),
    "upsampling_2d": (2, 0, "checks the indexes are in [0, kh*kw) and of x's shape"),
    "negative_sampling": (3, 0, "checks t and the sampler's ids are in range"),
    "black_out": (4, 0, "checks t and the samples are in range"),
    "classification_summary": (2, 0, "label_num and the label range come from the data"),
    "precision": (1, 0, "as classification_summary"),
    "recall": (1, 0, "as classification_summary"),
    "f1_score": (1, 0, "as classification_summary"),
    # the special functions choose their series/continued-fraction length, or Newton steps, from the data
    "erf": (1, 0, "the continued fraction's depth"), "erfc": (1, 0, "as erf"),
    "erfcx": (1, 0, "as erf"), "ndtr": (1, 0, "as erf"),
    "log_ndtr": (1, 1, "as erf, in forward and in the gradient"),
    "erfinv": (9, 0, "Newton steps, each an erf"), "erfcinv": (9, 0, "as erfinv"), "ndtri": (9, 0, "as erfinv"),
    "digamma": (0, 4, "polygamma(1) in the gradient picks its recurrence length from the data"),
    "zeta": (1, 0, "the lowest q sets how many terms a negative q needs (and refuses one below -10,000)"),
    "polygamma": (9, 6, "the recurrence length and the pole test, in forward and in the gradient; the bounds on n "
                        "and x (issue 27: refused before a loop of n or -x steps)"),
}


def _sync_budget(name: str) -> tuple[int, int]:
    for key in (name, name.split("[")[0], name.split(",")[0] + "]" if "[" in name else name):
        if key in SYNC_BUDGET:
            return SYNC_BUDGET[key][:2]
    return (0, 0)


def test_no_op_synchronises_with_the_device_beyond_its_budget(cp):
    from minigrad.testing.op_specs import all_specs

    over = []
    for spec in all_specs():
        dtype = np.dtype("float32" if "float32" in spec.dtypes else spec.dtypes[0])
        xs = [mg.Variable(backend.to_gpu(a)) for a in spec.inputs(np.random.default_rng(0), dtype)]
        with cupy_sim.count_transfers() as forward:
            ys = spec.func(*xs)
        ys = list(ys) if isinstance(ys, (tuple, list)) else [ys]
        with cupy_sim.count_transfers() as backward:
            if spec.differentiable:
                mg.grad(ys, [x for x in xs if x.requires_grad], [mg.Variable(cp.ones(y.shape, y.dtype)) for y in ys])
        allowed_forward, allowed_backward = _sync_budget(spec.name)
        if forward.device_to_host > allowed_forward or backward.device_to_host > allowed_backward:
            over.append(f"{spec.name}: {forward.device_to_host} in forward, {backward.device_to_host} in backward")
    assert not over, over


def test_every_sync_budget_names_a_registered_op():
    from minigrad.testing.op_specs import all_specs

    names = {spec.name for spec in all_specs()} | {spec.name.split("[")[0] for spec in all_specs()}
    assert set(SYNC_BUDGET) <= names, set(SYNC_BUDGET) - names


def test_gradient_clipping_syncs_once_per_update_on_the_gpu(cp):
    from minigrad.optimizers import SGD, GradientClipping

    model = mg.Sequential(L.Linear(3, 4), L.Linear(4, 2))  # four parameters
    model.to_device("@cupy:0")
    opt = SGD(lr=0.1).setup(model)
    opt.add_hook(GradientClipping(1e-3))
    F.sum(model(cp.ones((5, 3), dtype=np.float32))).backward()
    grads = [p.grad.get() for p in model.params()]
    with cupy_sim.count_transfers() as counts:
        opt.update()
    assert counts.device_to_host == 1
    norm = np.sqrt(sum(float((g.astype(np.float64) ** 2).sum()) for g in grads))
    clipped = [p.grad.get() for p in model.params()]
    np.testing.assert_allclose(clipped[0], grads[0] * (1e-3 / norm), rtol=1e-5)


@pytest.mark.parametrize("call", [
    lambda x, noise: F.dropout(x, mask=noise),
    lambda x, noise: F.gaussian(x, x, eps=noise),
], ids=["dropout mask", "gaussian eps"])
def test_given_noise_on_another_device_is_a_type_error_naming_the_op(cp, call):
    x = mg.Variable(cp.ones(3, dtype=np.float32))
    with pytest.raises(TypeError, match=r"(dropout: mask|gaussian: eps) is a numpy array but (x|mean) is on cupy"):
        call(x, np.ones(3, dtype=np.float32))
    assert call(x, cp.ones(3, dtype=np.float64)).dtype == np.float32  # cast to x's dtype
