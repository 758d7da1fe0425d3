"""The compile tests' shared fixture: NVRTC with the CUDA headers, and a kernel cache of their own."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def nvrtc(tmp_path_factory):
    """gettpy.kernels.build, with GETTPY_CACHE_DIR pointed at a fresh folder for the module; the test is skipped
    where NVRTC or the CUDA headers (the nvidia-cuda-runtime wheel) are missing."""
    pytest.importorskip("cuda.bindings.nvrtc")
    from gettpy.kernels import build as B

    try:
        B.include_dir()
    except Exception:  # noqa: BLE001
        pytest.skip("no CUDA headers (nvidia-cuda-runtime wheel) for NVRTC")
    old = os.environ.get("GETTPY_CACHE_DIR")
    os.environ["GETTPY_CACHE_DIR"] = str(tmp_path_factory.mktemp("gettpy-cache"))
    yield B
    if old is None:
        os.environ.pop("GETTPY_CACHE_DIR", None)
    else:
        os.environ["GETTPY_CACHE_DIR"] = old
