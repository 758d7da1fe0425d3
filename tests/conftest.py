"""Shared fixtures and markers of the test tree (tests/unit, tests/compile, tests/gpu).

* Every session writes its kernel cache and tuning database into a temporary directory (`GETTPY_CACHE_DIR`),
  never into the user's ~/.cache/gettpy; set GETTPY_TEST_CACHE_DIR to reuse one directory across runs.
* The `gpu` marker skips unless a CUDA device is really there; `smoke` marks the GPU smoke subset
  (`pytest -m "gpu and smoke"`): a few tests per kernel family, dtype and interop path.
* Fixtures: a seeded `rng`, `force_staging` (every pack and split the shapes allow), `gett_tiles_only` (no long-K
  kernel), `isolated` (a private tuning database and empty plan caches).
"""
from __future__ import annotations

import functools
import importlib
import os

import numpy as np
import pytest
from harness import allow_split_k, fresh_caches


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


#: The GPU smoke run (`pytest -m "gpu and smoke"`): one or a few tests per kernel family, dtype and interop path,
#: as node ids under tests/gpu/ (a name without "[...]" takes all its parameters). A listed id that matches no test
#: of a collected file is a usage error, so a rename cannot silently drop a family from the smoke run.
SMOKE = (
    # mma.sync (f16, bf16, f16 -> f32), SIMT (f32, f64): the TCCG GEMM and random odd extents
    "test_gpu.py::test_tccg[12_ab-ac-cb_F_f16_f16]", "test_gpu.py::test_tccg[12_ab-ac-cb_F_f16_f32]",
    "test_gpu.py::test_tccg[12_ab-ac-cb_C_bf16_bf16]", "test_gpu.py::test_tccg[12_ab-ac-cb_F_f32_f32]",
    "test_gpu.py::test_tccg_f64[01_abc-bda-dc_F_f64]", "test_gpu.py::test_random_odd[seed0_f16_f16]",
    "test_gpu.py::test_random_odd[seed0_f16_f32]", "test_gpu.py::test_random_odd[seed0_f32_f32]",
    "test_gpu.py::test_random_odd[seed0_f64_f64]", "test_gpu.py::test_gemm_shapes[mnk0-bf16]",
    "test_gpu.py::test_strided_views", "test_gpu.py::test_empty_extents",
    "test_gpu_einsum_cases.py::test_gpu_matches_numpy",
    "test_gpu_review_regressions.py::test_gpu_misaligned_operand_and_out",
    # wgmma, warp-specialised (cp.async and TMA), cluster, half atom
    "test_gpu_wgmma.py::test_wgmma_shapes_and_types[dts0-mnk0]", "test_gpu_wgmma.py::test_wgmma_fused_ops_and_batch",
    "test_gpu_wgmma.py::test_wgmma_heuristic_through_einsum",
    "test_gpu_wgmma.py::test_warp_specialised_tensor_maps_and_batch",
    "test_gpu_wgmma.py::test_tma_orientations[ik_jk_ij-256x128s4]",
    "test_gpu_wgmma.py::test_tma_batch_and_small_shapes",
    "test_gpu_wgmma.py::test_tma_straddled_slabs_through_einsum",
    "test_gpu_cluster.py::test_cluster_shapes_and_types[dts0-mnk0-8]", "test_gpu_cluster.py::test_cluster_batch",
    "test_gpu_half_atom.py::test_half_atom[256x160_c2_persistent]",
    # persistent, resident A, L2 prefetch, ops on fragments, stream-K
    "test_gpu_persistent.py::test_persistent_tiles[mma_narrow]",
    "test_gpu_persistent.py::test_persistent_tiles[ws_tma]",
    "test_gpu_persistent.py::test_persistent_ws_batch_ops", "test_gpu_resident.py::test_resident_a_tiles[simt_f64]",
    "test_gpu_prefetch.py::test_l2_prefetch_tiles[mma_kmajor_rows-128]",
    "test_gpu_frag_ops.py::test_frag_ops[bf16_stream_k-inf_at_zero-ab]",
    "test_gpu_stream_k.py::test_stream_k[simt_f32_partial]", "test_gpu_stream_k.py::test_stream_k[mma_f16]",
    "test_gpu_stream_k.py::test_stream_k[wgmma_ws_tma]", "test_gpu_stream_k.py::test_stream_k_deterministic",
    # narrow shapes: row-stream, the narrow warp-specialised tile, the single-wave SIMT tile
    "test_gpu_rows.py::test_rows_through_einsum[tccg2_f16]", "test_gpu_rows.py::test_rows_through_einsum[tccg2_bf16]",
    "test_gpu_rows.py::test_rows_one_i", "test_gpu_narrow_ws.py::test_narrow_kmajor_wide_on_the_ws_tile[f16_to_f32]",
    "test_gpu_narrow_wave.py::test_narrow_simt_wave_heuristic",
    # DMMA (f32 on the f64 tensor cores), TF32, semirings, complex
    "test_gpu_dmma.py::test_dmma_heuristic_tccg20_family", "test_gpu_dmma.py::test_dmma_leaky_relu",
    "test_gpu_dmma.py::test_dmma_long_k_mn_major",
    "test_gpu_tf32.py::test_gpu_tf32[C-ik,kj->ij-tf32]", "test_gpu_tf32.py::test_gpu_tf32[C-ik,kj->ij-3xtf32]",
    "test_gpu_semiring.py::test_gpu_semiring[ik,kj->ij0-max_plus-float16]",
    "test_gpu_semiring.py::test_gpu_semiring[ik,kj->ij0-min_plus-float32]",
    "test_gpu_semiring.py::test_gpu_semiring[ik,kj->ij0-max_times-float64]",
    "test_gpu_semiring.py::test_gpu_contraction_with_semiring_and_tf32",
    "test_gpu_complex.py::test_einsum[tccg01_abc-bda-dc-C-complex64]",
    "test_gpu_complex.py::test_einsum[tccg01_abc-bda-dc-F-complex128]",
    "test_gpu_complex.py::test_contraction_alpha_beta_c[plain-complex64]",
    # the complex kernel (one launch) and the integer / bool kernel
    "test_kernel_complex_gpu.py::test_einsum_one_launch[gemm_odd-C-c64]",
    "test_kernel_complex_gpu.py::test_alpha_beta_c[True-F-c128]",
    "test_kernel_exact_gpu.py::test_einsum_on_cupy", "test_kernel_exact_gpu.py::test_gemm_types[i8-i8-i8-F]",
    # the int8 tensor-core tiles (mma.sync m16n8k32, warp-specialised wgmma k32)
    "test_int8_gpu.py::test_gemm_odd_mn[kvec16-i8-u8-C]", "test_int8_gpu.py::test_long_k_overflows_int32[i8]",
    "test_int8_gpu.py::test_einsum_on_cupy[matmul_i8_out_i32_C]",
    "test_int8_gpu.py::test_wgmma_tiles[ws128x256-i8-u8-C]", "test_int8_gpu.py::test_wgmma_long_k_overflows_int32",
    # flat k-tiles (rows of odd length read as one run of aligned words)
    "test_flat_gpu.py::test_forced_tiles[61-51-f16-f16]", "test_flat_gpu.py::test_misaligned_einsum[float16-1]",
    # staging copies (pack, row copy, split-K)
    "test_gpu_permute.py::test_gpu_permute_copy[shape0-float16]", "test_gpu_permute.py::test_gpu_rowcopy[float32]",
    "test_gpu_permute.py::test_gpu_permute_copy_pair[dtypes0]",
    "test_gpu_schedule.py::test_gpu_tccg_through_forced_stagings[1-abc-bda-dc-float16]",
    "test_gpu_schedule.py::test_gpu_split_k_with_beta_c_and_output_op",
    # the traffic model's stagings (a staged output, an input packed into the output's order)
    "test_restage_gpu.py::test_restaged_einsum",
    # interop: CuPy in/out, __cuda_array_interface__, torch on its own stream, torch's result layout; the tuner
    "test_gpu_resources.py::test_cuda_array_interface_and_cupy_in_cupy_out",
    "test_gpu_resources.py::test_torch_operands_run_on_torchs_current_stream",
    "test_gpu_peers.py::test_gettpy_into_torch_result_layout", "test_gpu_tune.py::test_gpu_tune_ccsd_t_shape",
    # numpy parity on CuPy operands, CuPy-chunked Dask arrays
    "test_parity_gpu.py::test_cupy_zero_d_result_is_a_cupy_array",
    "test_parity_gpu.py::test_cupy_out_receives_dtype_result",
    "test_dask_gpu.py::test_cupy_chunks_threaded[float32-1e-05]",
)


def _mark_smoke(config, items) -> None:
    """Add the `smoke` marker to the tests SMOKE names; fail on an entry that matches none in a collected file."""
    used = dict.fromkeys(SMOKE, 0)
    files = set()
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        if not path.startswith("tests/gpu/"):
            continue
        rel = item.nodeid[len("tests/gpu/"):]
        files.add(path[len("tests/gpu/"):])
        base = rel.split("[", 1)[0]
        for key in (rel, base):
            if key in used:
                used[key] += 1
                item.add_marker(pytest.mark.smoke)
                break
    stale = [k for k, n in used.items() if n == 0 and k.split("::", 1)[0] in files and not config.option.deselect
             and not config.option.keyword]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py SMOKE names tests that do not exist: {stale}")


@pytest.hookimpl(tryfirst=True)  # (before -m selects on the smoke marker)
def pytest_collection_modifyitems(config, items):
    _mark_smoke(config, items)
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
    monkeypatch.setattr(sched, "PACK_MIN_REREADS", 0)
    allow_split_k(monkeypatch)
    fresh_caches()
    yield
    fresh_caches()


@pytest.fixture
def gett_tiles_only(monkeypatch):
    """The planner never takes the long-K kernel (plan/longk.py): a test of the GETT schedules (split-K, packs,
    flat and realigned reads) on long-K shapes that kernel would take; caches emptied before and after."""
    from gettpy.plan import longk

    monkeypatch.setattr(longk, "LONGK_GAIN", 0.0)
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


@pytest.fixture
def gpu_schedules_on_the_cpu(monkeypatch):
    """The CPU executor's own schedules have no stagings (plan/cache.py's executor_stages): with this fixture
    it runs the GPU's, so that a test checks the stagings (packs, split-K, folds, staged outputs) end to end on
    numpy arrays."""
    from gettpy.einsum import clear_program_cache
    from gettpy.plan import cache

    monkeypatch.setattr(cache, "executor_stages", lambda backend: True)
    cache.clear_plan_cache()
    clear_program_cache()
    yield
    cache.clear_plan_cache()
    clear_program_cache()
