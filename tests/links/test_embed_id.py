"""L.EmbedID: lookup against NumPy indexing, gradient w.r.t. W (ids are not differentiable), ignore_label."""

import numpy as np
import pytest

import minigrad.links as L
from minigrad import initializers
from minigrad.testing import LinkTestCase


class TestEmbedID(LinkTestCase):
    def generate_params(self):
        return self.rng.uniform(-1, 1, (5, 3)),

    def create_link(self, initializers):
        W, = initializers
        return L.EmbedID(5, 3, initialW=W, ignore_label=-1)

    def generate_inputs(self):
        return np.array([[0, 4, -1], [2, 2, 1]], dtype=np.int32),

    def forward_expected(self, link, inputs):
        ids, = inputs
        W = link.W.array.astype(np.float64)
        return np.where((ids == -1)[..., None], 0.0, W[ids]),


def test_default_initializer_is_unit_normal():
    initializers.set_default_rng(0)
    embed = L.EmbedID(300, 100)
    assert embed.W.shape == (300, 100) and abs(embed.W.array.std() - 1.0) < 0.01


def test_bad_ids_are_errors():
    embed = L.EmbedID(3, 2)
    with pytest.raises(ValueError, match="embed_id"):
        embed(np.array([3], dtype=np.int32))
    with pytest.raises(TypeError, match="embed_id"):
        embed(np.array([0.0], dtype=np.float32))
    with pytest.raises(TypeError, match="EmbedID: in_size must be a positive int"):
        L.EmbedID(None, 3)


def test_a_link_without_its_ignore_label_attribute_uses_none_as_chainers_old_pickles_do():
    embed = L.EmbedID(3, 4)
    del embed.ignore_label  # a link pickled before the attribute existed
    assert embed(np.arange(2, dtype=np.int32)).shape == (2, 4)
