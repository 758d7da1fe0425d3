"""Shared fixtures and markers of the test tree (tests/unit, tests/compile, tests/gpu).

* Every session writes its kernel cache and tuning database into a temporary directory (`GETTPY_CACHE_DIR`),
  never into the user's ~/.cache/gettpy; set GETTPY_TEST_CACHE_DIR to reuse one directory across runs.
* The `gpu` marker skips unless a CUDA device is really there; `smoke` marks the GPU smoke subset
  (`pytest -m "gpu and smoke"`): a few tests per kernel family, dtype and interop path.
* Fixtures: a seeded `rng`, `force_staging` (every pack and split the shapes allow), `isolated` (a private
  tuning database and empty plan caches).
"""
from __future__ import annotations

import functools
import importlib
import os

import numpy as np
import pytest
from harness import fresh_caches


@functools.cache
def _have_gpu() -> bool:
    """True when cupy imports and sees at least one device (CuPy imports fine without one)."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except BaseException:  # noqa: BLE001 - any failure (ImportError, CUDARuntimeError, ...) means no GPU
        return False


def _import_torch_early() -> None:
    """Import torch (where installed) before any test runs. On the H100 machine (torch 2.11), importing
    torch for the first time after the GPU resource tests had run failed inside torch's own custom-op
    schema parser, while the same test passed in a fresh process; importing it up front avoids that."""
    try:
        import torch  # noqa: F401
    except Exception:  # noqa: BLE001 - torch is optional; its tests skip or fail on their own
        pass


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped where none is present)")
    config.addinivalue_line("markers", "smoke: the GPU smoke subset, run with -m 'gpu and smoke'")


@pytest.fixture(scope="session", autouse=True)
def _private_kernel_cache(tmp_path_factory):
    """Point GETTPY_CACHE_DIR (kernel cache, tuning database) at a temporary directory for the whole session,
    or at GETTPY_TEST_CACHE_DIR where that is set; the user's own setting is restored afterwards."""
    path = os.environ.get("GETTPY_TEST_CACHE_DIR") or str(tmp_path_factory.mktemp("gettpy-cache"))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GETTPY_CACHE_DIR", path)
        yield path


def pytest_collection_modifyitems(config, items):
    gpu_items = [item for item in items if item.get_closest_marker("gpu") is not None]
    if not gpu_items or _have_gpu():
        if gpu_items:
            _import_torch_early()
        return
    skip = pytest.mark.skip(reason="no CUDA device (cupy missing or getDeviceCount() == 0)")
    for item in gpu_items:
        item.add_marker(skip)


@pytest.fixture
def rng() -> np.random.Generator:
    """A seeded generator: every test sees the same random inputs on every run."""
    return np.random.default_rng(20261122)


@pytest.fixture
def force_staging(monkeypatch):
    """Every input pack, output stage and split-K that the shapes allow, even for tiny tensors (the
    schedule's own thresholds are for the GPU's sizes); caches emptied before and after."""
    from gettpy.plan import schedule as sched

    monkeypatch.setattr(sched, "MIN_STAGE_ELEMS", 1)
    monkeypatch.setattr(sched, "SPLIT_MAX_WAVE", 1e9)
    monkeypatch.setattr(sched, "SPLIT_MIN_K", 1)
    monkeypatch.setattr(sched, "SPLIT_MIN_RUN", 1)
    monkeypatch.setattr(sched, "PACK_MIN_REREADS", 0)
    fresh_caches()
    yield
    fresh_caches()


@pytest.fixture
def isolated(tmp_path, monkeypatch):
    """A private tuning database (GETTPY_CACHE_DIR = tmp_path) and empty plan, tuned-plan and program caches."""
    from gettpy.plan import cache as plan_cache

    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path))
    plan_cache._TUNED.clear()
    plan_cache.clear_plan_cache()
    importlib.import_module("gettpy.einsum").clear_program_cache()
    yield tmp_path
    plan_cache._TUNED.clear()
    plan_cache.clear_plan_cache()
