"""save_npz / load_npz: exact round trips (training continues identically), atomic loads, no pickle ever."""

import io
import pickle
import zipfile

import numpy as np
import pytest

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad import initializers, optimizers, serializers


class MLP(mg.Chain):
    def __init__(self, seed=0, n_hidden=5):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(4, n_hidden, initialW=initializers.LeCunNormal(rng=seed))
            self.bn = L.BatchNormalization(n_hidden)
            self.l2 = L.Linear(n_hidden, 3, initialW=initializers.LeCunNormal(rng=seed + 1))

    def forward(self, x):
        return self.l2(F.relu(self.bn(self.l1(x))))


def data(seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((16, 4)).astype(np.float32), rng.integers(0, 3, 16).astype(np.int32)


def saved(obj):
    buffer = io.BytesIO()
    serializers.save_npz(buffer, obj)
    buffer.seek(0)
    return buffer


def snapshot(link):
    arrays = {name: p.array.copy() for name, p in link.namedparams()}
    for path, sub in link.namedlinks():
        for name in sub._persistent:
            value = getattr(sub, name)
            arrays[path + "@" + name] = value.copy() if isinstance(value, np.ndarray) else value
    return arrays


def assert_same(a, b):
    assert a.keys() == b.keys()
    for key in a:
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)


def test_link_round_trip_restores_parameters_and_persistents(tmp_path):
    source = MLP(seed=0)
    x, _ = data()
    source(x)  # moves the running statistics and N away from their initial values
    source.bn(source.l1(x), finetune=True)
    path = tmp_path / "model"  # no suffix: save_npz must not append ".npz"
    serializers.save_npz(path, source)
    assert path.exists()
    target = MLP(seed=100)
    serializers.load_npz(path, target)
    assert_same(snapshot(target), snapshot(source))
    assert target.bn.N == 1 and isinstance(target.bn.N, int)


def test_file_keys_are_the_parameter_paths():
    with np.load(saved(MLP())) as npz:
        assert set(npz.files) == {"l1/W", "l1/b", "bn/gamma", "bn/beta", "bn/avg_mean", "bn/avg_var", "bn/N",
                                  "l2/W", "l2/b"}


@pytest.mark.parametrize("make", [lambda: optimizers.Adam(alpha=0.01, amsgrad=True),
                                  lambda: optimizers.MomentumSGD(lr=0.05),
                                  lambda: optimizers.RMSprop(lr=0.01)])
def test_save_and_reload_continues_training_identically(make):
    x, t = data()

    def train(model, opt, steps):
        losses = []

        def lossfun():
            loss = F.softmax_cross_entropy(model(x), t)
            losses.append(float(loss.array))
            return loss

        for _ in range(steps):
            opt.update(lossfun)
        return losses

    model, opt = MLP(seed=0), make()
    opt.setup(model)
    opt.add_hook(optimizers.WeightDecay(1e-3))
    train(model, opt, 5)
    model_file, opt_file = saved(model), saved(opt)
    expected = train(model, opt, 5)

    restored, restored_opt = MLP(seed=42), make()
    restored_opt.setup(restored)
    restored_opt.add_hook(optimizers.WeightDecay(1e-3))
    serializers.load_npz(model_file, restored)
    serializers.load_npz(opt_file, restored_opt)
    assert restored_opt.t == 5
    assert train(restored, restored_opt, 5) == expected  # exactly the same loss sequence
    assert_same(snapshot(restored), snapshot(model))


def test_optimizer_state_alone_matters():
    """Without the optimizer file the continuation differs: the state really is being restored."""
    x, t = data()
    model = MLP()
    opt = optimizers.Adam(alpha=0.01).setup(model)
    for _ in range(3):
        opt.update(lambda: F.softmax_cross_entropy(model(x), t))
    fresh_opt = optimizers.Adam(alpha=0.01).setup(model.copy("copy"))
    loaded_opt = optimizers.Adam(alpha=0.01).setup(model.copy("copy"))
    serializers.load_npz(saved(opt), loaded_opt)
    for o in (opt, fresh_opt, loaded_opt):
        o.update(lambda o=o: F.softmax_cross_entropy(o.target(x), t))
    assert_same(snapshot(loaded_opt.target), snapshot(opt.target))
    assert not np.array_equal(fresh_opt.target.l1.W.array, opt.target.l1.W.array)


def test_missing_parameter_is_named_and_nothing_is_loaded():
    small = mg.Chain()
    with small.init_scope():
        small.l1 = L.Linear(4, 5)
    target = MLP(seed=1)
    before = snapshot(target)
    with pytest.raises(KeyError, match=r"no entry 'bn/gamma' in the file, but the target needs it; the file holds 2 "
                                       r"entries: 'l1/W', 'l1/b'"):
        serializers.load_npz(saved(small), target)
    assert_same(snapshot(target), before)  # l1 was in the file, yet it was not loaded


def test_mis_shaped_parameter_is_named_and_nothing_is_loaded():
    target = MLP(seed=1, n_hidden=5)
    before = snapshot(target)
    with pytest.raises(ValueError, match=r"entry 'l1/W' has shape \(6, 4\), but the target's array has shape \(5, 4\)"):
        serializers.load_npz(saved(MLP(seed=0, n_hidden=6)), target)
    assert_same(snapshot(target), before)


def test_unexpected_entries_are_an_error_unless_not_strict():
    big, small = MLP(seed=3), mg.Chain()
    with small.init_scope():
        small.l1 = L.Linear(4, 5)
    with pytest.raises(KeyError, match=r"has entries the target does not have: \['bn/N', 'bn/avg_mean'"):
        serializers.load_npz(saved(big), small)
    serializers.load_npz(saved(big), small, strict=False)
    np.testing.assert_array_equal(small.l1.W.array, big.l1.W.array)


def test_missing_entries_skipped_when_not_strict_and_ignore_names():
    source, target = MLP(seed=0), MLP(seed=1)
    file = saved(source)
    keep = target.l2.W.array.copy()
    serializers.load_npz(file, target, ignore_names=["l2/W"])
    np.testing.assert_array_equal(target.l2.W.array, keep)
    np.testing.assert_array_equal(target.l1.W.array, source.l1.W.array)


def test_path_loads_a_sub_tree():
    classifier = L.Classifier(MLP(seed=0))
    plain = MLP(seed=5)
    serializers.load_npz(saved(classifier), plain, path="predictor")
    np.testing.assert_array_equal(plain.l1.W.array, classifier.predictor.l1.W.array)


def test_dictionary_serializer_save_and_npz_deserializer_load_of_a_dict_round_trip():
    source, target = L.Classifier(MLP(seed=0)), MLP(seed=1)
    saver = serializers.DictionarySerializer()
    saver.save(source)
    with np.load(saved(source)) as npz:
        assert sorted(saver.target) == sorted(npz.files)  # what save_npz writes
    serializers.NpzDeserializer(saver.target, path="predictor").load(target)  # Chainer's dict-of-arrays form
    assert_same(snapshot(target), snapshot(source.predictor))


def test_npz_deserializer_load_checks_everything_before_writing():
    target = MLP(seed=1)
    before = snapshot(target)
    entries = dict(np.load(saved(MLP(seed=0))))
    entries["l2/b"] = np.zeros(7, np.float32)  # the last entry serialize reads is mis-shaped
    with pytest.raises(ValueError, match=r"entry 'l2/b' has shape \(7,\)"):
        serializers.NpzDeserializer(entries).load(target)
    assert_same(snapshot(target), before)
    entries["l2/b"], entries["extra"] = np.zeros(3, np.float32), np.zeros(1)
    with pytest.raises(KeyError, match=r"the archive has entries the target does not have: \['extra'\]"):
        serializers.NpzDeserializer(entries).load(target)
    serializers.NpzDeserializer(entries, strict=False, ignore_names=["l1/W"]).load(target)
    np.testing.assert_array_equal(target.l1.W.array, before["/l1/W"])
    np.testing.assert_array_equal(target.l2.W.array, entries["l2/W"])


@pytest.mark.parametrize("where", ["DictionarySerializer.save", "NpzDeserializer.load"])
def test_save_and_load_of_something_without_serialize_is_a_type_error(where):
    with pytest.raises(TypeError, match=f"{where}: expected a Link or an Optimizer, got dict"):
        if where == "NpzDeserializer.load":
            serializers.NpzDeserializer({}).load({})
        else:
            serializers.DictionarySerializer().save({})


def test_lazy_parameters_are_initialized_from_the_file():
    source = L.Linear(None, 2)
    source(np.ones((1, 3), dtype=np.float32))
    target = L.Linear(None, 2)
    serializers.load_npz(saved(target), L.Linear(None, 2))  # an uninitialized W is simply not saved
    serializers.load_npz(saved(source), target)
    assert target.W.shape == (2, 3)
    np.testing.assert_array_equal(target.W.array, source.W.array)


def test_optimizer_file_into_a_link_is_a_clear_error():
    model = MLP()
    opt = optimizers.Adam().setup(model)
    x, t = data()
    opt.update(lambda: F.softmax_cross_entropy(model(x), t))
    with pytest.raises(KeyError, match=r"no entry 'l1/W' .* from an optimizer instead of a link"):
        serializers.load_npz(saved(opt), MLP())


def test_loading_an_optimizer_that_was_not_set_up_is_an_error():
    with pytest.raises(RuntimeError, match=r"call optimizer.setup\(model\) first"):
        serializers.load_npz(saved(optimizers.SGD().setup(MLP())), optimizers.SGD())


def test_files_that_are_not_npz_archives(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(ValueError, match=r"'.*notes.txt' is not an .npz archive written by save_npz"):
        serializers.load_npz(text, MLP())
    single = tmp_path / "array.npy"
    np.save(single, np.ones(3))
    with pytest.raises(ValueError, match="is a single .npy array, not an .npz archive"):
        serializers.load_npz(single, MLP())
    with pytest.raises(TypeError, match="expected a Link or an Optimizer, got dict"):
        serializers.load_npz(text, {})


class Payload:
    """Unpickling this calls pathlib.Path.touch(sentinel): proof that code ran."""

    def __init__(self, sentinel):
        self.sentinel = sentinel

    def __reduce__(self):
        import pathlib

        return pathlib.Path.touch, (pathlib.Path(self.sentinel),)


def malicious_npz(path, sentinel):
    """A valid-looking model file whose 'l1/W' entry is a pickled object array carrying Payload."""
    good = {key: value for key, value in np.load(saved(MLP())).items()}
    with zipfile.ZipFile(path, "w") as archive:
        for key, value in good.items():
            member = io.BytesIO()
            if key == "l1/W":
                payload = np.empty(1, dtype=object)
                payload[0] = Payload(str(sentinel))
                np.save(member, payload, allow_pickle=True)
            else:
                np.save(member, value)
            archive.writestr(key + ".npy", member.getvalue())


def test_a_malicious_pickle_cannot_run_code(tmp_path):
    sentinel = tmp_path / "pwned"
    evil = tmp_path / "evil.npz"
    malicious_npz(evil, sentinel)
    target = MLP(seed=1)
    before = snapshot(target)
    with pytest.raises(ValueError, match=r"entry 'l1/W' of .* holds pickled Python objects; refusing to load it"):
        serializers.load_npz(evil, target)
    assert not sentinel.exists()
    assert_same(snapshot(target), before)
    # the payload is live: loading it the unsafe way does run the code
    with np.load(evil, allow_pickle=True) as npz:
        npz["l1/W"]
    assert sentinel.exists()


def test_a_plain_pickle_file_is_refused_without_running_it(tmp_path):
    sentinel = tmp_path / "pwned"
    evil = tmp_path / "evil.pkl"
    evil.write_bytes(pickle.dumps(Payload(str(sentinel))))
    with pytest.raises(ValueError, match="is not an .npz archive"):
        serializers.load_npz(evil, MLP())
    assert not sentinel.exists()


def test_saving_something_that_would_need_pickle_is_refused():
    link = mg.Link()
    link.add_persistent("config", {"a": 1})
    with pytest.raises(TypeError, match="'config' is a dict; only arrays, numbers, bools and strings can be saved"):
        serializers.save_npz(io.BytesIO(), link)
    with pytest.raises(TypeError, match="expected a Link or an Optimizer or a dict of arrays, got int"):
        serializers.save_npz(io.BytesIO(), 3)


def test_scalar_persistents_keep_their_type():
    link = mg.Link()
    link.add_persistent("count", 3)
    link.add_persistent("rate", 0.5)
    link.add_persistent("flag", True)
    link.add_persistent("label", "abc")
    file = saved(link)
    other = mg.Link()
    for name, value in (("count", 0), ("rate", 0.0), ("flag", False), ("label", "")):
        other.add_persistent(name, value)
    serializers.load_npz(file, other)
    assert (other.count, other.rate, other.flag, other.label) == (3, 0.5, True, "abc")
    assert type(other.count) is int and type(other.flag) is bool


def test_dtype_that_cannot_be_cast_is_refused():
    source, target = mg.Link(), mg.Link()
    source.add_persistent("values", np.array([1.5, 2.5]))
    target.add_persistent("values", np.zeros(2, dtype=np.int64))
    with pytest.raises(TypeError, match="entry 'values' has dtype float64, which cannot fill a int64 array"):
        serializers.load_npz(saved(source), target)


def test_parameters_without_state_in_the_file_get_fresh_state():
    """A parameter that had no update when saved has no state in the file: loading resets its state."""
    link = mg.Link()
    with link.init_scope():
        link.a = mg.Parameter(np.zeros(2))
        link.b = mg.Parameter(np.zeros(2))
    opt = optimizers.MomentumSGD(lr=0.1).setup(link)
    link.a.grad = np.ones(2)
    opt.update()  # b has no gradient: no state
    file = saved(opt)
    link.b.grad = np.ones(2)
    opt.update()
    assert opt.rules["/b"].state is not None
    serializers.load_npz(file, opt)
    assert opt.rules["/b"].state is None and opt.rules["/a"].state is not None
    assert opt.t == 1


def test_lazy_batch_normalization_statistics_are_loaded():
    source = L.BatchNormalization()
    source(np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32))
    target = L.BatchNormalization()
    serializers.load_npz(saved(source), target)
    np.testing.assert_array_equal(target.avg_mean, source.avg_mean)
    np.testing.assert_array_equal(target.gamma.array, source.gamma.array)
    with mg.using_config("train", False):
        x = np.ones((2, 3), np.float32)
        np.testing.assert_array_equal(target(x).array, source(x).array)


def test_a_dict_of_arrays_is_saved_as_it_is():
    stats = {"avg_mean": np.arange(3, dtype=np.float32), "/N": np.array(4), "lr": 0.5}
    buffer = io.BytesIO()
    serializers.save_npz(buffer, stats)
    buffer.seek(0)
    with np.load(buffer, allow_pickle=False) as archive:
        assert sorted(archive.files) == ["N", "avg_mean", "lr"]
        np.testing.assert_array_equal(archive["avg_mean"], stats["avg_mean"])
        assert archive["N"].dtype == np.array(4).dtype and archive["lr"] == 0.5
    with pytest.raises(TypeError, match="'bad' is a dict; only arrays"):
        serializers.save_npz(io.BytesIO(), {"bad": {"a": 1}})


def test_the_npz_module_path_is_chainers():
    from minigrad.serializers import npz
    assert npz.save_npz is serializers.save_npz and npz.NpzDeserializer is serializers.NpzDeserializer


@pytest.mark.parametrize("ignore_names", ["yy", ["yy"], lambda key: key == "yy", [lambda key: key == "yy"],
                                          [lambda key: False, "/yy/"]], ids=["name", "names", "predicate",
                                                                           "predicates", "mixed"])
def test_ignore_names_takes_a_name_a_predicate_or_a_list_of_them(ignore_names):
    buffer = io.BytesIO()
    np.savez(buffer, x=np.float32(10), yy=np.ones((2, 3), np.float32))
    buffer.seek(0)
    link = mg.Link()
    with link.init_scope():
        link.x = mg.Parameter(np.zeros((), np.float32))
        link.yy = mg.Parameter(np.zeros((2, 3), np.float32))
    serializers.load_npz(buffer, link, ignore_names=ignore_names)
    assert link.x.array == 10 and not link.yy.array.any()  # 'yy' left alone (a name was once read letter by letter)


def test_ignore_names_refuses_what_is_neither_name_nor_callable():
    with pytest.raises(TypeError, match="ignore_names must be a name, a callable, or a list of them; got an item 3"):
        serializers.NpzDeserializer({}, ignore_names=["a", 3])


def test_a_scalar_is_filled_only_without_loss():
    entries = {"f32": np.array(-2.5, np.float32), "i64": np.array(-2 ** 60, np.int64)}
    deserializer = serializers.NpzDeserializer(entries)
    assert deserializer("i64", 5) == -2 ** 60 and type(deserializer("i64", 5)) is int  # any int fits a Python int
    assert deserializer("f32", 1.0) == -2.5
    with pytest.raises(TypeError, match="entry 'f32' has dtype float32, which cannot fill a int without loss"):
        deserializer("f32", 5)
    with pytest.raises(TypeError, match="entry 'i64' has dtype int64, which cannot fill a uint32 without loss"):
        deserializer("i64", np.uint32(5))


def test_serialize_gives_what_save_npz_writes():
    from minigrad.serializers import npz
    link = L.Linear(3, 2)
    entries = npz.serialize(link)
    assert sorted(entries) == ["W", "b"]
    np.testing.assert_array_equal(entries["W"], link.W.array)


def test_a_deserializer_of_a_dict_reads_what_the_dict_holds_when_loading():
    # Chainer's tests make DictionarySerializer(target) and NpzDeserializer(target) together, then save into it
    target = {}
    saver, loader = serializers.DictionarySerializer(target), serializers.NpzDeserializer(target)
    source, copy = mg.links.Linear(2, 3), mg.links.Linear(2, 3)
    source.serialize(saver)
    copy.serialize(loader)
    np.testing.assert_array_equal(copy.W.array, source.W.array)
