"""configuration: defaults, using_config, and thread isolation."""

from __future__ import annotations

import threading

import pytest

import minigrad as mg


def test_defaults():
    assert (mg.config.enable_backprop, mg.config.train, mg.config.debug) == (True, True, False)


def test_using_config_sets_and_restores_including_new_names():
    with mg.using_config("train", False):
        assert mg.config.train is False
    assert mg.config.train is True
    with mg.using_config("my_flag", 3):
        assert mg.config.my_flag == 3
    assert not hasattr(mg.config, "my_flag")


def test_using_config_name_must_be_a_string():
    with pytest.raises(TypeError, match="name"):
        with mg.using_config(1, True):
            pass


def test_a_change_in_one_thread_never_leaks_into_another():
    results = []
    mg.config.train = False
    try:
        thread = threading.Thread(target=lambda: results.append(mg.config.train))
        thread.start()
        thread.join()
    finally:
        mg.config.train = True
    assert results == [True]  # the new thread starts from the global defaults
