"""Hypothesis fuzz of what the CPU path trusts: the CPU executor on larger, odd shapes against
numpy.einsum in float64 (odd extents, broadcasting, modes in one operand only, views with negative and
zero strides), tuning databases holding random records and random bytes (GETTPY_TUNE=1), and kernel cache
entries planted at the path of the kernel being built. Every example must give the right answer (or the
freshly compiled cubin), never an exception. Altogether well over 2,500 examples."""
from __future__ import annotations

import hashlib
import importlib
import json
import math
import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gettpy
from gettpy.kernels import build as kbuild
from gettpy.plan import cache as plan_cache
from gettpy.plan import tuning_db
from gettpy.plan.partition import partition
from gettpy.plan.tuning_db import TuningDB, problem_key

einsum_mod = importlib.import_module("gettpy.einsum")
SETTINGS = dict(deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
POOL = "abcdefg"
#: the most elements of the full index space of one example (keeps numpy's reference loop quick)
MAX_SPACE = 400_000


def _fresh():
    plan_cache.clear_plan_cache()
    einsum_mod.clear_program_cache()


@st.composite
def big_contraction(draw):
    """(subscripts, shapes, extents): 1-2 operands over odd, sometimes long extents."""
    n_ops = draw(st.integers(1, 2))
    ext = {}
    for m in POOL:
        ext[m] = draw(st.one_of(st.sampled_from([1, 3, 5, 7, 9, 11, 13, 17, 31, 63, 97]),
                                st.integers(1, 40), st.sampled_from([127, 257, 509, 1001, 2048])))
    terms = []
    for _ in range(n_ops):
        rank = draw(st.integers(0, 4))
        terms.append("".join(draw(st.lists(st.sampled_from(POOL), min_size=rank, max_size=rank))))
    used = sorted(set("".join(terms)))
    def big():  # (the index space, and each operand with its repeated modes)
        return max([math.prod(ext[m] for m in used)] + [math.prod(ext[m] for m in t) for t in terms]) > MAX_SPACE

    while big():  # (shrink the longest mode until every array and the index space are small enough)
        m = max(used, key=lambda x: ext[x])
        ext[m] = max(1, ext[m] // 3) | 1
    shapes = [tuple(1 if (ext[m] > 1 and t.count(m) == 1 and draw(st.integers(0, 9)) == 0) else ext[m] for m in t)
              for t in terms]
    if draw(st.integers(0, 3)) == 0:
        subs = ",".join(terms)
    else:
        out = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used))) if used else []
        subs = ",".join(terms) + "->" + "".join(out)
    return subs, shapes


def _view(draw, shape, rng):
    """An operand of `shape`: C order, Fortran order, or a view with negative / zero strides and steps."""
    kind = draw(st.sampled_from(["c", "f", "view", "view"]))
    if kind != "view" or not shape:
        x = np.asarray(rng.standard_normal(shape))
        return np.asfortranarray(x) if kind == "f" and x.ndim else x
    steps = [draw(st.sampled_from([1, 1, -1, 2, -2])) for _ in shape]
    bcast = [e > 1 and draw(st.integers(0, 4)) == 0 for e in shape]
    inner = [1 if b else e for e, b in zip(shape, bcast, strict=True)]
    base = rng.standard_normal([(e - 1) * abs(s) + 1 for e, s in zip(inner, steps, strict=True)])
    perm = draw(st.permutations(range(len(shape))))
    base = np.ascontiguousarray(base.transpose(perm)).transpose(np.argsort(perm))  # (another memory order)
    v = base[tuple(slice(None, None, s) for s in steps)]
    return np.broadcast_to(v, shape) if any(bcast) else v


@settings(max_examples=1800, **SETTINGS)
@given(big_contraction(), st.data(), st.integers(0, 2**32 - 1))
def test_cpu_executor_large_fuzz(case, data, seed):
    subs, shapes = case
    rng = np.random.default_rng(seed)
    ops = [_view(data.draw, s, rng) for s in shapes]
    ref = np.einsum(subs, *ops)
    got = gettpy.einsum(subs, *ops)
    scale = max(1.0, float(np.max(np.abs(ref), initial=0.0)))
    tol = 1e-11 * scale * max(1.0, math.sqrt(max(1, sum(o.size for o in ops))))
    assert np.shape(got) == np.shape(ref)
    np.testing.assert_allclose(got, ref, rtol=1e-10, atol=tol, err_msg=subs)


# ------------------------------------------------------------------------------------------------ tuning DB
_RT = np.random.default_rng(9)
TA, TB = _RT.standard_normal((6, 5)), _RT.standard_normal((5, 7))
TREF = TA @ TB


@pytest.fixture(scope="module")
def tuning_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("tuning")
    old = {k: os.environ.get(k) for k in ("GETTPY_CACHE_DIR", "GETTPY_TUNE")}
    os.environ["GETTPY_CACHE_DIR"] = str(home)
    os.environ.pop("GETTPY_TUNE", None)
    _fresh()
    gettpy.einsum("ik,kj->ij", TA, TB)
    canon = list(einsum_mod._PROGRAMS.values())[-1].steps[0].plan.problem
    yield TuningDB("cpu", "0").path, canon
    for k, v in old.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    plan_cache._TUNED.clear()
    _fresh()


mode_lists = st.lists(st.sampled_from(["a", "b", "c", "zz", 1, None]), max_size=3)
part_st = st.fixed_dictionaries({"m": mode_lists, "n": mode_lists, "k": mode_lists, "b": mode_lists,
                                 "swapped": st.booleans(), "split_m": st.integers(-2, 7),
                                 "split_n": st.integers(-2, 7)})
tile_st = st.one_of(st.none(), st.fixed_dictionaries({"bm": st.sampled_from([16, 64, 128, 7]),
                                                      "bn": st.sampled_from([16, 64, 128]),
                                                      "bk": st.sampled_from([8, 16, 32]),
                                                      "stages": st.integers(1, 4)}),
                    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2))
record_st = st.one_of(st.fixed_dictionaries({"part": part_st, "tile": tile_st}),
                      st.dictionaries(st.text(max_size=4), st.integers() | st.text(max_size=4), max_size=3),
                      st.just({"part": {"m": ["a"], "n": ["c"], "k": ["b"], "b": [], "swapped": False}}))
file_st = st.one_of(
    st.binary(max_size=64),
    st.builds(lambda d: ("[" * d + "]" * d).encode(), st.integers(1, 5000)),
    st.builds(lambda s: json.dumps({"format": 1, "entries": s}).encode(),
              st.dictionaries(st.text(max_size=4), st.integers() | st.none(), max_size=3)),
)


@settings(max_examples=350, **SETTINGS)
@given(st.one_of(record_st.map(lambda r: ("record", r)), file_st.map(lambda b: ("file", b))))
def test_tuning_db_poisoning_fuzz(tuning_home, item):
    path, canon = tuning_home
    kind, value = item
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "record":
        path.write_text(json.dumps({"format": 1, "entries": {problem_key(canon): {"config": value, "ms": 1.0}}}))
    else:
        path.write_bytes(value)
    tuning_db._PARSED.clear()
    _fresh()
    os.environ["GETTPY_TUNE"] = "1"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = gettpy.einsum("ik,kj->ij", TA, TB)
    finally:
        os.environ.pop("GETTPY_TUNE", None)
    np.testing.assert_allclose(got, TREF, rtol=1e-12, atol=1e-12)
    if kind == "record":  # (a record used must be one the checks pass: the planner's sets, each mode once)
        c = plan_cache._tuned_candidate(canon, "numpy")
        if c is not None:
            base = partition(canon)
            assert sorted(c.part.m + c.part.n + c.part.k + c.part.b) == sorted(base.m + base.n + base.k + base.b)


# ------------------------------------------------------------------------------------------------ kernel cache
@pytest.fixture(scope="module")
def kernel_home(tmp_path_factory):
    home = tmp_path_factory.mktemp("kernels")
    saved = {n: getattr(kbuild, n) for n in ("compile_source", "nvrtc_version", "options")}
    old = os.environ.get("GETTPY_CACHE_DIR")
    os.environ["GETTPY_CACHE_DIR"] = str(home)
    kbuild.compile_source = lambda src, name, arch: (b"CUBIN" + hashlib.sha256(src.encode()).digest(), "")
    kbuild.nvrtc_version = lambda: "13.0"
    kbuild.options = lambda arch: [f"-arch={arch}"]
    for src in ("one", "two"):
        kbuild.build_source(src, "k", "sm_90")
    yield home
    for n, f in saved.items():
        setattr(kbuild, n, f)
    if old is None:
        os.environ.pop("GETTPY_CACHE_DIR", None)
    else:
        os.environ["GETTPY_CACHE_DIR"] = old


@settings(max_examples=350, **SETTINGS)
@given(st.sampled_from(["flip", "truncate", "other", "random", "append"]), st.integers(0, 10**6),
       st.binary(max_size=80))
def test_kernel_cache_planting_fuzz(kernel_home, how, where, junk):
    victim = kbuild._entry_path(kbuild.cache_key("one", "sm_90"))
    other = open(kbuild._entry_path(kbuild.cache_key("two", "sm_90")), "rb").read()
    kbuild.build_source("one", "k", "sm_90")  # (a valid entry in place again)
    good = open(victim, "rb").read()
    if how == "flip":
        i = where % len(good)
        bad = good[:i] + bytes([good[i] ^ (1 + where % 255)]) + good[i + 1:]
    elif how == "truncate":
        bad = good[:where % len(good)]
    elif how == "other":
        bad = other
    elif how == "append":
        bad = good + junk + b"\0"
    else:
        bad = junk
    with open(victim, "wb") as f:
        f.write(bad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = kbuild.build_source("one", "k", "sm_90")
    assert k.cubin == b"CUBIN" + hashlib.sha256(b"one").digest()
