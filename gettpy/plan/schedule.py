"""Schedule: a plan plus the staging around it — packing an input, split-K.

GETT reads every tensor in place, and for most contractions that is the fastest way. Some shapes
are not, and the schedule stages them around the one GEMM kernel (the "core" plan):

* **pack an input** when it has no stride-1 run along either of its GEMM dimensions (every element
  would be a scalar gather, ~16x the sectors of a 16-byte load, re-read by every CTA of its row or
  column): one copy into a packed layout whose fastest modes are the k modes in the core's order
  (m/n first when K is not a multiple of the vector width), costing one read and one write;
* **zero-fill a pack to whole vectors** (`_padded_k`) when a compute-bound tensor-core GEMM packs its
  inputs anyway and the leading k mode's extent is not a multiple of the 16-byte vector: the packs are
  k-major with that mode rounded up (zeros add nothing), so the core reads aligned vectors on its fastest
  tiles instead of single elements;
* **zero-fill the k-major packs of a memory-bound GEMM** (plan/align.py) whose leading k rows are not whole
  16-byte vectors, where the target's loader model says the core's element-wide loads cost more than the
  packs (a realigning row copy, gettpy.kernels.realign) and the aligned core together; split-K then cuts the
  padded extent, every slice starting aligned;
* **split-K** (plan/split.py) when the output is too small to give the machine a wave of CTAs but K is long (outputs of
  a few hundred by a few hundred over K ~ 10^5, or a dot product): a k mode of extent E is cut into
  slices and a new batch mode; the core writes the partial results into a float32/float64 workspace,
  summed afterwards, then beta * op_c(C) and op_d are applied (in the accumulate type) on the way into D
  through D's own strides (the workspace is packed, n fastest). Where no divisor of the extents gives
  enough slices, plan/splitk.py sizes the slices by a model of the target and a tail schedule covers the
  values the slices leave (`Schedule.tail`).

Packing pays only when the gathered operand is re-read (by at least `PACK_MIN_REREADS` CTA rows or
columns): measured on the H100, a once-read operand of 150 MB is cheaper to gather than to copy with
CuPy's strided copy, and staging a scattered output through a workspace and a CuPy copy was five times
slower, so outputs are written in place except for split-K and:

* **stage an interleaved output** (`_stage_interleaved`) when it is a third of its input's size or less
  (a sixth where its pieces are whole 32-byte sectors): the core writes a workspace in the input's order,
  and the tiled copy moves it into D.

* **pack a small, slot-permuted input** when the kernel would read it with vectors along a non-leading
  map term (a tile 2-D over two modes) although it is at least `SMALL_PACK` times smaller than the
  output and re-read by many CTAs (write-bound shapes with K of a few dozen): one small copy makes its
  tiles k-major.

* **pack a compute-bound shape's 2-byte input with short runs** (shorter than `PACK_RUN` along the
  direction the kernel reads it, and re-read by many CTAs: e.g. runs of 72 of a 6-mode tensor): one copy
  into a dense k-major layout costs less than the tiles' scattered reads of it, and with both inputs
  packed the core runs on TMA tiles (measured on the H100: 0.75-0.80x of the time with one of two such
  inputs packed).

* **pack an int8 tensor-core core's input k-major** (`int8_plan_tile`): the int8 tiles read both inputs k-major in
  vectors of at least INT8_MIN_KVEC values (no transposing 8-bit ldmatrix), so an int8 / uint8 input of a
  compute-bound integer GEMM that has no such k runs, and is re-read by OP_PACK_MIN_REREADS CTA rows or columns, is
  packed k fastest (`_padded_k` zero-fills a leading k extent that is not whole 16-byte vectors where both are
  packed); otherwise the core runs on the SIMT kernel, which reads any layout. On a device with TMA, an input
  whose layout gives the TMA-fed int8 tile no tensor map is packed k-major and dense where the model says the
  tile's rate pays for the copies (`_int8_tma_packs`; measured on an H200: ~1000 TOP/s against ~500 on the
  cp.async-fed int8 tiles).

* **pre-apply an input's op** when the input has a unary op and is re-read by at least
  `OP_PACK_MIN_REREADS` CTA rows or columns: the pack applies the op once per element and the core
  reads op(A) with no op, instead of every CTA transforming its tiles again (measured on the H100:
  leaky_relu on A and B fused made compute-bound GEMMs 1.7-2.2x slower; transforming in the kernel
  instead of packing made memory-bound shapes 1.2-2.0x their no-op time, against 1.1-1.25x with the
  packs), and any pack made for another reason applies the op on the way. Only for f16, f32 and f64
  inputs; the pack computes the op in the kernel's compute type and rounds to the input type, as the
  fused path does. Not for an A whose panel the kernel keeps resident in shared memory (plan/tiles.py's
  panel_fits): the panel takes the op once per CTA, with no launch (about 4% faster than the pack).

* **trade a TMA core's orientation** (plan/orient.py, first of `make_schedule`'s passes): a core on a TMA-fed
  tile that writes D in place runs the other way round (the other input as the kernel's A) where that
  orientation's tiles take fewer or cheaper waves (the TMA shapes are not square, and clusters need an even
  number of tile rows).

* **restage by the traffic model** (plan/traffic.py, the last pass of `make_schedule` for memory-bound real
  contractions with no C): where the tile would store D, or read an input, across its stride-1 runs (odd
  extents leave no interleaving of the two orders), the schedule as planned is priced against D staged
  through a dense workspace in the inputs' order and against each input packed into D's order, and the
  cheapest is kept when it predicts at most MIN_GAIN of the planned time.

* **stage a batch-led output, pack a batch-led input** (plan/batch.py) when the tensor's stride-1 mode is a
  batch mode, so that each CTA, one batch index, touches one element per sector, and the tensor is too large
  for the L2 cache to gather its sectors: the core writes a workspace led by the tile's own modes (the tiled
  copy then moves it into D), and the input is packed k-major, whatever its re-reads.

* **run the direct kernel instead** (plan/direct.py, the last pass of `make_schedule`) where the sum over k has at
  most 16 values (outer, Hadamard and broadcast products) and its model predicts it at least as fast as the
  schedule above: D is computed value by value in its own memory order, with no GEMM tile, pack or staged copy;
  the schedule's `core` is then the plan of the problem as posed, which only the CPU executor runs.

* **run the long-K kernel instead** (plan/longk.py, after the direct kernel's pass) for f16, bf16 or float32
  inputs with no batch mode, each of m, n and k one axis of every input, where its model predicts it at least as
  fast as the schedule (float32: on its float64-tensor-core tiles wherever the schedule's core sums in float64): a
  small M x N over a long K whose rows start at any alignment, read as aligned 16-byte words and shifted on chip,
  one slice of K a CTA, the slices' partial sums (float32, or float64 on those tiles) added after it.

Complex plans that run on the one-launch complex kernel (`one_launch`: a complex compute type and D, every
operand's pointer aligned to its element) read A and B in place through the layout maps, whatever their strides:
none of the rules above applies to them (they were measured on the real kernels' loaders, shared-memory
fragments and epilogue), and no output is staged for interleaving. An input is packed only where the sector
model of `_fused_pack_pays` says its re-reads fetch more bytes than the copy costs (a large input gathered
element by element and re-read by many CTAs). Split-K and the diagonal fold stage them as any plan. The other
complex plans (a real D, an operand not aligned to its element) run as real launches over the planes
(backends/gpu_complex.py) and keep the rules above, except that a complex input not aligned to its element is
never packed (the copy kernels load whole elements; the real launches read its planes in place).

The GPU backend runs the stagings with CuPy. The CPU executor's own schedules are the core alone (it reads
any layout through strided views: plan/cache.py's executor_stages); the tests run these schedules on numpy
arrays through `backends.staged.run`, so CI checks the transformations end to end.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import partial

from ..dtypes import ITEMSIZE as ITEMSIZE_OF
from ..dtypes import accumulate_type, is_complex
from ..errors import KernelError, ShapeError
from ..kernels.direct import DirectLayout
from ..kernels.spec import INT8_MMA_DTYPES, REALIGN_DTYPES, realign_group
from .batch import pack_batch_led, stage_batch_led
from .direct import choose_direct
from .fold import FOLD, FOLD_A, FOLD_B, MIN_GAIN, fold_candidate, fold_gain, folded_problem, peak_kind
from .heuristic import INT8_MIN_KVEC, plan_tile
from .longk import LongKPlan, choose_longk
from .orient import traded_core
from .plan import Plan, make_plan
from .problem import ContractionProblem, TensorInfo, packed
from .reads import int8_read, word_read
from .split import (
    SPLIT_MIN_K,
    SPLIT_SUFFIX,
    SPLIT_TILE,
    divisor_split,
    grid_ctas,
    remainder_cut,
    simt_slices,
    simt_split_tiles,
    split_problem,
    underfilled,
    wave_split,
)
from .target import DEFAULT_TARGET, Target
from .traffic import SECTOR_BYTES, fetch_ratio, leading_run, realign_load_us

#: tensors smaller than this are never staged (a copy costs a launch)
MIN_STAGE_ELEMS = 4096
#: pack a gathered input only when this many CTA rows (for B) or columns (for A) re-read it
PACK_MIN_REREADS = 2
#: apply an input's unary op in a pack when this many CTA rows / columns re-read the input
OP_PACK_MIN_REREADS = 8
#: pack an input read with slot-permuted vectors (and re-read by OP_PACK_MIN_REREADS CTA rows / columns)
#: when it is this many times smaller than the output: its tiles become k-major and unpermuted, and the
#: epilogue's staging rows stop landing on a few banks (measured on the H100: about 1.2x faster)
SMALL_PACK = 16
#: pack a 2-byte input of a compute-bound shape, re-read by OP_PACK_MIN_REREADS CTA rows / columns, whose
#: contiguous runs along the direction the kernel reads it are shorter than this (elements; runs of 72 of
#: 6-mode tensors: 2.2 -> 1.8-2.0x their floor on the H100)
PACK_RUN = 256
#: stage an interleaved output (`_stage_interleaved`) when the input it is interleaved with is at least this
#: many times its size
STAGE_D_RATIO = 3
#: the cost of one pack step in front of the one-launch complex kernel beyond its copy's bytes (the copy's launch
#: and the host's work around it), microseconds: measured on an H200, a complex64 GEMM of 515^3 took 0.149 ms
#: end to end with both inputs packed against 0.065 ms for its kernel alone (two packs: about 0.08 ms)
FUSED_PACK_US = 40.0


@dataclass(frozen=True, slots=True)
class Schedule:
    """How to run a problem: optional packs, the core plan, optional split-K workspace.

    Attributes:
        problem: the problem as the caller posed it.
        core: the plan the kernel runs (on packed inputs / into the workspace when staged).
        pack_a, pack_b: the packed layout of the problem's A / B (modes fastest first, packed strides),
            or None when the operand is read in place.
        stage_d: the split-K workspace the core writes (modes fastest first, packed), or None when the
            core writes D in place.
        split_mode: the workspace mode summed away after the core (split-K), or None.
        tail: split-K over an extent the slices do not divide: the schedule of the rest of the split k mode
            (indices `tail_from` on, of the problem's inputs or their packs), whose output is one more slice of
            the workspace (written after the core's); None when the slices cover the mode.
        tail_from: the first index of the split k mode that `tail` covers.
        pad_ext: the extents of the packs where they exceed the problem's ((mode, extent) pairs of every mode,
            sorted; () when none do): the packs are zero-filled beyond the problem's extents (`_padded_k`; for
            memory-bound GEMMs plan/align.py, where split-K and its tail cut the padded extent).
        fold: (k mode, k1a, k1b) of a diagonal fold (plan/fold.py), () without: `inner` is then the schedule of
            the folded GEMM, whose output `stage_d` is summed over its diagonal (k1a = k1b) into D, the tail
            (over the values of the k mode from `tail_from` on, output packed in the accumulate type) added;
            `core` is inner's core, for inspection.
        direct: the direct kernel's layout (plan/direct.py) where it computes the whole problem instead of the
            core (then a plan of the problem as posed, which the CPU executor runs), else None.
        longk: the long-K kernel's plan (plan/longk.py) where it computes the problem's sums instead of the core
            (then, as for `direct`, a plan of the problem as posed), else None.
    """

    problem: ContractionProblem
    core: Plan
    pack_a: TensorInfo | None = None
    pack_b: TensorInfo | None = None
    stage_d: TensorInfo | None = None
    split_mode: str | None = None
    tail: Schedule | None = None
    tail_from: int = 0
    pad_ext: tuple[tuple[str, int], ...] = ()
    fold: tuple[str, ...] = ()
    inner: Schedule | None = None
    direct: DirectLayout | None = None
    longk: LongKPlan | None = None

    @property
    def tail_mode(self) -> str | None:
        """The k mode whose values from `tail_from` on the tail covers (None without a tail)."""
        if self.tail is None:
            return None
        return self.fold[0] if self.fold else self.split_mode[:-len(SPLIT_SUFFIX)]

    @property
    def own_kernel(self) -> bool:
        """Whether a kernel of its own (direct or long-K) computes the problem instead of `core` (a plan of the
        problem as posed, which only the CPU executor runs)."""
        return self.direct is not None or self.longk is not None

    @property
    def staged(self) -> bool:
        return (self.pack_a is not None or self.pack_b is not None or self.stage_d is not None
                or self.own_kernel)

    @property
    def workspace_bytes(self) -> int:
        """Bytes of the temporaries (packed inputs and output workspace; the long-K kernel's partial sums of every
        slice and their sum, float64 on its float64-mma tiles, else float32)."""
        if self.longk is not None:
            lay = self.longk.layout
            return (8 if lay.tile.f64_mma else 4) * lay.M * lay.N * (lay.slices + 1)
        ext, core_ext = dict(self.pad_ext or self.problem.extents), dict(self.core.problem.extents)
        packs = sum(t.itemsize * math.prod(ext[m] for m in t.modes) for t in (self.pack_a, self.pack_b) if t)
        stage = self.stage_d
        if self.inner is not None:  # (the folded GEMM's output, its own temporaries, the tail's output and its)
            inner_ext = dict(self.inner.problem.extents)
            ws = stage.itemsize * math.prod(inner_ext[m] for m in stage.modes) + self.inner.workspace_bytes
            if self.tail is not None:
                tail, tail_ext = self.tail.problem.d, dict(self.tail.problem.extents)
                ws += tail.itemsize * math.prod(tail_ext[m] for m in tail.modes) + self.tail.workspace_bytes
            return packs + ws
        ws = 0 if stage is None else stage.itemsize * math.prod(core_ext[m] for m in stage.modes)
        if self.tail is not None:  # (its slice of the workspace, and its own temporaries)
            ws += ws // max(1, core_ext[self.split_mode]) + self.tail.workspace_bytes
        return packs + ws


def _pack_applies_op(t: TensorInfo) -> bool:
    """Whether a pack of input `t` can apply its op (or it has none): the packs compute ops on float16, float32
    and float64 elements only (gettpy.kernels.permute)."""
    return t.op.is_identity or t.dtype in ("f16", "f32", "f64")


def _idle_pack(t: TensorInfo, pk: TensorInfo, ext) -> bool:
    """Whether pack `pk` of input `t` would change nothing the core reads: the same dtype, op and alignment
    (16 bytes), and the same stride for every mode of extent > 1 (a dense input packed in its own order)."""
    if pk is t:
        return False
    st, pst = t.stride_of(), pk.stride_of()
    return (pk.dtype == t.dtype and pk.op == t.op and t.align >= pk.align
            and all(st[m] == pst[m] for m in t.modes if ext[m] > 1))


def _gathered(layout, dims: tuple[str, str], tile_mn: int) -> bool:
    # the kernel vectorises k along its leading term only, m / n along any stride-1 term whose
    # groups of coordinates tile the block tile (vector_access with the tile)
    return all((layout.vector_width(d) if d == "k" else layout.vector_access(d, tile_mn)[0]) == 1 for d in dims)


def _read(layout, mn: str, dtype: str, tile):
    """How the kernel reads this input on `tile` (its OperandSpec: smem orientation, vector, slot step)."""
    from .tiles import input_spec

    return input_spec(layout, mn, dtype, tile.bm if mn == "m" else tile.bn, tile.bk)


def _permuted(spec) -> bool:
    """Whether the kernel reads an input (its OperandSpec) with vectors along a non-leading map term
    (slot-permuted tiles, gett.cuh's SlotPerm)."""
    return not spec.kmajor and spec.vs > 1


def _read_run(spec) -> int:
    """Elements the kernel reads contiguously along the direction it vectorises an input (its
    OperandSpec): the stride-1 leading terms of that dimension, merged while they continue each other."""
    return leading_run(spec.k if spec.kmajor else spec.mn)


def _size(t: TensorInfo, ext) -> int:
    return math.prod(ext[m] for m in t.modes)


def one_launch(problem: ContractionProblem) -> bool:
    """Whether a complex `problem` runs on the one-launch complex kernel (backends/gpu_complex.py's
    `execute_fused`): a complex compute type and D, and every operand's pointer aligned to its element (the
    kernel's element copies). Its schedule reads the inputs in place (`_fused_pack_pays`)."""
    if not (is_complex(problem.compute) and is_complex(problem.d.dtype)):
        return False
    return all(t.align % t.itemsize == 0 for t in (problem.a, problem.b, problem.c, problem.d) if t is not None)


def _fused_pack_pays(layout, mn: str, info: TensorInfo, ext, rereads: int, tile_mn: int, bk: int,
                     target: Target) -> bool:
    """Whether the one-launch complex kernel's input (`layout`, GEMM dimensions mn and k) should be packed.

    The kernel reads it element by element with the threads along k or mn, whichever wastes less of each
    sector (plan/traffic.py's `fetch_ratio`: w bytes fetched per byte used, 1 for a run of whole sectors), or
    in vectors of v elements along a stride-1 term of mn that is not the leading one (plan/simt.py's slot-permuted
    copies: each vector's v * itemsize bytes used of its sector). Read in place, its B bytes are fetched w times over by
    each of the `rereads` CTA rows / columns; packed, the copy reads them once at w and writes them once, the
    step costs FUSED_PACK_US, and the core reads them densely. So it pays where

        rereads * B * (w - 1)  >  B * (w + 1) + (FUSED_PACK_US, in bytes at the copy bandwidth).

    Every re-read is charged at the copy bandwidth (an upper bound: L2 serves some of them), so the rule packs
    at most what a gather-bound input needs: never an input with a stride-1 run of whole sectors along k or
    mn, never one read once, never one of a few MB (the step's fixed cost dominates).
    """
    w = min(fetch_ratio(layout.dim("k"), info.itemsize, bk), fetch_ratio(layout.dim(mn), info.itemsize, tile_mn))
    v, vs = layout.vector_access(mn, tile_mn)
    if v > 1 and vs > 1:
        w = min(w, max(1.0, SECTOR_BYTES / (v * info.itemsize)))
    if w == math.inf or w <= 1:
        return False
    nbytes = _size(info, ext) * info.itemsize
    return target.copy_us(rereads * nbytes * (w - 1)) > target.copy_us(nbytes * (w + 1)) + FUSED_PACK_US


def _mn_first(plan: Plan, tile) -> bool:
    """Whether the packs of `plan` run m / n fastest: a compute-bound simt (f32 / f64) core, whose
    register tiles load mn-contiguous shared-memory rows as vectors but a k-major tile's as scalars
    (compute-bound by the tensor-core measure, which large square GEMMs pass; the f32 measure would also
    pack small k-major inputs of memory-bound shapes, unmeasured)."""
    from .tiles import compute_bound

    # (not the complex kernel's: a complex value in shared memory feeds four real FMAs per product, and a
    #  16-byte vector holds at most two complex64 values; its inputs stay in place, `_fused_pack_pays`)
    return tile.tm > 0 and compute_bound(plan.M, plan.N, plan.K) and not one_launch(plan.problem)


def _pack_order(plan: Plan, mn: str, vec: int, mn_first: bool = False) -> tuple[str, ...]:
    p = plan.part
    mns = p.m if mn == "m" else p.n
    return p.k + mns + p.b if plan.K % vec == 0 and not mn_first else mns + p.k + p.b


def _core_order(problem, prob, pa, pb, part, tile, ext, sm_count: int, f64_cores: bool = True):
    """The packs re-laid out in the mode orders of the core planned on them, where those differ from the
    orders they were packed in (the planner orders a packed input's m or n modes by the output's
    strides): each GEMM dimension of a packed input is then one stride term, a plain (batched) matrix
    that the kernel reads in long runs and TMA can load. Returns (pack_a, pack_b, problem on the packs)."""
    core = make_plan(prob, part, tile)
    t = plan_tile(core, sm_count, f64_cores)
    mn_first = _mn_first(core, t)
    out = {"a": pa, "b": pb}
    for name, pk in (("a", pa), ("b", pb)):
        if pk is None:
            continue
        side = ("b" if name == "a" else "a") if core.part.swapped else name  # (its side in the core)
        info = getattr(problem, name)
        vec = INT8_MIN_KVEC if t.mma and pk.dtype in INT8_MMA_DTYPES else 16 // pk.itemsize  # (as make_schedule's)
        order = _pack_order(core, "m" if side == "a" else "n", vec, mn_first)
        if tuple(m for m in order if m in pk.modes) != pk.modes:
            out[name] = packed(info, order, ext, apply_op=not info.op.is_identity and pk.op.is_identity)
    if out["a"] is pa and out["b"] is pb:
        return pa, pb, prob
    return out["a"], out["b"], replace(problem, a=out["a"] or problem.a, b=out["b"] or problem.b)


def _stage_interleaved(plan: Plan, prob: ContractionProblem, pa, pb, ext) -> TensorInfo | None:
    """The workspace an interleaved output is staged through, or None.

    Where the planner interleaves D's stride-1 mode with an input's (D and the input run along different
    modes of one GEMM dimension), each tile writes D in 16- or 32-byte pieces. On the H100 such kernels
    took 1.5-2x longer back to back than alone: the scattered pieces' write-back is the cost. So the core
    writes a packed workspace whose modes run in the input's order (its reads and writes then both run
    along one mode), and a tiled copy moves it into D: for memory-bound shapes with no C, that input not
    packed (the other may be, e.g. a small input packed for its op), and that input STAGE_D_RATIO times D's
    size or more (the copy moves D twice more), twice that where D's pieces are whole 32-byte sectors
    (measured on the H100: 1.2-1.3x faster staged; with 32-byte pieces and 3 times D, 4-10% slower)."""
    part, d = plan.part, prob.d
    if not (part.split_m or part.split_n) or prob.c is not None or _size(d, ext) == 0:
        return None
    x = part.m[0] if part.split_m else part.n[0]
    holder = next((t for t in (prob.a, prob.b) if x in t.modes), None)
    if holder is not None and holder in (pa, pb):  # (a packed holder: its reads are dense already)
        return None
    ratio = 0 if holder is None else _size(holder, ext) * holder.itemsize / (_size(d, ext) * d.itemsize)
    piece = (part.split_m or part.split_n) * d.itemsize  # (bytes of D a tile stores in one run)
    if ratio < STAGE_D_RATIO or piece >= 32 and ratio < 2 * STAGE_D_RATIO:
        return None
    st = holder.stride_of()
    lead = tuple(sorted((m for m in d.modes if m in st), key=lambda m: (abs(st[m]), d.modes.index(m))))
    order = lead + tuple(m for m in d.modes if m not in lead)
    return packed(TensorInfo("workspace", d.modes, (0,) * len(d.modes), d.dtype, op=d.op), order, ext)


def _int8_tma_packs(plan: Plan, sides, ext, target: Target) -> tuple[str, ...]:
    """The inputs ("a", "b") of a compute-bound int8 core to pack k-major and dense, so that the TMA-fed int8 tile
    reads both (gpu_exact's tile: each input's k one stride-1 term, rows of whole 16-byte words, kernels/tma.py's
    `geometry`); () where the device has no TMA, both already have maps, or the packs cost more than they save: the
    core's time at the target's "imma" rate less its time at the "imma_tma" rate, against reading and writing each
    packed input once at the copy bandwidth and a launch a pack (an input without k runs of INT8_MIN_KVEC is packed
    for the int8 tile anyway: no cost)."""
    from ..kernels.tma import geometry

    if not target.tma or not target.peak("imma_tma") or not target.peak("imma"):
        return ()

    def mapped(lay, mn, dtype) -> bool:
        op = int8_read(lay, mn, dtype, 128)
        g = geometry(op, 128, 128, plan.batch)
        return op.vec == 16 and g is not None and g.rows in (0, 128)

    need = tuple(which for which, info, _, lay, _, _ in sides if not mapped(lay, "m" if which == "a" else "n",
                                                                             info.dtype))
    if not need:
        return ()
    tops = 2.0 * plan.M * plan.N * plan.K * max(plan.batch, 1) / 1e6  # (millions of ops: us at 1 TOP/s)
    saved_us = tops / target.peak("imma") - tops / target.peak("imma_tma")
    cost_us = sum(target.copy_us(2 * _size(info, ext) * info.itemsize) + target.launch_us
                  for which, info, _, lay, _, _ in sides
                  if which in need and lay.vector_width("k") >= INT8_MIN_KVEC)  # (the others are packed anyway)
    return need if saved_us > cost_us else ()


def _padded_k(plan: Plan, t, a, b, ext, heavy: bool, sm_count: int, tma: bool = False):
    """Extents with the core's leading k mode rounded up to whole 16-byte vectors, where the packs of a
    compute-bound tensor-core GEMM should hold it zero-filled; None where they should not.

    An extent that is not a multiple of the vector width (an odd K) leaves every k-major row of a pack
    misaligned, so the core would read both inputs element by element, far below the tensor pipe's rate.
    Zero-filling the pack to whole vectors costs only the margin's bytes when the inputs are packed anyway
    (each holder of the mode packed: `a` and `b` are (input, its pack or itself)), and the core then runs
    the aligned tiles (k-major 16-byte vectors, TMA); the zeros add nothing to the sums. Only where the
    grid is not split (the split paths cut the unpadded mode) and the tile is a tensor-core one (the simt
    tiles' packs run m / n fastest). An int8 core's packs are padded on any grid where its leading k mode is not
    whole vectors of INT8_MIN_KVEC (unpadded, no int8 tile reads them), or, on a device with TMA (`tma`), where it is
    the only k mode (the padded rows are then one stride term of whole 16-byte words, which the TMA-fed int8 tile
    reads)."""
    if not (heavy and t.mma and plan.part.k):
        return None
    if not all(_pack_applies_op(x) for x in (a[0], b[0])):
        return None  # (the core would apply that op to the margin too: op(0) need not be 0)
    k0 = plan.part.k[0]
    vec = 16 // max(a[0].itemsize, b[0].itemsize)
    if ext[k0] % vec == 0:
        return None
    if any(k0 in info.modes and new is info for info, new in (a, b)):  # (a holder read in place)
        return None
    if not any(new is not info for info, new in (a, b)):
        return None
    int8 = all(x.dtype in INT8_MMA_DTYPES for x in (a[0], b[0])) and (ext[k0] % INT8_MIN_KVEC
                                                                      or tma and len(plan.part.k) == 1)
    if not int8 and underfilled(grid_ctas(plan, t), sm_count):
        return None  # (an int8 core's packs are padded on any grid: unpadded, its k rows are not whole vectors)
    pext = dict(ext)
    pext[k0] = -(-ext[k0] // vec) * vec
    return pext



def _remainder_schedule(problem, prob, pa, pb, ext, rem, w_order, sm_count, f64_cores, target):
    """The split-K schedule of `remainder_cut`'s ((mode, q, S), core): the core over the mode's first S x q values
    in S slices, and a tail schedule over the rest (one more workspace slice)."""
    (mode, q, s), (core, w, out) = rem
    rest = ext[mode] - q * s
    if not rest:
        return Schedule(problem, core, pa, pb, w, out)
    tail = _tail_schedule(prob, mode, q * s, ext, w_order, w.dtype, sm_count, f64_cores, target)
    return Schedule(problem, core, pa, pb, w, out, tail, q * s)


def _tail_schedule(prob: ContractionProblem, mode: str, start: int, ext, w_order, acc: str, sm_count: int,
                   f64_cores: bool, target: Target) -> Schedule:
    """The schedule of `prob` over the values of k mode `mode` from `start` on (its inputs read from there: their
    alignment lowered to the offset's), into a packed `acc` workspace with the modes `w_order`."""
    tail_ext = dict(ext)
    tail_ext[mode] = ext[mode] - start

    def shifted(t: TensorInfo) -> TensorInfo:
        if mode not in t.modes:
            return t
        off = start * abs(t.stride_of()[mode]) * t.itemsize
        return replace(t, align=min(t.align, off & -off) if off else t.align)

    d = packed(TensorInfo("workspace", w_order, (0,) * len(w_order), acc), w_order, tail_ext)
    tail_problem = ContractionProblem(shifted(prob.a), shifted(prob.b), None, d, tuple(sorted(tail_ext.items())),
                                      prob.compute)
    return make_schedule(tail_problem, sm_count, f64_cores=f64_cores, target=target, direct=False)


def _fold_schedule(problem: ContractionProblem, plan: Plan, t, ext, sm_count: int, f64_cores: bool,
                   target: Target) -> Schedule | None:
    """The diagonal fold of a long sum over a tiny output (plan/fold.py) where `fold_gain` says it pays; None
    otherwise. Its GEMM is planned as a problem of its own (split-K where K is long), the values of the folded
    mode past the last whole FOLD as a tail."""
    p = problem
    if p.semiring is not None or not plan.part.k:
        return None
    if not underfilled(grid_ctas(plan, t), sm_count):
        return None
    mode = fold_candidate(p, plan.part.k, 2 * FOLD * SPLIT_MIN_K)
    if mode is None:
        return None
    acc = accumulate_type(p.compute)
    part = plan.part
    d_order = (mode + FOLD_B,) + part.n + (mode + FOLD_A,) + part.m + part.b
    try:
        inner_problem, k1a, k1b = folded_problem(p, mode, d_order, acc)
    except ShapeError:  # (the folded GEMM's FOLD^2 more products would leave 64-bit indexing: no fold)
        return None
    # (the folded GEMM reads k with a stride of FOLD: on simt tiles, not on the f64 tensor cores, whose compute-
    #  bound cores would pack such inputs k-major first)
    folded_tile = plan_tile(make_plan(inner_problem), sm_count, False)
    gain = fold_gain(plan.M, plan.N, plan.K, plan.batch, max(p.a.itemsize, p.b.itemsize), (t.bm, t.bn),
                     (folded_tile.bm, folded_tile.bn), peak_kind(plan.kernel_a.dtype, p.compute, target),
                     replace(target, sm_count=sm_count))
    if gain < MIN_GAIN:
        return None
    inner = make_schedule(inner_problem, sm_count, f64_cores=False, target=target, direct=False)
    done = ext[mode] // FOLD * FOLD
    tail = None
    if done < ext[mode]:
        tail = _tail_schedule(p, mode, done, ext, part.n + part.m + part.b, acc, sm_count, f64_cores, target)
    return Schedule(problem, inner.core, stage_d=inner_problem.d, tail=tail, tail_from=done, fold=(mode, k1a, k1b),
                    inner=inner)


#: the dtypes whose memory-bound schedules `make_schedule` restages by the traffic model (plan/traffic.py), in a real
#: compute type (a complex one over real tensors runs as real launches over planes the model does not price)
RESTAGE_DTYPES = ("f16", "bf16", "f32", "f64")


def make_schedule(problem: ContractionProblem, sm_count: int | None = None, part=None, tile=None,
                  split: tuple[str, int] | None = None, f64_cores: bool = True,
                  target: Target = DEFAULT_TARGET, direct: bool = True) -> Schedule:
    """The schedule of `problem`: `planned_schedule`'s, and for the heuristic's plan of a real contraction
    with no C, the cheapest of it and its staged alternatives by the traffic model
    (plan/traffic.py's `restage`: D staged through a dense workspace, or an input packed); with `direct`, the
    direct kernel instead where plan/direct.py's model says it is faster (a sum of a few values), else the long-K
    kernel where plan/longk.py's says so (a small M x N over a long K)."""
    if sm_count is None:
        sm_count = target.sm_count
    ext = dict(problem.extents)
    if any(ext[m] == 0 for m in problem.d.modes):  # (an empty D: the executors write nothing, no staging has work)
        return Schedule(problem, make_plan(problem, part, tile))
    s, realign = readable_schedule(problem, sm_count, part, tile, split, f64_cores, target)
    if part is not None or tile is not None or split is not None:
        return s
    traded = traded_core(s, target, sm_count)  # (a TMA core the other way round, where its waves cost less)
    if traded is not None:
        s = replace(s, core=traded)
    if (problem.c is None and not is_complex(problem.compute)
            and all(t.dtype in RESTAGE_DTYPES for t in (problem.a, problem.b, problem.d))):
        # (compute-bound shapes too: where the schedule's reads are what bound it, a pack can pay; where the flops
        #  do, every alternative predicts the same flop time, which no MIN_GAIN margin undercuts)
        from .traffic import restage

        s = restage(problem, s, lambda p: planned_schedule(p, sm_count, f64_cores=f64_cores, target=target,
                                                           realign=realign), target, sm_count)
    if not direct:
        return s
    lay = choose_direct(problem, s, target, sm_count)
    if lay is not None:
        return Schedule(problem, make_plan(problem), direct=lay)
    lk = choose_longk(problem, s, target, sm_count, f64_cores)
    return s if lk is None else Schedule(problem, make_plan(problem), longk=lk)


def readable_schedule(problem: ContractionProblem, sm_count: int, part=None, tile=None,
                      split: tuple[str, int] | None = None, f64_cores: bool = True,
                      target: Target = DEFAULT_TARGET) -> tuple[Schedule, bool]:
    """(`planned_schedule`'s schedule, whether its decisions may count on realigned reads): planned again without
    them where a core of the first would read a 2-byte input element by element (`_element_reads`)."""
    s = planned_schedule(problem, sm_count, part, tile, split, f64_cores, target)
    if any(x.dtype in REALIGN_DTYPES for x in (problem.a, problem.b)) and _element_reads(s, sm_count):
        return planned_schedule(problem, sm_count, part, tile, split, f64_cores, target, realign=False), False
    return s, True


def _cores(s: Schedule):
    """The plans the launches of schedule `s` run: its core, and its tail's and folded GEMM's cores."""
    yield s.core
    for sub in (s.tail, s.inner):
        if sub is not None:
            yield from _cores(sub)


def _element_reads(s: Schedule, sm_count: int) -> bool:
    """Whether a core of `s` reads a 2-byte input one element a copy (the loader's synchronous path). The
    schedule's decisions judge an input's reads on the unsplit problem, where its k modes may make one run that a
    split core's k map no longer does; such a core then reads it element by element, not realigned as the
    decisions counted (measured on the H100: an `xy-abcex-yeacb` split so, 0.45x of its padded packs). Where this
    holds, make_schedule plans again without counting on realigned reads. A core of one k-tile (a split's last
    piece, say) is not counted: it reads element by element by the realign rule itself (reads.realign_read)."""
    from .tiles import kernel_spec

    for core in _cores(s):
        try:
            spec = kernel_spec(core, False, sm_count=sm_count)
        except KernelError:
            continue
        if core.K > spec.tile.bk and any(op.dtype in REALIGN_DTYPES and not (op.flat or op.realign)
                                         and op.vec * ITEMSIZE_OF[op.dtype] < 4 for op in (spec.a, spec.b)):
            return True
    return False


def planned_schedule(problem: ContractionProblem, sm_count: int | None = None, part=None, tile=None,
                     split: tuple[str, int] | None = None, f64_cores: bool = True,
                     target: Target = DEFAULT_TARGET, realign: bool = True) -> Schedule:
    """The schedule of `problem` (see the module docstring for the stagings): heuristic, or around the
    partition and tile of an autotuner candidate; `split` = (k mode, slices) forces that split-K
    (the mode's extent must be a multiple of the slices). f64_cores: the target runs
    f32 GEMMs on f64 tensor cores (an sm_90 device: tiles.DMMA_TILE, DMMA_SPLIT_TILE); False keeps f32 on
    simt tiles and their packs. target: the device planned for (its SM count unless `sm_count` is given).
    realign: the decisions may count on inputs read as realigned rows (plan/reads.py's realign_read)."""
    if sm_count is None:
        sm_count = target.sm_count
    plan = make_plan(problem, part, tile)
    ext = dict(problem.extents)
    ka, kb = plan.kernel_a, plan.kernel_b  # the kernel's A and B (the problem's, possibly swapped)
    va, vb = 16 // ka.itemsize, 16 // kb.itemsize
    new_ka, new_kb = ka, kb
    t = plan_tile(plan, sm_count, f64_cores)
    # (an int8 tensor-core core: its packs k fastest wherever K is whole vectors of INT8_MIN_KVEC)
    int8 = t.mma and ka.dtype in INT8_MMA_DTYPES and kb.dtype in INT8_MMA_DTYPES
    if int8:
        va = vb = INT8_MIN_KVEC
    if part is None and tile is None and split is None:
        folded = _fold_schedule(problem, plan, t, ext, sm_count, f64_cores, target)
        if folded is not None:
            return folded
    # (how many CTA columns read each A element, and CTA rows each B element)
    rereads_a, rereads_b = math.ceil(plan.N / t.bn), math.ceil(plan.M / t.bm)
    from .tiles import compute_bound, panel_fits, tf32_mode

    heavy = compute_bound(plan.M, plan.N, plan.K)
    mn_first = _mn_first(plan, t)
    dmma = t.mma and tf32_mode(problem.compute, ka.dtype, kb.dtype) == 2
    sides = (("a", ka, rereads_a, plan.layout_a, t.bm, va), ("b", kb, rereads_b, plan.layout_b, t.bn, vb))
    # (short-run packs: tensor-core inputs only -- on the H100 they made f32 simt shapes 1.15x slower;
    #  beside a gathered input's pack they were 1.1x slower on mma.sync tiles, but on the TMA tiles that
    #  two packed inputs get, the pair ran at 0.75-0.80x of one pack)
    fused = one_launch(problem)
    int8_tma = _int8_tma_packs(plan, sides, ext, target) if int8 and heavy else ()
    for which, info, rereads, lay, tmn, vec in sides:
        if _size(info, ext) < MIN_STAGE_ELEMS:
            continue
        mn = "m" if which == "a" else "n"
        if fused:  # (the complex kernel: in place unless the sector model says the copy pays)
            if rereads >= PACK_MIN_REREADS and _fused_pack_pays(lay, mn, info, ext, rereads, tmn, t.bk, target):
                new = packed(info, _pack_order(plan, mn, vec), ext)
                new_ka, new_kb = (new, new_kb) if which == "a" else (new_ka, new)
            continue
        if is_complex(info.dtype) and info.align % info.itemsize:
            continue  # (the real launches read its planes in place; a copy would load elements it is not aligned to)
        can_op = not info.op.is_identity and _pack_applies_op(info)
        read = _read(lay, mn, info.dtype, t)
        if not heavy:  # (runs read in 16-byte words are not gathered; compute-bound cores keep their aligned packs)
            read = word_read(read, t, tmn, plan.K, realign=realign)
        panel = which == "a" and panel_fits(t, plan.M, plan.batch, read.kmajor)  # (the panel takes the op)
        op_first = can_op and rereads >= OP_PACK_MIN_REREADS and not panel
        small_permuted = (rereads >= OP_PACK_MIN_REREADS and _size(info, ext) * SMALL_PACK <= _size(problem.d, ext)
                          and _permuted(read))
        short_runs = (heavy and info.itemsize == 2 and rereads >= OP_PACK_MIN_REREADS and _read_run(read) < PACK_RUN)
        simt_kmajor = mn_first and read.kmajor and rereads >= OP_PACK_MIN_REREADS
        # (an f64 tensor-core tile reads inputs in 16-byte vectors, along k or along m / n (tiles.kernel_spec); a
        #  compute-bound one k-major: its m / n-major fragments take 3x the shared loads of ldmatrix and ~15 more
        #  registers, and ran TCCG's f32 squares 1.05-1.19x slower on the H100 than k-major packs, whose copy is
        #  a few percent of such a GEMM; a memory-bound one reads m / n-major inputs in place, 1.1-1.6x faster)
        dvec = min(lay.vector_width("k"), t.bk) if heavy else read.vec
        dmma_scalar = dmma and rereads >= OP_PACK_MIN_REREADS and dvec * info.itemsize < 16
        # (the int8 tiles read both inputs k-major in vectors of INT8_MIN_KVEC or more: one without such k runs is
        #  packed whatever its re-reads, or the core planned for the int8 tile would run on another)
        int8_kmajor = int8 and (lay.vector_width("k") < INT8_MIN_KVEC or which in int8_tma)
        if (op_first or small_permuted or short_runs or simt_kmajor or dmma_scalar or int8_kmajor
                or rereads >= PACK_MIN_REREADS and not (read.flat or read.realign) and _gathered(lay, (mn, "k"), tmn)
                or pack_batch_led(info, plan, ext, target.l2_bytes)):
            new = packed(info, _pack_order(plan, mn, vec, mn_first), ext, apply_op=can_op)  # (the op once)
            new_ka, new_kb = (new, new_kb) if which == "a" else (new_ka, new)
    pext = _padded_k(plan, t, (ka, new_ka), (kb, new_kb), ext, heavy and not mn_first and split is None, sm_count,
                     target.tma)
    mem_pad = pext is None and not (heavy or fused or part is not None or tile is not None or split is not None)
    if mem_pad:  # (a memory-bound GEMM: zero-filled k-major packs where the loaders' model says they pay)
        pext = _padded_k_memory(plan, t, sides, (new_ka, new_kb), ext, target, realign)
        mem_pad = pext is not None
    if pext is not None:  # (the packs k-major, the leading k mode zero-filled to whole vectors)
        new_ka, new_kb = (packed(ka, _pack_order(plan, mn, 1), pext, apply_op=(x.op.is_identity or mem_pad) and
                                 not ka.op.is_identity) if x is not ka or mem_pad else x
                          for ka, x, mn in ((ka, new_ka, "m"), (kb, new_kb, "n")))
    if pext is None:  # (a pack that would copy an input into the layout it already has is no pack)
        new_ka, new_kb = (x if _idle_pack(x, new, ext) else new for x, new in ((ka, new_ka), (kb, new_kb)))
    if plan.part.swapped:
        new_a, new_b = new_kb, new_ka
    else:
        new_a, new_b = new_ka, new_kb
    pa = new_a if new_a is not problem.a else None
    pb = new_b if new_b is not problem.b else None
    prob = replace(problem, a=new_a, b=new_b)
    if pext is not None:
        prob = replace(prob, extents=tuple(sorted(pext.items())))
    if pa or pb:
        pa, pb, prob = _core_order(problem, prob, pa, pb, part, tile, pext or ext, sm_count, f64_cores)
    if mem_pad:  # (split-K and its tail over the padded extents, the packs zero-filled to them)
        prob = replace(prob, extents=tuple(sorted(pext.items())))
        inner = _after_packs(problem, prob, plan, pa, pb, part, tile, split, pext, sm_count, f64_cores, fused,
                             heavy, target, model_split=True)
        return replace(inner, pad_ext=tuple(sorted(pext.items())))
    if pext is not None:  # (the core over the packs' extents, whichever order _core_order left them in)
        pad = tuple(sorted(pext.items()))
        core = make_plan(replace(prob, extents=pad), part, tile)
        wave = None if part is not None or tile is not None else wave_split(
            core, pext, sm_count, target, plan.part.n + plan.part.m + plan.part.b, f64_cores)
        if wave is not None:
            return Schedule(problem, wave[0], pa, pb, wave[1], wave[2], pad_ext=pad)
        return Schedule(problem, core, pa, pb, pad_ext=pad)
    return _after_packs(problem, prob, plan, pa, pb, part, tile, split, ext, sm_count, f64_cores, fused, heavy,
                        target)


def _padded_k_memory(plan: Plan, t, sides, news, ext, target: Target, realign: bool = True):
    """plan/align.py's `padded_k_memory` on make_schedule's view of the inputs: `sides` its (name, kernel
    input, rereads, layout, tile side, vector) rows, `news` the kernel inputs as staged so far (packs or
    themselves). None for a semiring, a complex input, no k mode or an op that a pack cannot apply (the padded
    packs apply the inputs' ops, so that the margin holds zeros of op(A) and op(B))."""
    from .align import padded_k_memory

    p = plan.problem
    if not plan.part.k or p.semiring is not None or any(is_complex(x.dtype) for x in (p.a, p.b)):
        return None
    if not all(_pack_applies_op(x) for x in (p.a, p.b)):
        return None  # (the pack must apply an input's op: op(0) on the zero margin need not be 0)
    rows = []
    flat_tile = replace(t, wgmma=False, ws=False, tma=False, persistent=False, rows=0)
    for (which, info, rereads, lay, tmn, _), new in zip(sides, news, strict=True):
        mn = "m" if which == "a" else "n"
        if new is info:  # (read flat or realigned -- on the mma.sync tiles, up to SPLIT_TILE wide, that split
            #               cores of such a GEMM get -- a k-tile is copied as the aligned 16-byte words that hold it)
            side = max(tmn, SPLIT_TILE)
            read = word_read(_read(lay, mn, info.dtype, t), flat_tile, side, plan.K, realign=realign)
            read_us = (partial(realign_load_us, g=realign_group(read, side, flat_tile.bk), target=target)
                       if read.realign else
                       partial(target.load_us, vec_bytes=16 if read.flat else read.vec * info.itemsize))
        else:  # (a pack made above: m / n fastest where the leading k extent is not whole vectors)
            mns = plan.part.m if mn == "m" else plan.part.n
            lead = mns if new.modes[:1] != plan.part.k[:1] else plan.part.k
            read_us = partial(target.load_us, vec_bytes=math.gcd(math.prod(ext[m] for m in lead) * info.itemsize, 16))
        order = tuple(m for m in _pack_order(plan, mn, 1) if m in info.modes)
        rows.append((info, None if new is info else new, order, rereads, read_us))
    return padded_k_memory(plan.part.k[0], ext, rows, target)


def _after_packs(problem, prob, plan, pa, pb, part, tile, split, ext, sm_count, f64_cores, fused, heavy,
                 target, model_split: bool = False) -> Schedule:
    """make_schedule's schedule once its packs are chosen (`prob`: the problem on them, `ext` its extents):
    split-K (forced, by divisors or with a tail), a staged output, or the core alone. model_split: the slices
    come from the split model (with a tail) before any divisor split."""
    w_order = plan.part.n + plan.part.m + plan.part.b
    on_packs = make_plan(prob, part, tile) if (pa or pb) else plan
    if split is not None:
        mode, slices = split
        if mode not in plan.part.k or slices < 2 or ext[mode] % slices:
            raise ValueError(f"make_schedule: cannot split k mode {mode!r} (extent {ext.get(mode)}) into "
                             f"{slices} slices; k modes: {plan.part.k}")
        simt = simt_slices(on_packs, simt_split_tiles(on_packs, sm_count, f64_cores), sm_count, ext, [split])
        split = (mode, slices, simt[2] if simt else None)
    else:
        # (over zero-filled packs the slices are sized by plan/splitk.py's model first: the padded extent's
        #  divisors are an accident of the padding)
        rem = remainder_cut(on_packs, part, tile, ext, None, sm_count, f64_cores, target,
                             w_order) if model_split else None
        split = None if rem is not None else divisor_split(on_packs, sm_count, ext, f64_cores)
        rem = rem or remainder_cut(on_packs, part, tile, ext, split, sm_count, f64_cores, target, w_order)
        if rem is not None:
            return _remainder_schedule(problem, prob, pa, pb, ext, rem, w_order, sm_count, f64_cores, target)
        if split is None and heavy and part is None and tile is None and not fused:
            wave = wave_split(on_packs, ext, sm_count, target, w_order, f64_cores)
            if wave is not None:
                return Schedule(problem, wave[0], pa, pb, wave[1], wave[2])
    if split is not None:
        core_problem, w, out = split_problem(prob, split[0], split[1], w_order)
        if tile is None:  # (f32: the split core's own tile)
            tile = split[2]
        return Schedule(problem, make_plan(core_problem, None, tile), pa, pb, w, out)
    w = None if fused or part is not None or tile is not None else stage_batch_led(
        on_packs, prob, ext, target.l2_bytes)
    if w is None and not (heavy or fused or part is not None or tile is not None):
        w = _stage_interleaved(plan, prob, pa, pb, ext)
    if w is not None:
        return Schedule(problem, make_plan(replace(prob, d=w)), pa, pb, w, None)
    return Schedule(problem, on_packs, pa, pb, None, None)


__all__ = ["Schedule", "make_schedule", "one_launch"]
