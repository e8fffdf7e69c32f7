"""Faults while saving and loading: a failed or interrupted save leaves the previous checkpoint intact, and a
damaged file is refused with an error naming the file and the entry."""

import errno
import io
import os
import signal
import subprocess
import sys
import textwrap
import zipfile

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


# --- damaged, truncated and hostile archives ---------------------------------------------------------------


def npy_bytes(array):
    member = io.BytesIO()
    np.save(member, array)
    return member.getvalue()


def header_bytes(shape, dtype=np.float32):
    member = io.BytesIO()
    np.lib.format.write_array_header_1_0(member, {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)),
                                                  "fortran_order": False, "shape": shape})
    return member.getvalue()


def archive(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(path, "w", compression) as zf:
        for name, data in members.items():
            zf.writestr(name, data)


def test_a_corrupted_entry_names_the_file_and_the_entry(tmp_path):
    path = tmp_path / "model.npz"
    serializers.save_npz(path, make(7.0, size=64))  # compressed: flip bytes in the middle of W's deflate stream
    raw = bytearray(path.read_bytes())
    start = raw.index(b"W.npy") + len(b"W.npy") + 40
    raw[start:start + 16] = bytes(16)
    path.write_bytes(bytes(raw))
    target = make(-1.0, size=64)
    with pytest.raises(ValueError, match=r"load_npz: entry 'W' of '.*model.npz' is damaged or truncated "
                                         r"\(.*\); nothing was loaded"):
        serializers.load_npz(path, target)
    np.testing.assert_array_equal(target.W.array, -1.0)


@pytest.mark.parametrize("compression", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_a_truncated_entry_is_reported_as_truncated_not_as_a_pickle(tmp_path, compression):
    path = tmp_path / "model.npz"
    archive(path, {"W.npy": npy_bytes(np.ones((4, 4), np.float32))[:-10]}, compression)
    with pytest.raises(ValueError, match=r"entry 'W' of '.*model.npz' is damaged or truncated \(its header "
                                         r"declares shape \(4, 4\) of float32, 192 bytes in all, but the archive "
                                         r"holds 182 bytes for it\)") as caught:
        serializers.load_npz(path, make(size=4))
    assert "pickle" not in str(caught.value)


def test_a_header_claiming_a_huge_array_is_refused_without_allocating(tmp_path):
    import tracemalloc
    path = tmp_path / "model.npz"
    archive(path, {"W.npy": header_bytes((2 ** 33,)) + bytes(64)})  # 2**33 floats claimed, 64 bytes held
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"entry 'W' .* declares shape \(8589934592,\) of float32"):
            serializers.load_npz(path, make(size=4))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20


def test_an_entry_that_inflates_beyond_the_target_is_refused_before_it_is_read(tmp_path):
    import tracemalloc
    path = tmp_path / "model.npz"
    count = 2 ** 23  # 32 MiB of zeros that deflate to ~32 KiB
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf, zf.open("W.npy", "w", force_zip64=True) as member:
        member.write(header_bytes((count,)))
        for _ in range(32):
            member.write(bytes(2 ** 20))
    assert path.stat().st_size < 2 ** 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"entry 'W' has shape \(8388608,\), but the target's array has "
                                             r"shape \(4, 4\)"):
            serializers.load_npz(path, make(size=4))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 20  # (only the header was inflated, not the 32 MiB)


def test_an_entry_whose_zip_size_lies_is_read_no_further_than_its_header(tmp_path):
    """The zip directory says 192 bytes, the deflate stream holds far more: reading stops at the header's size."""
    path = tmp_path / "model.npz"
    good = npy_bytes(np.ones((4, 4), np.float32))
    big = good + bytes(2 ** 20)
    archive(path, {"W.npy": big})
    raw = bytearray(path.read_bytes())
    # patch the uncompressed size (local header offset 22, central directory offset 24) down to the header's
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        at = raw.index(signature) + offset
        assert int.from_bytes(raw[at:at + 4], "little") == len(big)
        raw[at:at + 4] = len(good).to_bytes(4, "little")
    path.write_bytes(bytes(raw))
    import tracemalloc
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=r"entry 'W' of .* is damaged or truncated \(Bad CRC-32"):
            serializers.load_npz(path, make(size=4))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 ** 19  # (the extra MiB was never inflated)


def test_big_endian_and_fortran_order_entries_load_correctly(tmp_path):
    path = tmp_path / "model.npz"
    values = np.arange(16, dtype=">f4").reshape(4, 4)
    archive(path, {"W.npy": npy_bytes(np.asfortranarray(values))})
    np.testing.assert_array_equal(loaded_value(path), values)


def test_optimizer_state_of_another_shape_is_refused():
    from minigrad import optimizers
    small, large = mg.links.Linear(3, 2), mg.links.Linear(5, 2)
    trained = optimizers.MomentumSGD().setup(small)
    small.W.grad, small.b.grad = np.ones_like(small.W.array), np.ones_like(small.b.array)
    trained.update()
    buffer = io.BytesIO()
    serializers.save_npz(buffer, trained)
    buffer.seek(0)
    fresh = optimizers.MomentumSGD().setup(large)
    with pytest.raises(ValueError, match=r"entry 'W/v' has shape \(2, 3\), but the target's array has shape "
                                         r"\(2, 5\)"):
        serializers.load_npz(buffer, fresh)
    assert all(rule.state is None for rule in fresh.rules.values())
    buffer.seek(0)
    same = optimizers.MomentumSGD().setup(mg.links.Linear(3, 2))
    serializers.load_npz(buffer, same)
    np.testing.assert_array_equal(same.rules["/W"].state["v"], trained.rules["/W"].state["v"])
