"""Render a KernelSpec into CUDA source: the template's headers pasted verbatim + a prelude + one extern "C" wrapper.

The prelude is a `Cfg` struct of compile-time constants: element types, extents, tile sizes, the
layout maps as `gett::Map<gett::Term<div, mod, stride, wrap>...>` types (so that every division and
modulus is by a constant), vector widths, smem orientations, op functors and flags. Pasting the headers'
text (instead of -I) makes every header part of the disk cache key.
"""
from __future__ import annotations

import functools
import hashlib
from importlib import resources

from ..layouts.descriptor import DimMap
from .spec import CUDA_TYPE, EXACT_COMPUTE, REG_SPLIT_REGS, KernelSpec

#: the CUDA headers of the template, in the order they are pasted (package data, one concern each): gett.cuh (overview,
#: includes), the layout map, element types and conversions, PTX copies / barriers / TMA, the tile loader, tensor-core
#: primitives; then gett::Gett, whose class body is composed of its configuration, tile schedulers, the schedule
#: driver (run), the warp-specialised wgmma k-loops, the epilogues and one tile's mainloop + epilogue; then gett::Rows
HEADERS = ("gett.cuh", "gett_map.cuh", "gett_elements.cuh", "gett_ptx.cuh", "gett_loader.cuh", "gett_mma.cuh",
           "gett_kernel.cuh", "gett_schedule.cuh", "gett_run.cuh", "gett_wgmma_loop.cuh", "gett_epilogue.cuh",
           "gett_tile.cuh", "gett_rows.cuh")


@functools.cache
def header_text() -> str:
    """The template's text: HEADERS pasted in order, all but the first inside namespace gett (package data)."""
    files = resources.files(__package__)
    first, *rest = (files.joinpath(h).read_text() for h in HEADERS)
    return first + "\nnamespace gett {\n\n" + "".join(rest) + "\n}  // namespace gett\n"


def render_map(dm: DimMap) -> str:
    """A DimMap as a gett::Map type: one Term<div, mod, stride, wrap> per term.

    wrap is False when g / div can never reach mod for g < extent (the `%` is then skipped).
    """
    terms = []
    for d, m, s in zip(dm.divisors, dm.moduli, dm.strides, strict=True):
        wrap = dm.extent > 0 and (dm.extent - 1) // d >= m
        terms.append(f"gett::Term<{d}LL, {m}LL, {s}LL, {'true' if wrap else 'false'}>")
    return "gett::Map<" + ", ".join(terms) + ">"


def render_op(name: str, expr: str) -> str:
    """An op functor struct (or an alias of gett::OpIdentity when `expr` is empty)."""
    if not expr:
        return f"  using {name} = gett::OpIdentity;"
    return (f"  struct {name} {{\n"
            f"    static constexpr bool kIdentity = false;\n"
            f"    template <class T> __device__ __forceinline__ static T apply(T x) {{ return ({expr}); }}\n"
            f"  }};")


def render_semiring(sr: tuple[str, ...], exact: bool = False) -> str:
    """The Cfg::SR struct: the sum over k (fma for the ordinary one, acc + x * y on an integer compute type, else
    the semiring's add(acc, mul))."""
    if not sr:
        madd = "return acc + x * y;" if exact else "return fma(x, y, acc);"
        return ("  struct SR {\n    static constexpr bool kStandard = true;\n"
                "    template <class T> __device__ __forceinline__ static T zero() { return T(0); }\n"
                "    template <class T> __device__ __forceinline__ static T madd(T acc, T x, T y) "
                f"{{ {madd} }}\n  }};")
    add, mul, zero = sr
    return ("  struct SR {\n    static constexpr bool kStandard = false;\n"
            f"    template <class T> __device__ __forceinline__ static T zero() {{ return {zero}; }}\n"
            f"    template <class T> __device__ __forceinline__ static T madd(T a, T x, T y) {{\n"
            f"      const T b = {mul};\n      return {add};\n    }}\n  }};")


def render_wgmma(spec: KernelSpec) -> str:
    """Cfg::Wgmma: one wgmma.mma_async m64n{bn} k-step with its bn / 2 accumulators; Cfg::WgmmaTail the same
    m64n{WG_NT} for the tiles of a warp-specialised grid's last, partial column (KernelSpec.wg_tail_n: N % bn
    rounded up to 16; the tile's columns from WG_NT on are not computed), else Wgmma again (empty off wgmma).

    A and B come from shared-memory descriptors. f16/bf16: k16 into fp32 accumulators, the transpose flags saying
    which of A and B is MN-major. int8/uint8 (KernelSpec.int8): k32 into 32-bit integer accumulators (s32, whose
    sums wrap as the u32 compute type's), both operands K-major (the only layout wgmma reads 8-bit inputs in).
    """
    t = spec.tile
    if not t.wgmma:
        return ""
    if spec.int8:
        ptx = {"i8": "s8", "u8": "u8"}
        shape = f"k32.s32.{ptx[spec.a.dtype]}.{ptx[spec.b.dtype]}"
        acc, reg, flags = "unsigned", "r", ""
    else:
        ab = {"f16": "f16", "bf16": "bf16"}[spec.a.dtype]
        shape = f"k16.f32.{ab}.{ab}"
        acc, reg, flags = "float", "f", f", 1, 1, {int(not spec.a.kmajor)}, {int(not spec.b.kmajor)}"

    def struct(name: str, width: int) -> str:
        n = width // 2
        regs = ",".join(f"%{i}" for i in range(n))
        outs = ", ".join(f'"+{reg}"(d[{i}])' for i in range(n))
        return (f"  struct {name} {{\n"
                f"    __device__ __forceinline__ static void run({acc}* d, unsigned long long da, "
                "unsigned long long db) {\n"
                f'      asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{n + 2}, 0;\\n"\n'
                f'                   "wgmma.mma_async.sync.aligned.m64n{width}{shape} {{{regs}}}, %{n}, '
                f'%{n + 1}, p{flags};\\n}}\\n"\n'
                f"                   : {outs}\n"
                f'                   : "l"(da), "l"(db), "r"(1));\n'
                "    }\n  };")

    nt = spec.wg_tail_n
    tail = struct("WgmmaTail", nt) if nt != t.bn else "  using WgmmaTail = Wgmma;"
    return struct("Wgmma", t.bn) + "\n" + tail + f"\n  static constexpr int WG_NT = {nt};"


def render_prelude(spec: KernelSpec) -> str:
    t = spec.tile
    c = spec.c if spec.c is not None else spec.d
    c_type = CUDA_TYPE[c.dtype]
    lines = [
        "struct Cfg {",
        f"  using TA = {CUDA_TYPE[spec.a.dtype]};",
        f"  using TB = {CUDA_TYPE[spec.b.dtype]};",
        f"  using TC = {c_type};",
        f"  using TD = {CUDA_TYPE[spec.d.dtype]};",
        f"  using TAcc = {CUDA_TYPE[spec.compute]};",
        f"  using Index = {'long long' if spec.index64 else 'int'};",
        f"  using UIndex = {'unsigned long long' if spec.index64 else 'unsigned'};",
        f"  static constexpr bool MMA = {'true' if t.mma else 'false'};",
        f"  static constexpr bool WGMMA = {_b(t.wgmma)};",
        f"  static constexpr bool PERSIST = {_b(t.persistent)};",
        f"  static constexpr bool WS = {_b(t.ws)};",
        f"  static constexpr int TMA_RANK = {spec.tma_rank}, CLUSTER = {t.cluster};",
        "  static constexpr long long A_TMA_SPLIT = {}LL, B_TMA_SPLIT = {}LL;".format(*spec.tma_splits),
        "  static constexpr int A_TMA_ROWS = {}, B_TMA_ROWS = {};".format(*spec.tma_rows),
        f"  static constexpr int TF32 = {spec.tf32};",
        f"  static constexpr long long M = {spec.M}LL, N = {spec.N}LL, K = {spec.K}LL, BATCH = {spec.batch}LL;",
        f"  static constexpr int BM = {t.bm}, BN = {t.bn}, BK = {t.bk}, STAGES = {t.stages}, "
        f"THREADS = {t.threads}, GROUP_M = {t.group_m}, MIN_BLOCKS = {t.min_blocks};",
        f"  static constexpr long long SK_CTAS = {spec.sk_ctas}LL, SK_TILES = {spec.sk_tiles}LL;",
        f"  static constexpr int SK_FLAG_BYTES = {spec.sk_flag_bytes};",
        f"  static constexpr int WM = {t.wm}, WN = {t.wn}, TM = {t.tm}, TN = {t.tn};",
        f"  static constexpr int A_VEC = {spec.a.vec}, B_VEC = {spec.b.vec}, D_VEC = {spec.d.vec};",
        f"  static constexpr int A_VS = {spec.a.vs}, B_VS = {spec.b.vs};",
        f"  static constexpr bool A_FLAT = {_b(spec.a.flat)}, B_FLAT = {_b(spec.b.flat)};",
        f"  static constexpr bool A_REALIGN = {_b(spec.a.realign)}, B_REALIGN = {_b(spec.b.realign)};",
        f"  static constexpr int D_RUN = {spec.d.run}, D_CONT = {spec.d.cont};",
        f"  static constexpr bool D_REALIGN = {_b(spec.d.realign)};",
        f"  static constexpr bool A_KMAJOR = {_b(spec.a.kmajor)}, B_KMAJOR = {_b(spec.b.kmajor)}, "
        f"D_NCONTIG = {_b(spec.d.ncontig)};",
        f"  static constexpr bool READ_C = {_b(spec.read_c)}, DIRECT_D = {_b(spec.direct_d)}, "
        f"QUAD_D = {_b(spec.quad_d)}, EPI_CHUNK = {_b(spec.epi_chunk)};",
        f"  static constexpr int EPI_COLS = {spec.epi_cols if spec.epi_chunk else 0};",
        f"  static constexpr bool REG_SPLIT = {_b(t.reg_split)}, SERP = {_b(t.serpentine)}, "
        f"HALF_ATOM = {_b(t.half_atom)};",
        f"  static constexpr int ROWS = {t.rows}, ROWS_RUN = {t.rows_run}, ROWS_PITCH = "
        f"{spec.rows_pitch if t.rows else 0}, ROWS_DV = {spec.rows_dvec if t.rows else 1};",
        f"  static constexpr long long ROWS_P = {(spec.rows_p or 1) if t.rows else 1}LL;",
        f"  static constexpr int L2_PREFETCH = {t.l2_prefetch};",
        f"  static constexpr bool RES_A = {_b(t.resident_a)}, FRAG_OP_A = {_b(t.frag_op_a)}, "
        f"FRAG_OP_B = {_b(t.frag_op_b)};",
        f"  static constexpr int LOAD_REGS = {REG_SPLIT_REGS[0]}, COMPUTE_REGS = {REG_SPLIT_REGS[1]};",
        f"  using MapAm = {render_map(spec.a.mn)};",
        f"  using MapAk = {render_map(spec.a.k)};",
        f"  using MapAb = {render_map(spec.a.b)};",
        f"  using MapBn = {render_map(spec.b.mn)};",
        f"  using MapBk = {render_map(spec.b.k)};",
        f"  using MapBb = {render_map(spec.b.b)};",
        f"  using MapCm = {render_map(c.m)};",
        f"  using MapCn = {render_map(c.n)};",
        f"  using MapCb = {render_map(c.b)};",
        f"  using MapDm = {render_map(spec.d.m)};",
        f"  using MapDn = {render_map(spec.d.n)};",
        f"  using MapDb = {render_map(spec.d.b)};",
        render_op("OpA", spec.op_a),
        render_op("OpB", spec.op_b),
        render_op("OpC", spec.op_c),
        render_op("OpD", spec.op_d),
        render_semiring(spec.semiring, spec.compute in EXACT_COMPUTE),
        render_wgmma(spec),
        "};",
    ]
    return "\n".join(lines) + "\n"


def _b(x: bool) -> str:
    return "true" if x else "false"


def kernel_name(spec: KernelSpec) -> str:
    return "gett_" + hashlib.sha256(render_prelude(spec).encode()).hexdigest()[:20]


def render(spec: KernelSpec) -> tuple[str, str]:
    """(CUDA source, kernel name) of `spec`."""
    name = kernel_name(spec)
    prelude = render_prelude(spec)
    # (TMA tiles take the two tensor maps as __grid_constant__ parameters after beta, then B's half-atom map with
    #  half_atom)
    t = spec.tile
    maps = (",\n     const __grid_constant__ gett::TmaDesc tmA, const __grid_constant__ gett::TmaDesc tmB"
            if t.tma else "") + (", const __grid_constant__ gett::TmaDesc tmBh" if t.half_atom else "")
    # (stream-K tiles take their workspace last)
    ws = ",\n     void* __restrict__ ws" if spec.sk_tiles else ""
    # (run's optional arguments: tmA, tmB, ws, tmBh, the last ones left to their defaults where not given)
    given = [("&tmA", t.tma), ("&tmB", t.tma), ("ws", spec.sk_tiles), ("&tmBh", t.half_atom)]
    last = max((i + 1 for i, (_, on) in enumerate(given) if on), default=0)
    args = "".join(f", {a if on else 'nullptr'}" for a, on in given[:last])
    cluster = f" __cluster_dims__({spec.tile.cluster}, 1, 1)" if spec.tile.cluster > 1 else ""
    kernel = "gett::Rows<Cfg>" if t.rows else "gett::Gett<Cfg>"  # (row-stream tiles: gett.cuh's Rows)
    wrapper = (
        f"static_assert({kernel}::SMEM_BYTES == {spec.smem_bytes}, \"smem size disagrees with spec.py\");\n"
        f"extern \"C\" __global__ void __launch_bounds__({spec.tile.threads}, {spec.tile.min_blocks}){cluster}\n"
        f"{name}(const Cfg::TA* __restrict__ A, const Cfg::TB* __restrict__ B, const Cfg::TC* __restrict__ C,\n"
        f"     Cfg::TD* __restrict__ D, Cfg::TAcc alpha, Cfg::TAcc beta{maps}{ws}) {{\n"
        f"  extern __shared__ __align__(16) unsigned char gett_smem[];\n"
        f"  {kernel}::run(A, B, C, D, alpha, beta, gett_smem{args});\n"
        f"}}\n"
    )
    src = (f"// gettpy GETT kernel {name}\n" + header_text()
           + "\n// ---- rendered prelude ----\n" + prelude + wrapper)
    return src, name
