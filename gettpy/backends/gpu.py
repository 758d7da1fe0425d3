"""The GPU executor: runs a Plan on CuPy arrays with the shared GETT kernel.

`execute` derives the kernel specialisation from the plan and the call (read_c = beta != 0 and a C
was given), gets the compiled function (in-process cache, then the disk cache, then NVRTC) and
launches it on the caller's stream. A specialisation that fails to compile, load or launch is replaced
by the safe tile of the same plan, with a RuntimeWarning (never a different result); there is no
fallback to other libraries: no cupy.einsum, cuBLAS or cuTENSOR.
"""
from __future__ import annotations

import ctypes
import threading
import warnings

import numpy as np

from ..errors import KernelError
from ..kernels.build import build, get_function
from ..kernels.spec import ITEMSIZE, KernelSpec, TileConfig, refuse_complex_scalars, scalar_type
from ..layouts.descriptor import pointer_alignment
from ..plan.plan import Plan
from ..plan.simt import EXACT_PROBLEM_COMPUTE
from ..plan.tiles import SM_COUNT, kernel_spec

_SPECS: dict = {}
_SPECS_BY_ID: dict = {}
_FUNCS_BY_ID: dict = {}  # (id(spec), device) -> (spec, loaded function, grid, workspace and flag bytes):
#   skips hashing the spec and re-deriving its launch figures per call
_SM: dict = {}


def _target() -> tuple[int, bool]:
    """(SM count, whether wgmma kernels run) of the current device's Target (plan/target.py)."""
    import cupy

    dev = cupy.cuda.Device().id
    t = _SM.get(dev)
    if t is None:
        from ..plan.target import device_target

        tg = device_target()
        t = _SM[dev] = (tg.sm_count, tg.wgmma)
    return t


def safe_tile(spec: KernelSpec) -> TileConfig:
    """A small configuration every plan compiles and launches with (few registers, little smem); f32 inputs on
    the f64 tensor cores (sm_90 only, KernelSpec.tf32 = 2) fall back to a simt tile."""
    if spec.tile.mma and spec.tf32 != 2:
        return TileConfig(64, 64, 32, 2, wm=32, wn=32)
    return TileConfig(64, 64, 8 if spec.compute == "f64" else 16, 2, tm=4, tn=4)


def checked_spec(plan: Plan, read_c: bool, target: tuple[int, bool] = (SM_COUNT, True)) -> KernelSpec:
    """The heuristic KernelSpec of `plan`, compiled; if it fails to compile, the safe tile, with a warning.

    Never a different result: the safe specialisation computes the same contraction. If the safe one
    fails too, the KernelError propagates.
    """
    sm, wg = target
    spec = kernel_spec(plan, read_c, sm_count=sm, wgmma=wg)
    try:
        build(spec)
    except KernelError as e:
        safe = kernel_spec(plan, read_c, tile=safe_tile(spec), sm_count=sm)
        if safe == spec:
            raise
        first = (str(e).strip().splitlines() or [""])[0][:160]
        warnings.warn(f"gettpy: the kernel for tile {spec.tile} did not compile ({first}); using the safe "
                      f"tile {safe.tile}", RuntimeWarning, stacklevel=3)
        build(safe)
        spec = safe
    return spec


def _remember(plan: Plan, read_c: bool, sm, spec: KernelSpec) -> None:
    if len(_SPECS) > 4096:  # bounded like the plan cache
        _SPECS.clear()
    if len(_SPECS_BY_ID) > 4096:
        _SPECS_BY_ID.clear()
    _SPECS[(plan, read_c, sm)] = spec
    _SPECS_BY_ID[(id(plan), read_c, sm)] = (plan, spec)  # holds the plan: its id cannot be reused meanwhile


def spec_for(plan: Plan, read_c: bool, target: tuple[int, bool] | None = None) -> KernelSpec:
    """The (cached) KernelSpec of `plan` for this call's read_c.

    Looked up by the plan object's identity first (plans come from the plan cache, so a repeated call
    passes the same object; hashing a whole Plan costs microseconds), then by value.
    """
    sm = target or (SM_COUNT, True)
    hit = _SPECS_BY_ID.get((id(plan), read_c, sm))
    if hit is not None and hit[0] is plan:
        return hit[1]
    s = _SPECS.get((plan, read_c, sm))
    if s is None:
        s = checked_spec(plan, read_c, sm)
    _remember(plan, read_c, sm, s)
    return s


def _ptr(x, what: str) -> int:
    try:
        return int(x.data.ptr)
    except AttributeError:
        raise KernelError(f"operand {what}: expected a cupy array, got {type(x).__name__}") from None


def _check_alignment(what: str, ptr: int, vec: int, dtype: str) -> None:
    need = vec * ITEMSIZE[dtype]
    if need > 1 and pointer_alignment(ptr) < min(need, 16):
        raise KernelError(f"operand {what}: data pointer {ptr:#x} is not {need}-byte aligned as its plan "
                          f"assumed; plan again for this array")


def launch_grid(spec: KernelSpec, f) -> int:
    """CTAs to launch: one per tile, or for a persistent tile as many as are resident at once on the
    current device (occupancy of the loaded function `f` x SMs), at most one per tile, in whole clusters."""
    if not spec.tile.persistent:
        return spec.grid
    from cupy_backends.cuda.api import driver

    per_sm = driver.occupancyMaxActiveBlocksPerMultiprocessor(f.ptr, spec.tile.threads, spec.smem_bytes)
    if per_sm < 1:
        raise KernelError(f"tile {spec.tile}: no CTA of {spec.tile.threads} threads and {spec.smem_bytes} bytes of "
                          f"shared memory fits on an SM")
    grid = min(spec.grid, per_sm * _target()[0])
    return grid - grid % spec.tile.cluster  # (clusters: whole pairs, each walking pairs of tiles)


def launch(spec: KernelSpec, a_ptr: int, b_ptr: int, c_ptr: int, d_ptr: int, alpha, beta, stream=None) -> None:
    """Launch the kernel of `spec` on raw device pointers (element 0 of each operand)."""
    if spec.M == 0 or spec.N == 0 or spec.batch == 0:
        return
    import cupy

    dev = cupy.cuda.runtime.getDevice()
    hit = _FUNCS_BY_ID.get((id(spec), dev))
    if hit is not None and hit[0] is spec:
        _, f, grid, ws_bytes, flag_bytes = hit
    else:
        if spec.grid > 2**31 - 1:
            raise KernelError(f"{spec.grid} CTAs exceed the grid limit; the contraction is too large for one launch")
        f = get_function(spec)
        grid = launch_grid(spec, f)
        ws_bytes, flag_bytes = spec.workspace_bytes, spec.sk_flag_bytes
        if len(_FUNCS_BY_ID) > 4096:
            _FUNCS_BY_ID.clear()
        _FUNCS_BY_ID[(id(spec), dev)] = (spec, f, grid, ws_bytes, flag_bytes)
    if stream is None:
        stream = cupy.cuda.get_current_stream()
    ws, buf = 0, None  # (buf: the workspace block, held until the launch is queued, then freed in stream order)
    if ws_bytes:  # (stream-K: counters zeroed, then the partial tiles)
        with stream:
            buf = cupy.empty(ws_bytes, dtype=cupy.uint8)
        cupy.cuda.runtime.memsetAsync(buf.data.ptr, 0, flag_bytes, stream.ptr)
        ws = buf.data.ptr
    fast = _launcher(spec, f, dev, grid)
    if fast is not None and fast(a_ptr, b_ptr, c_ptr, d_ptr, alpha, beta, stream.ptr, ws):
        return
    if spec.tile.tma:  # (CuPy's launch cannot pass the 128-byte tensor maps)
        raise KernelError(f"tile {spec.tile}: TMA kernels launch through libcuda's cuLaunchKernel, which failed "
                          f"or is missing")
    acc = scalar_type(spec.compute)
    args = (np.uint64(a_ptr), np.uint64(b_ptr), np.uint64(c_ptr), np.uint64(d_ptr), acc(alpha), acc(beta))
    if ws_bytes:
        args += (np.uint64(ws),)
    f((grid, 1, 1), (spec.tile.threads, 1, 1), args, shared_mem=spec.smem_bytes, stream=stream)


# ------------------------------------------------------------------------------------------------ fast launch
# cuLaunchKernel through ctypes with a parameter block prepared once per (spec, device, thread): a cached
# call then costs a few attribute stores and one foreign call instead of CuPy's per-call argument packing.
# Any non-zero CUresult hands the launch to CuPy's own path (which raises its CUDADriverError).
_TLS = threading.local()
_CU_LAUNCH: list = []  # [cuLaunchKernel] once libcuda is loaded, [None] where it cannot be


def _cu_launch():
    if not _CU_LAUNCH:
        try:
            fn = ctypes.CDLL("libcuda.so.1").cuLaunchKernel
            fn.restype = ctypes.c_int
            fn.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [ctypes.c_void_p, ctypes.c_void_p,
                                                                       ctypes.c_void_p]
            _CU_LAUNCH.append(fn)
        except (OSError, AttributeError):
            _CU_LAUNCH.append(None)
    return _CU_LAUNCH[0]


class _Launcher:
    """One kernel's launch with its parameter block (A, B, C, D pointers, alpha, beta) kept in ctypes."""

    __slots__ = ("fn", "func", "grid", "threads", "smem", "vals", "params", "spec", "tma", "tma_of", "tma_ptrs",
                 "has_ws")

    def __init__(self, fn, spec: KernelSpec, func_ptr: int, grid: int):
        acc = np.ctypeslib.as_ctypes_type(scalar_type(spec.compute))
        self.fn, self.spec, self.func = fn, spec, ctypes.c_void_p(func_ptr)
        self.grid, self.threads, self.smem = grid, spec.tile.threads, spec.smem_bytes
        self.vals = (ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64(), ctypes.c_uint64(), acc(), acc())
        self.tma, self.tma_of, self.tma_ptrs = None, (), (None, None)
        if spec.tile.tma:  # (the tensor maps follow beta, re-encoded when a data pointer changes: A's, B's, B's
            #  half-atom map with half_atom)
            self.tma = (*spec.tma_geometries, *((spec.tma_half_geometry,) if spec.tile.half_atom else ()))
            self.tma_of = (0, 1) + ((1,) if spec.tile.half_atom else ())
            self.vals += tuple((ctypes.c_ubyte * 128)() for _ in self.tma)
        self.has_ws = spec.workspace_bytes > 0
        if self.has_ws:  # (stream-K: the workspace comes last)
            self.vals += (ctypes.c_uint64(),)
        self.params = (ctypes.c_void_p * len(self.vals))(
            *(ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in self.vals))

    def __call__(self, a, b, c, d, alpha, beta, stream_ptr: int, ws: int = 0) -> bool:
        v = self.vals
        v[0].value, v[1].value, v[2].value, v[3].value = a, b, c, d
        v[4].value, v[5].value = alpha, beta
        if self.has_ws:
            v[-1].value = ws
        if self.tma is not None:
            ptrs = tuple((a, b, c, d)[i] for i in self.tma_of)
            if self.tma_ptrs != ptrs:
                from ..kernels.tma import encode

                for i, (g, p) in enumerate(zip(self.tma, ptrs, strict=True)):
                    ctypes.memmove(v[6 + i], encode(g, p), 128)
                self.tma_ptrs = ptrs
        return self.fn(self.func, self.grid, 1, 1, self.threads, 1, 1, self.smem, stream_ptr, self.params,
                       None) == 0


def _launcher(spec: KernelSpec, f, dev: int, grid: int):
    """The calling thread's fast launcher of `spec` with `grid` CTAs (None without libcuda)."""
    cache = getattr(_TLS, "launchers", None)
    if cache is None:
        cache = _TLS.launchers = {}
    hit = cache.get((id(spec), dev))
    if hit is not None and hit.spec is spec:
        return hit
    fn = _cu_launch()
    if fn is None:
        return None
    if len(cache) > 4096:
        cache.clear()
    lau = cache[(id(spec), dev)] = _Launcher(fn, spec, int(f.ptr), grid)
    return lau


def execute(plan: Plan, a, b, c, d, alpha=1.0, beta=0.0, stream=None) -> None:
    """D = op_d(alpha * op_a(A) op_b(B) + beta * op_c(C)) on the GPU, written into `d` in place.

    Args:
        plan: the plan of the problem (its A and B are the problem's, not swapped).
        a, b: the problem's A and B (cupy arrays). c: C or None. d: the output cupy array.
        alpha, beta: scalars (run-time). stream: a cupy Stream (default: the current stream).
    """
    if plan.problem.compute in ("c64", "c128"):  # four real launches per complex contraction (gpu_complex)
        from .gpu_complex import execute_complex

        return execute_complex(plan, a, b, c, d, alpha, beta, stream=stream)
    if plan.problem.compute in EXACT_PROBLEM_COMPUTE:  # integer / bool: the SIMT kernel on integers (gpu_exact)
        from .gpu_exact import execute_exact

        return execute_exact(plan, a, b, c, d, alpha, beta, stream=stream)
    if plan.M == 0 or plan.N == 0 or plan.batch == 0:
        return
    refuse_complex_scalars(alpha, beta, plan.problem.compute)
    read_c = c is not None and beta != 0 and plan.layout_c is not None
    spec = spec_for(plan, read_c, _target())
    ka, kb = (b, a) if plan.part.swapped else (a, b)
    pa, pb, pd = _ptr(ka, "A"), _ptr(kb, "B"), _ptr(d, "D")
    pc = _ptr(c, "C") if read_c else 0
    _check_alignment("A", pa, spec.a.vec, spec.a.dtype)
    _check_alignment("B", pb, spec.b.vec, spec.b.dtype)
    _check_alignment("D", pd, spec.d.vec, spec.d.dtype)
    try:
        launch(spec, pa, pb, pc, pd, alpha, beta, stream)
    except Exception as e:  # noqa: BLE001 -- load/launch failures of this specialisation (cupy's driver errors)
        sm = _target()
        safe = kernel_spec(plan, read_c, tile=safe_tile(spec), sm_count=sm[0])
        if safe == spec or isinstance(e, KernelError) and "grid limit" in str(e):
            raise
        first = (str(e).strip().splitlines() or [""])[0][:160]
        warnings.warn(f"gettpy: the kernel for tile {spec.tile} failed to load or launch ({type(e).__name__}: "
                      f"{first}); using the safe tile {safe.tile} for this plan from now on", RuntimeWarning,
                      stacklevel=2)
        _remember(plan, read_c, sm, safe)
        launch(safe, pa, pb, pc, pd, alpha, beta, stream)
