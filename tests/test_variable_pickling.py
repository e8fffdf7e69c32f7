"""Pickling (and copying) a Variable keeps its array, gradient, name and flags and drops its graph, as in
Chainer; so a model or an optimizer that has been trained (its parameters fed graphs) pickles too."""

import copy
import pickle

import numpy as np

import minigrad as mg
import minigrad.functions as F
import minigrad.links as L
from minigrad import optimizers


def test_a_variable_with_a_graph_pickles_as_a_leaf():
    x = mg.Variable(np.array([1.0, 2.0]), name="x")
    y = x * 3
    y.grad = np.array([0.5, 0.25])
    z = pickle.loads(pickle.dumps(y))
    assert type(z) is mg.Variable and z.creator is None and y.creator is not None
    np.testing.assert_array_equal(z.array, [3.0, 6.0])
    np.testing.assert_array_equal(z.grad, [0.5, 0.25])
    w = pickle.loads(pickle.dumps(x))
    assert w.name == "x" and w.requires_grad and w.array is not x.array
    F.sum(w * w).backward()  # the copy is a working leaf of new graphs
    np.testing.assert_array_equal(w.grad, [2.0, 4.0])


def test_copy_and_deepcopy_are_leaves_too():
    x = mg.Variable(np.ones(2))
    y = x * 2
    shallow, deep = copy.copy(y), copy.deepcopy(y)
    assert shallow.creator is None and deep.creator is None
    assert shallow.array is y.array and deep.array is not y.array


def test_a_parameter_keeps_its_own_attributes():
    p = mg.Parameter(mg.initializers.Constant(2.0), name="W")
    p.to_device("@numpy")
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is mg.Parameter and q.array is None and q.name == "W"
    assert isinstance(q.initializer, mg.initializers.Constant) and q.device == mg.get_device("@numpy")
    q.initialize((2,))
    np.testing.assert_array_equal(q.array, [2.0, 2.0])


class Tagged(mg.Variable):  # a user's subclass with attributes of its own
    pass


def test_a_subclass_keeps_its_dict():
    t = Tagged(np.zeros(1))
    t.tag = "mine"
    u = pickle.loads(pickle.dumps(t))
    assert type(u) is Tagged and u.tag == "mine"


def test_a_trained_optimizer_pickles_and_resumes_identically():
    model = L.Linear(3, 2)
    optimizer = optimizers.Adam().setup(model)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def loss():
        return F.sum(model(x) ** 2)

    optimizer.update(loss)
    saved = pickle.dumps(optimizer)  # the parameters have fed a graph: VariableNodes exist
    optimizer.update(loss)
    restored = pickle.loads(saved)
    model = restored.target
    restored.update(loss)
    assert restored.t == 2
    np.testing.assert_array_equal(restored.target.W.array, optimizer.target.W.array)
