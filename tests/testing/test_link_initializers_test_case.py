"""LinkInitializersTestCase: a link that honours its initializer arguments passes; one that ignores one fails."""

import numpy as np
import pytest

import minigrad as mg
import minigrad.links as L
from minigrad import initializers
from minigrad.testing import InitializerArgument, LinkInitializersTestCase, inject_backend_tests


class IgnoresItsBias(L.Linear):
    def __init__(self, in_size, out_size, initialW=None, initial_bias=None):
        super().__init__(in_size, out_size, initialW=initialW, initial_bias=None)  # the bug: the bias is dropped


class LinearInitializers(LinkInitializersTestCase):
    param_names = ("W", "b")
    link = L.Linear

    def generate_params(self):
        return np.ones((3, 2), np.float32), np.zeros(3, np.float32)

    def generate_inputs(self):
        return np.ones((1, 2), np.float32),

    def create_link(self, initializers):
        initialW, initial_bias = initializers
        return self.link(None, 3, initialW=initialW, initial_bias=initial_bias)  # (W sized by the forward pass)

    def get_initializers(self):
        return ([initializers.Constant(1.5), 2.0, np.full((3, 2), 3.0, np.float32)],
                [initializers.Constant(2), -1.0, InitializerArgument(None, 0)])


@inject_backend_tests(None, [{}, {"use_cuda": True}])
class TestLinearInitializers(LinearInitializers):
    pass


def test_a_link_that_drops_an_initializer_is_caught():
    class Broken(LinearInitializers):
        @staticmethod
        def link(in_size, out_size, initialW=None, initial_bias=None):
            return IgnoresItsBias(in_size, out_size, initialW=initialW, initial_bias=initial_bias)

    with pytest.raises(AssertionError):
        Broken().test_initializers()


def test_bad_descriptions_are_refused():
    class NotLists(LinearInitializers):
        def get_initializers(self):
            return (initializers.Constant(1), [2.0])

    with pytest.raises(TypeError, match="get_initializers must return a list of lists of values"):
        NotLists().test_initializers()

    class BareNone(LinearInitializers):
        def get_initializers(self):
            return ([2.0], [None])

    with pytest.raises(ValueError, match="must be given as InitializerArgument"):
        BareNone().test_initializers(mg.testing.BackendConfig({}))
    with pytest.raises(ValueError, match="expected initializer cannot be None"):
        InitializerArgument(0, None)
