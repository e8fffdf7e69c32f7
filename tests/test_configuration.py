"""configuration: defaults, using_config, and thread isolation."""

from __future__ import annotations

import io
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


def test_show_prints_each_entry_of_this_thread_sorted_and_aligned():
    out = io.StringIO()
    with mg.using_config("train", False), mg.using_config("my_flag", 3):
        mg.config.show(file=out)
    lines = out.getvalue().splitlines()
    assert [line.split() for line in lines] == [
        ["debug", "False"], ["dtype", "float32"], ["enable_backprop", "True"], ["in_recomputing", "False"],
        ["my_flag", "3"], ["train", "False"]]
    assert len({line.index(line.split()[1]) for line in lines}) == 1  # the values start in one column
    seen = io.StringIO()
    thread = threading.Thread(target=mg.config.show, kwargs={"file": seen})
    with mg.using_config("train", False):
        thread.start()
        thread.join()
    assert "train            True" in seen.getvalue()  # another thread sees the defaults


def test_is_debug_and_set_debug_are_config_debug():
    import threading

    assert mg.is_debug() is False
    mg.set_debug(True)
    try:
        assert mg.config.debug is True and mg.is_debug()
        seen = []
        thread = threading.Thread(target=lambda: seen.append(mg.is_debug()))
        thread.start()
        thread.join()
        assert seen == [False]  # per thread, as config is
    finally:
        mg.set_debug(False)
    assert not mg.is_debug()
    with pytest.raises(TypeError, match="set_debug: debug must be a bool, got str"):
        mg.set_debug("yes")
