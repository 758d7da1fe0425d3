"""Direct contractions: a short sum computed output element by output element (gettpy.kernels.direct), where the
traffic model says it beats the schedule of GEMM tiles.

A contraction whose sum over k has a few values at most (outer and Hadamard products, scaling by a vector, a sum
over a spin or a small bond: K <= kernels.direct.MAX_K) moves D's bytes and little else; the GEMM tile's reuse of
its inputs is what an L2 cache gives a stream over D as well. The tile loses where the shape does not fit it: D
led by a batch mode (one batch index a CTA: lone elements per sector, so the schedule stages D through a copy,
three passes over its bytes), M or N of 1 (a tile of 16+ rows computing one), an input packed first. The direct
kernel walks D in its memory order, reading each input at the offsets its strides give.

The model (`direct_us`), per launch: D's bytes written once, each input's distinct bytes read once, and its
re-reads again at REREAD_MISS where it is too large for its share of the L2 cache; an input read across its runs
(its stride along D's fastest axis neither 0 nor 1) costs a sector per element. Issue: one load per summed value
of each input and a store per element, at DIRECT_LOADS_PER_US per SM. Fewer threads than fill the machine stream
at their share of the bandwidth. `choose_direct` takes the direct kernel where this predicts at most DIRECT_GAIN
of the schedule's time: plan/traffic.py's `schedule_us` (or, for stagings it does not price, the least their bytes
and launches cost), plus, where the GEMM is degenerate (M, N or K of 1), GETT_CTA_US for each CTA an SM runs (the
traffic model leaves a CTA's fixed cost out, as the schedules it compares share their tiles; a degenerate GEMM's
tiles are little else).
"""
from __future__ import annotations

import math

from ..errors import KernelError
from ..kernels.direct import COMPUTE, DTYPES, MAX_K, DirectLayout
from ..layouts.descriptor import merge_axes
from .problem import ContractionProblem, TensorInfo
from .target import Target
from .traffic import REREAD_MISS, SECTOR_BYTES

#: the direct kernel must predict at most this fraction of the planned schedule's time. No margin: over 68
#: contractions with sums of 1-15 values measured on the H100, the direct kernel ran 0.84-1.5x its predicted time
#: (median about 1.0), while the GETT schedules of sums of 2-4 values ran 1.13-1.85x theirs; with 0.8, schedules
#: measured 1.2-2.2x slower than the direct kernel were kept
DIRECT_GAIN = 1.0
#: loads or stores of single elements an SM issues per microsecond (32 a clock at about 1.6 GHz)
DIRECT_LOADS_PER_US = 32 * 1.6e3
#: a GETT CTA's cost beyond its bytes and flops (prologue, pipeline fill, epilogue), microseconds per CTA an SM runs:
#: measured on the H100, contractions with K = 1 tiled 128 x 16 (one batch index a CTA, 84-120 thousand CTAs) and
#: outer products tiled 128 x 64 (45 thousand) took 0.8 us per CTA an SM ran beyond their bytes
GETT_CTA_US = 0.8
#: values of D a lane takes: VEC, or WIDE_VEC where the inputs hold at most 1 / WIDE_RATIO of D's elements (the
#: stream is D's stores: more of them in flight; measured on the H100, outer and broadcast products 1.05-1.4x
#: faster with 8 than with 4, contractions whose input is D's size 1.03-1.12x slower); half of either for a sum
#: of more than SHORT_K values
VEC, WIDE_VEC, WIDE_RATIO, SHORT_K = 4, 8, 4, 4
#: the share of the L2 cache an input may take and still be re-read from it
L2_SHARE = 0.25
#: threads per SM that keep the copy bandwidth busy (fewer stream at their share of it)
FULL_THREADS_PER_SM = 1024


def direct_layout(problem: ContractionProblem) -> DirectLayout | None:
    """The direct kernel's layout of `problem`, or None where the kernel does not take it: a semiring, a dtype or
    compute type it has no code for, an empty extent, a sum of more than MAX_K values."""
    p = problem
    if p.semiring is not None or p.compute not in COMPUTE:
        return None
    if any(t.dtype not in DTYPES for t in (p.a, p.b, p.d) + ((p.c,) if p.c is not None else ())):
        return None
    ext = dict(p.extents)
    if any(e == 0 for e in ext.values()):
        return None
    ksum_modes = [m for m in dict.fromkeys(p.a.modes + p.b.modes) if m not in p.d.modes and ext[m] > 1]
    if math.prod(ext[m] for m in ksum_modes) > MAX_K:
        return None
    sa, sb, sd = p.a.stride_of(), p.b.stride_of(), p.d.stride_of()
    sc = p.c.stride_of() if p.c is not None else None
    free = sorted((m for m in p.d.modes if ext[m] > 1), key=lambda m: (abs(sd[m]), p.d.modes.index(m)))
    tensors = [sa, sb, sd] + ([sc] if sc is not None else [])
    fe, fs = merge_axes([ext[m] for m in free], [tuple(t.get(m, 0) for m in free) for t in tensors])
    if not fe:  # (a single output element)
        fe, fs = (1,), [(0,) for _ in tensors]
    ksum_modes.sort(key=lambda m: (m not in sa, abs(sa.get(m, 0)), abs(sb.get(m, 0))))
    ke, ks = merge_axes([ext[m] for m in ksum_modes], [tuple(t.get(m, 0) for m in ksum_modes) for t in (sa, sb)])
    size = lambda t: math.prod(ext[m] for m in t.modes)  # noqa: E731
    vec = WIDE_VEC if size(p.a) + size(p.b) <= size(p.d) / WIDE_RATIO else VEC
    if math.prod(ke) > SHORT_K:
        vec //= 2
    return DirectLayout(fe, fs[0], fs[1], fs[3] if sc is not None else (), fs[2], ke, ks[0], ks[1],
                        (p.a.dtype, p.b.dtype, p.c.dtype if p.c is not None else "", p.d.dtype), p.compute,
                        tuple(t.op.cuda if not t.op.is_identity else "" for t in (p.a, p.b))
                        + ((p.c.op.cuda if p.c is not None and not p.c.op.is_identity else ""),
                           p.d.op.cuda if not p.d.op.is_identity else ""), vec)


def _waste(stride0: int, itemsize: int) -> float:
    """Bytes fetched per byte used of a tensor whose stride along D's fastest axis is `stride0`: whole sectors
    where the warp's elements are one run (or one element), a sector each otherwise."""
    s = abs(stride0)
    return 1.0 if s <= 1 else float(min(s, SECTOR_BYTES // itemsize))


def _read_bytes(t: TensorInfo, ext: dict[str, int], stride0: int, accesses: int, target: Target) -> float:
    size = math.prod(ext[m] for m in t.modes)
    nbytes = size * t.itemsize * _waste(stride0, t.itemsize)
    if size * t.itemsize > L2_SHARE * target.l2_bytes and accesses > size:
        nbytes *= 1 + (accesses / size - 1) * REREAD_MISS
    return nbytes


def direct_us(lay: DirectLayout, problem: ContractionProblem, target: Target, read_c: bool = False) -> float:
    """Predicted microseconds of the direct kernel of `lay` (see the module docstring)."""
    ext = dict(problem.extents)
    n, k = lay.total, lay.k_total
    d = problem.d
    nbytes = n * d.itemsize * _waste(lay.d[0], d.itemsize)
    nbytes += _read_bytes(problem.a, ext, lay.a[0], n * k, target) + _read_bytes(problem.b, ext, lay.b[0], n * k,
                                                                                    target)
    if read_c and problem.c is not None:
        nbytes += _read_bytes(problem.c, ext, lay.c[0], n, target)
    fill = min(1.0, n / lay.vec / (target.sm_count * FULL_THREADS_PER_SM))
    stream = target.copy_us(nbytes) / max(fill, 1e-3)
    issue = n * (2 * k + 1 + (1 if read_c else 0)) / (target.sm_count * DIRECT_LOADS_PER_US)
    return max(stream, issue) + target.launch_us


def choose_direct(problem: ContractionProblem, planned, target: Target, sm_count: int):
    """The direct layout of `problem` where its kernel predicts at most DIRECT_GAIN of schedule `planned`'s time,
    else None."""
    from .traffic import least_us, schedule_us

    lay = direct_layout(problem)
    if lay is None:
        return None
    try:
        base = schedule_us(planned, target, sm_count)
        if base is None:  # (stagings the traffic model does not price: the least they can cost)
            base = least_us(planned, target)
        base += _cta_us(planned, target, sm_count)
    except KernelError:  # (a core the model cannot specialise: the schedule stays as planned)
        return None
    return lay if direct_us(lay, problem, target) <= DIRECT_GAIN * base else None


def _cta_us(s, target: Target, sm_count: int) -> float:
    """GETT_CTA_US for each CTA of schedule `s`'s core an SM runs, where the core is a degenerate GEMM (M, N or K
    of 1: a tile of one row, one column or one rank-1 update, whose CTAs are little but their fixed cost), else 0
    (a CTA with a k-loop and a tile of outputs overlaps its fixed cost with other CTAs': measured on the H100, an MPS
    update with K = 12 ran 4,700 such CTAs in 12.6 us)."""
    from .tiles import kernel_spec

    spec = kernel_spec(s.core, False, sm_count=sm_count, wgmma=target.wgmma)
    if min(spec.M, spec.N, spec.K) > 1:
        return 0.0
    t = spec.tile
    ctas = math.ceil(spec.M / t.bm) * math.ceil(spec.N / t.bn) * spec.batch
    return ctas / sm_count * GETT_CTA_US


__all__ = ["DIRECT_GAIN", "choose_direct", "direct_layout", "direct_us"]
