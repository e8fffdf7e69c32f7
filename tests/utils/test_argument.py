"""minigrad.utils.argument (Chainer's utils.argument)."""

import pytest

from minigrad.utils import argument


def test_parse_kwargs_pops_names_and_refuses_leftovers():
    kwargs = {"b": 2, "c": 3}
    with pytest.raises(TypeError, match=r"test_parse_kwargs_pops_names_and_refuses_leftovers\(\) got unexpected "
                                        r"keyword argument\(s\) 'c'"):
        argument.parse_kwargs(kwargs, ("a", 1), ("b", 0))
    assert argument.parse_kwargs({"b": 2}, ("a", 1), ("b", 0)) == (1, 2)
    with pytest.raises(ValueError, match="volatile is gone"):
        argument.parse_kwargs({"volatile": True}, ("a", 1), volatile="volatile is gone")
    with pytest.raises(TypeError, match=r"got unexpected keyword argument\(s\) 'x', 'y'"):
        argument.assert_kwargs_empty({"y": 1, "x": 2})
