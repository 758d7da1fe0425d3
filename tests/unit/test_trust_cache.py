"""The kernel disk cache trusts nothing it reads: entries only from private folders, regular files only (no
symlink, no FIFO), bounded in size, bound by their header to their full key; anything else is ignored with
one warning and rebuilt. NVRTC is replaced by a stand-in compiler, so these run everywhere."""
from __future__ import annotations

import hashlib
import os
import shutil
import stat
import threading
import warnings

import pytest

from gettpy.kernels import build as B

ARCH = "sm_90"


@pytest.fixture
def kcache(tmp_path, monkeypatch):
    """A fresh cache folder and a stand-in compiler that counts its calls (cubin = a hash of the source)."""
    calls = []

    def fake_compile(src, name, arch):
        calls.append(name)
        return b"CUBIN" + hashlib.sha256((src + arch).encode()).digest(), "ptxas info: Used 40 registers"

    base = tmp_path / "cache"
    monkeypatch.setenv("GETTPY_CACHE_DIR", str(base))
    monkeypatch.setattr(B, "compile_source", fake_compile)
    monkeypatch.setattr(B, "nvrtc_version", lambda: "13.0")
    monkeypatch.setattr(B, "options", lambda arch: [f"-arch={arch}", "-std=c++17", "-Xptxas=-v"])
    monkeypatch.setattr(B, "_warned_entries", set(), raising=False)
    monkeypatch.setattr(B, "_warned_readonly", set())
    return base, calls


def _expected(src: str) -> bytes:
    return b"CUBIN" + hashlib.sha256((src + ARCH).encode()).digest()


def _path(src: str) -> str:
    return B._entry_path(B.cache_key(src, ARCH))


def _build_quiet(src: str, name: str = "k"):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (a clean hit or miss warns nothing)
        return B.build_source(src, name, ARCH)


def _build_warns(src: str, match: str, name: str = "k"):
    with pytest.warns(RuntimeWarning, match=match) as rec:
        k = B.build_source(src, name, ARCH)
    assert len([w for w in rec if issubclass(w.category, RuntimeWarning)]) == 1
    return k


def test_hit_after_miss_and_private_folders(kcache):
    base, calls = kcache
    k1 = _build_quiet("src one")
    k2 = _build_quiet("src one")
    assert (k1.from_cache, k2.from_cache) == (False, True) and k2.cubin == _expected("src one") and calls == ["k"]
    for d in (os.path.dirname(_path("src one")), B.cache_dir()):
        st = os.lstat(d)
        assert stat.S_ISDIR(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o700 and st.st_uid == os.geteuid()
    fst = os.lstat(_path("src one"))
    assert stat.S_ISREG(fst.st_mode) and not fst.st_mode & 0o077


def test_entry_planted_under_another_key_is_rebuilt(kcache):
    _, calls = kcache
    _build_quiet("victim")
    _build_quiet("attacker")
    shutil.copyfile(_path("attacker"), _path("victim"))  # a valid entry, but of another kernel
    k = _build_warns("victim", "another kernel's key")
    assert not k.from_cache and k.cubin == _expected("victim") and calls.count("k") == 3
    assert _build_quiet("victim").from_cache  # (rewritten)


def test_entry_whose_header_names_other_options_is_rebuilt(kcache, monkeypatch):
    _build_quiet("src")
    blob = open(_path("src"), "rb").read()
    monkeypatch.setattr(B, "nvrtc_version", lambda: "12.9")  # (the same key forced: the header's parts differ)
    monkeypatch.setattr(B, "cache_key", lambda src, arch: _key_of(blob))
    k = _build_warns("src", "nvrtc")
    assert not k.from_cache and k.cubin == _expected("src")


def _key_of(blob: bytes) -> str:
    import json
    import struct

    head = len(B.ENTRY_MAGIC) + 32
    (n,) = struct.unpack("<I", blob[head:head + 4])
    return json.loads(blob[head + 4:head + 4 + n])["key"]


def test_old_style_hash_only_entry_is_rebuilt(kcache):
    """A file that passes a hash stored in itself (the only check of an unbound format) is not trusted."""
    import json
    import struct

    _build_quiet("x")
    payload = json.dumps({"name": "k", "arch": ARCH, "log": ""}).encode()
    payload = struct.pack("<I", len(payload)) + payload + b"EVIL CUBIN"
    with open(_path("x"), "wb") as f:
        f.write(hashlib.sha256(payload).digest() + payload)
    k = _build_warns("x", "another format|truncated")
    assert k.cubin == _expected("x")


def test_symlinked_entry_is_refused(kcache, tmp_path):
    _build_quiet("linked")
    elsewhere = tmp_path / "elsewhere.bin"
    shutil.copyfile(_path("linked"), elsewhere)  # (a valid entry: only the link makes it untrusted)
    os.unlink(_path("linked"))
    os.symlink(elsewhere, _path("linked"))
    k = _build_warns("linked", "cannot open it safely|not a regular file")
    assert not k.from_cache and k.cubin == _expected("linked")
    assert not os.path.islink(_path("linked"))  # (the rebuilt entry replaced the link, not its target)
    assert _build_quiet("linked").from_cache


def test_fifo_entry_never_blocks(kcache):
    _build_quiet("fifo")
    os.unlink(_path("fifo"))
    os.mkfifo(_path("fifo"), 0o600)
    out = {}

    def run():
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out["k"] = B.build_source("fifo", "k", ARCH)
            out["w"] = [str(w.message) for w in rec]

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(20)
    assert not t.is_alive(), "reading a FIFO cache entry blocked"
    assert out["k"].cubin == _expected("fifo") and not out["k"].from_cache
    assert len(out["w"]) == 1 and "not a regular file" in out["w"][0]


def test_truncated_entry_is_rebuilt_with_one_warning(kcache):
    _build_quiet("torn")
    size = os.path.getsize(_path("torn"))
    with open(_path("torn"), "r+b") as f:
        f.truncate(size // 2)
    k = _build_warns("torn", "hash does not match|truncated")
    assert not k.from_cache and k.cubin == _expected("torn")
    with open(_path("torn"), "r+b") as f:  # torn again: the same entry warns once per process
        f.truncate(size // 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert B.build_source("torn", "k", ARCH).cubin == _expected("torn")


def test_oversized_entry_is_not_read(kcache):
    _build_quiet("big")
    with open(_path("big"), "r+b") as f:
        f.truncate(B.MAX_ENTRY_BYTES + 1)  # (sparse: nothing is written, and nothing may be read)
    k = _build_warns("big", "larger than")
    assert k.cubin == _expected("big")


def test_shared_cache_folder_is_neither_read_nor_written(kcache):
    _, calls = kcache
    _build_quiet("shared")
    os.chmod(B.cache_dir(), 0o777)
    with pytest.warns(RuntimeWarning) as rec:
        k = B.build_source("shared", "k", ARCH)
    msgs = " | ".join(str(w.message) for w in rec)
    assert not k.from_cache and k.cubin == _expected("shared") and "writable by its group or by others" in msgs
    assert "disk caching disabled" in msgs  # (and nothing written into it)
    assert calls.count("k") == 2


def _st(mode: int, uid: int) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, 0, 0, 0, 0, 0))


@pytest.mark.parametrize("mode,uid_delta,kind,why", [
    (stat.S_IFDIR | 0o700, 0, "dir", None),
    (stat.S_IFDIR | 0o755, 0, "dir", None),
    (stat.S_IFDIR | 0o770, 0, "dir", "group or by others"),
    (stat.S_IFDIR | 0o757, 0, "dir", "group or by others"),
    (stat.S_IFDIR | 0o700, 1, "dir", "owned by uid"),
    (stat.S_IFLNK | 0o777, 0, "dir", "not a directory"),
    (stat.S_IFREG | 0o600, 0, "file", None),
    (stat.S_IFREG | 0o620, 0, "file", "group or by others"),
    (stat.S_IFREG | 0o600, 7, "file", "owned by uid"),
    (stat.S_IFIFO | 0o600, 0, "file", "not a regular file"),
    (stat.S_IFLNK | 0o600, 0, "file", "not a regular file"),
    (stat.S_IFCHR | 0o600, 0, "file", "not a regular file"),
])
def test_private_checks_on_stat_values(mode, uid_delta, kind, why):
    """Ownership and mode come from stat values (tests may run as root, which ignores permission bits)."""
    got = B.private_problem(_st(mode, os.geteuid() + uid_delta), "x", kind)
    assert (got is None) if why is None else (got is not None and why in got)


def test_foreign_owner_folder_is_refused(kcache, monkeypatch):
    """A cache folder owned by someone else (here: this process pretends to be another uid) is not read."""
    _build_quiet("owned")
    monkeypatch.setattr(B.os, "geteuid", lambda: os.lstat(B.cache_dir()).st_uid + 1)
    with pytest.warns(RuntimeWarning, match="owned by uid"):
        k = B.build_source("owned", "k", ARCH)
    assert not k.from_cache and k.cubin == _expected("owned")


def test_many_untrusted_entries_warn_once(kcache):
    """A cache of another format (or a poisoned one) warns once per process, not once per kernel."""
    _, calls = kcache
    srcs = [f"kernel {i}" for i in range(5)]
    for s in srcs:
        _build_quiet(s)
        with open(_path(s), "r+b") as f:
            f.write(b"OLDFORMAT")
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        got = [B.build_source(s, "k", ARCH) for s in srcs]
    assert [k.cubin for k in got] == [_expected(s) for s in srcs] and not any(k.from_cache for k in got)
    assert len([w for w in rec if "kernel cache" in str(w.message)]) == 1
    assert all(_build_quiet(s).from_cache for s in srcs)
