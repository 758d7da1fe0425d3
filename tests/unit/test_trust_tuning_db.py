"""The tuning database is checked before use: records whose partition does not fit the problem, and files
that are not UTF-8 JSON regular files of bounded size (FIFO, symlink to /dev/zero, deep nesting), are
ignored with one warning -- einsum stays right and never raises or hangs. The file is parsed once per
process and again only when it changes."""
from __future__ import annotations

import importlib
import json
import os
import threading
import warnings
from dataclasses import asdict

import numpy as np
import pytest

import gettpy
from gettpy.kernels.spec import TileConfig
from gettpy.plan import cache as plan_cache
from gettpy.plan import tuning_db
from gettpy.plan.partition import Partition, partition
from gettpy.plan.tuner import Candidate
from gettpy.plan.tuning_db import TuningDB, problem_key

einsum_mod = importlib.import_module("gettpy.einsum")


def _reset():
    plan_cache._TUNED.clear()
    plan_cache.clear_plan_cache()
    einsum_mod.clear_program_cache()
    for module, name in ((plan_cache, "_REFUSED"), (tuning_db, "_PARSED"), (tuning_db, "_WARNED")):
        getattr(module, name).clear()  # (what this process warned about and parsed)


@pytest.fixture
def tuned(tmp_path, monkeypatch):
    """GETTPY_TUNE=1 on a fresh cache folder; returns the CPU database's path."""
    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("GETTPY_TUNE", raising=False)
    _reset()
    yield TuningDB("cpu", "0").path
    _reset()


_R = np.random.default_rng(6)
A = _R.standard_normal((6, 5))  # (6 x 7 x 5: M, N, K)
B = _R.standard_normal((5, 7))
REF = A @ B


def _canonical():
    """The canonical problem einsum plans for "ik,kj->ij" on A, B (planned once without tuning)."""
    os.environ.pop("GETTPY_TUNE", None)
    gettpy.einsum("ik,kj->ij", A, B)
    prog = list(einsum_mod._PROGRAMS.values())[-1]
    return prog.steps[0].plan.problem


def _write_db(path, entries: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"format": 1, "device": "cpu", "cc": "0", "entries": entries}))


def _run_tuned(monkeypatch):
    plan_cache.clear_plan_cache()
    einsum_mod.clear_program_cache()
    monkeypatch.setenv("GETTPY_TUNE", "1")
    return gettpy.einsum("ik,kj->ij", A, B)


def _cut(config: dict, lo) -> dict:
    return {**config, "part": {**config["part"], "split_m": lo}}


def _poisons(base: Partition):
    m, n, k, b = base.m, base.n, base.k, base.b
    part = lambda **kw: Candidate(Partition(**{"m": m, "n": n, "k": k, "b": b, "swapped": base.swapped,  # noqa: E731
                                               **kw})).to_dict()
    return {
        "drops k": part(k=()),
        "swaps m and n": part(m=n, n=m),
        "moves k to batch": part(k=(), b=k),
        "k twice": part(m=m + k),
        "an unknown mode": part(k=k + ("zz",)),
        "a cut that does not divide": _cut(part(), 4),
        "a negative cut": _cut(part(), -2),
        "a cut of one mode": _cut(part(), 2),
        "not a partition": {"part": "m=n"},
        "no part": {"tile": None},
        "a bogus tile": {**part(), "tile": {"bm": "x"}},
        "a negative tile side": {**part(), "tile": {**asdict(TileConfig(64, 64, 8, 3, tm=4, tn=4)), "bm": -64}},
        "a zero k-tile": {**part(), "tile": {**asdict(TileConfig(64, 64, 8, 3, tm=4, tn=4)), "bk": 0}},
        "numbers for modes": {"part": {"m": [1], "n": [2], "k": [3], "b": [], "swapped": False}},
    }


@pytest.mark.parametrize("name", list(_poisons(Partition(("a",), ("c",), ("b",), ()))))
def test_poisoned_record_is_ignored_and_result_right(tuned, monkeypatch, name):
    canon = _canonical()
    config = _poisons(partition(canon))[name]
    _write_db(tuned, {problem_key(canon): {"config": config, "ms": 0.001}})
    with pytest.warns(UserWarning, match="ignoring tuning record") as rec:
        got = _run_tuned(monkeypatch)
    assert len([w for w in rec if "tuning" in str(w.message)]) == 1
    np.testing.assert_allclose(got, REF, rtol=1e-12, atol=1e-12)
    with warnings.catch_warnings():  # (one warning: the same record again is quiet)
        warnings.simplefilter("error")
        np.testing.assert_allclose(_run_tuned(monkeypatch), REF, rtol=1e-12, atol=1e-12)


def test_valid_record_is_used(tuned, monkeypatch):
    """A well-formed record (the transposed orientation: m and n exchanged with the flag) is taken."""
    canon = _canonical()
    base = partition(canon)
    good = Partition(base.n, base.m, base.k, base.b, not base.swapped)
    _write_db(tuned, {problem_key(canon): {"config": Candidate(good).to_dict(), "ms": 0.001}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _run_tuned(monkeypatch)
    np.testing.assert_allclose(got, REF, rtol=1e-12, atol=1e-12)
    assert plan_cache.cached_schedule(canon, "numpy").core.part.swapped == good.swapped


def _poison_file(kind: str, path, tmp_path):
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "not utf-8":
        path.write_bytes(b'{"format": 1, "entries": {"\xff\xfe": {}}}')
    elif kind == "deep nesting":
        path.write_text("[" * 200_000 + "]" * 200_000)
    elif kind == "deep nesting in an entry":
        path.write_text('{"format": 1, "entries": {"k": {"config": ' + "[" * 100_000 + "]" * 100_000 + "}}}")
    elif kind == "fifo":
        os.mkfifo(path, 0o600)
    elif kind == "symlink to /dev/zero":
        os.symlink("/dev/zero", path)
    elif kind == "symlink to a valid file":
        real = tmp_path / "real.json"
        real.write_text(json.dumps({"format": 1, "entries": {}}))
        os.symlink(real, path)
    elif kind == "oversized":
        with open(path, "wb") as f:
            f.truncate(tuning_db.MAX_DB_BYTES + 1)
    elif kind == "a folder":
        path.mkdir()
    elif kind == "not an object":
        path.write_text("[1, 2, 3]")


FILE_POISONS = ["not utf-8", "deep nesting", "deep nesting in an entry", "fifo", "symlink to /dev/zero",
                "symlink to a valid file", "oversized", "a folder", "not an object"]


@pytest.mark.parametrize("kind", FILE_POISONS)
def test_poisoned_file_is_ignored_with_one_warning(tuned, monkeypatch, tmp_path, kind):
    _canonical()
    _poison_file(kind, tuned, tmp_path)
    out = {}

    def run():
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            try:
                out["first"] = _run_tuned(monkeypatch)
                out["second"] = _run_tuned(monkeypatch)  # (a second plan miss: no second warning)
            except BaseException as e:  # noqa: BLE001 - reported below
                out["error"] = e
            out["w"] = [str(w.message) for w in rec if "tuning" in str(w.message)]

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(30)
    assert not t.is_alive(), f"{kind}: einsum hung on the tuning database"
    assert "error" not in out, f"{kind}: {out.get('error')!r}"
    np.testing.assert_allclose(out["first"], REF, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out["second"], REF, rtol=1e-12, atol=1e-12)
    assert len(out["w"]) == 1, out["w"]


def test_parsed_once_and_again_on_change(tuned, monkeypatch):
    canon = _canonical()
    base = partition(canon)
    key = problem_key(canon)
    _write_db(tuned, {"other": {"config": {"part": {}}, "ms": 1.0}})
    calls = []
    real = json.loads
    monkeypatch.setattr(tuning_db.json, "loads", lambda *a, **k: calls.append(1) or real(*a, **k))
    for _ in range(5):
        TuningDB("cpu", "0").lookup(key)
    assert len(calls) == 1
    good = Partition(base.n, base.m, base.k, base.b, not base.swapped)
    _write_db(tuned, {key: {"config": Candidate(good).to_dict(), "ms": 1.0}, "pad": {"config": {}, "ms": 2.0}})
    assert TuningDB("cpu", "0").lookup(key)["config"] == Candidate(good).to_dict()
    assert len(calls) == 2
    assert TuningDB("cpu", "0").lookup(key) is not None and len(calls) == 2
