"""Target: the facts about a GPU that the planner's cost model and rules read.

A `Target` names a device's SM count, shared memory, copy bandwidth, peak throughput per input type and
instruction kind, and the features its kernels may use (warpgroup MMA, TMA, thread-block clusters, f64
tensor cores). The planner never reads a device constant from anywhere else: `device_target()` builds the
target of the current CuPy device from its attributes (the H100 SXM's figures filling in what attributes do
not report: bandwidth and peaks, scaled by the SM count), and `DEFAULT_TARGET` (an H100 SXM) is what plans
are made for where there is no device (the CPU executor, CI).
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class Target:
    """One GPU as the planner sees it.

    Attributes:
        name: device name (for messages and the tuning database).
        cc: compute capability (major, minor).
        sm_count: streaming multiprocessors.
        smem_per_sm: bytes of shared memory an SM holds; smem_per_block: the most one CTA may take.
        copy_gbs: bandwidth of a device-to-device copy, GB/s of bytes read plus bytes written.
        peaks: (kind, TFLOP/s) pairs: "mma" (f16 / bf16 tensor cores, f32 accumulation), "simt32" (f32 FMA),
            "simt64" (f64 FMA), "dmma" (f64 tensor cores), "imma" (int8 tensor cores on tiles fed by cp.async:
            mma.sync or warp-specialised wgmma), "imma_tma" (int8 wgmma tiles fed by TMA); TOP/s for the int8
            kinds.
        wgmma, tma, clusters, dmma: whether kernels may use warpgroup MMA, the tensor memory accelerator,
            thread-block clusters and the f64 tensor cores.
        launch_us: the cost of one more kernel launch in a schedule, microseconds.
        l2_bytes: bytes of the L2 cache (a tensor that fits in a share of it is gathered and merged there).
        narrow_load_exp, sync_load_frac: how a GEMM loader's streaming rate falls with its vector width
            (`load_gbs`). Loads of v >= 4 bytes a thread go through cp.async and stream at copy_gbs x (v / 16) **
            narrow_load_exp: a warp's consecutive elements still fill whole 32-byte sectors, so the bytes moved do
            not change, and the loss is the instructions issued and in flight per byte. Loads of fewer than 4
            bytes (one 2-byte element) cannot use cp.async: they are synchronous loads and stores through
            registers, at sync_load_frac of the copy bandwidth. Calibrated on an H200 against long-K split GEMMs
            over f16 inputs (M x N ~ 10^4, K ~ 10^6): with 4-byte vectors (m runs of 94) the split GEMM ran at
            0.49 of the memory floor's rate, against 0.72 for torch.einsum on the same shape (taken as the
            16-byte rate: 0.68 = 0.25 ** 0.28); with element loads of k-contiguous rows of odd length, at 0.07,
            and a pack reading such rows element by element at about 0.1 of the copy bandwidth.
        transpose_frac: (largest element bytes, share) pairs, ascending: the share of the copy bandwidth a
            transposing copy of such elements (gettpy.kernels.permute's tiled copy: its tiles pass through shared
            memory) reaches with 16-byte vectors on both sides, against a copy along the rows (`transpose_share`).
            Measured on an H200, 0.13-1 GB tensors: f16 0.79-0.82, f32 0.90-0.94 of the realigning row copy's
            rate; narrower vectors lose more on top, as `load_gbs` prices them.
    """

    name: str
    cc: tuple[int, int]
    sm_count: int
    smem_per_sm: int
    smem_per_block: int
    copy_gbs: float
    peaks: tuple[tuple[str, float], ...]
    wgmma: bool
    tma: bool
    clusters: bool
    dmma: bool
    launch_us: float = 4.0
    l2_bytes: int = 50 << 20
    narrow_load_exp: float = 0.28
    sync_load_frac: float = 0.1
    transpose_frac: tuple[tuple[int, float], ...] = ((2, 0.8), (8, 0.92))

    def __post_init__(self):
        if self.sm_count < 1 or self.copy_gbs <= 0:
            raise ValueError(f"Target {self.name!r}: sm_count {self.sm_count} and copy_gbs {self.copy_gbs} must be "
                             f"positive")

    def peak(self, kind: str) -> float:
        """Peak TFLOP/s of instruction kind `kind` (see `peaks`); 0 where the target has none."""
        return dict(self.peaks).get(kind, 0.0)

    def transpose_share(self, itemsize: int) -> float:
        """`transpose_frac`'s share for elements of `itemsize` bytes (the last pair's beyond them all)."""
        return next((f for size, f in self.transpose_frac if itemsize <= size), self.transpose_frac[-1][1])

    def copy_us(self, nbytes: float) -> float:
        """Microseconds to move `nbytes` (read or written) at the copy bandwidth."""
        return nbytes / (self.copy_gbs * 1e3)

    def load_gbs(self, vec_bytes: int) -> float:
        """GB/s at which a GEMM loader streams an input it reads in vectors of `vec_bytes` bytes a thread (16:
        the copy bandwidth; narrower: a fraction, `narrow_load_exp`; under 4 bytes `sync_load_frac`)."""
        if vec_bytes < 4:
            return self.copy_gbs * self.sync_load_frac
        return self.copy_gbs * min(1.0, vec_bytes / 16) ** self.narrow_load_exp

    def load_us(self, nbytes: float, vec_bytes: int) -> float:
        """Microseconds for a GEMM loader to read `nbytes` in vectors of `vec_bytes` bytes (`load_gbs`)."""
        return nbytes / (self.load_gbs(vec_bytes) * 1e3)


#: an H100 SXM 80GB (measured: a copy moves 2.9 TB/s read + write, cuBLAS f16 GEMM ~760 TFLOP/s, SGEMM ~52,
#: DGEMM on the f64 tensor cores ~60; gettpy's int8 tiles on TCCG's compute-bound contractions ~500 TOP/s fed by
#: cp.async and ~1000 fed by TMA, measured on an H200, whose SMs and clocks are the H100's)
H100_SXM = Target("NVIDIA H100 80GB HBM3", (9, 0), 132, 228 * 1024, 227 * 1024, 2900.0,
                  (("mma", 760.0), ("simt32", 52.0), ("simt64", 26.0), ("dmma", 60.0), ("imma", 500.0),
                   ("imma_tma", 1000.0)),
                  wgmma=True, tma=True, clusters=True, dmma=True)
#: what plans are made for where there is no device
DEFAULT_TARGET = H100_SXM

_BY_DEVICE: dict[int, Target] = {}


def device_target() -> Target:
    """The Target of the current CuPy device (cached per device id); DEFAULT_TARGET without one.

    The SM count, shared memory and compute capability come from the device; bandwidth and peaks are the
    default target's scaled by the SM count (the attributes do not report them), and the sm_90 features
    exist only on compute capability 9.0 (the kernels are compiled for sm_90a there).
    """
    try:
        import cupy

        dev = cupy.cuda.Device()
        dev_id = dev.id
        cc_text = str(dev.compute_capability)
    except Exception:  # noqa: BLE001 - no CuPy, no driver or no device: plan for the default target
        return DEFAULT_TARGET
    hit = _BY_DEVICE.get(dev_id)
    if hit is not None:
        return hit
    try:
        attrs = dict(dev.attributes)
    except Exception:  # noqa: BLE001 - attributes unreadable: the default target's figures
        attrs = {}
    try:
        name = cupy.cuda.runtime.getDeviceProperties(dev_id)["name"]
        name = name.decode() if isinstance(name, bytes) else str(name)
    except Exception:  # noqa: BLE001
        name = f"CUDA device {dev_id}"
    cc = (int(cc_text[:-1] or 0), int(cc_text[-1:] or 0))
    hopper = cc == (9, 0)
    sm = int(attrs.get("MultiProcessorCount", DEFAULT_TARGET.sm_count))
    scale = sm / DEFAULT_TARGET.sm_count
    t = replace(DEFAULT_TARGET, name=name, cc=cc, sm_count=sm,
                smem_per_sm=int(attrs.get("MaxSharedMemoryPerMultiprocessor", DEFAULT_TARGET.smem_per_sm)),
                smem_per_block=int(attrs.get("MaxSharedMemoryPerBlockOptin", DEFAULT_TARGET.smem_per_block)),
                copy_gbs=DEFAULT_TARGET.copy_gbs * (1.0 if hopper else scale),
                l2_bytes=int(attrs.get("L2CacheSize", DEFAULT_TARGET.l2_bytes)),
                peaks=tuple((k, v * scale) for k, v in DEFAULT_TARGET.peaks),
                wgmma=hopper, tma=hopper, clusters=cc >= (9, 0), dmma=hopper)
    _BY_DEVICE[dev_id] = t
    return t


__all__ = ["DEFAULT_TARGET", "H100_SXM", "Target", "device_target"]
