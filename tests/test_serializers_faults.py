"""Faults while saving and loading: a failed or interrupted save leaves the previous checkpoint intact, and a
damaged file is refused with an error naming the file and the entry."""

import errno
import os
import signal
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import minigrad as mg
from minigrad import serializers


def make(value=0.0, size=4):
    link = mg.Link()
    with link.init_scope():
        link.W = mg.Parameter(np.full((size, size), value, dtype=np.float32))
    return link


def loaded_value(path, size=4):
    link = make(-1.0, size)
    serializers.load_npz(path, link)
    return link.W.array


def partial_then(exception):
    """A numpy.savez stand-in that writes half an archive, then fails as a full disk or Ctrl-C would."""
    def save(handle, **arrays):
        handle.write(b"PK\x03\x04 half an archive")
        raise exception
    return save


@pytest.mark.parametrize("exception", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()],
                         ids=["disk-full", "ctrl-c"])
@pytest.mark.parametrize("compression", [True, False])
def test_a_failed_save_leaves_the_previous_file_intact(tmp_path, monkeypatch, exception, compression):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, make(7.0))
    before = path.read_bytes()
    monkeypatch.setattr(np, "savez_compressed" if compression else "savez", partial_then(exception))
    with pytest.raises(type(exception)):
        serializers.save_npz(path, make(8.0), compression=compression)
    assert path.read_bytes() == before
    np.testing.assert_array_equal(loaded_value(path), 7.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]  # (the temporary file is gone)


def test_a_failed_first_save_leaves_no_file(tmp_path, monkeypatch):
    monkeypatch.setattr(np, "savez_compressed", partial_then(OSError(errno.ENOSPC, "No space left on device")))
    with pytest.raises(OSError):
        serializers.save_npz(tmp_path / "model.npz", make(8.0))
    assert list(tmp_path.iterdir()) == []


def test_a_save_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, make(1.0))
    os.chmod(path, 0o640)
    serializers.save_npz(path, make(2.0))
    np.testing.assert_array_equal(loaded_value(path), 2.0)
    assert os.stat(path).st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]


def test_a_save_through_a_symlink_replaces_the_file_it_points_to(tmp_path):
    real = tmp_path / "real.npz"
    serializers.save_npz(real, make(1.0))
    link = tmp_path / "latest.npz"
    link.symlink_to(real)
    serializers.save_npz(link, make(2.0))
    assert link.is_symlink()
    np.testing.assert_array_equal(loaded_value(real), 2.0)


def test_a_save_into_a_missing_directory_names_the_path(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"save_npz: cannot write beside '.*missing/model.npz'"):
        serializers.save_npz(tmp_path / "missing" / "model.npz", make(1.0))


def run_python(code, **kwargs):
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_process_killed_while_saving_leaves_the_previous_file_intact(tmp_path):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, make(7.0))
    before = path.read_bytes()
    # the child writes the first bytes of a new archive, says so, and waits to be killed mid-write
    child = run_python(f"""
        import sys, time, numpy as np, minigrad as mg
        from minigrad import serializers
        def save(handle, **arrays):
            handle.write(b"PK\\x03\\x04" + b"x" * 4096); handle.flush()
            print("writing", flush=True); time.sleep(60)
        np.savez_compressed = save
        link = mg.Link()
        with link.init_scope():
            link.W = mg.Parameter(np.full((4, 4), 8.0, dtype=np.float32))
        serializers.save_npz({str(path)!r}, link)
    """)
    try:
        assert child.stdout.readline().strip() == "writing", child.stderr.read()
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    finally:
        child.kill()
        child.communicate()
    assert path.read_bytes() == before
    np.testing.assert_array_equal(loaded_value(path), 7.0)


@pytest.mark.skipif(sys.platform == "win32", reason="needs resource.RLIMIT_FSIZE")
def test_a_save_past_the_file_size_limit_leaves_the_previous_file_intact(tmp_path):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, make(7.0, size=64), compression=False)
    before = path.read_bytes()
    # a real file-size limit (ulimit -f) smaller than the new archive: the write itself fails with EFBIG
    child = run_python(f"""
        import resource, signal, numpy as np, minigrad as mg
        from minigrad import serializers
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 1024}, resource.RLIM_INFINITY))
        link = mg.Link()
        with link.init_scope():
            link.W = mg.Parameter(np.full((256, 256), 8.0, dtype=np.float32))
        try:
            serializers.save_npz({str(path)!r}, link, compression=False)
        except OSError as error:
            print("refused", error.errno)
    """)
    out, err = child.communicate(timeout=60)
    assert out.split() == ["refused", str(errno.EFBIG)], err
    assert path.read_bytes() == before
    np.testing.assert_array_equal(loaded_value(path, size=64), 7.0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.npz"]
