"""Link, Chain, ChainList, Sequential: registration, traversal, copies, devices and the errors users hit."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad import backend, initializers
from minigrad.testing import cupy_sim


def param(*shape, value=0.0):
    return mg.Parameter(np.full(shape, value, dtype=np.float32))


class Affine(mg.Link):
    def __init__(self, n_in, n_out):
        super().__init__()
        with self.init_scope():
            self.W = param(n_out, n_in, value=1.0)
            self.b = param(n_out)

    def forward(self, x):
        return F.linear(x, self.W, self.b)


class Net(mg.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = Affine(2, 3)
            self.stack = mg.ChainList(Affine(3, 3), Affine(3, 1))

    def forward(self, x):
        h = self.l1(x)
        for layer in self.stack:
            h = layer(h)
        return h


# --- registration and traversal ----------------------------------------------------
def test_namedparams_are_registration_ordered_paths():
    net = Net()
    assert [name for name, _ in net.namedparams()] == [
        "/l1/W", "/l1/b", "/stack/0/W", "/stack/0/b", "/stack/1/W", "/stack/1/b"]
    assert [p.name for p in net.params()] == ["W", "b"] * 3
    assert net.count_params() == 6 + 3 + 9 + 3 + 3 + 1


def test_registration_order_is_kept_not_alphabetical():
    link = mg.Link()
    with link.init_scope():
        link.zeta = param(1)
        link.alpha = param(1)
    assert [name for name, _ in link.namedparams()] == ["/zeta", "/alpha"]


def test_links_children_and_namedlinks():
    net = Net()
    assert [path for path, _ in net.namedlinks()] == ["/", "/l1", "/stack", "/stack/0", "/stack/1"]
    assert [path for path, _ in net.namedlinks(skipself=True)][0] == "/l1"
    assert list(net.children()) == [net.l1, net.stack]
    assert len(list(net.links())) == 5
    assert net["l1"] is net.l1


def test_call_runs_forward():
    net = Net()
    y = net(np.ones((4, 2), dtype=np.float32))
    assert y.shape == (4, 1)
    np.testing.assert_allclose(y.array, np.full((4, 1), 18.0))


def test_forward_missing_is_a_clear_error():
    with pytest.raises(NotImplementedError, match="does not define forward"):
        mg.Link()(np.ones(2))


def test_cleargrads_clears_every_gradient():
    net = Net()
    F.sum(net(np.ones((1, 2), dtype=np.float32))).backward()
    assert all(p.grad is not None for p in net.params())
    net.cleargrads()
    assert all(p.grad is None for p in net.params())


def test_replacing_a_registered_parameter_keeps_its_place():
    link = Affine(2, 2)
    new_W = param(2, 2, value=5.0)
    link.W = new_W  # outside init_scope, but W is already registered
    assert [name for name, _ in link.namedparams()] == ["/W", "/b"]
    assert link.W is new_W and new_W.name == "W"


def test_delattr_unregisters():
    link = Affine(2, 2)
    del link.b
    assert [name for name, _ in link.namedparams()] == ["/W"]
    net = Net()
    del net.stack
    assert [path for path, _ in net.namedlinks()] == ["/", "/l1"]


def test_add_param_and_persistent():
    link = mg.Link()
    link.add_param("W", (2, 3), initializer=initializers.One())
    link.add_param("lazy")
    link.add_persistent("count", 3)
    assert link.W.array.dtype == np.float32 and (link.W.array == 1).all()
    assert link.lazy.array is None
    assert [name for name, _ in link.namedparams()] == ["/W", "/lazy"]
    assert [name for name, _ in link.namedparams(include_uninit=False)] == ["/W"]
    assert link.count_params() == 6
    link.stats = np.zeros(2)
    link.register_persistent("stats")
    assert link._persistent == ["count", "stats"]


# --- the errors ----------------------------------------------------------------
def test_parameter_outside_init_scope_is_an_error():
    link = mg.Link()
    with pytest.raises(AttributeError, match=r"'W' was assigned outside `with self.init_scope\(\):`"):
        link.W = param(2)
    assert list(link.params()) == []


def test_child_link_outside_init_scope_is_an_error():
    chain = mg.Chain()
    with pytest.raises(AttributeError, match=r"child link 'fc' was assigned outside `with self.init_scope"):
        chain.fc = L.Linear(2, 2)


def test_duplicate_names_are_errors():
    link = mg.Link()
    with link.init_scope():
        link.W = param(2)
        with pytest.raises(AttributeError, match="'W': that name is already registered"):
            link.W = param(3)
    with pytest.raises(AttributeError, match="'W': that name is already registered"):
        link.add_param("W", (2,))
    with pytest.raises(AttributeError, match="'W': that name is already registered"):
        link.add_persistent("W", 0)
    chain = mg.Chain()
    with chain.init_scope():
        chain.a = mg.Link()
        with pytest.raises(AttributeError, match="cannot register parameter 'a'"):
            chain.a = param(1)
        chain.w = param(1)
        with pytest.raises(AttributeError, match="cannot register child link 'w'"):
            chain.w = mg.Link()


def test_name_clashing_with_a_method_is_an_error():
    link = mg.Link()
    with link.init_scope(), pytest.raises(AttributeError, match="'params': an attribute of that name already exists"):
        link.params = param(1)


def test_plain_link_cannot_own_links():
    link = mg.Link()
    with link.init_scope(), pytest.raises(AttributeError, match="only a Chain .* can own child links"):
        link.child = mg.Link()


def test_chainlist_refuses_named_links():
    chain_list = mg.ChainList()
    with pytest.raises(AttributeError, match="use append"):
        chain_list.fc = mg.Link()
    with pytest.raises(TypeError, match="expected a Link, got int"):
        chain_list.append(3)


def test_forgetting_super_init_is_explained():
    class Broken(mg.Link):
        def __init__(self):
            with self.init_scope():
                self.W = param(1)

    with pytest.raises(RuntimeError, match=r"call super\(\).__init__\(\)"):
        Broken()


# --- Sequential --------------------------------------------------------------------
def test_sequential_calls_layers_in_order_with_position_names():
    model = mg.Sequential(L.Linear(3, 4), F.relu, L.Linear(4, 2))
    assert [name for name, _ in model.namedparams()] == ["/0/W", "/0/b", "/2/W", "/2/b"]
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    expected = np.maximum(x @ model[0].W.array.T + model[0].b.array, 0) @ model[2].W.array.T + model[2].b.array
    np.testing.assert_allclose(model(x).array, expected, rtol=1e-5, atol=1e-6)
    assert len(model) == 3 and list(model)[1] is F.relu


def test_sequential_insert_renumbers_and_unpacks_tuples():
    model = mg.Sequential(L.Linear(2, 2))
    model.insert(0, lambda x: (x, x))
    model.insert(1, lambda a, b: a + b)
    assert [name for name, _ in model.namedparams()] == ["/2/W", "/2/b"]
    assert model(np.ones((1, 2), dtype=np.float32)).shape == (1, 2)
    with pytest.raises(TypeError, match="must be a Link or a callable"):
        model.append(5)
    with pytest.raises(RuntimeError, match="no layers"):
        mg.Sequential()(np.ones(2))


# --- lazy initialization ------------------------------------------------------------
def test_lazy_linear_learns_its_input_size():
    model = mg.Sequential(L.Linear(None, 4), F.relu, L.Linear(3))
    assert model.count_params() == 4 + 3  # only the biases exist yet
    assert model[0].W.array is None
    y = model(np.ones((2, 7), dtype=np.float32))
    assert y.shape == (2, 3)
    assert model[0].W.shape == (4, 7) and model[2].W.shape == (3, 4)
    assert model.count_params() == 4 * 7 + 4 + 3 * 4 + 3


# --- copies ----------------------------------------------------------------------
def test_copy_share_copy_and_init():
    initializers.set_default_rng(0)
    net = mg.Sequential(L.Linear(2, 3), L.BatchNormalization(3))
    shared, copied, fresh = net.copy(), net.copy("copy"), net.copy(mode="init")
    for twin in (shared, copied, fresh):
        assert [n for n, _ in twin.namedparams()] == [n for n, _ in net.namedparams()]
        assert all(a is not b for a, b in zip(twin.params(), net.params()))
    assert shared[0].W.array is net[0].W.array
    assert copied[0].W.array is not net[0].W.array
    np.testing.assert_array_equal(copied[0].W.array, net[0].W.array)
    assert not np.array_equal(fresh[0].W.array, net[0].W.array)  # re-drawn from LeCunNormal
    assert fresh[0].W.shape == net[0].W.shape
    copied[1].avg_mean[...] = 5
    assert (net[1].avg_mean == 0).all()
    with pytest.raises(ValueError, match="mode must be one of"):
        net.copy("deep")


def test_copyparams():
    a, b = Net(), Net()
    for p in a.params():
        p.array[...] = 2.5
    b.copyparams(a)
    assert all((p.array == 2.5).all() for p in b.params())


def test_copyparams_and_addgrads_refuse_a_non_link_and_a_link_of_another_structure():
    with pytest.raises(TypeError, match="Net.copyparams: link must be a Link, got dict"):
        Net().copyparams({})
    with pytest.raises(ValueError, match="Net.addgrads: the source link has no parameter '/l1/W'"):
        Net().addgrads(mg.Sequential(Affine(2, 3)))


def test_addgrads_adds_each_gradient_by_path():
    a, b = Net(), Net()
    a.cleargrads()
    for i, p in enumerate(b.params()):
        p.grad = np.full(p.shape, float(i), np.float32)
    b.stack[1].b.cleargrad()  # a source without a gradient adds nothing
    a.addgrads(b)
    a.addgrads(b)
    for i, ((path, p), q) in enumerate(zip(a.namedparams(), b.params())):
        if path == "/stack/1/b":
            assert p.grad is None
        else:
            np.testing.assert_array_equal(p.grad, np.full(p.shape, 2.0 * i))
            assert p.grad is not q.grad


def test_zerograds_warns_once_and_fills_zeros():
    net = Net()
    with pytest.warns(DeprecationWarning, match="Link.zerograds is deprecated") as caught:
        net.zerograds()
    assert len(caught) == 1
    assert all(p.grad is not None and (p.grad == 0).all() for p in net.params())


# --- freezing ----------------------------------------------------------------------
def _train_once(net, optimizer):
    optimizer.update(lambda x: F.sum(net(x)), np.ones((1, 2), np.float32))


@pytest.mark.parametrize("before_setup", [False, True], ids=["after-setup", "before-setup"])
def test_disable_update_freezes_a_subtree_before_or_after_setup(before_setup):
    net = Net()
    if before_setup:
        net.stack.disable_update()
    optimizer = mg.optimizers.MomentumSGD(lr=0.1).setup(net)
    if not before_setup:
        net.stack.disable_update()
    before = {path: p.array.copy() for path, p in net.namedparams()}
    _train_once(net, optimizer)
    for path, p in net.namedparams():
        assert np.array_equal(p.array, before[path]) == path.startswith("/stack"), path
    assert not net.stack.update_enabled and net.update_enabled and net.l1.update_enabled


def test_enable_update_undoes_disable_update_before_or_after_setup():
    net = Net()
    net.disable_update()
    net.enable_update()  # before setup: back to having no rule at all
    assert all(p.update_rule is None for p in net.params()) and net.update_enabled
    net.disable_update()
    optimizer = mg.optimizers.SGD(lr=0.1).setup(net)
    assert not net.update_enabled
    net.enable_update()
    before = net.l1.W.array.copy()
    _train_once(net, optimizer)
    assert not np.array_equal(net.l1.W.array, before)


def test_a_parameter_frozen_before_setup_is_left_alone_by_its_own_update():
    net = Net()
    net.disable_update()
    net.l1.W.grad = np.ones_like(net.l1.W.array)
    before = net.l1.W.array.copy()
    net.l1.W.update()  # no optimizer yet: nothing happens (and nothing raises)
    np.testing.assert_array_equal(net.l1.W.array, before)


@pytest.mark.parametrize("mode", ["init", "copy", "share"])
def test_repeat_makes_a_sequential_of_copies(mode):
    initializers.set_default_rng(0)
    block = L.Linear(3, 3)
    blocks = block.repeat(3, mode=mode)
    assert isinstance(blocks, mg.Sequential) and len(blocks) == 3
    assert [n for n, _ in blocks.namedparams()] == [f"/{i}/{w}" for i in range(3) for w in ("W", "b")]
    for copy in blocks:
        assert copy.W is not block.W
        assert (copy.W.array is block.W.array) == (mode == "share")
        assert np.array_equal(copy.W.array, block.W.array) == (mode != "init")
    x = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(blocks(x).array, blocks[2](blocks[1](blocks[0](x))).array)


def test_repeat_zero_times_is_empty_and_bad_arguments_are_value_errors():
    assert len(L.Linear(2, 2).repeat(0)) == 0
    for bad in (-1, 2.0, True):
        with pytest.raises(ValueError, match="Linear.repeat: n_repeat must be an int >= 0"):
            L.Linear(2, 2).repeat(bad)
    with pytest.raises(ValueError, match="Linear.repeat: mode must be one of"):
        L.Linear(2, 2).repeat(2, mode="deep")


# --- devices ---------------------------------------------------------------------
def test_to_gpu_without_cupy_is_a_clear_error_or_moves_everything():
    net = mg.Sequential(L.Linear(2, 3), L.BatchNormalization(3))
    if not backend.is_cupy_available():
        with pytest.raises(RuntimeError, match=r"needs CuPy and a GPU; install them with `pip install minigrad\[cuda"):
            net.to_device("@cupy:0")
        assert net.xp is np and isinstance(net[0].W.array, np.ndarray)
        return
    import cupy

    net.to_device("@cupy:0")
    assert net.xp is cupy and isinstance(net[0].W.array, cupy.ndarray)
    assert isinstance(net[1].avg_mean, cupy.ndarray)
    y = net(cupy.ones((4, 2), dtype=cupy.float32))
    assert isinstance(y.array, cupy.ndarray)
    net.to_device("@numpy")
    assert isinstance(net[0].W.array, np.ndarray) and isinstance(net[1].avg_mean, np.ndarray)


def test_to_cpu_and_to_gpu_work_with_chainer_7s_deprecation_warning():
    net = Net()
    with pytest.warns(DeprecationWarning, match=r"to_cpu is deprecated. Please use to_device\('@numpy'\) instead"):
        assert net.to_cpu() is net
    assert net.xp is np
    with pytest.warns(DeprecationWarning, match=r"to_gpu is deprecated. Please use to_device\('@cupy:N'\)"):
        with cupy_sim.install():
            assert net.to_gpu() is net and net.xp is not np


def test_repr_lists_children_and_shapes():
    text = repr(Net())
    assert "Net()" in text and "(l1): Affine(W(3, 2), b(3,))" in text and "(stack): ChainList()" in text


def test_link_takes_chainers_parameter_declarations():
    link = mg.Link(x=(1,), W=((2, 3), np.float16), n=3)
    assert [name for name, _ in link.namedparams()] == ["/x", "/W", "/n"]
    assert link.x.dtype == np.float32 and link.W.dtype == np.float16 and link.n.shape == (3,)
    assert np.isnan(link.x.array).all()  # uninitialized values, as add_param leaves them
    optimizer = mg.optimizers.Adam(eta=0.5, weight_decay_rate=0.1).setup(link)  # Chainer's TestAdamW
    link.x.array.fill(1)
    link.x.grad = np.ones(1, dtype=np.float32)
    link.W.grad, link.n.grad = None, None
    optimizer.update()
    np.testing.assert_allclose(link.x.array, [0.9495], rtol=1e-6)
    with pytest.raises(TypeError, match=r"Link: parameter w= must be a shape or a \(shape, dtype\) pair, got 'a'"):
        mg.Link(w="a")


# --- Link.initialize_from_input: the lazily sized links' first call ---------------------------------------------------

class _LazyScale(mg.Link):
    def __init__(self) -> None:
        super().__init__()
        self.calls = []
        with self.init_scope():
            self.w = mg.Parameter(mg.initializers.One())

    def forward(self, x):
        self.initialize_from_input(self.w, x, 2, self._size)
        return x * F.broadcast_to(self.w, x.shape)

    def _size(self, x, xp):
        self.calls.append((x.shape, xp))
        self.w.initialize(x.shape[1:], xp=xp)


def test_initialize_from_input_sizes_the_parameters_from_the_first_input_only():
    link = _LazyScale()
    link(np.ones((2, 3), np.float32))
    link(np.ones((5, 3), np.float32))
    assert link.calls == [((2, 3), np)] and link.w.shape == (3,)


@pytest.mark.parametrize("x, where, error, message", [
    ([[1.0]], None, TypeError, "_LazyScale: the input must be an array or a Variable, got list"),
    (np.ones(3), None, ValueError, r"_LazyScale: the input needs at least 2 axes, got shape \(3,\)"),
    (np.ones(3), "Scale", ValueError, r"^Scale: the input needs at least 2 axes"),
])
def test_initialize_from_input_names_the_link_for_a_bad_first_input(x, where, error, message):
    link = _LazyScale()
    with pytest.raises(error, match=message):
        link.initialize_from_input(link.w, x, 2, link._size, where)
    assert link.calls == [] and link.w.array is None
