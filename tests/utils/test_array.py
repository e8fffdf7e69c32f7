"""force_array: scalars become 0-d arrays, arrays keep their identity unless a cast is asked for."""

import numpy as np

from minigrad.utils import force_array


def test_a_scalar_becomes_a_0d_array_of_its_dtype_or_the_given_one():
    y = force_array(np.float16(1.5))
    assert isinstance(y, np.ndarray) and y.shape == () and y.dtype == np.float16
    assert force_array(2.0, np.float32).dtype == np.float32


def test_an_array_is_returned_as_it_is_or_cast():
    x = np.arange(3.0)
    assert force_array(x) is x
    assert force_array(x, np.float64) is x
    assert force_array(x, np.float32).dtype == np.float32


def test_size_of_shape():
    from minigrad.utils import size_of_shape
    assert size_of_shape((2, 3, 4)) == 24 and size_of_shape(()) == 1 and size_of_shape((5, 0)) == 0
    assert type(size_of_shape((np.int64(2), 3))) is int
