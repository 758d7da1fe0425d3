"""The tuning database: round trip across instances (processes), corruption, read-only folders."""
from __future__ import annotations

import json
import os
import stat
import warnings

import pytest

from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.tuning_db import TuningDB, cache_dir, problem_key


def _problem(names="ijk"):
    i, j, k = names
    a = TensorInfo("A", (i, k), (4, 1), "f16")
    b = TensorInfo("B", (k, j), (5, 1), "f16")
    d = TensorInfo("D", (i, j), (5, 1), "f16")
    return ContractionProblem(a, b, None, d, tuple(sorted({i: 3, j: 5, k: 4}.items())))


def test_round_trip_across_instances(tmp_path):
    db = TuningDB("NVIDIA H100 80GB HBM3", "90", tmp_path)
    key = problem_key(_problem())
    assert db.lookup(key) is None
    db.record(key, {"bm": 64, "bn": 128}, 0.0123)
    again = TuningDB("NVIDIA H100 80GB HBM3", "90", tmp_path)
    assert again.lookup(key)["config"] == {"bm": 64, "bn": 128}
    assert again.lookup(key)["ms"] == pytest.approx(0.0123)
    assert TuningDB("NVIDIA A100", "80", tmp_path).lookup(key) is None  # per device


def test_key_ignores_mode_names_but_not_extents():
    assert problem_key(_problem("ijk")) == problem_key(_problem("xyz"))
    p = _problem()
    q = ContractionProblem(p.a, p.b, None, p.d, (("i", 3), ("j", 6), ("k", 4)))
    assert problem_key(p) != problem_key(q)


def test_writes_merge_with_other_processes(tmp_path):
    one = TuningDB("dev", "90", tmp_path)
    two = TuningDB("dev", "90", tmp_path)
    one.record("k1", {"x": 1}, 1.0)
    two.record("k2", {"x": 2}, 2.0)
    fresh = TuningDB("dev", "90", tmp_path)
    assert fresh.lookup("k1")["config"] == {"x": 1} and fresh.lookup("k2")["config"] == {"x": 2}


@pytest.mark.parametrize("garbage", ["", "{", "[1, 2]", '{"format": 99, "entries": {}}', "\x00\x01"])
def test_corrupt_file_is_ignored_with_a_warning_and_rewritten(tmp_path, garbage):
    db = TuningDB("dev", "90", tmp_path)
    db.path.write_text(garbage)
    with pytest.warns(UserWarning, match="corrupt"):
        db2 = TuningDB("dev", "90", tmp_path)
    assert len(db2) == 0
    with warnings.catch_warnings():  # (one warning per file version: the write re-reads it quietly)
        warnings.simplefilter("error")
        db2.record("k", {"x": 3}, 1.0)
    assert json.loads(db2.path.read_text())["entries"]["k"]["config"] == {"x": 3}


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores directory permissions")
def test_read_only_folder_keeps_entries_in_memory(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(stat.S_IRUSR | stat.S_IXUSR)
    try:
        db = TuningDB("dev", "90", ro)
        with pytest.warns(UserWarning, match="not written"):
            db.record("k", {"x": 1}, 1.0)
        assert db.lookup("k")["config"] == {"x": 1}
    finally:
        ro.chmod(stat.S_IRWXU)


def test_read_only_path_is_a_file(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    db = TuningDB("dev", "90", blocker / "sub")
    with pytest.warns(UserWarning, match="not written"):
        db.record("k", {"x": 1}, 1.0)
    assert db.lookup("k")["config"] == {"x": 1}


def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"


def test_threads_recording_at_once_lose_no_entry(tmp_path):
    """32 threads, each with its own TuningDB on one file, record 32 problems at once: all 32 are in the file."""
    import threading

    start = threading.Barrier(32)

    def job(i):
        db = TuningDB("dev", "90", tmp_path)
        start.wait()
        db.record(f"key{i}", {"tile": None, "i": i}, float(i))

    threads = [threading.Thread(target=job, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    db = TuningDB("dev", "90", tmp_path)
    assert sorted(db.lookup(f"key{i}")["config"]["i"] for i in range(32)) == list(range(32))
