"""KernelSpec and TileConfig: everything the GETT template needs, frozen and hashable.

A KernelSpec is fully decided (tile configuration, smem orientation and vector width of every operand,
the maps, the ops as CUDA expressions, the specialisation flags): `render.render(spec)` turns it into
CUDA source without taking any further decision. It is the key of the in-process function cache; the
disk cache is keyed by the rendered source itself.

Two compute paths:
    * "mma":  f16/bf16 inputs, mma.sync.m16n8k16 with fp32 accumulation (TileConfig.wm/wn > 0); int8 / uint8
              inputs (compute "u32") on mma.sync.m16n8k32 or warp-specialised wgmma k32 with 32-bit accumulators
              that wrap (`KernelSpec.int8`); or on
              sm_90a warpgroup wgmma.mma_async (TileConfig.wgmma: 64 x bn per warpgroup), or as a row-stream
              tile (TileConfig.rows, `path` "rows": gett.cuh's Rows, whole k-major rows of a long narrow GEMM);
    * "simt": f32/f64 inputs, register-tiled FFMA/DFMA (TileConfig.tm/tn > 0); also complex64/complex128
              (compute "c64" / "c128": interleaved elements read in place, four real FMAs a complex multiply-add)
              and integers / bool (compute "u32" / "u64": unsigned multiply-adds that wrap, D keeping the low bits).
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np

from ..errors import KernelError
from ..layouts.descriptor import DimMap

#: CUDA type of each short dtype name the kernels handle
CUDA_TYPE = {"f16": "__half", "bf16": "__nv_bfloat16", "f32": "float", "f64": "double", "c64": "gett::cfloat",
             "c128": "gett::cdouble", "i8": "signed char", "i16": "short", "i32": "int", "i64": "long long",
             "u8": "unsigned char", "u16": "unsigned short", "u32": "unsigned", "u64": "unsigned long long",
             "b1": "bool"}
ITEMSIZE = {"f16": 2, "bf16": 2, "f32": 4, "f64": 8, "c64": 8, "c128": 16, "i8": 1, "i16": 2, "i32": 4, "i64": 8,
            "u8": 1, "u16": 2, "u32": 4, "u64": 8, "b1": 1}
MMA_DTYPES = ("f16", "bf16")
#: the inputs of the int8 tensor-core tiles (mma.sync m16n8k32, either signedness on each side; compute "u32")
INT8_MMA_DTYPES = ("i8", "u8")
#: the complex types: simt tiles only, compute "c64" or "c128", a complex D
COMPLEX_DTYPES = ("c64", "c128")
#: the integer and bool types: simt tiles, compute "u32" or "u64" (every operand integer or bool); int8 / uint8 inputs
#: also the int8 tensor-core tile (INT8_MMA_DTYPES)
EXACT_DTYPES = ("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "b1")
#: the compute types of integer / bool contractions: unsigned, so that sums and products wrap (numpy's overflow)
EXACT_COMPUTE = ("u32", "u64")
SIMT_DTYPES = ("f32", "f64", *COMPLEX_DTYPES, *EXACT_DTYPES)
#: the inputs that may be read as realigned rows (OperandSpec.realign): 2-byte floating point (wider elements are
#: copied asynchronously in place, which measured faster than realigned rows)
REALIGN_DTYPES = ("f16", "bf16")
#: vectors one thread of a tile loader copies per k-tile at most (gett_loader.cuh: their predicates are one 32-bit mask)
MAX_LOADS = 32
#: shared memory a CTA may have on the H100 (227 KB)
SMEM_LIMIT = 227 * 1024
#: the parts a row-stream tile (TileConfig.rows) may cut K into
ROWS_PARTS = (1, 2, 4)
#: a row-stream tile's B fragments in registers, a thread, at most (gett.cuh's Rows: ceil(K / 16 / rows) x bn / 4)
ROWS_B_REGS = 64
#: the L2 prefetch sizes a tile's cp.async copies may carry (TileConfig.l2_prefetch; 0 = no hint)
L2_PREFETCH_BYTES = (0, 64, 128, 256)


def scalar_type(compute: str):
    """The numpy type of a kernel's alpha and beta (its TAcc) on a compute type: f32 but for f64 and the integer
    kernel's unsigned accumulators."""
    return {"f64": np.float64, "u32": np.uint32, "u64": np.uint64}.get(compute, np.float32)


def refuse_complex_scalars(alpha, beta, compute: str) -> None:
    """A KernelError where alpha or beta is complex: a real kernel's TAcc (`scalar_type`) cannot hold it."""
    if isinstance(alpha, complex | np.complexfloating) or isinstance(beta, complex | np.complexfloating):
        raise KernelError(f"complex alpha/beta on a real contraction (compute type {compute}); pass real scalars "
                          f"or complex operands")


@dataclass(frozen=True, slots=True)
class TileConfig:
    """Block tile bm x bn x bk, pipeline depth, and the per-warp (mma) or per-thread (simt) tile.

    Attributes:
        bm, bn, bk: block tile. stages: cp.async pipeline depth (>= 2).
        wm, wn: warp tile of the mma path (0 on the simt path); threads = 32 * (bm/wm) * (bn/wn).
        tm, tn: thread tile of the simt path (0 on the mma path); threads = (bm/tm) * (bn/tn).
        group_m: CTA swizzle, tile rows per rasterisation group (1 = plain row-major order). Persistent
            warp-specialised tiles turn each group's columns by one more than the previous group's (gett.cuh's
            tile_coords), so that a CTA taking one tile a group does not take the same column every time.
        wgmma: the mma path on sm_90a warpgroup MMA (wm = 64, wn = bn: each warpgroup of 128 threads
            owns 64 rows; bk = 64, bm and bn multiples of 64 up to 256, bn of 16 on ws tiles; f16/bf16
            only; sm_90 devices only).
        persistent: a grid of as many CTAs as fit on the device at once, each walking the tiles
            blockIdx.x, + gridDim.x, ...; its cp.async pipeline runs on across the tiles, so the next
            tile's first k-tiles load during this tile's epilogue (which then has shared memory of its own).
        ws: warp-specialised wgmma tile: one warpgroup loads (cp.async arriving on per-stage mbarriers),
            two warpgroups of bm / 2 rows each compute and store, with no CTA-wide barrier in the k-loop
            (384 threads; wgmma tiles with bm a multiple of 128, no op on A or B, inputs read in 16-byte
            vectors). Persistent too: the loading warpgroup then runs on into the CTA's next tile.
        tma: a warp-specialised tile whose loading warpgroup copies each stage as boxes of the operands'
            tensor maps (TMA; gettpy.kernels.tma) instead of cp.async vectors: both inputs one stride
            term per GEMM dimension (packed inputs, plain GEMMs), f16/bf16, 16-byte aligned.
        min_blocks: CTAs per SM the registers must leave room for (__launch_bounds__' second argument:
            ptxas caps the registers at 65536 / (threads * min_blocks)).
        sk_ctas: stream-K (0 = off): the grid's last tiles (its partial wave plus one full wave of
            sk_ctas tiles, KernelSpec.sk_tiles) are dealt out as equal shares of their k-tiles to sk_ctas
            CTAs (as many as run at once), the tiles cut between CTAs summed through a workspace
            (KernelSpec.workspace_bytes). Not persistent, no semiring.
        cluster: CTAs per thread-block cluster along m (1 or 2; TMA tiles only): the two CTAs of a cluster
            take tiles m, m + 1 of one column (the tile rows rounded up to even, a CTA past M computing
            nothing), and each loads half of their shared B stage with a TMA multicast into both, so
            that B crosses from L2 once per pair (group_m even, no stream-K). Persistent: the pairs walk
            pairs of tiles (an even grid).
        half_atom: (TMA tiles over an mn-major B, bn = 64 j + 32) each tile's last column atom, of which the tile uses
            32 columns, is loaded as a box of those 32 columns through a second map of B (gettpy.kernels.tma.
            half_atom_geometry), which the TMA unit lands where the 64-column box puts them, instead of a box that
            also brings the next tile's first 32 columns from L2 (gett.cuh's HALF_ATOM). 256 x 160 tiles then bring
            52 KB a stage, not 56: 1% less energy and time under the H100's power cap. The heuristic takes it where it
            applies.
        chunked: (persistent warp-specialised tiles, D stored along n, or a 2-byte D along m, no C) each computing
            warp stages its accumulator rows, 16 at a time and KernelSpec.epi_cols columns at a time, in a region of
            its own in the A or B buffer of the tile's last stage and stores them from there, with no barrier between
            the warps, and releases that stage after its stores: no staging tile of its own, so the pipeline keeps
            all of its stages while the next tile's loads run during the stores (gett.cuh's EPI_CHUNK). Along m, the
            region holds the rows column by column (stmatrix .trans) and the stores are 16-byte vectors along m: the
            heuristic does not take it (measured slower than the staging tile there).
        l2_prefetch: the L2 prefetch size of the cp.async copies in bytes (PTX .level::prefetch_size; 0 =
            no hint, 64, 128 or 256): the L2 fetches the aligned block around each copy's bytes from DRAM,
            so a row read one k-tile at a time arrives whole. TMA tiles set theirs in the tensor maps.
        resident_a: A's whole panel (bm rows x K, padded to whole k-tiles) is copied into shared memory once
            per CTA, before its first k-tile, and the stages hold B alone: for a narrow A that one tile row
            covers (M <= bm, no batch; a persistent CTA then reads A once for all of its tiles; an op on A is
            applied to the panel once). mma.sync or simt tiles, A mn-contiguous in shared memory (KernelSpec
            checks the operands).
        frag_op_b: (mma.sync tiles, an op on B) op_b is applied to B's fragments in registers after they are
            loaded from shared memory, instead of to each stage in shared memory between the stage's wait and
            the CTA's barrier. Each warp applies it to the columns it reads: bm / wm times per value.
        frag_op_a: the same for an op on A (bn / wn times per value), with no resident panel (which takes the
            op once itself). A tuner option: on the H100 it ran narrow tiles (eight warps repeating each A
            fragment) slower than A's transformed stages.
        serpentine: (persistent warp-specialised tiles) a CTA walks the k-tiles of every other tile of its own
            backwards, so that a tile begins on the k-slabs the CTA's previous tile ended on, which the L2 may
            still hold (gett.cuh's SERP).
        rows: a row-stream tile (0 = off; else the parts K is cut into, one warp each per 16-row block): a long
            narrow GEMM whose wide input A is read in whole k-major rows, bm rows a unit (rows_run values of m's first
            part by bm / rows_run of its second, KernelSpec.rows_p), each unit landed by 1-d bulk copies (sm_90) in
            a ring of `stages`, multiplied with mma.sync by a B held in shared memory and registers for the whole
            launch (bn >= N, at most 32), and stored through a staging tile in runs of rows_run values along m
            (gett.cuh's Rows). Persistent; wm = 16, wn = bn, bk = 16; 32 x (bm / 16) x rows threads. Chosen by
            plan/tiles.py `_row_stream` for long narrow GEMMs, where it streams A faster than a wgmma tile.
        rows_run: (row-stream tiles) values of m's first part a unit takes (a divisor of bm): D's vector along m.
    """

    bm: int
    bn: int
    bk: int
    stages: int = 3
    wm: int = 0
    wn: int = 0
    tm: int = 0
    tn: int = 0
    group_m: int = 8
    wgmma: bool = False
    persistent: bool = False
    ws: bool = False
    tma: bool = False
    min_blocks: int = 1
    sk_ctas: int = 0
    cluster: int = 1
    chunked: bool = False
    l2_prefetch: int = 0
    resident_a: bool = False
    frag_op_b: bool = False
    frag_op_a: bool = False
    serpentine: bool = False
    half_atom: bool = False
    rows: int = 0
    rows_run: int = 8

    def __post_init__(self):
        counts = {"bm": self.bm, "bn": self.bn, "bk": self.bk, "stages": self.stages, "wm": self.wm, "wn": self.wn,
                  "tm": self.tm, "tn": self.tn, "group_m": self.group_m, "min_blocks": self.min_blocks,
                  "sk_ctas": self.sk_ctas, "cluster": self.cluster, "l2_prefetch": self.l2_prefetch,
                  "rows": self.rows, "rows_run": self.rows_run}
        bad = {k: v for k, v in counts.items() if not isinstance(v, numbers.Integral) or isinstance(v, bool)
               or v < (1 if k in ("bm", "bn", "bk", "group_m", "rows_run") else 0)}
        if bad:
            raise KernelError(f"TileConfig: {bad}: its counts are integers, bm, bn, bk, group_m and rows_run at least "
                              f"1, the others at least 0")
        if self.stages < 2:
            raise KernelError(f"TileConfig: stages={self.stages}, the pipeline needs at least 2")
        if (self.wm > 0) == (self.tm > 0):
            raise KernelError(f"TileConfig {self}: give either a warp tile (wm, wn) or a thread tile (tm, tn)")
        if self.ws and not self.wgmma:
            raise KernelError(f"TileConfig {self}: warp-specialised tiles are wgmma tiles")
        if self.ws and self.bm % 128:
            raise KernelError(f"TileConfig {self}: warp-specialised tiles need bm a multiple of 128")
        if not 1 <= self.min_blocks <= 2048 // max(self.threads, 1):
            raise KernelError(f"TileConfig {self}: min_blocks={self.min_blocks} CTAs of {self.threads} threads do "
                              f"not fit on an SM (2048 threads)")
        if self.sk_ctas < 0 or self.sk_ctas and self.persistent:
            raise KernelError(f"TileConfig {self}: stream-K needs sk_ctas >= 0 and a tile that is not persistent")
        if self.cluster not in (1, 2) or self.cluster == 2 and (
                not self.tma or self.sk_ctas or self.group_m < 2 or self.group_m % 2 or self.bn % 16):
            raise KernelError(f"TileConfig {self}: cluster={self.cluster}: 1, or 2 for a TMA tile with bn a multiple "
                              f"of 16, an even group_m and no stream-K")
        if self.half_atom and (not self.tma or self.bn % 64 != 32):
            raise KernelError(f"TileConfig {self}: half_atom loads a TMA tile's half-used last column atom (tma=True, "
                              f"bn = 64 j + 32, here {self.bn})")
        if self.reg_split and not self.tma:
            raise KernelError(f"TileConfig {self}: a warp-specialised tile of more than 128 accumulators a computing "
                              f"thread (bm / 128 * bn > 256) needs TMA loaders (tma=True), "
                              f"which leave it their registers")
        if self.chunked and not (self.persistent and self.ws):
            raise KernelError(f"TileConfig {self}: a chunked epilogue is for persistent warp-specialised tiles")
        if self.l2_prefetch not in L2_PREFETCH_BYTES or self.l2_prefetch and self.tma:
            raise KernelError(f"TileConfig {self}: l2_prefetch={self.l2_prefetch}: one of {L2_PREFETCH_BYTES}, and "
                              f"0 on TMA tiles (their tensor maps set the L2 promotion)")
        if self.resident_a and (self.wgmma or self.chunked):
            raise KernelError(f"TileConfig {self}: a resident A panel is for mma.sync and simt tiles (not wgmma)")
        if (self.frag_op_a or self.frag_op_b) and (self.wgmma or not self.mma):
            raise KernelError(f"TileConfig {self}: ops on fragments (frag_op_a, frag_op_b) are for mma.sync tiles")
        if self.frag_op_a and self.resident_a:
            raise KernelError(f"TileConfig {self}: a resident A panel applies A's op itself; give frag_op_a=False")
        if self.serpentine and not (self.persistent and self.ws):
            raise KernelError(f"TileConfig {self}: serpentine k-walks are for persistent warp-specialised tiles")
        if self.tma and not self.ws:
            raise KernelError(f"TileConfig {self}: TMA loads feed warp-specialised tiles (ws=True)")
        if self.rows:
            others = (self.wgmma or self.ws or self.tma or self.cluster > 1 or self.sk_ctas or self.chunked
                      or self.resident_a or self.frag_op_a or self.frag_op_b or self.serpentine or self.l2_prefetch)
            if (self.rows not in ROWS_PARTS or not self.persistent or others or self.wm != 16 or self.wn != self.bn
                    or self.bk != 16 or self.bn % 8 or not 8 <= self.bn <= 32 or self.bm % 16
                    or self.rows_run not in (1, 2, 4, 8, 16) or self.bm % self.rows_run):
                raise KernelError(f"TileConfig {self}: a row-stream tile (rows={self.rows}: one of {ROWS_PARTS}) is "
                                  f"persistent, wm = 16, wn = bn (8 to 32, a multiple of 8), bk = 16, bm a multiple of "
                                  f"16 and of rows_run (1, 2, 4, 8 or 16), and none of the other options")
        if self.wgmma:
            ok = (self.wm == 64 and self.wn == self.bn and self.bk in (64, 128) and self.bm % 64 == 0
                  and self.bn % (8 if self.ws else 64) == 0 and self.bn <= 256 and self.bm <= 256)
            if not ok:
                raise KernelError(f"TileConfig {self}: wgmma tiles need wm = 64, wn = bn, bk = 64 (2-byte inputs) "
                                  f"or 128 (1-byte), bm a multiple of 64 and bn of 64 (of 8 on warp-specialised "
                                  f"tiles), both up to 256")
        elif self.mma:
            ok = (self.wm % 16 == 0 and self.wn % 8 == 0 and self.bm % self.wm == 0 and self.bn % self.wn == 0
                  and self.bk % 16 == 0)
            if not ok:
                raise KernelError(f"TileConfig {self}: mma tiles need wm % 16, wn % 8, bk % 16 == 0 and "
                                  f"the warp tile to divide the block tile")
        elif self.bm % self.tm or self.bn % self.tn:
            raise KernelError(f"TileConfig {self}: the thread tile must divide the block tile")
        if self.threads > 1024 or self.threads % 32:
            raise KernelError(f"TileConfig {self}: {self.threads} threads (need a multiple of 32, <= 1024)")

    @property
    def mma(self) -> bool:
        return self.wm > 0

    @property
    def reg_split(self) -> bool:
        """A warp-specialised tile of more than 128 accumulators a computing thread (bm / 128 x bn > 256): its loading
        warpgroup hands registers to the computing ones with setmaxnreg (gett.cuh's REG_SPLIT; REG_SPLIT_REGS: the
        loaders' and the computing threads' counts after it)."""
        return self.ws and (self.wg_rows // 64) * self.bn > 256

    @property
    def wg_rows(self) -> int:
        """Tile rows a computing warpgroup of a warp-specialised tile holds accumulators for (gett.cuh's MW): half
        the tile's."""
        return self.bm // 2

    @property
    def stage_warps(self) -> int:
        """Computing warps of a warp-specialised tile that read each stage (gett.cuh's CONSUMER_WARPS): the 8 of both
        warpgroups; a chunked epilogue stages in one region of the stage each."""
        return 8

    @property
    def threads(self) -> int:
        if self.rows:
            return 32 * (self.bm // 16) * self.rows
        if self.wgmma:
            return 384 if self.ws else 128 * (self.bm // 64)
        if self.wm > 0:
            return 32 * (self.bm // self.wm) * (self.bn // self.wn)
        return (self.bm // self.tm) * (self.bn // self.tn)

    @property
    def loaders(self) -> int:
        """Threads that copy the inputs: a warp-specialised tile's loading warpgroup, else every thread."""
        return 128 if self.ws else self.threads


@dataclass(frozen=True, slots=True)
class OperandSpec:
    """One input operand (A or B) as the kernel reads it.

    Attributes:
        dtype: short name. mn, k, b: its maps of the m (A) or n (B) dimension, of k and of the batch.
        vec: elements per copy along the smem-contiguous dimension (1 = scalar gather).
        kmajor: the smem tile is stored with k contiguous (else mn contiguous).
        vs: (mn-contiguous tiles only) the coordinate step between the elements of one vector: the
            vector runs along the map term with divisor vs (1 = the leading term). With vs > 1 the
            tile holds mn coordinate l at shared-memory slot ((l // vs) % vec) + vec * (l % vs +
            vs * (l // (vs * vec))) (gett.cuh's TileLoader), and the epilogue undoes it.
        flat: (mn-major, `flat_refusal`) each k-tile is read as one contiguous run of rows (the tile holds the whole
            mn extent and k rows lie mn-extent elements apart), in aligned 16-byte words whatever the rows'
            alignment, every element stored to its slot (gett.cuh's TileLoader::load_flat).
        realign: (`realign_refusal`) each smem row of the tile (k-major: a row's k-tile, else a k row's mn
            coordinates) is one contiguous run in memory at any alignment, read as the aligned 16-byte words that
            hold it and shifted into its slots (gett.cuh's TileLoader::load_realign); vec is then 1.
    """

    dtype: str
    mn: DimMap
    k: DimMap
    b: DimMap
    vec: int = 1
    kmajor: bool = True
    vs: int = 1
    flat: bool = False
    realign: bool = False


def realign_group(op: OperandSpec, tile_mn: int, bk: int) -> int:
    """The 16-byte words of one realigned task of `op` on a tile `tile_mn` x `bk` (gett.cuh's RA_G): a k-major
    smem row's, else 4, 2 or 1, the largest dividing the words of a row."""
    words = (bk if op.kmajor else tile_mn) * ITEMSIZE[op.dtype] // 16
    return words if op.kmajor else next(g for g in (4, 2, 1) if words % g == 0)


def loads_per_thread(tile: TileConfig, op: OperandSpec, tile_mn: int) -> int:
    """Vectors of input `op` (`tile_mn` of the tile's rows) that one loader thread of `tile` copies a k-tile (a
    realigned operand: tasks, each its group of words and one more)."""
    if op.realign:
        fw = 16 // ITEMSIZE[op.dtype]
        g = realign_group(op, tile_mn, tile.bk)
        return -(-tile_mn * tile.bk // (g * fw * tile.loaders)) * (g + 1)
    return -(-tile_mn * tile.bk // (op.vec * tile.loaders))


def realign_refusal(op: OperandSpec, tile_mn: int, bk: int) -> str:
    """Why input `op` cannot be read as realigned rows on tiles `tile_mn` x `bk` (OperandSpec.realign), or "" where
    it can: 2-byte floating point (REALIGN_DTYPES), unpermuted, not flat, its smem-contiguous dimension's map (k when
    k-major, else mn) one stride-1 term over the whole extent, and the tile's rows whole 16-byte words."""
    item = ITEMSIZE[op.dtype]
    dm = op.k if op.kmajor else op.mn
    tc = bk if op.kmajor else tile_mn
    return next((w for bad, w in (
        (op.dtype not in REALIGN_DTYPES, f"{op.dtype} is not one of {', '.join(REALIGN_DTYPES)}"),
        (op.vs != 1 or op.flat or op.vec != 1, "the read is slot-permuted, flat or vectorised"),
        (len(dm.strides) != 1 or dm.divisors[0] != 1 or dm.strides[0] != 1 or dm.moduli[0] < dm.extent,
         f"the {'k' if op.kmajor else 'mn'} map is not one stride-1 term"),
        (tc * item % 16, f"a smem row of {tc} elements is not whole 16-byte words"),
    ) if bad), "")


#: D types whose odd rows the epilogue stores as realigned 16-byte words (OutputSpec.realign)
STORE_REALIGN_DTYPES = ("f16", "bf16", "f32")


def store_realign_refusal(d: OutputSpec, tile: TileConfig, read_c: bool) -> str:
    """Why D cannot be stored as realigned rows on `tile` (OutputSpec.realign), or "" where it can: the chunked
    epilogue (TileConfig.chunked) along n, single-value stores (vec 1) of a STORE_REALIGN_DTYPES type, no
    run-by-run walk, no C, and the n map one stride-1 term over the whole extent (a tile's row contiguous in D).
    The staged epilogue keeps its element stores: realigned rows a warp a row there ran 0.63-1.0x as fast on the
    H100 (40 real-code shapes, f16 and f32; the cause not profiled)."""
    dm = d.n
    return next((w for bad, w in (
        (not tile.chunked or not d.ncontig, "only the chunked epilogue along n realigns rows"),
        (d.dtype not in STORE_REALIGN_DTYPES, f"{d.dtype} is not one of {', '.join(STORE_REALIGN_DTYPES)}"),
        (d.vec != 1 or d.run, "D is stored in vectors or run by run"),
        (read_c, "C is read"),
        (len(dm.strides) != 1 or dm.divisors[0] != 1 or dm.strides[0] != 1 or dm.moduli[0] < dm.extent,
         "D's n map is not one stride-1 term"),
    ) if bad), "")


def flat_refusal(op: OperandSpec, tile_mn: int, K: int) -> str:
    """Why input `op` cannot be read as flat k-tiles on tiles `tile_mn` wide (OperandSpec.flat), or "" where it can:
    mn-major and unpermuted, elements of 1 or 2 bytes (wider ones are copied asynchronously in place), its mn map one
    stride-1 term the tile covers whole, its k map one term whose stride is the mn extent (each k-tile's rows one
    contiguous run), K > 0."""
    mn, k = op.mn, op.k
    return next((w for bad, w in (
        (op.kmajor or op.vs != 1, "the tile is k-major or slot-permuted"),
        (ITEMSIZE[op.dtype] > 2, f"{op.dtype} elements are wider than 2 bytes"),
        (mn.extent > tile_mn, f"the mn extent {mn.extent} is wider than the tile ({tile_mn})"),
        (len(mn.strides) != 1 or mn.divisors[0] != 1 or mn.strides[0] != 1 or mn.moduli[0] < mn.extent,
         "the mn map is not one stride-1 term"),
        (K <= 0 or len(k.strides) != 1 or k.divisors[0] != 1 or k.moduli[0] < k.extent or k.strides[0] != mn.extent,
         "k rows do not lie the mn extent apart"),
    ) if bad), "")


@dataclass(frozen=True, slots=True)
class OutputSpec:
    """C (read) or D (written): maps of m, n, b; D also carries its store vector width and direction.

    run, cont (D only; 0 = off): D's stride-1 run along the store dimension is `run` elements long and
    continues over the first `cont` coordinates of the other GEMM dimension; the epilogue's threads
    then walk run by run, so that consecutive threads store consecutive addresses.
    realign (D only): rows along n are contiguous (one stride-1 term) at any alignment, stored by the chunked
    epilogue as the aligned 16-byte words inside each row (gett_kernel.cuh's D_REALIGN; vec 1, no run, no C).
    """

    dtype: str
    m: DimMap
    n: DimMap
    b: DimMap
    vec: int = 1
    ncontig: bool = True
    run: int = 0
    cont: int = 0
    realign: bool = False


@dataclass(frozen=True, slots=True)
class KernelSpec:
    """A fully decided GETT kernel.

    Attributes:
        tile: TileConfig. M, N, K, batch: GEMM extents (compile-time constants of the kernel).
        a, b: the kernel's inputs (after the planner's swap). c: C's maps, or None.
        d: the output. compute: "f32" or "f64" accumulate type, or "c64" / "c128" (simt tiles, a complex D; A, B
            and C real or complex, a real one read as x + 0i), or "u32" / "u64" for integer and bool operands (simt
            tiles, or int8 / uint8 A and B on an mma tile with "u32": `int8`; every sum and product wraps, and D
            keeps the low bits: numpy's wrap-around in D's type; a bool D is sum != 0).
        op_a, op_b, op_c, op_d: CUDA expressions in x of type T; "" for identity.
        read_c: False specialises for beta == 0 (C is never read).
        index64: 64-bit offsets and coordinates.
        semiring: () for the ordinary sum, else CUDA expressions (add in a, b; mul in x, y; zero) of
            gettpy.ops.Semiring (simt path only).
        tf32: 0, or for f32 inputs on an mma tile 1 (TF32 tensor cores), 3 (3xTF32: each operand split
            into two tf32 parts, three mmas, close to fp32 accuracy) or 2 (f64 tensor cores, sm_90: the f32
            values widened to f64, exact products, f64 sums; compute "f64"); inputs k-major (ldmatrix) or m / n-
            major (one shared load per fragment register) in smem.
    """

    tile: TileConfig
    M: int
    N: int
    K: int
    batch: int
    a: OperandSpec
    b: OperandSpec
    c: OutputSpec | None
    d: OutputSpec
    compute: str
    op_a: str = ""
    op_b: str = ""
    op_c: str = ""
    op_d: str = ""
    read_c: bool = False
    index64: bool = False
    semiring: tuple[str, ...] = ()
    tf32: int = 0

    def __post_init__(self):
        if self.tf32 not in (0, 1, 2, 3):
            raise KernelError(f"tf32={self.tf32}: 0 (off), 1 (TF32), 2 (f64 tensor cores) or 3 (3xTF32)")
        if self.tf32 and (self.compute == "f64") != (self.tf32 == 2):
            raise KernelError(f"tf32={self.tf32} with compute {self.compute}: the f64 tensor-core path (2) and "
                              f"only it accumulates in f64")
        f64_in = self.tf32 == 2 and self.a.dtype == self.b.dtype == "f64"
        if self.tf32 and not (self.tile.mma and (self.a.dtype == self.b.dtype == "f32" or f64_in)
                              and self.tile.bk % 8 == 0):
            raise KernelError("tf32 needs f32 inputs (the f64 tensor cores, 2: f32 or f64 inputs) and an mma tile "
                              "with bk % 8 == 0")
        if self.semiring and (len(self.semiring) != 3 or self.tile.mma):
            raise KernelError(f"semiring {self.semiring}: needs (add, mul, zero) and a simt tile")
        if self.tile.serpentine and self.K == 0:
            raise KernelError("serpentine k-walks need K > 0")
        if (self.tile.ws or self.tile.tma) and self.K == 0:
            raise KernelError("warp-specialised tiles need K > 0: their consumers store D after the k-loop's stages, "
                              "which K = 0 never fills")
        if self.tile.sk_ctas and (self.semiring or self.K == 0):
            raise KernelError("stream-K tiles sum partial tiles with +: not for a semiring or K = 0")
        for name, t in (("A", self.a.dtype), ("B", self.b.dtype), ("D", self.d.dtype)):
            if t not in CUDA_TYPE:
                raise KernelError(f"operand {name}: dtype {t!r} has no GPU kernel ({', '.join(CUDA_TYPE)})")
        if self.c is not None and self.c.dtype not in CUDA_TYPE:
            raise KernelError(f"operand C: dtype {self.c.dtype!r} has no GPU kernel")
        if self.read_c and self.c is None:
            raise KernelError("read_c=True needs C's maps")
        if self.tile.wgmma and self.tf32:
            raise KernelError("tf32 runs on mma.sync tiles, not on wgmma tiles")
        if self.tile.wgmma and self.tile.bk * ITEMSIZE[self.a.dtype] != 128:
            raise KernelError(f"tile {self.tile}: a wgmma k-tile is one 128-byte swizzle row of A, "
                              f"{128 // ITEMSIZE[self.a.dtype]} {self.a.dtype} values, not bk={self.tile.bk}")
        if self.int8:
            self._check_int8()
        elif self.tile.mma and not self.tf32:
            if self.a.dtype not in MMA_DTYPES or self.a.dtype != self.b.dtype:
                raise KernelError(f"mma path needs A and B both f16 or both bf16, got {self.a.dtype}, {self.b.dtype}")
            if self.compute != "f32":
                raise KernelError(f"mma path accumulates in f32, not {self.compute}")
        if self.compute not in ("f32", "f64", *COMPLEX_DTYPES, *EXACT_COMPUTE):
            raise KernelError(f"compute type {self.compute!r} not supported on the GPU")
        exact = [n for n, t in (("A", self.a.dtype), ("B", self.b.dtype), ("C", self.c and self.c.dtype),
                                ("D", self.d.dtype)) if t is not None and (t in EXACT_DTYPES) != (
                                    self.compute in EXACT_COMPUTE)]
        if exact:
            raise KernelError(f"operand {exact[0]}: integer and bool operands go with an integer compute type (u32 or "
                              f"u64) and only with one, here {self.compute}")
        if self.compute in EXACT_COMPUTE and (self.semiring or self.tf32):
            raise KernelError(f"integer compute type {self.compute}: no semiring and no tf32 (a simt tile, or the "
                              f"int8 tensor-core tile)")
        cplx = [n for n, t in (("A", self.a.dtype), ("B", self.b.dtype), ("C", self.c and self.c.dtype),
                               ("D", self.d.dtype)) if t in COMPLEX_DTYPES]
        if self.compute in COMPLEX_DTYPES:
            t = self.tile
            if (t.mma or t.sk_ctas or t.persistent or t.resident_a or self.semiring
                    or self.d.dtype not in COMPLEX_DTYPES):
                raise KernelError(f"complex compute type {self.compute}: a simt tile (not persistent, no stream-K, no "
                                  f"resident panel, no semiring) and a complex D (here {self.d.dtype}) are needed")
        elif cplx:
            raise KernelError(f"operand {cplx[0]}: a complex operand needs a complex compute type, not {self.compute}")
        t = self.tile
        for name, op, tmn in (("A", self.a, t.bm), ("B", self.b, t.bn)):
            if op.flat:
                why = flat_refusal(op, tmn, self.K)
                why = why or next((w for on, w in ((t.wgmma, "a wgmma tile"), (t.ws, "a warp-specialised tile"),
                                                    (t.rows, "a row-stream tile"), (self.tf32, "tf32 fragments"))
                            if on), "")
                if why:
                    raise KernelError(f"operand {name}: no flat k-tiles here ({why}); give flat=False")
            if op.realign:
                why = realign_refusal(op, tmn, t.bk)
                why = why or next((w for on, w in ((t.wgmma, "a wgmma tile"), (t.ws, "a warp-specialised tile"),
                                                    (t.rows, "a row-stream tile"),
                                                    (t.resident_a and name == "A", "a resident A panel"))
                                   if on), "")
                if why:
                    raise KernelError(f"operand {name}: no realigned rows here ({why}); give realign=False")
            tc = t.bk if op.kmajor else tmn
            if tc % op.vec or op.vec * ITEMSIZE[op.dtype] > 16:
                raise KernelError(f"operand {name}: vector width {op.vec} does not fit the tile ({tc})")
            if op.vs != 1 and (op.vs < 1 or op.kmajor or tmn % (op.vs * op.vec)):
                raise KernelError(f"operand {name}: vector step vs={op.vs} needs an mn-contiguous tile that "
                                  f"groups of vs * vec = {op.vs * op.vec} coordinates divide ({tmn})")
        if t.tma:
            for name, g in zip("AB", self.tma_geometries, strict=True):
                if g is None:
                    raise KernelError(f"operand {name}: no tensor map for TMA (a GEMM dimension of several "
                                      f"stride terms, or an unaligned stride); give a tile with tma=False")
        if t.half_atom and self.tma_half_geometry is None:
            raise KernelError(f"tile {t}: B is k-major here, so its tile has no half-used column atom; give "
                              f"half_atom=False")
        if t.ws and not self.b.kmajor and t.bn % 16:
            raise KernelError(f"operand B: a warp-specialised tile over an n-major B needs bn a multiple of 16 "
                              f"(whole 16-wide swizzle groups), not {t.bn}")
        if t.ws:
            for name, op in (("A", self.a), ("B", self.b)):
                if op.vec * ITEMSIZE[op.dtype] != 16:
                    raise KernelError(f"operand {name}: a warp-specialised tile's 128 loading threads copy 16-byte "
                                      f"vectors, not {op.vec * ITEMSIZE[op.dtype]}-byte ones (the operand has no "
                                      f"16-byte run along the tile); give another tile")
        if t.chunked and (self.read_c or self.d.run or self.a.vs != 1 or self.b.vs != 1 or self.K == 0
                          or not self.epi_cols or ITEMSIZE[self.d.dtype] not in ((2, 4) if self.d.ncontig else (2,))):
            raise KernelError(f"tile {t}: a chunked epilogue stores a 2- or 4-byte D along n, or a 2-byte D along m, "
                              f"with no C, K > 0, each computing warp staging 16 rows of 16 "
                              f"columns or more in the last stage (here C is read, D's layout has it in runs, the "
                              f"tile's slots are permuted, K = 0, D's type is {self.d.dtype} along "
                              f"{'n' if self.d.ncontig else 'm'}, or no such regions fit); give chunked=False")
        if t.resident_a:
            rows = _whole_ktiles(self.K, t.bk)
            why = [w for bad, w in (
                (self.M > t.bm, f"M = {self.M} is more than one tile row of {t.bm}"),
                (self.batch != 1, f"a batch of {self.batch}"),
                (self.a.kmajor, "A is k-major in shared memory"),
                (self.K == 0, "K = 0"),
                ((t.bm // self.a.vec) * rows > 32 * t.threads,
                 f"its {rows} rows take more than 32 copies a thread"),
                (self.smem_bytes > SMEM_LIMIT, f"{self.smem_bytes} bytes of shared memory, over {SMEM_LIMIT}")) if bad]
            if why:
                raise KernelError(f"tile {t}: no resident A panel here: {'; '.join(why)}; give resident_a=False")
        if t.frag_op_b and (not self.op_b or self.tf32):
            raise KernelError(f"tile {t}: ops on B's fragments need an op on B (here {self.op_b!r}) and no tf32 "
                              f"({self.tf32}); give frag_op_b=False")
        if t.frag_op_a and (not self.op_a or self.tf32):
            raise KernelError(f"tile {t}: ops on A's fragments need an op on A (here {self.op_a!r}) and no tf32 "
                              f"({self.tf32}); give frag_op_a=False")
        if (t.bn if self.d.ncontig else t.bm) % self.d.vec:
            raise KernelError(f"operand D: vector width {self.d.vec} does not divide the tile")
        if self.d.run and (self.d.run % self.d.vec or self.d.cont < 1):
            raise KernelError(f"operand D: run {self.d.run} must be whole vectors of {self.d.vec} and cont "
                              f"{self.d.cont} >= 1")
        if self.d.realign:
            why = store_realign_refusal(self.d, t, self.read_c)
            if why:
                raise KernelError(f"operand D: no realigned rows here: {why}; give realign=False")
        if t.rows:
            self._check_rows()
            return
        for name, op, tmn in (("A", self.a, t.bm), ("B", self.b, t.bn)):
            if loads_per_thread(t, op, tmn) > MAX_LOADS:
                raise KernelError(f"operand {name}: tile {tmn} x {t.bk} in vectors of {op.vec} is more than "
                                  f"{MAX_LOADS} loads for each of {t.loaders} threads (the loader's predicate "
                                  f"mask): give a tile with a smaller {tmn} x bk or more threads")

    @property
    def int8(self) -> bool:
        """An int8 tensor-core tile: an mma or wgmma tile on an integer compute type (`_check_int8` says which)."""
        return self.tile.mma and self.compute in EXACT_COMPUTE

    def _check_int8(self) -> None:
        """Refuse an int8 tensor-core tile (mma.sync m16n8k32, gett_mma.cuh's Mma<TA, TB>; or wgmma k32 on a
        warp-specialised tile fed by cp.async or by TMA, in clusters or not) where the template cannot run it: both
        read k-major 8-bit tiles
        (ldmatrix has no transposing 8-bit form on sm_90, wgmma no transposed 8-bit operand), its k-steps are 32
        values, its accumulators 32 bits that wrap (so D and C of at most 32 bits)."""
        t = self.tile
        for name, op in (("A", self.a), ("B", self.b)):
            if op.dtype not in INT8_MMA_DTYPES:
                raise KernelError(f"operand {name}: on an integer compute type the mma path needs "
                                  f"{' or '.join(INT8_MMA_DTYPES)} inputs (the int8 tensor-core tile), not {op.dtype}; "
                                  f"give a simt tile")
            if not op.kmajor:
                raise KernelError(f"operand {name}: an int8 tensor-core tile reads its inputs k-major in shared memory "
                                  f"(no transposing 8-bit ldmatrix); this operand is mn-major: pack it k-major or "
                                  f"give a simt tile")
            if op.vec < 4:
                raise KernelError(f"operand {name}: an int8 tensor-core tile copies k runs of 4 to 16 values, not "
                                  f"{op.vec}; give a simt tile")
        if self.compute != "u32":
            raise KernelError(f"int8 tensor-core tile: compute {self.compute}; its accumulators are 32 bits (u32)")
        for name, o in (("C", self.c if self.read_c else None), ("D", self.d)):
            if o is not None and (o.dtype == "b1" or ITEMSIZE[o.dtype] > 4):
                raise KernelError(f"operand {name}: an int8 tensor-core tile stores and reads integers of at most 32 "
                                  f"bits, not {o.dtype}; give a simt tile")
        others = [w for on, w in ((t.wgmma and not t.ws, "wgmma without ws"), (t.tma and not t.wgmma, "tma"),
                                  (t.chunked, "chunked"), (t.rows, "rows"),
                                  (t.persistent, "persistent"),
                                  (t.sk_ctas, "sk_ctas"), (t.resident_a, "resident_a"), (t.frag_op_a, "frag_op_a"),
                                  (t.frag_op_b, "frag_op_b"), (self.op_a, "op_a"), (self.op_b, "op_b")) if on]
        if t.bk % 32:
            raise KernelError(f"tile {t}: an int8 tensor-core tile takes k-steps of 32 values: bk={t.bk} is not a "
                              f"multiple of 32")
        if t.wgmma and not (t.bn in (8, 16, 24) or t.bn % 16 == 0):
            raise KernelError(f"tile {t}: an integer wgmma is 8, 16, 24 or a multiple of 16 columns wide, not "
                              f"bn={t.bn}")
        if others:
            raise KernelError(f"tile {t}: an int8 tensor-core tile is a plain mma.sync tile or a warp-specialised "
                              f"wgmma tile fed by cp.async or TMA (not implemented with {', '.join(others)})")

    def _check_rows(self) -> None:
        """Refuse a row-stream tile (TileConfig.rows) where gett.cuh's Rows cannot run it."""
        t, k = self.tile, self.a.k
        whole = self.a.kmajor and k.divisors == (1,) and k.moduli == (self.K,) and k.strides == (1,)
        why = [w for bad, w in (
            (not whole, "A's rows are not K contiguous elements (A read k-major, k one stride-1 term)"),
            (self.a.vec * ITEMSIZE[self.a.dtype] != 16, "A's rows are not 16-byte aligned"),
            (self.rows_p is None, "A's m map is not rows of one part j, K apart, after a part i (rows_split)"),
            (self.batch != 1, f"a batch of {self.batch}"),
            (self.semiring or self.tf32, "a semiring or tf32"),
            (self.K % 8 or self.K < 16, f"K = {self.K} (a multiple of 8, at least 16)"),
            (self.N > t.bn, f"N = {self.N} is wider than bn = {t.bn}"),
            (-(-(self.K // 16) // t.rows) * t.bn // 4 > ROWS_B_REGS,
             f"B's fragments take over {ROWS_B_REGS} registers a thread"),
            (self.smem_bytes > SMEM_LIMIT, f"{self.smem_bytes} bytes of shared memory, over {SMEM_LIMIT}")) if bad]
        if why:
            raise KernelError(f"tile {t}: no row-stream tile here: {'; '.join(why)}; give rows=0")

    @property
    def rows_p(self) -> int | None:
        """(Row-stream tiles) P, with m = i + P j: A's rows of one i and consecutive j lie K apart (`rows_split`)."""
        return rows_split(self.a.mn, self.K)

    @property
    def rows_pitch(self) -> int:
        """(Row-stream tiles) bytes between a stage's rows: K values, or 16 bytes more where that would be an even
        number of 16-byte units (ldmatrix reads 8 rows at once: an odd number keeps them on distinct banks)."""
        b = self.K * ITEMSIZE[self.a.dtype]
        return b if (b // 16) % 2 else b + 16

    @property
    def rows_dvec(self) -> int:
        """(Row-stream tiles) D's values a store along m: D's vector along m where it divides rows_run and P, else 1."""
        v = self.d.vec if not self.d.ncontig else 1
        p = self.rows_p or 1
        return v if self.tile.rows_run % v == 0 and p % v == 0 else 1

    @property
    def rows_units(self) -> int:
        """(Row-stream tiles) units of rows_run values of i by bm / rows_run of j."""
        p, t = self.rows_p or 1, self.tile
        return -(-p // t.rows_run) * -(-(self.M // p) // (t.bm // t.rows_run))

    @property
    def tma_rank(self) -> int:
        """Dims of the TMA tensor maps (2, 3 with a batch; one more for a split mn dimension, see
        `tma_splits`), 0 without TMA."""
        return (3 if self.batch > 1 else 2) if self.tile.tma else 0

    @property
    def tma_geometries(self) -> tuple:
        """(A, B): the operands' tensor maps without pointers (gettpy.kernels.tma.TmaGeometry; B's boxes of
        half the tile in a cluster), None where there is no TMA."""
        if not self.tile.tma:
            return None, None
        from .tma import geometry

        t = self.tile
        return (geometry(self.a, t.bm, t.bk, self.batch),
                geometry(self.b, t.bn // t.cluster, t.bk, self.batch))

    @property
    def tma_half_geometry(self):
        """B's map with boxes of 32 columns for each tile's half-used last column atom (gettpy.kernels.tma.
        half_atom_geometry) with TileConfig.half_atom, else None."""
        if not self.tile.half_atom:
            return None
        from .tma import half_atom_geometry

        return half_atom_geometry(self.b, self.tile.bn, self.tile.bk, self.batch)

    @property
    def tma_splits(self) -> tuple[int, int]:
        """(A, B): the extent at which a TMA operand's mn dimension is cut into two dims of its tensor map
        (gettpy.kernels.tma.TmaGeometry.split), 0 where it is one dim or there is no TMA."""
        return tuple(g.split if g else 0 for g in self.tma_geometries)

    @property
    def tma_rows(self) -> tuple[int, int]:
        """(A, B): rows of a box of a split TMA map (TmaGeometry.rows: the tile's rows, or a cluster's half,
        where they divide the slab; fewer where the tile straddles two slabs), 0 where the map is not split or
        there is no TMA."""
        return tuple(g.rows if g else 0 for g in self.tma_geometries)

    @property
    def path(self) -> str:
        return "rows" if self.tile.rows else "wgmma" if self.tile.wgmma else "mma" if self.tile.mma else "simt"

    @property
    def tiles(self) -> int:
        return -(-self.M // self.tile.bm) * -(-self.N // self.tile.bn)

    @property
    def sk_tiles(self) -> int:
        """Tiles run as stream-K shares (0 without stream-K): the last partial wave of sk_ctas tiles
        plus one full wave, or every tile when there are fewer."""
        g = self.tile.sk_ctas
        if not g:
            return 0
        nt = self.tiles * self.batch
        return min(nt, nt % g + g)

    @property
    def sk_ctas(self) -> int:
        """Stream-K CTAs: the tile's sk_ctas, at most one per k-iteration of the stream-K tiles (so that
        each has a share; 0 without stream-K)."""
        kt = -(-self.K // self.tile.bk)
        return min(self.tile.sk_ctas, self.sk_tiles * kt)

    @property
    def grid(self) -> int:
        """Number of CTAs (1-D grid: batch outermost, then the (m, n) tiles; stream-K: the whole-tile
        CTAs, then the sk_ctas stream-K ones)."""
        if self.tile.rows:
            return self.rows_units
        if self.tile.cluster > 1:
            cols = math.ceil(self.N / self.tile.bn)
            return self.tile_rows * cols * self.batch
        return self.tiles * self.batch - self.sk_tiles + self.sk_ctas

    @property
    def tile_rows(self) -> int:
        """Tile rows of the grid, rounded up to whole clusters (gett.cuh's TILES_MR)."""
        c = self.tile.cluster
        return math.ceil(math.ceil(self.M / self.tile.bm) / c) * c

    @property
    def sk_flag_bytes(self) -> int:
        """Bytes of the stream-K workspace's per-tile counters (zeroed before each launch)."""
        return -(-4 * self.sk_tiles // 256) * 256

    @property
    def workspace_bytes(self) -> int:
        """Bytes of the launch's workspace (stream-K: counters, then two accumulator tiles per CTA)."""
        if not self.sk_tiles:
            return 0
        acc = ITEMSIZE[self.compute]
        return self.sk_flag_bytes + self.sk_ctas * 2 * self.tile.bm * self.tile.bn * acc

    @property
    def no_partial(self) -> bool:
        t = self.tile
        return self.M % t.bm == 0 and self.N % t.bn == 0 and self.K % t.bk == 0

    @property
    def smem_bytes(self) -> int:
        """Dynamic shared memory; equals gett::Gett<Cfg>::SMEM_BYTES (gett::Rows<Cfg>'s for a row-stream tile; the
        wrapper static_asserts it)."""
        t = self.tile
        if t.rows:  # (stages of bm rows, B's [n][k], the staging tile of each part, the stages' mbarriers)
            run = t.bm // t.rows_run * (t.rows_run + 1)
            while run % 16 not in (4, 12):
                run += 1
            top = t.stages * t.bm * self.rows_pitch + t.bn * self.rows_pitch + t.rows * self.N * run * 4
            return -(-top // 8) * 8 + 8 * t.stages
        return smem_bytes(self.tile, self.a, self.b, self.d.ncontig, self.compute, self.d.dtype, self.read_c,
                          self.direct_d, self.K)

    @property
    def epi_chunk(self) -> bool:
        """Whether each computing warp stages and stores its rows through a region of the last stage
        (TileConfig.chunked; gett.cuh's EPI_CHUNK)."""
        return self.tile.chunked

    @property
    def epi_cols(self) -> int:
        """Columns of a chunked epilogue's chunk (gett.cuh's EPI_COLS): each of the 8 computing warps stages 16 tile
        rows of that many columns (+ pad, values of D's type, or f32 with a C; with D along m, column by column, each
        16 rows + pad) in a region of its own in the last stage's A or B buffer; bn, or the largest multiple of 16
        that divides bn (and D's vector along n) for which the regions fit. 0 where none do."""
        t = self.tile
        warps = t.stage_warps
        te, pad = _epi_item_pad(t, self.b, self.d.ncontig, self.compute, self.d.dtype, self.read_c)
        sa, sb = _stage_bytes(t, self.a, t.bm), _stage_bytes(t, self.b, t.bn)
        for c in range(t.bn - t.bn % 16, 0, -16):
            region = (16 * (c + pad) if self.d.ncontig else c * (16 + pad)) * te
            if t.bn % c == 0 and (c % self.d.vec == 0 or not self.d.ncontig) and sa // region + sb // region >= warps:
                return c
        return 0

    @property
    def wg_tail_n(self) -> int:
        """Columns the wgmmas of a warp-specialised grid's last tile column compute (gett.cuh's WG_NT,
        Cfg::WgmmaTail): N % bn rounded up to 16 where N is not a multiple of bn, else bn (a narrow last column then
        runs no tensor-core work past its columns)."""
        t, rest = self.tile, self.N % self.tile.bn
        # (B's vectors of vs > 1 put tile columns in permuted slots, whole groups of vs * vec at a time: the first
        #  WG_NT slots hold the first columns only where the rest is whole groups)
        if not (t.wgmma and t.ws) or rest == 0 or rest % (self.b.vs * self.b.vec):
            return t.bn
        return min(t.bn, -(-rest // 16) * 16)

    @property
    def direct_d(self) -> bool:
        """Whether the epilogue stores the accumulators straight to D, with no staging tile (gett.cuh's
        DIRECT_D): persistent TMA tiles, D stored along n in vectors of 2 or more, N even, no C, no run-by-run
        walk."""
        t, d = self.tile, self.d
        return (t.persistent and t.tma and not t.chunked and not self.read_c and d.ncontig and d.vec >= 2
                and self.N % 2 == 0 and d.run == 0)

    @property
    def quad_d(self) -> bool:
        """Whether the direct epilogue stores 16-byte vectors (gett.cuh's QUAD_D): direct_d with 2-byte D in aligned
        vectors of 8 along n and bn a multiple of 32, so that each quad of lanes, which holds one fragment row's pairs
        of four 8-column groups, regroups them (two shfl.xor rounds) and each lane stores one group's 8 columns: a
        warp's store writes 8 rows of 64 contiguous bytes, where the pairs write 8 rows of 16. The other direct
        epilogues store 4- or 8-byte pairs."""
        return self.direct_d and ITEMSIZE[self.d.dtype] == 2 and self.d.vec >= 8 and self.tile.bn % 32 == 0


#: registers a thread of a REG_SPLIT tile's loading and computing warpgroups keep after setmaxnreg (gett.cuh's
#: LOAD_REGS, COMPUTE_REGS): 128 x 40 + 256 x 232 of the 65536, which 384 threads launched with 168 each hold
REG_SPLIT_REGS = (40, 232)


def rows_split(mn: DimMap, k: int) -> int | None:
    """P such that an operand's m map (`mn`, rows of K = `k` elements) is m = i + P j with offset(i) + j k: its last
    term (divisor P) has stride k and runs to the end, every other term lies within i < P. None where there is none.

    >>> rows_split(DimMap(92352, (1, 312), (312, 296), (92352, 312)), 312)   # A[d, c, a] (312 x 296 x 312), m = (a, c)
    312
    """
    if not mn.strides:
        return None
    d, m, s = mn.divisors[-1], mn.moduli[-1], mn.strides[-1]
    inner = zip(mn.divisors[:-1], mn.moduli[:-1], strict=True)
    if s != k or d * m != mn.extent or any(dd * mm > d for dd, mm in inner):
        return None
    return d


def _round16(x: int) -> int:
    return (x + 15) // 16 * 16


def _group(t: int, op: OperandSpec) -> int:
    """Neighbouring rows / columns a simt thread owns as one group (gett.cuh's GM / GN): up to 16 bytes,
    dividing its thread tile `t`, on mn-contiguous smem tiles only."""
    g = 1
    while not op.kmajor and g * 2 <= t and t % (g * 2) == 0 and g * 2 * ITEMSIZE[op.dtype] <= 16:
        g *= 2
    return g


def _whole_ktiles(k: int, bk: int) -> int:
    """k rounded up to whole k-tiles of bk (the rows of a resident A panel: gett.cuh's KTILES * BK)."""
    return -(-k // bk) * bk


def _stage_bytes(tile: TileConfig, op: OperandSpec, tmn: int, bk: int = 0) -> int:
    """Bytes of one pipeline stage of operand `op` on tiles of `tmn` rows and `bk` k (tile.bk by default; a
    resident A panel is one stage of whole K) (gett.cuh's A_STAGE_BYTES / B_STAGE_BYTES / PANEL_BYTES): padded
    rows, or on wgmma tiles swizzled ones, mn-major in whole 64-wide column atoms; a flat operand's stage (not its
    panel) adds the raw area its words land in."""
    item, panel, bk = ITEMSIZE[op.dtype], bool(bk), bk or tile.bk
    tc, ts = (bk, tmn) if op.kmajor else (-(-tmn // 64) * 64 if tile.wgmma else tmn, bk)
    elems = ts * (tc + (0 if tile.wgmma else 16 // item))
    if op.flat and not panel:  # (TileLoader's raw area: a header word, then the k-tile's run as whole words)
        fw = 16 // item
        elems = -(-elems // fw) * fw + fw * (-(-bk * op.mn.extent // fw) + 2)
    if op.realign:  # (TileLoader's raw area, mn-major: each task's words and one more; an 8-byte header a task)
        fw = 16 // item
        g = realign_group(op, tmn, bk)
        tasks = ts * tc // (g * fw)
        raw = 0 if op.kmajor else fw * (g + 1) * tasks
        elems = -(-elems // fw) * fw + raw + fw * (-(-tasks * 8 // 16))
    return _round16(elems * item)


def _epi_item_pad(tile: TileConfig, b: OperandSpec, d_ncontig: bool, compute: str, d_dtype: str,
                  read_c: bool) -> tuple[int, int]:
    """(bytes of a staged value, values of padding a staging row) of the epilogue tile (gett.cuh's TE and
    EPAD): D's values where D is narrower than the accumulators and no C is read, else accumulators."""
    acc = ITEMSIZE[compute]  # (the accumulator: f32, f64, c64 or c128)
    item = ITEMSIZE[d_dtype] if not read_c and ITEMSIZE[d_dtype] < acc else acc
    odd = not tile.mma and not d_ncontig and _group(tile.tn, b) > 1 and b.vs == 1
    return item, 1 if odd else (32 if tile.mma and item >= 4 else 16) // item


def smem_bytes(tile: TileConfig, a: OperandSpec, b: OperandSpec, d_ncontig: bool, compute: str,
               d_dtype: str = "f32", read_c: bool = False, direct_d: bool = False, k: int = 0) -> int:
    """Shared memory of the pipeline (STAGES x (A + B) tiles, padded rows) or of the epilogue tile.

    The epilogue tile holds accumulators, or D's values when D is narrower and no C is read (rows
    padded by 16 bytes; 32 bytes for 4- and 8-byte values on the mma path; one value on the simt path
    when D is stored along m and a thread owns groups of neighbouring, unpermuted columns). wgmma tiles
    are unpadded (swizzled, mn-major tiles in whole 64-wide column atoms) and get 1024 bytes more, to align
    the stages to 1024 bytes. A persistent tile keeps both (its loads of the next tile run during the
    epilogue), but with `direct_d` (KernelSpec.direct_d) or a chunked epilogue (TileConfig.chunked, staged in
    the last stage) there is no epilogue tile; a warp-specialised one adds two 8-byte mbarriers per stage.
    With TileConfig.resident_a the stages hold B alone, and A's panel of `k` rows rounded up to whole
    k-tiles (padded like a stage's rows) comes after the rest.
    """
    stage_a = 0 if tile.resident_a else _stage_bytes(tile, a, tile.bm)
    pipe = tile.stages * (stage_a + _stage_bytes(tile, b, tile.bn))
    item, pad = _epi_item_pad(tile, b, d_ncontig, compute, d_dtype, read_c)
    ec, es = (tile.bn, tile.bm) if d_ncontig else (tile.bm, tile.bn)
    epi = 0 if direct_d or tile.chunked else _round16(es * (ec + pad) * item)
    panel = _stage_bytes(tile, a, tile.bm, _whole_ktiles(k, tile.bk)) if tile.resident_a else 0
    return ((pipe + epi if tile.persistent else max(pipe, epi)) + panel + (1024 if tile.wgmma else 0)
            + (16 * tile.stages if tile.ws else 0))
