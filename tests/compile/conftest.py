"""The compile tests' one guard and fixture: every test here needs NVRTC (cuda-bindings) and the CUDA headers (the
nvidia-cuda-runtime wheel), no GPU, and is skipped where either is missing; each module compiles into a kernel
cache of its own."""
from __future__ import annotations

import functools
import os

import pytest


@functools.cache
def _missing() -> str | None:
    """Why NVRTC cannot compile the template here, or None where it can."""
    try:
        import cuda.bindings.nvrtc  # noqa: F401
    except ImportError:
        return "no NVRTC (cuda-bindings)"
    from gettpy.kernels import build

    try:
        build.include_dir()
    except Exception:  # noqa: BLE001 - any failure to find the headers means NVRTC cannot compile the template
        return "no CUDA headers (nvidia-cuda-runtime wheel) for NVRTC"
    return None


@pytest.fixture(scope="module", autouse=True)
def nvrtc(tmp_path_factory):
    """gettpy.kernels.build, with GETTPY_CACHE_DIR pointed at a fresh folder for the module (every compile test;
    skipped where NVRTC or the CUDA headers are missing)."""
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from gettpy.kernels import build

    old = os.environ.get("GETTPY_CACHE_DIR")
    os.environ["GETTPY_CACHE_DIR"] = str(tmp_path_factory.mktemp("gettpy-cache"))
    yield build
    if old is None:
        os.environ.pop("GETTPY_CACHE_DIR", None)
    else:
        os.environ["GETTPY_CACHE_DIR"] = old
