"""L.BinaryHierarchicalSoftmax: the loss against a NumPy walk down the tree, gradients, Huffman trees, errors."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad.testing import LinkTestCase

TREE = ((0, 1), ((2, 3), 4))  # internal nodes in pre-order: 0 = root, 1 = (0, 1), 2 = ((2, 3), 4), 3 = (2, 3)
PATHS = {0: [(0, 1), (1, 1)], 1: [(0, 1), (1, -1)], 2: [(0, -1), (2, 1), (3, 1)], 3: [(0, -1), (2, 1), (3, -1)],
         4: [(0, -1), (2, -1)]}  # word -> [(internal node, +1 left / -1 right)], read off TREE by hand


def _numpy_loss(W, x, t):
    return sum(np.log1p(np.exp(-code * (W[node] @ row))) for row, word in zip(x, t) for node, code in PATHS[word])


class TestBinaryHierarchicalSoftmax(LinkTestCase):
    def create_link(self, initializers):
        with mg.using_config("dtype", self.dtype):
            return L.BinaryHierarchicalSoftmax(3, TREE)

    def generate_inputs(self):
        return self.rng.uniform(-1, 1, (4, 3)).astype(self.dtype), np.array([0, 2, 4, 3], np.int32)

    def forward_expected(self, link, inputs):
        x, t = inputs
        return np.array(_numpy_loss(link.W.array.astype(np.float64), x, t)),


def test_probabilities_of_all_words_add_up_to_one():
    link = L.BinaryHierarchicalSoftmax(3, TREE)
    x = np.array([[1.0, 2.0, 3.0]], np.float32)
    losses = [link(x, np.array([word])) for word in range(5)]
    assert all(loss.shape == () and loss.dtype == np.float32 for loss in losses)
    assert sum(np.exp(-float(loss.array)) for loss in losses) == pytest.approx(1.0, abs=1e-5)
    assert link.W.shape == (4, 3) and link.W.dtype == np.float32 and np.abs(link.W.array).max() <= 1


def test_huffman_tree_as_chainer_builds_it():
    make = L.BinaryHierarchicalSoftmax.create_huffman_tree
    assert make({0: 8, 1: 5, 2: 6, 3: 4}) == ((3, 1), (2, 0))
    assert make({"x": 8, "y": 6, "z": 5, "zz": 12}) == ("zz", ("x", ("z", "y")))  # (Chainer 7.8.1's answer)
    assert make({"only": 3}) == "only"
    with pytest.raises(ValueError, match="create_huffman_tree: the vocabulary is empty"):
        make({})


def test_a_deep_tree_parses_without_recursion():
    tree = 0
    for word in range(1, 5000):  # a chain: word k sits k levels deep
        tree = (tree, word)
    link = L.BinaryHierarchicalSoftmax(2, tree)
    assert link.W.shape == (4999, 2)
    assert link(np.zeros((1, 2), np.float32), np.array([0])).array == pytest.approx(4999 * np.log(2), rel=1e-4)


@pytest.mark.parametrize("tree,error,words", [
    (((0, 1, 2), 3), ValueError, r"every internal node of the tree must be a pair, got \(0, 1, 2\)"),
    (((0, "a"), 1), TypeError, "the leaves of the tree must be non-negative ints"),
    (((0, 1), 0), ValueError, "the word id 0 is a leaf of the tree twice"),
])
def test_bad_trees(tree, error, words):
    with pytest.raises(error, match=f"BinaryHierarchicalSoftmax: {words}"):
        L.BinaryHierarchicalSoftmax(3, tree)


def test_bad_inputs_name_the_link():
    link = L.BinaryHierarchicalSoftmax(3, ((0, 2), 3))  # word 1 is not in the tree
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=r"t holds word ids that are not leaves of the tree: \[1, 7\]"):
        link(x, np.array([1, 7]))
    with pytest.raises(ValueError, match=r"x must have shape \(len\(t\), in_size\) = \(3, 3\), got \(2, 3\)"):
        link(x, np.array([0, 2, 3]))
    mixed = link(x.astype(np.float64), np.array([0, 2]))  # computed in float64, as linear does
    assert mixed.dtype == np.float64
    assert float(mixed.array) == pytest.approx(float(link(x, np.array([0, 2])).array), rel=1e-6)
    with pytest.raises(TypeError, match="BinaryHierarchicalSoftmax: t must have an integer dtype"):
        link(x, np.array([0.0, 2.0]))
    with pytest.raises(ValueError, match="BinaryHierarchicalSoftmax: in_size must be positive"):
        L.BinaryHierarchicalSoftmax(0, ((0, 1), 2))
