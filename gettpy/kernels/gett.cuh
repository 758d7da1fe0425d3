// gett.cuh — the shared GETT kernel template of gettpy (header-only, NVRTC-clean).
//
// One GEMM template reads every tensor in place through layout maps. For each operand and each GEMM
// dimension (m, n, k and the batch b) the rendered prelude gives a Map of compile-time Terms:
//
//     offset(g) = sum_i ((g / div_i) % mod_i) * stride_i        (elements; strides may be < 0 or 0)
//
// `gett_offset` below is that map, written once; gettpy.layouts.emulate.gett_offset mirrors it by name.
//
//   D[m,n,b] = op_d( alpha * sum_k op_a(A[m,k,b]) * op_b(B[k,n,b]) + beta * op_c(C[m,n,b]) )
//
// The prelude (gettpy/kernels/render.py) defines a `Cfg` struct with the element types, the extents
// (M, N, K, BATCH are compile-time constants: a kernel is specialised per contraction), the tile
// configuration, the maps, the vector widths, the op functors and the flags; one extern "C" wrapper
// calls gett::Gett<Cfg>::run. Two compute paths share the loaders, the pipeline and the epilogue:
//   * MMA  (f16/bf16 inputs): mma.sync.m16n8k16 with fp32 accumulation, fragments through ldmatrix
//          (.trans when the smem tile is MN-major) from padded, conflict-free shared memory;
//   * SIMT (f32/f64 inputs): register-tiled FFMA/DFMA;
//   * WGMMA (f16/bf16 inputs, sm_90a): warpgroup wgmma.mma_async reading A and B straight from shared
//          memory through matrix descriptors; the loaders then write 128-byte-swizzled tiles (the
//          canonical K-major or MN-major layouts of the instruction) instead of padded ones.
// Global -> shared loads: cp.async (16/8/4 bytes, zero-fill for the partial tiles) in a STAGES-deep
// pipeline; a 2-byte scalar gather (an f16/bf16 operand with no vectorisable dimension) is a guarded
// load + st.shared instead. Three variants of the schedule around the k-loop:
//   * PERSIST: a grid of the resident CTAs walks the tiles; the pipeline runs on into the next tile;
//   * WS (wgmma only): warpgroup 0 loads, two warpgroups compute and store; per-stage mbarriers
//          ("full": the copies landed, "empty": the wgmmas read the stage) instead of CTA barriers;
//   * TMA_RANK > 0 (with WS): the stages arrive as boxes of the operands' tensor maps, one thread
//          issuing cp.async.bulk.tensor, completing bytes on the full mbarrier.
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>

namespace gett {

// ------------------------------------------------------------------------------------------------
// The index map (mirrored by gettpy.layouts.emulate.gett_offset)
// ------------------------------------------------------------------------------------------------
// One term of a DimMap. Wrap == false when (extent - 1) / Div < Mod, i.e. the `%` can never wrap
// (always so for the last term), and is then skipped; Div == 1 skips the division.
template <long long Div, long long Mod, long long Stride, bool Wrap>
struct Term {};
template <class... Ts>
struct Map {
  static constexpr int terms = sizeof...(Ts);
};

template <class I, class U, long long D, long long M, long long S, bool W>
__device__ __forceinline__ I gett_term(U g, Term<D, M, S, W>) {
  U q = g;
  if constexpr (D != 1) q = q / U(D);
  if constexpr (W) q = q % U(M);
  if constexpr (S == 1) return I(q);
  else return I(q) * I(S);
}

// offset(g) = sum_i ((g / div_i) % mod_i) * stride_i
template <class I, class U, class... Ts>
__device__ __forceinline__ I gett_offset(U g, Map<Ts...>) {
  return (I(0) + ... + gett_term<I, U>(g, Ts{}));
}

// the bits of a 2-byte value, and back (an mma fragment register holds two)
__device__ __forceinline__ unsigned short to_bits(__half x) { return __half_as_ushort(x); }
__device__ __forceinline__ unsigned short to_bits(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }
// two 2-byte values as one 32-bit word, the first in the low half (an accumulator pair of a wgmma fragment row)
template <class T>
__device__ __forceinline__ unsigned bits_pair(T lo, T hi) {
  return unsigned(to_bits(lo)) | (unsigned(to_bits(hi)) << 16);
}
template <class T> __device__ __forceinline__ T from_bits(unsigned b);
template <> __device__ __forceinline__ __half from_bits<__half>(unsigned b) { return __ushort_as_half((unsigned short)b); }
template <> __device__ __forceinline__ __nv_bfloat16 from_bits<__nv_bfloat16>(unsigned b) {
  return __ushort_as_bfloat16((unsigned short)b);
}

// ------------------------------------------------------------------------------------------------
// Element conversions: to_f gives the op compute type of a storage type (float, or double for f64)
// ------------------------------------------------------------------------------------------------
__device__ __forceinline__ float to_f(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_f(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float to_f(float x) { return x; }
__device__ __forceinline__ double to_f(double x) { return x; }

template <class T> struct From;
template <> struct From<__half> {
  template <class A> __device__ __forceinline__ static __half cvt(A v) { return __float2half_rn(float(v)); }
};
template <> struct From<__nv_bfloat16> {
  template <class A> __device__ __forceinline__ static __nv_bfloat16 cvt(A v) { return __float2bfloat16_rn(float(v)); }
};
template <> struct From<float> {
  template <class A> __device__ __forceinline__ static float cvt(A v) { return float(v); }
};
template <> struct From<double> {
  template <class A> __device__ __forceinline__ static double cvt(A v) { return double(v); }
};
template <class T, class A>
__device__ __forceinline__ T from_acc(A v) { return From<T>::cvt(v); }

template <class T, int V>
struct alignas(sizeof(T) * V) Pack { T e[V]; };

template <bool B, class T, class F> struct Cond { using type = T; };
template <class T, class F> struct Cond<false, T, F> { using type = F; };
template <class T, class U> struct Same { static constexpr bool value = false; };
template <class T> struct Same<T, T> { static constexpr bool value = true; };
// one aligned vector of V values of T copied as one access (a Pack copy through a pointer of T's own alignment can
// be split into narrower ones: the compiler does not see the destination's alignment)
template <class T, int V>
__device__ __forceinline__ void copy_vec(T* dst, const T* src) {
  constexpr int B = V * int(sizeof(T));
  static_assert(B == 16 || B == 8 || B == 4 || B == 2, "a vector of 2, 4, 8 or 16 bytes");
  using W = typename Cond<B == 16, uint4,
                          typename Cond<B == 8, uint2, typename Cond<B == 4, unsigned, unsigned short>::type>::type>::type;
  *reinterpret_cast<W*>(dst) = *reinterpret_cast<const W*>(src);
}

// V contiguous values from shared memory at p (aligned to MAXV * sizeof(T) or to 16 bytes), in loads
// of up to MAXV values and 16 bytes
template <int V, int MAXV, class T>
__device__ __forceinline__ void load_run(T (&dst)[V], const T* p) {
  constexpr int BYTES = MAXV * int(sizeof(T)), CE = (BYTES < 16 ? BYTES : 16) / int(sizeof(T));
  static_assert(CE >= 1 && V % CE == 0, "runs of whole chunks");
#pragma unroll
  for (int c = 0; c < V / CE; ++c) {
    const Pack<T, CE> v = *reinterpret_cast<const Pack<T, CE>*>(p + c * CE);
#pragma unroll
    for (int e = 0; e < CE; ++e) dst[c * CE + e] = v.e[e];
  }
}

// The identity op (the prelude's op functors have the same shape).
struct OpIdentity {
  static constexpr bool kIdentity = true;
  template <class T> __device__ __forceinline__ static T apply(T x) { return x; }
};

// ------------------------------------------------------------------------------------------------
// Global -> shared copies
// ------------------------------------------------------------------------------------------------
// L2P: the copy's L2 prefetch size (PTX .level::prefetch_size; 0 = no hint, 64, 128 or 256 bytes): the L2
// fetches the aligned block of that size around the copied bytes, so the rest of a row that a tile reads
// one k-tile at a time (k-major rows not aligned to 128 bytes: #2's 624-byte rows) comes from DRAM whole
// (kernels/spec.py's TileConfig.l2_prefetch)
#define GETT_COPY_ASYNC(HINT)                                                                                  \
  if constexpr (BYTES == 16) {                                                                                  \
    if constexpr (PRED)                                                                                         \
      asm volatile("cp.async.cg.shared.global" HINT " [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(ok ? 16 : 0) \
                   : "memory");                                                                                 \
    else                                                                                                        \
      asm volatile("cp.async.cg.shared.global" HINT " [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");        \
  } else {                                                                                                      \
    if constexpr (PRED)                                                                                         \
      asm volatile("cp.async.ca.shared.global" HINT " [%0], [%1], %2, %3;\n" ::"r"(s), "l"(src), "n"(BYTES),     \
                   "r"(ok ? BYTES : 0) : "memory");                                                             \
    else                                                                                                        \
      asm volatile("cp.async.ca.shared.global" HINT " [%0], [%1], %2;\n" ::"r"(s), "l"(src), "n"(BYTES)          \
                   : "memory");                                                                                 \
  }
template <int BYTES, bool PRED, int L2P = 0>
__device__ __forceinline__ void copy_async(void* dst, const void* src, bool ok) {
  static_assert(L2P == 0 || L2P == 64 || L2P == 128 || L2P == 256, "L2 prefetch sizes: 0, 64, 128, 256 bytes");
  unsigned s = (unsigned)__cvta_generic_to_shared(dst);
  if constexpr (L2P == 0) {
    GETT_COPY_ASYNC("")
  } else if constexpr (L2P == 64) {
    GETT_COPY_ASYNC(".L2::64B")
  } else if constexpr (L2P == 128) {
    GETT_COPY_ASYNC(".L2::128B")
  } else {
    GETT_COPY_ASYNC(".L2::256B")
  }
}
#undef GETT_COPY_ASYNC
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cp_async_wait_all() { asm volatile("cp.async.wait_all;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

// mbarriers (PTX ISA: mbarrier.*) for the warp-specialised pipeline: the loaders' copies arrive on a
// stage's "full" barrier when they land; the computing warps arrive on its "empty" barrier when their
// wgmmas have read it. A wait names the parity of the phase it waits for (0, 1, 0, ... per use).
__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(unsigned long long* b, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(b)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra WAIT;\n}\n"
               ::"r"(smem_addr(b)), "r"(parity) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned long long* b) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%0];\n}\n" ::"r"(smem_addr(b)) : "memory");
}
// one arrival on b once every cp.async this thread issued so far has landed
__device__ __forceinline__ void cp_async_mbar_arrive(unsigned long long* b) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_addr(b)) : "memory");
}
// the tensor-memory accelerator (PTX ISA: cp.async.bulk.tensor, tile mode): one box of a tensor map
// (a 128-byte, 64-byte aligned descriptor the host encodes, passed as a __grid_constant__ parameter)
// into shared memory with the map's 128-byte swizzle, completing `bytes` on the mbarrier
struct alignas(64) TmaDesc {
  unsigned long long raw[16];
};
// one arrival on b that also expects `bytes` of transactions in its current phase
__device__ __forceinline__ void mbar_arrive_expect_tx(unsigned long long* b, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(b)), "r"(bytes) : "memory");
}
// (c: the box's coordinates, innermost first; RANK 2 to 4)
template <int RANK>
__device__ __forceinline__ void tma_box(void* dst, const TmaDesc* map, unsigned long long* b, const int (&c)[4]) {
  static_assert(RANK >= 2 && RANK <= 4, "tensor maps of 2 to 4 dims");
  if constexpr (RANK == 2)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];\n" ::"r"(smem_addr(dst)), "l"(map), "r"(c[0]), "r"(c[1]), "r"(smem_addr(b)) : "memory");
  else if constexpr (RANK == 3)
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
                 "%4}], [%5];\n" ::"r"(smem_addr(dst)), "l"(map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(smem_addr(b))
                 : "memory");
  else
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, "
                 "%4, %5}], [%6];\n" ::"r"(smem_addr(dst)), "l"(map), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]),
                 "r"(smem_addr(b)) : "memory");
}

// the same box multicast into the shared memory of the cluster's CTAs in `mask` (at dst's offset in each),
// completing its bytes on the mbarrier at b's offset in each
template <int RANK>
__device__ __forceinline__ void tma_box_mc(void* dst, const TmaDesc* map, unsigned long long* b, const int (&c)[4],
                                           unsigned short mask) {
  static_assert(RANK >= 2 && RANK <= 4, "tensor maps of 2 to 4 dims");
  if constexpr (RANK == 2)
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smem_addr(dst)), "l"(map), "r"(c[0]), "r"(c[1]),
                 "r"(smem_addr(b)), "h"(mask) : "memory");
  else if constexpr (RANK == 3)
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3, %4}], [%5], %6;\n" ::"r"(smem_addr(dst)), "l"(map), "r"(c[0]), "r"(c[1]),
                 "r"(c[2]), "r"(smem_addr(b)), "h"(mask) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3, %4, %5}], [%6], %7;\n" ::"r"(smem_addr(dst)), "l"(map), "r"(c[0]), "r"(c[1]),
                 "r"(c[2]), "r"(c[3]), "r"(smem_addr(b)), "h"(mask) : "memory");
}
// the other way (TMA_STORE): one box of shared memory, laid out as the map's swizzle wants it, out to the
// tensor at c (what lies past the tensor's edges is left out), as part of this thread's bulk async-group
template <int RANK>
__device__ __forceinline__ void tma_store_box(const void* src, const TmaDesc* map, const int (&c)[4]) {
  static_assert(RANK == 2 || RANK == 3, "D's tensor maps have 2 or 3 dims");
  if constexpr (RANK == 2)
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n" ::"l"(map), "r"(c[0]),
                 "r"(c[1]), "r"(smem_addr(src)) : "memory");
  else
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%1, %2, %3}], [%4];\n" ::"l"(map),
                 "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(smem_addr(src)) : "memory");
}
// close this thread's bulk async-group and wait until the TMA unit has read the shared memory of all of them
// (READ), or until their writes are done
template <bool READ>
__device__ __forceinline__ void tma_store_wait() {
  asm volatile("cp.async.bulk.commit_group;\n" ::: "memory");
  if constexpr (READ)
    asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory");
  else
    asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory");
}

// thread-block clusters: this CTA's rank, a barrier of every thread of the cluster, one arrival on the
// mbarrier at b's offset in CTA `cta` of the cluster (release at CTA scope, the default: the wgmma reads it
// orders are this CTA's; .release.cluster put a MEMBAR.ALL.GPU before every arrival, 2.3x slower)
__device__ __forceinline__ unsigned cluster_rank() {
  unsigned r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
__device__ __forceinline__ void mbar_arrive_cluster(unsigned long long* b, unsigned cta) {
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %0, %1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(smem_addr(b)), "r"(cta)
               : "memory");
}

// a barrier of the first `count` threads only (the computing warpgroups of a warp-specialised tile)
__device__ __forceinline__ void named_sync(int id, int count) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}
// this warp's arrival on named barrier `id` of `count` threads, without waiting for the others
__device__ __forceinline__ void named_arrive(int id, int count) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(count) : "memory");
}

// ------------------------------------------------------------------------------------------------
// TileLoader: one operand's (TMN x TBK) tile, global -> shared, through its maps.
//   KMAJOR: the smem tile is [TMN][TBK + PAD] (k contiguous) else [TBK][TMN + PAD] (mn contiguous).
//   V: elements per copy along the smem-contiguous dimension (V > 1 only along a vectorisable dim).
//   SW: 0 = padded rows (PITCH = TC + 16 bytes, conflict-free for ldmatrix); 1 = wgmma's 128-byte
//     swizzle (2-byte elements): atoms of 8 rows x 64 elements (1024 bytes), the 16-byte chunk j of
//     row r stored at chunk j ^ (r % 8). K-major tiles have TC == 64 (one atom wide); MN-major tiles
//     are cut into column atoms (TC rounded up to 64), each TS rows deep.
//   L2P: the copies' L2 prefetch size (copy_async; 0 = none).
//   VS (mn-contiguous tiles): the vector runs along the map term with divisor VS, i.e. its elements are
//     the coordinates l, l + VS, ..., l + (V-1)*VS of the tile (a tile 2-D over two modes). They land in
//     consecutive smem slots: coordinate l sits at slot perm(l) (below); VS == 1 is the identity.
// Each thread owns ITERS vectors; the mn offsets and predicates of its vectors are hoisted (init),
// the k offsets are evaluated per k-tile.
// ------------------------------------------------------------------------------------------------
template <int V, int VS>
struct SlotPerm {
  static constexpr bool kIdentity = VS == 1;
  // slot p = j + V * r  <->  tile coordinate l = r % VS + VS * (j + V * (r / VS))
  __device__ __forceinline__ static int coord(int p) {
    if constexpr (VS == 1) return p;
    const int j = p % V, r = p / V;
    return r % VS + VS * (j + V * (r / VS));
  }
  // first coordinate of the vector that fills slots [V * r, V * r + V)
  __device__ __forceinline__ static int vector_coord(int r) {
    if constexpr (VS == 1) return r * V;
    return r % VS + VS * V * (r / VS);
  }
};

template <class T, int TMN, int TBK, int V, bool KMAJOR, int THREADS, long long EXT_MN, long long EXT_K,
          class MapMN, class MapK, class I, class U, int VS = 1, int SW = 0, int L2P = 0>
struct TileLoader {
  static constexpr int TC = KMAJOR ? TBK : TMN;  // smem-contiguous extent
  static constexpr int TS = KMAJOR ? TMN : TBK;  // strided extent
  static constexpr int PAD = SW ? 0 : 16 / int(sizeof(T));
  // (swizzled mn-major tiles hold whole column atoms: a tile 224 wide takes 4 atoms, the wgmma reading
  //  the first 224 columns; the copies fill TC columns, a TMA box the whole last atom)
  static constexpr int TCA = SW && !KMAJOR ? (TC + 63) / 64 * 64 : TC;
  static constexpr int PITCH = TCA + PAD;
  static constexpr int STAGE_ELEMS = TS * PITCH;
  // (k-major TMA boxes of a map that holds half the tile's rows, as a cluster's maps do, ROWS of a split map)
  template <int ROWS>
  static constexpr int HALF_BOXES = ROWS ? ROWS : KMAJOR ? TMN / 2 : 0;
  static constexpr int LV = TC / V;  // vectors per smem row
  static constexpr int NV = LV * TS;
  static constexpr int ITERS = (NV + THREADS - 1) / THREADS;
  static constexpr bool EVEN = NV % THREADS == 0;
  static constexpr bool FULL_MN = EXT_MN % TMN == 0;
  static constexpr bool FULL_K = EXT_K % TBK == 0;
  static constexpr int BYTES = V * int(sizeof(T));
  static constexpr bool ASYNC = BYTES >= 4;
  static_assert(TC % V == 0, "vector width must divide the tile");
  static_assert(BYTES <= 16, "at most 16-byte vectors");
  static_assert(ITERS <= 32, "too many loads per thread for the predicate mask");
  static_assert(VS == 1 || (!KMAJOR && TMN % (VS * V) == 0), "vector step VS needs an mn-contiguous tile");
  static_assert(!SW || (sizeof(T) == 2 && TS % 8 == 0 && (KMAJOR ? TC == 64 : TC % 16 == 0)),
                "the 128-byte swizzle holds 2-byte elements in atoms of 8 rows x 64");
  using Perm = SlotPerm<KMAJOR ? 1 : V, KMAJOR ? 1 : VS>;
  // wgmma descriptor strides (bytes): LBO between 64-wide column atoms (MN-major; unused K-major),
  // SBO between groups of 8 rows
  static constexpr unsigned WG_LBO = KMAJOR ? 16u : unsigned(TS * 128), WG_SBO = 1024u;

  // element offset in a stage of (strided row sl, contiguous column c); a vector never crosses a
  // 16-byte chunk, so it stays contiguous under the swizzle
  __device__ __forceinline__ static int slot(int sl, int c) {
    if constexpr (!SW) {
      return sl * PITCH + c;
    } else {
      const int w = c & 63;
      return (c >> 6) * (TS * 64) + sl * 64 + (((w >> 3) ^ (sl & 7)) << 3) + (w & 7);
    }
  }
  // element offset of the unswizzled start of the (mn0.., k0..) sub-tile a wgmma reads (mn0 % 64 ==
  // 0, k0 % 16 == 0): the hardware applies the swizzle to the address bits itself
  __device__ __forceinline__ static int wg_start(int mn0, int k0) {
    return KMAJOR ? mn0 * 64 + k0 : (mn0 >> 6) * (TS * 64) + k0 * 64;
  }

  I mn_off[ITERS];
  unsigned mn_ok;  // bit i: vector i of this thread is inside the tile and inside the mn extent

  __device__ __forceinline__ static T* at(T* s, int k, int mn) {
    return KMAJOR ? s + mn * PITCH + k : s + k * PITCH + mn;
  }

  __device__ __forceinline__ void init(int tid, U mn0) {
    mn_ok = 0;
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      const int cv = idx % LV, sl = idx / LV;
      const U g = mn0 + U(KMAJOR ? sl : Perm::vector_coord(cv));
      const bool ok = (EVEN || idx < NV) && (FULL_MN || g < U(EXT_MN));
      mn_off[i] = ok ? gett_offset<I>(g, MapMN{}) : I(0);
      mn_ok |= (ok ? 1u : 0u) << i;
    }
  }

  // (1) issue the copies of k-tile k0 into `stage` (zero-filled outside the extents)
  __device__ __forceinline__ void load(T* stage, const T* base, int tid, U k0) const {
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      if (!EVEN && idx >= NV) continue;
      const int cv = idx % LV, sl = idx / LV;
      const U gk = k0 + U(KMAJOR ? cv * V : sl);
      const bool ok = ((mn_ok >> i) & 1u) && (FULL_K || gk < U(EXT_K));
      const I off = ok ? I(mn_off[i] + gett_offset<I>(gk, MapK{})) : I(0);
      T* dst = stage + slot(sl, cv * V);
      if constexpr (ASYNC) {
        copy_async<BYTES, !(FULL_MN && FULL_K), L2P>(dst, base + off, ok);
      } else {  // 2-byte scalar gather: guarded load, plain shared store
        static_assert(sizeof(T) == 2, "non-async copies are 2-byte scalars");
        unsigned short v = 0;
        if (ok) v = __ldg(reinterpret_cast<const unsigned short*>(base + off));
        *reinterpret_cast<unsigned short*>(dst) = v;
      }
    }
  }

  // (1') TMA: the stage as boxes of the operand's tensor map (dims innermost first: the smem-contiguous
  //      dimension, the other, the batch): one box of 64 x TS (k-major) or one box of 64 x 64 per column atom
  //      (mn-major), each landing in the swizzled layout `slot` describes; zero-filled outside the tensor.
  //      SPLIT > 0 (k-major): the mn dimension is two dims of the map, rows mn % SPLIT and slabs mn / SPLIT,
  //      read in boxes of ROWS rows (ROWS divides both the tile's rows and SPLIT: no box straddles two slabs,
  //      kernels/tma.py), each one ROWS x 128-byte piece of the stage
  // (a box's coordinates: the smem-contiguous dimension, the other (cut at SPLIT), the batch)
  template <long long SPLIT>
  __device__ __forceinline__ static void box_coords(int (&c)[4], U inner, U outer, U bz) {
    static_assert(SPLIT == 0 || KMAJOR, "split mn dimensions on k-major tiles");
    c[0] = int(inner);
    if constexpr (SPLIT > 0) {
      c[1] = int(outer % U(SPLIT));
      c[2] = int(outer / U(SPLIT));
      c[3] = int(bz);
    } else {
      c[1] = int(outer);
      c[2] = int(bz);
      c[3] = 0;
    }
  }
  // (k-major: the rows [r0, r0 + n) of the stage as boxes of ROWS rows, or one box where ROWS == 0)
  template <int R, long long SPLIT, int ROWS>
  __device__ __forceinline__ static void kmajor_boxes(T* stage, const TmaDesc* map, unsigned long long* bar, U mn0,
                                                      U k0, U bz, int r0, int n, unsigned short mask) {
    constexpr int BR = ROWS > 0 ? ROWS : TS;
    static_assert(BR % 8 == 0, "boxes of whole swizzle atoms");
    int c[4];
#pragma unroll
    for (int r = r0; r < r0 + n; r += BR) {
      box_coords<SPLIT>(c, k0, mn0 + U(r), bz);
      if (mask) tma_box_mc<R>(stage + r * 64, map, bar, c, mask);
      else tma_box<R>(stage + r * 64, map, bar, c);
    }
  }
  // (mn-major, HALF: kernels/tma.py's half_atom_geometry) the tile's last column atom, of whose 64 columns it uses
  // TMN % 64 = 32, as a box of those columns through `half`, B's map with boxes of 32 columns (which land in the first
  // half of each 128-byte row, as the 64-column box's would); false for the other atoms
  template <int R, bool HALF>
  __device__ __forceinline__ static bool half_box(T* stage, const TmaDesc* half, unsigned long long* bar, U mn0, U k0,
                                                  U bz, int a, unsigned short mask) {
    if constexpr (HALF) {
      static_assert(!KMAJOR && TMN % 64 == 32, "a half-used last column atom");
      if (a != TCA / 64 - 1) return false;
      int c[4];
      box_coords<0>(c, mn0 + U(64 * a), k0, bz);
      if (mask) tma_box_mc<R>(stage + a * TS * 64, half, bar, c, mask);
      else tma_box<R>(stage + a * TS * 64, half, bar, c);
      return true;
    } else {
      return false;
    }
  }
  template <int RANK, long long SPLIT, int ROWS, bool HALF = false>
  __device__ __forceinline__ static void tma(T* stage, const TmaDesc* map, unsigned long long* bar, U mn0, U k0,
                                             U bz, const TmaDesc* half = nullptr) {
    static_assert(SW && (KMAJOR ? TC == 64 : TS == 64), "TMA boxes fill 128-byte-swizzled stages");
    static_assert(ROWS == 0 || (KMAJOR && TS % ROWS == 0), "k-major boxes that fill the tile's rows");
    constexpr int R = RANK + (SPLIT > 0 ? 1 : 0);
    int c[4];
    if constexpr (KMAJOR) {
      kmajor_boxes<R, SPLIT, ROWS>(stage, map, bar, mn0, k0, bz, 0, TS, 0);
    } else {
#pragma unroll
      for (int a = 0; a < TCA / 64; ++a) {
        if (!live_atom(mn0, a) || half_box<R, HALF>(stage, half, bar, mn0, k0, bz, a, 0)) continue;
        box_coords<0>(c, mn0 + U(64 * a), k0, bz);
        tma_box<R>(stage + a * TS * 64, map, bar, c);
      }
    }
  }
  // (cluster of two) this CTA's half (part 0 or 1) of the stage's boxes, multicast into both CTAs: the
  //      k-major rows are cut in halves (the map's box is TMN / 2 rows, or ROWS of a split map), the mn-major
  //      boxes share out by column atom (alternately)
  template <int RANK, long long SPLIT, int ROWS, bool HALF = false>
  __device__ __forceinline__ static void tma_half(T* stage, const TmaDesc* map, unsigned long long* bar, U mn0, U k0,
                                                  U bz, unsigned part, const TmaDesc* half = nullptr) {
    static_assert(SW && (KMAJOR ? TC == 64 && TS % 16 == 0 : TS == 64), "halves of whole atoms");
    static_assert(ROWS == 0 || (KMAJOR && (TS / 2) % ROWS == 0), "k-major boxes that fill the half's rows");
    constexpr int R = RANK + (SPLIT > 0 ? 1 : 0);
    int c[4];
    if constexpr (KMAJOR) {
      kmajor_boxes<R, SPLIT, ROWS ? ROWS : TS / 2>(stage, map, bar, mn0, k0, bz, int(part) * (TS / 2), TS / 2,
                                                   (unsigned short)3);
    } else {  // (part p: the atoms p, p + 2, ...; an odd count leaves part 0 one more)
#pragma unroll
      for (int a = 0; a < TCA / 64; ++a)
        if ((a & 1) == int(part) && live_atom(mn0, a) && !half_box<R, HALF>(stage, half, bar, mn0, k0, bz, a, 3)) {
          box_coords<0>(c, mn0 + U(64 * a), k0, bz);
          tma_box_mc<R>(stage + a * TS * 64, map, bar, c, (unsigned short)3);
        }
    }
  }
  // (mn-major) whether column atom a of the tile at mn0 holds any coordinate inside the extent: the others are
  // not loaded (their columns feed only accumulators past M or N, which are never stored; #2's TMA tiles, whose
  // A has 24 of 128 rows, went 63 -> 51 us with this and prefetch.tensormap, results/v14_h100/call6/)
  __device__ __forceinline__ static bool live_atom(U mn0, int a) {
    return EXT_MN % TCA == 0 || mn0 + U(64 * a) < U(EXT_MN);
  }
  // the bytes the stage's boxes bring for the tile at mn0 (HALF: the last atom's box half of the others')
  template <bool HALF = false>
  __device__ __forceinline__ static unsigned tx_bytes(U mn0) {
    static_assert(!HALF || (!KMAJOR && TMN % 64 == 32), "a half-used last column atom");
    constexpr unsigned HALF_LESS = HALF ? unsigned(TS * 32 * int(sizeof(T))) : 0u;
    if constexpr (KMAJOR || EXT_MN % TCA == 0) {
      return unsigned(TS * TCA * int(sizeof(T))) - HALF_LESS;
    } else {
      unsigned n = 0;
#pragma unroll
      for (int a = 0; a < TCA / 64; ++a) n += live_atom(mn0, a) ? 1u : 0u;
      return n * unsigned(TS * 64 * int(sizeof(T))) - (live_atom(mn0, TCA / 64 - 1) ? HALF_LESS : 0u);
    }
  }

  // (2) apply the operand's op to the elements this thread copied into `stage`; elements with
  //     k >= K are set to 0 (so op(0) != 0 cannot leak into the sum).
  template <class Op>
  __device__ __forceinline__ void transform(T* stage, int tid, U k0) const {
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      if (!EVEN && idx >= NV) continue;
      const int cv = idx % LV, sl = idx / LV;
      const U gk = k0 + U(KMAJOR ? cv * V : sl);
      // one vector load and one vector store per copy (the copy's destination is V-aligned)
      Pack<T, V>* pp = reinterpret_cast<Pack<T, V>*>(stage + slot(sl, cv * V));
      Pack<T, V> v = *pp;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        using CT = decltype(to_f(v.e[e]));
        const bool kin = FULL_K || (KMAJOR ? gk + U(e) : gk) < U(EXT_K);
        const CT x = Op::template apply<CT>(to_f(v.e[e]));
        v.e[e] = from_acc<T>(kin ? x : CT(0));
      }
      *pp = v;
    }
  }
};

// ------------------------------------------------------------------------------------------------
// Tensor-core fragments (PTX ISA: mma.m16n8k16 .row.col, ldmatrix)
// ------------------------------------------------------------------------------------------------
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* p) {
  unsigned s = (unsigned)__cvta_generic_to_shared(p);
  if constexpr (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
// four 8x8 b16 matrices stored from the fragment layout (thread t: row t / 4, columns 2 (t % 4), + 1 of each; one
// register per matrix), lanes 8 j .. 8 j + 7 giving the addresses of matrix j's 8 rows of 16 bytes (sm_90)
__device__ __forceinline__ void stmatrix_x4(void* p, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n"
               ::"r"((unsigned)__cvta_generic_to_shared(p)), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}
// the same, each matrix transposed: lane 8 j + i's address takes column i of matrix j (its 8 rows' values)
__device__ __forceinline__ void stmatrix_x4_trans(void* p, unsigned r0, unsigned r1, unsigned r2, unsigned r3) {
  asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};\n"
               ::"r"((unsigned)__cvta_generic_to_shared(p)), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
}
template <bool TRANS>
__device__ __forceinline__ void ldmatrix_x2(unsigned (&r)[2], const void* p) {
  unsigned s = (unsigned)__cvta_generic_to_shared(p);
  if constexpr (TRANS)
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
  else
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n" : "=r"(r[0]), "=r"(r[1]) : "r"(s));
}
// TF32 (m16n8k8, fp32 accumulate) for f32 inputs: mode 1 rounds each operand to tf32 once; mode 3 is
// 3xTF32, x = big + small with big = tf32(x), small = tf32(x - big), and a*b ~ a_s*b_b + a_b*b_s + a_b*b_b
// (the small products first), close to fp32 accuracy.
__device__ __forceinline__ unsigned to_tf32(unsigned x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(x)));
  return r;
}
__device__ __forceinline__ void mma_tf32(float* c, const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}
// x <- big = tf32(x) for every fragment register; SPLIT (3xTF32) also small <- tf32(x - big)
template <bool SPLIT, int R, int C>
__device__ __forceinline__ void round_tf32(unsigned (&x)[R][C], unsigned (&small)[R][C]) {
#pragma unroll
  for (int i = 0; i < R; ++i)
#pragma unroll
    for (int j = 0; j < C; ++j) {
      const unsigned big = to_tf32(x[i][j]);
      if constexpr (SPLIT) small[i][j] = to_tf32(__float_as_uint(__uint_as_float(x[i][j]) - __uint_as_float(big)));
      x[i][j] = big;
    }
}
// f64 tensor cores for f32 inputs (mode 2, sm_90): an f32 value widened to f64 is exact, so is the product
// of two (48 of f64's 53 bits), and the sums are f64's. mma.m16n8k8.f64 places its fragments where
// m16n8k8.tf32 does (A: (g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4); B: (t, g), (t + 4, g); C: (g, 2t + {0,
// 1}), (g + 8, ...); g = lane / 4, t = lane % 4), so the tf32 path's ldmatrix loads of k-major f32 tiles feed it
__device__ __forceinline__ void mma_f64(double* c, const unsigned (&a)[4], const unsigned (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(double(__uint_as_float(a[0]))), "d"(double(__uint_as_float(a[1]))),
                 "d"(double(__uint_as_float(a[2]))), "d"(double(__uint_as_float(a[3]))),
                 "d"(double(__uint_as_float(b[0]))), "d"(double(__uint_as_float(b[1]))));
}
// (ptxas widens each fragment register once, not once per mma that reads it: #20's kernel has 96 F2F.F64.F32
//  for the 64 DMMAs of a k-tile of 32)
template <int MI, int NI>
__device__ __forceinline__ void mma_f64_tile(double* acc, const unsigned (&af)[MI][4], const unsigned (&bf)[NI][2]) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) mma_f64(&acc[(mi * NI + ni) * 4], af[mi], bf[ni]);
}
template <int MODE, int MI, int NI>
__device__ __forceinline__ void mma_tf32_tile(float* acc, unsigned (&af)[MI][4], unsigned (&bf)[NI][2]) {
  unsigned as[MI][4], bs[NI][2];  // (the small parts: 3xTF32 only)
  round_tf32<MODE == 3>(af, as);
  round_tf32<MODE == 3>(bf, bs);
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      if constexpr (MODE == 3) {
        mma_tf32(&acc[(mi * NI + ni) * 4], as[mi], bf[ni]);
        mma_tf32(&acc[(mi * NI + ni) * 4], af[mi], bs[ni]);
      }
      mma_tf32(&acc[(mi * NI + ni) * 4], af[mi], bf[ni]);
    }
}

template <class T> struct Mma;
template <> struct Mma<__half> {
  __device__ __forceinline__ static void run(float* c, const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};
template <> struct Mma<__nv_bfloat16> {
  __device__ __forceinline__ static void run(float* c, const unsigned (&a)[4], const unsigned (&b)[2]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
};

// ------------------------------------------------------------------------------------------------
// Warpgroup MMA (sm_90a; PTX ISA: wgmma.mma_async, matrix descriptors). The instruction itself
// (m64nBNk16, its BN / 2 accumulator operands and transpose flags) is rendered into Cfg::Wgmma.
// ------------------------------------------------------------------------------------------------
// descriptor: start address >> 4 (bits 0-13), LBO >> 4 (16-29), SBO >> 4 (32-45), 128-byte swizzle (62-63)
__device__ __forceinline__ unsigned long long wg_desc(const void* p, unsigned lbo, unsigned sbo) {
  const unsigned a = (unsigned)__cvta_generic_to_shared(p);
  return (unsigned long long)((a & 0x3FFFFu) >> 4) | ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32) | (1ull << 62);
}
// keeps the compiler from moving accumulator accesses across the asynchronous wgmma
template <int R>
__device__ __forceinline__ void wg_fence_regs(float (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(acc[i])::"memory");
}
template <int R>
__device__ __forceinline__ void wg_fence_regs(double (&)[R]) {}

// ------------------------------------------------------------------------------------------------
// The kernel
// ------------------------------------------------------------------------------------------------
template <class Cfg>
struct Gett {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  using TC = typename Cfg::TC;
  using TD = typename Cfg::TD;
  using TAcc = typename Cfg::TAcc;
  using I = typename Cfg::Index;   // signed offsets (int or long long)
  using U = typename Cfg::UIndex;  // unsigned coordinates

  static constexpr bool MMA = Cfg::MMA;
  static constexpr bool WG = Cfg::WGMMA;  // the mma path on wgmma (warpgroups of 64 x BN)
  static_assert(!WG || (MMA && !Cfg::TF32 && sizeof(typename Cfg::TA) == 2 && Cfg::WM == 64 && Cfg::WN == Cfg::BN
                        && Cfg::BK % 16 == 0 && (Cfg::WS ? 384 : (Cfg::BM / 64) * 128) == Cfg::THREADS), "bad wgmma tile");
  static constexpr int TF32 = Cfg::TF32;  // 0: f16/bf16 m16n8k16 (or simt); 1: tf32, 3: 3xtf32, 2: f64 mma (f32 inputs)
  static constexpr int KSTEP = TF32 ? 8 : 16;  // k of one mma
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  static constexpr int THREADS = Cfg::THREADS;
  static constexpr long long M = Cfg::M, N = Cfg::N, K = Cfg::K, BATCH = Cfg::BATCH;
  static constexpr long long TILES_M = (M + BM - 1) / BM, TILES_N = (N + BN - 1) / BN;
  static constexpr long long TILES = TILES_M * TILES_N;
  // (clusters of CLUSTER CTAs along m: the tile rows rounded up to whole clusters, TILES_R tiles per batch)
  static constexpr int CLUSTER = Cfg::CLUSTER;
  // SHARE_A (kernels/spec.py's TileConfig.share_a): a cluster's pair takes tiles n, n + 1 of one row instead and shares
  // their A stage, A_UNITS pairs a batch; an odd last column's tiles pair along m (TILES_MR rows) and share B
  static constexpr bool SHARE_A = Cfg::SHARE_A;
  // HALF_ATOM (kernels/spec.py's TileConfig.half_atom): B's half-used last column atom as 32 columns through tmBh
  static constexpr bool HALF_ATOM = Cfg::HALF_ATOM;
  static constexpr long long TILES_MR = (TILES_M + CLUSTER - 1) / CLUSTER * CLUSTER;
  static constexpr long long A_UNITS = SHARE_A ? TILES_M * (TILES_N / 2) : 0;
  static constexpr long long TILES_R = SHARE_A ? 2 * A_UNITS + TILES_N % 2 * TILES_MR : TILES_MR * TILES_N;
  static_assert(CLUSTER == 1 || (CLUSTER == 2 && Cfg::WS && Cfg::TMA_RANK > 0 && Cfg::SK_CTAS == 0 &&
                                 Cfg::GROUP_M % 2 == 0), "clusters of two TMA tiles, an even raster group");
  static_assert(!SHARE_A || CLUSTER == 2, "shared A stages: clusters of two");
  static constexpr long long KTILES = (K + BK - 1) / BK;
  static constexpr int GROUP_M = Cfg::GROUP_M;
  // one group holds every tile row and one B (per batch) outgrows half the L2: walk down each column of
  // tiles, so that its B panel comes from DRAM once (row by row, it came back for every tile row: #15 on
  // the H100 read 186 MB for its 58 MB B, results/v9_h100/ncu_15.txt; #17 / #18 2.5 -> 2.05x floor).
  // Not for a small B: the split-K core of #13 (37 batches of a 1.5 MB B) was 5% slower so, 20% with ops
  static constexpr bool COLUMN_WALK = GROUP_M > 1 && TILES_M > 1 && TILES_M <= GROUP_M &&
                                      N * K * (long long)sizeof(typename Cfg::TB) > (24LL << 20);
  // (FULL_M: no tile row past M, nor a cluster's padding row; SHARE_A: none where every column pairs along n)
  static constexpr bool FULL_M = M % BM == 0 && (TILES_MR == TILES_M || (SHARE_A && TILES_N % 2 == 0));
  static constexpr bool FULL_N = N % BN == 0, FULL_K = K % BK == 0;
  // stream-K (SK_CTAS > 0): the last SK_TILES tiles (raster order) are not one CTA's each; their
  // SK_TILES x KTILES k-iterations are dealt out evenly to SK_CTAS CTAs after the DP_TILES whole-tile
  // CTAs, so that the grid's last, partial wave of tiles becomes a full wave of equal shares. A tile
  // cut between CTAs is summed by the CTA that finishes its share last (`sk_fixup`)
  static constexpr long long SK_CTAS = Cfg::SK_CTAS, SK_TILES = Cfg::SK_TILES;
  static constexpr bool SK = SK_CTAS > 0;
  static constexpr long long DP_TILES = TILES * BATCH - SK_TILES, SK_ITERS = SK_TILES * KTILES;
  static constexpr int SK_FLAG_BYTES = Cfg::SK_FLAG_BYTES;
  static_assert(!SK || (!Cfg::PERSIST && Cfg::SR::kStandard && SK_TILES > 0 && KTILES > 0),
                "stream-K: tiles that are not persistent, the ordinary sum");
  static constexpr bool NO_PARTIAL = FULL_M && FULL_N && FULL_K;  // the "no partial tiles" specialisation
  // (a partial last k-tile: its wgmmas wholly past K, on zero-filled stages, are skipped: K_TAIL k-steps of 16 remain;
  //  #12, K = 5136: 1 of 4)
  static constexpr int K_TAIL = FULL_K ? BK / 16 : int(((K % BK) + 15) / 16);
  // SERP (kernels/spec.py's TileConfig.serpentine: persistent warp-specialised tiles): a CTA walks the k-tiles of
  // its odd-numbered tiles backwards, so that a tile starts on the k-slabs its CTA's last one ended on, which the
  // L2 may still hold (the tile's sequence number: kstep / KTILES at its start, on both sides)
  static constexpr bool SERP = Cfg::SERP;
  static_assert(!SERP || (Cfg::PERSIST && Cfg::WS && Cfg::SK_CTAS == 0 && KTILES > 0),
                "serpentine k-walks: persistent warp-specialised tiles, no stream-K, K > 0");
  __device__ __forceinline__ static bool reversed(long long kstep) { return SERP && ((kstep / KTILES) & 1); }
  static_assert(STAGES >= 2, "the pipeline needs at least two stages");
  // wgmma with >= 4 stages keeps one batch of wgmmas in flight across the next iteration's barrier;
  // the prefetch distance PF (k-tiles loaded ahead) then leaves that batch's stage alone (with 3
  // stages, loading 2 k-tiles ahead measured faster on memory-bound shapes than 1 ahead + in flight)
  static constexpr int WG_INFLIGHT = Cfg::WGMMA && STAGES >= 4 ? 1 : 0;
  static constexpr int PF = STAGES - 1 - WG_INFLIGHT;

  // WS (warp-specialised wgmma): warpgroup 0 only loads (cp.async, arriving on the stages' mbarriers),
  // the CW warpgroups after it only compute, MW rows each, and store; no CTA-wide barrier in the k-loop
  static constexpr bool WS = Cfg::WS;
  // PINGPONG (kernels/spec.py's TileConfig.pingpong: persistent warp-specialised tiles, chunked epilogue): the two
  // computing warpgroups take the CTA's tiles in turn, each a whole tile of BM rows (the CTA's j-th tile: warpgroup
  // j % 2), so that one's epilogue runs while the other's wgmmas do. The loaders fill the ring tile after tile as
  // before; a warpgroup starts a tile's k-loop only once the other has issued every wgmma of the tile before
  // (named barriers PP_BAR + j % 2, one arrival a tile), which also keeps its waits on the full barriers within
  // one phase of the loaders. Each stage is read by one warpgroup: its empty barrier counts 4 warps a CTA. (TCCG #12
  // on the H100: 128 x 160 ping-pong tiles 1.53x the time of the cooperative 256 x 160, results/v25_h100/call1-4:
  // 128-row tiles bring 1.3-1.4x the bytes a flop, and the loads already take as long as the tensor work there)
  static constexpr bool PINGPONG = Cfg::PINGPONG;
  static constexpr int PP_BAR = 2;  // (2, 3: the turns; 4, 5: each warpgroup's own barrier before its epilogue)
  static_assert(!PINGPONG || (WS && Cfg::PERSIST && Cfg::EPI_CHUNK && Cfg::SK_CTAS == 0),
                "ping-pong warpgroups: persistent warp-specialised tiles with a chunked epilogue");
  static constexpr int CW = 2, MW = WS ? (PINGPONG ? BM : BM / CW) : 64;
  static constexpr int LTHREADS = WS ? 128 : THREADS;  // threads that load
  // REG_SPLIT (kernels/spec.py's TileConfig.reg_split decides it, REG_SPLIT_REGS the counts): accumulators
  // past 128 a computing thread, TMA tiles only. 384 threads launch with 168 registers each; the one-thread
  // TMA loaders keep LOAD_REGS, the computing threads take COMPUTE_REGS (cp.async loaders hold the mn
  // offsets of their copies and spill with under 168; kernels/build.py refuses a launch count short of it)
  static constexpr bool REG_SPLIT = Cfg::REG_SPLIT;
  static constexpr int LOAD_REGS = Cfg::LOAD_REGS, COMPUTE_REGS = Cfg::COMPUTE_REGS;
  static_assert(REG_SPLIT == (WS && (MW / 64) * BN / 2 > 128) && (!REG_SPLIT || Cfg::TMA_RANK > 0),
                "setmaxnreg for more than 128 accumulators a thread, on TMA tiles");
  static constexpr int ETHREADS = WS ? THREADS - 128 : THREADS;  // threads that compute and store
  // (WS: the warps that read each stage, a CTA: both computing warpgroups', or with PINGPONG one's)
  static constexpr int CONSUMER_WARPS = PINGPONG ? 4 : ETHREADS / 32;
  // (WS: this thread's computing warpgroup, 0 or 1)
  __device__ __forceinline__ static int compute_wg() { return int(threadIdx.x >> 7) - 1; }

  using LA = TileLoader<TA, BM, BK, Cfg::A_VEC, Cfg::A_KMAJOR, LTHREADS, M, K, typename Cfg::MapAm,
                        typename Cfg::MapAk, I, U, Cfg::A_VS, WG, Cfg::L2_PREFETCH>;
  using LB = TileLoader<TB, BN, BK, Cfg::B_VEC, Cfg::B_KMAJOR, LTHREADS, N, K, typename Cfg::MapBn,
                        typename Cfg::MapBk, I, U, Cfg::B_VS, WG, Cfg::L2_PREFETCH>;
  static_assert(Cfg::TMA_RANK == 0 || WS, "TMA boxes feed warp-specialised tiles");
  static_assert(!WS || (WG && MW % 64 == 0 && MW <= 128 && LA::ASYNC && LB::ASYNC && Cfg::OpA::kIdentity &&
                        Cfg::OpB::kIdentity), "warp-specialised tiles: wgmma, whole 64-row "
                "blocks per computing warpgroup, cp.async copies, no op on A or B (applied in a pack instead)");
  __host__ __device__ static constexpr int round16(int x) { return (x + 15) / 16 * 16; }
  // RES_A (kernels/spec.py's TileConfig.resident_a: mma.sync / simt tiles, M <= BM, no batch, A mn-contiguous
  // in smem): A's panel of KTILES * BK rows is copied once per CTA, before its first k-tile, in the layout of
  // a stage KTILES k-tiles deep (k-tile kt's rows are a stage's), and the stages hold B alone; an op on A is
  // applied to the panel once
  static constexpr bool RES_A = Cfg::RES_A;
  using LP = typename Cond<RES_A, TileLoader<TA, BM, int(KTILES * BK), Cfg::A_VEC, Cfg::A_KMAJOR, LTHREADS, M, K,
                                             typename Cfg::MapAm, typename Cfg::MapAk, I, U, Cfg::A_VS, WG,
                                             Cfg::L2_PREFETCH>,
                           LA>::type;
  static_assert(!RES_A || (!WG && !Cfg::A_KMAJOR && M <= BM && BATCH == 1 && KTILES > 0 && LP::PITCH == LA::PITCH),
                "a resident A panel: mma.sync / simt tiles, one tile row, no batch, A mn-major");
  static constexpr int PANEL_BYTES = RES_A ? round16(LP::STAGE_ELEMS * int(sizeof(TA))) : 0;
  __device__ __forceinline__ static TA* panel_of(unsigned char* smem) {  // (at BAR_OFFSET: see SMEM_BYTES)
    return reinterpret_cast<TA*>(smem + BAR_OFFSET);
  }
  static constexpr int A_STAGE_BYTES = RES_A ? 0 : round16(LA::STAGE_ELEMS * int(sizeof(TA)));
  static constexpr int B_STAGE_BYTES = round16(LB::STAGE_ELEMS * int(sizeof(TB)));
  static constexpr int PIPE_BYTES = STAGES * (A_STAGE_BYTES + B_STAGE_BYTES);
  static_assert(!WG || (A_STAGE_BYTES % 1024 == 0 && B_STAGE_BYTES % 1024 == 0), "wgmma stages are whole atoms");

  // SIMT path: thread (tm, tn) owns groups of GM neighbouring rows, GM * TMS rows apart (row(tm, i)),
  // and likewise GN columns (col(tn, j)): on an mn-contiguous smem tile a group is one vector load of
  // up to 16 bytes, and the quarter-warps' loads are conflict-free
  static constexpr int TM = Cfg::TM, TN = Cfg::TN;
  static constexpr int TMS = MMA ? 1 : BM / TM, TNS = MMA ? 1 : BN / TN;
  __host__ __device__ static constexpr int group(int t, int item) {
    int g = 1;
    while (g * 2 <= t && t % (g * 2) == 0 && g * 2 * item <= 16) g *= 2;
    return g;
  }
  // (k-major tiles keep GM = 1: neighbouring rows there are a padded row apart, and groups of them
  //  would put a quarter-warp's scalar loads on a few banks)
  static constexpr int GM = MMA || Cfg::A_KMAJOR ? 1 : group(TM, int(sizeof(TA)));
  static constexpr int GN = MMA || Cfg::B_KMAJOR ? 1 : group(TN, int(sizeof(TB)));
  __device__ __forceinline__ static int row(int tm, int i) { return i % GM + GM * tm + (i / GM) * (GM * TMS); }
  __device__ __forceinline__ static int col(int tn, int j) { return j % GN + GN * tn + (j / GN) * (GN * TNS); }
  // epilogue staging tile: [BM][BN + EPAD] when D is stored along n, else [BN][BM + EPAD]. Without a
  // C to add, the tile holds finished D values (op_d(alpha * acc) rounded to D's type, the same
  // arithmetic as in registers): a narrower D then moves half the shared-memory bytes, and a thread's
  // VD values are one 16-byte load. The pad shifts consecutive rows by 16 bytes (2-byte values: the
  // 8 rows x 4 column pairs of an mma fragment store hit 32 different banks; the simt path's rows of
  // 16 threads) or, on the mma path, 32 bytes (4- and 8-byte values, stored as pairs: 16 threads per
  // wavefront).
  static constexpr bool D_NCONTIG = Cfg::D_NCONTIG;
  static constexpr bool STAGE_D = !Cfg::READ_C && sizeof(TD) < sizeof(TAcc);
  using TE = typename Cond<STAGE_D, TD, TAcc>::type;
  // (simt, D stored along m, threads owning groups of neighbouring columns: those columns are whole
  //  rows of the staging tile apart; an odd pitch spreads them over the banks, and the reads go scalar.
  //  Where B's slots are permuted, the columns of neighbouring threads are neighbours instead)
  static constexpr bool EPI_ODD = !MMA && !D_NCONTIG && GN > 1 && LB::Perm::kIdentity;
  static constexpr int EPAD = EPI_ODD ? 1 : (MMA && sizeof(TE) >= 4 ? 32 : 16) / int(sizeof(TE));
  static constexpr int EC = D_NCONTIG ? BN : BM, ES = D_NCONTIG ? BM : BN;
  static constexpr int EPITCH = EC + EPAD;
  // PERSIST: a CTA walks tiles blockIdx.x, + gridDim.x, ... and its loads run ahead across the tiles
  // (the next tile's first k-tiles arrive while this one's epilogue runs), so the epilogue tile has
  // shared memory of its own, after the pipeline's; otherwise it reuses the pipeline's
  static constexpr bool PERSIST = Cfg::PERSIST;
  // DIRECT_D (kernels/spec.py's KernelSpec.direct_d decides it: persistent TMA tiles, D stored along n in
  // vectors of 2 or more, N even, no C, no run-by-run walk): no staging tile; each computing thread stores
  // its accumulator pairs (n, n + 1) straight to D, so that the whole of shared memory holds stages the
  // loads of the next tile fill meanwhile
  static constexpr bool DIRECT_D = Cfg::DIRECT_D;
  static_assert(!DIRECT_D || (PERSIST && Cfg::TMA_RANK > 0 && !Cfg::READ_C && D_NCONTIG && Cfg::D_VEC >= 2 &&
                              N % 2 == 0 && Cfg::D_RUN == 0), "direct stores of accumulator pairs along n");
  // EPI_CHUNK (kernels/spec.py's TileConfig.chunked: persistent warp-specialised tiles, D stored in vectors along n,
  // or 2-byte D along m, no C, K > 0): each computing warp stages its own 16-row groups, EPI_COLS columns at a time,
  // in a region of its own in the A or B buffer of the tile's last stage (EPI_REG_A regions in A, the rest in B), and
  // stores them from there, with no barrier between the warps; the stage goes back to the loaders after the stores
  // (`store_chunked`): no shared memory of its own, so that the pipeline keeps all its stages while the next
  // tile's loads run during the stores. Along n, region rows are EPI_COLS + EPAD values: an odd number of 16-byte
  // (2-byte values) or 32-byte (4-byte) units apart, whose 8 rows an stmatrix or a fragment row's pairs spread over
  // the banks. Along m, the region holds the 16 rows column by column (stmatrix .trans), each column 16 + EPAD values
  // (three 16-byte units) from the next. EPI_COLS: bn, or the largest multiple of 16 dividing it for which the 8
  // regions fit (kernels/spec.py's KernelSpec.epi_cols chooses it; epi_fits checks it here)
  static constexpr bool EPI_CHUNK = Cfg::EPI_CHUNK;
  // TMA_STORE (kernels/spec.py's TileConfig.tma_store: chunked TMA tiles, 2-byte D whose n and m are each one
  // stride term): a warp's region holds its 16 rows of all BN columns as BN / 32 boxes of 16 x 32 values, 64-byte
  // swizzled (a row's 16-byte unit u at u ^ ((row / 2) % 4): the 8 rows of an stmatrix on distinct banks), and one
  // lane stores them through D's tensor map (cp.async.bulk.tensor); the warp waits until the TMA unit has read
  // them before it stages again or releases the stage. D's edges clip the boxes
  static constexpr bool TMA_STORE = Cfg::TMA_STORE;
  __host__ __device__ static constexpr int epi_region(int cols) {
    return (D_NCONTIG ? 16 * (cols + (TMA_STORE ? 0 : EPAD)) : cols * (16 + EPAD)) * int(sizeof(TE));
  }
  __host__ __device__ static constexpr bool epi_fits(int cols) {
    return cols > 0 && BN % cols == 0 && cols % 16 == 0 && (!D_NCONTIG || cols % Cfg::D_VEC == 0) &&
           A_STAGE_BYTES / epi_region(cols) + B_STAGE_BYTES / epi_region(cols) >= CONSUMER_WARPS;
  }
  static constexpr int EPI_COLS = Cfg::EPI_COLS, EPI_REG_BYTES = epi_region(EPI_COLS > 0 ? EPI_COLS : 16);
  // BALANCED (kernels/spec.py's TileConfig.balanced, KernelSpec.wide_cols): the TILES_N tile columns are the first
  // WIDE_COLS of BN, then the others of WG_NT = BN - 8 (on the narrower Cfg::WgmmaTail; a narrow tile's stage holds
  // the next tile's first 8 columns too, which its wgmmas skip and its epilogue does not store), instead of BN and
  // one partial rest; TURN: the raster groups' turn (tile_coords)
  static constexpr long long WIDE_COLS = Cfg::WIDE_COLS;
  static constexpr bool BALANCED = WIDE_COLS > 0;
  static_assert(!BALANCED || (Cfg::WS && Cfg::PERSIST && EPI_CHUNK && !TMA_STORE && !Cfg::PINGPONG &&
                              Cfg::TMA_RANK > 0 && Cfg::B_TMA_SPLIT == 0 && N % BN != 0 &&
                              WIDE_COLS < (N + BN - 1) / BN),
                "balanced tile columns: chunked persistent TMA tiles, a partial last column");
  // REST_LAST (kernels/spec.py's TileConfig.rest_last: persistent warp-specialised tiles, no clusters, no ping-pong):
  // the walk's last, partial round (NTILES % gridDim.x tiles after the whole rounds) goes to the last CTAs, from the
  // last down, instead of the first. next_tile: the persistent walk's tile after g of ntiles (ntiles or more: none)
  static constexpr bool REST_LAST = Cfg::REST_LAST;
  static_assert(!REST_LAST || (Cfg::PERSIST && Cfg::WS && CLUSTER == 1 && !Cfg::PINGPONG),
                "the rest last: persistent warp-specialised tiles without clusters or ping-pong");
  __device__ __forceinline__ static U next_tile(U g, U ntiles) {
    const U grid = U(gridDim.x);
    if constexpr (REST_LAST) {
      const U whole = ntiles - ntiles % grid;  // (the tiles of the whole rounds)
      if (g >= whole) return ntiles;  // (a CTA takes at most one tile of the rest)
      if (g + grid >= whole) return whole + (grid - 1 - U(blockIdx.x));
    }
    return g + grid;
  }
  // (SHARE_A) whether CTA-tile g is one of a pair that shares A (else of the last odd column's, sharing B)
  __device__ __forceinline__ static bool pair_shares_a(U g) {
    return (BATCH > 1 ? g % U(TILES_R) : g) / 2u < U(A_UNITS);
  }
  // (BALANCED) whether the tile at column n0 is one of the narrow columns, past the wide ones
  __device__ __forceinline__ static bool narrow_tile(U n0) {
    static_assert(!BALANCED || Cfg::WG_NT == BN - 8, "a balanced grid's narrow columns are BN - 8 wide");
    return n0 >= U(WIDE_COLS * BN);
  }
  // (BALANCED) the end of the columns the tile at n0 stores: the next tile's first, or N where that is less
  __device__ __forceinline__ static U n_limit(U n0) {
    const U end = n0 + U(narrow_tile(n0) ? Cfg::WG_NT : BN);
    return end < U(N) ? end : U(N);
  }
  static constexpr int EPI_REG_A = A_STAGE_BYTES / EPI_REG_BYTES;
  static_assert(!EPI_CHUNK || (PERSIST && WS && !DIRECT_D && !Cfg::READ_C && Cfg::D_RUN == 0 &&
                               (D_NCONTIG || (sizeof(TE) == 2 && !TMA_STORE)) &&
                               K > 0 && LA::Perm::kIdentity && LB::Perm::kIdentity && sizeof(TE) == sizeof(TD) &&
                               (sizeof(TE) == 2 || sizeof(TE) == 4) && epi_fits(EPI_COLS) && EPI_REG_BYTES % 16 == 0),
                "chunked epilogues: persistent warp-specialised tiles storing D along n (or 2-byte D along m), no C, "
                "regions that fit");
  static_assert(!TMA_STORE || (EPI_CHUNK && Cfg::TMA_RANK > 0 && sizeof(TE) == 2 && EPI_COLS == BN && BN % 32 == 0 &&
                               EPI_REG_BYTES % 1024 == 0 && A_STAGE_BYTES % 1024 == 0 && B_STAGE_BYTES % 1024 == 0),
                "TMA stores of D: chunked TMA tiles of 2-byte values, whole-bn regions of whole 1024-byte boxes");
  static constexpr int EPI_BYTES = DIRECT_D || EPI_CHUNK ? 0 : round16(ES * EPITCH * int(sizeof(TE)));
  // (wgmma: + 1024 bytes to align the swizzle atoms, which need 1024-byte-aligned stages)
  // (WS: + two mbarriers per stage after the pipeline and epilogue buffers)
  static constexpr int BAR_OFFSET = PERSIST ? PIPE_BYTES + EPI_BYTES : PIPE_BYTES > EPI_BYTES ? PIPE_BYTES : EPI_BYTES;
  // (RES_A: A's panel after the pipeline and epilogue buffers, which it outlives)
  static constexpr int SMEM_BYTES = BAR_OFFSET + PANEL_BYTES + (WG ? 1024 : 0) + (WS ? 16 * STAGES : 0);

  // MMA path: warps tile the block, each warp a WM x WN tile of 16x8 mma tiles
  static constexpr int WM = Cfg::WM, WN = Cfg::WN;
  // (wgmma: warp w of warpgroup g owns rows 64 g + 16 (w % 4) .. + 16 of the accumulator, in the
  //  fragment order of 16x8 mma tiles along n, i.e. MI = 1, NI = BN / 8)
  static constexpr int WARPS_N = MMA ? BN / WN : 1;
  //  WS: a computing warpgroup owns MW rows, MW / 64 blocks of those, MSTEP = 64 rows apart)
  static constexpr int MI = WG ? (WS ? MW / 64 : 1) : MMA ? WM / 16 : 1, NI = MMA ? WN / 8 : 1;
  static constexpr int MSTEP = WS ? 64 : 16;
  static_assert(!MMA || WG || (BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0 && BK % 16 == 0 &&
                               (BM / WM) * (BN / WN) * 32 == THREADS), "bad MMA tile configuration");
  static_assert(!TF32 || (MMA && Cfg::A_KMAJOR && Cfg::B_KMAJOR), "tf32 fragments come from k-major tiles");
  static_assert(!MMA || (TF32 == 2) == Same<TAcc, double>::value,
                "an mma tile accumulates in f64 exactly on the f64 tensor-core path (TF32 == 2)");
  static_assert(MMA || (BM % TM == 0 && BN % TN == 0 && TMS * TNS == THREADS), "bad SIMT tile configuration");

  // a barrier of the threads that compute and store (all of them, but the loaders of a WS tile)
  __device__ __forceinline__ static void sync_compute() {
    if constexpr (WS) named_sync(1, ETHREADS);
    else __syncthreads();
  }
  __device__ __forceinline__ static TE& epi(TE* es, int m, int n) {
    return D_NCONTIG ? es[m * EPITCH + n] : es[n * EPITCH + m];
  }
  // a SIMT thread's T values of one smem row kk at tile coordinates at(0..T-1) (groups of G neighbours):
  // vector loads on an mn-contiguous tile, scalar loads on a k-major one
  template <bool KMAJOR, int G, int T, class L, class TS, class At>
  __device__ __forceinline__ static void simt_fragment(TAcc (&x)[T], const TS* s, int kk, At at) {
    if constexpr (!KMAJOR && G > 1) {
#pragma unroll
      for (int i0 = 0; i0 < T; i0 += G) {
        const Pack<TS, G> v = *reinterpret_cast<const Pack<TS, G>*>(L::at(const_cast<TS*>(s), kk, at(i0)));
#pragma unroll
        for (int e = 0; e < G; ++e) x[i0 + e] = TAcc(to_f(v.e[e]));
      }
    } else {
#pragma unroll
      for (int i = 0; i < T; ++i) x[i] = TAcc(to_f(*L::at(const_cast<TS*>(s), kk, at(i))));
    }
  }
  // FRAG_OP_A / FRAG_OP_B (kernels/spec.py's TileConfig.frag_op_a / frag_op_b: mma.sync tiles, an op on the
  // operand): the op is applied to the operand's fragments in registers after ldmatrix, not to the stage in
  // shared memory between its wait and its barrier. A thread's register j of a fragment holds k = 2 (lane % 4)
  // + {0, 1} of the k-step, 8 more in the second half of the registers (A's 16 x 16: registers 2, 3; B's
  // 16 x 8: register 1); values past K are zero after the op, as on a transformed stage
  static constexpr bool FRAG_OP_A = Cfg::FRAG_OP_A, FRAG_OP_B = Cfg::FRAG_OP_B;
  static_assert(!FRAG_OP_A || (MMA && !WG && !TF32 && !RES_A && !Cfg::OpA::kIdentity),
                "ops on A's fragments: mma.sync tiles (not wgmma, not tf32, no resident panel) with an op on A");
  static_assert(!FRAG_OP_B || (MMA && !WG && !TF32 && !Cfg::OpB::kIdentity),
                "ops on B's fragments: mma.sync tiles (not wgmma, not tf32) with an op on B");
  template <class Op, class T, int R>
  __device__ __forceinline__ static void frag_op(unsigned (&r)[R], U k0, int lane) {
#pragma unroll
    for (int j = 0; j < R; ++j) {
      unsigned out = 0;
#pragma unroll
      for (int e = 0; e < 2; ++e) {  // (TileLoader::transform's arithmetic, on a register's two values)
        const float x = Op::template apply<float>(to_f(from_bits<T>((r[j] >> (16 * e)) & 0xffffu)));
        const T y = from_acc<T>(FULL_K || k0 + U(2 * (lane & 3) + e + 8 * (j / (R / 2))) < U(K) ? x : 0.0f);
        out |= unsigned(to_bits(y)) << (16 * e);
      }
      r[j] = out;
    }
  }
  // the finished D value of an accumulator with no C to add: op_d(alpha * acc), rounded to D's type
  // (SCALE = false: alpha is known to be 1)
  template <bool SCALE = true>
  __device__ __forceinline__ static TD finished(TAcc v, TAcc alpha) {
    if constexpr (SCALE) v = alpha * v;
    if constexpr (!Cfg::OpD::kIdentity) v = Cfg::OpD::template apply<TAcc>(v);
    return from_acc<TD>(v);
  }
  // an accumulator as staged: itself, or (STAGE_D) the finished D value
  __device__ __forceinline__ static TE staged(TAcc v, TAcc alpha) {
    if constexpr (STAGE_D) return finished(v, alpha);
    else return v;
  }

  // grouped rasterisation of unit t over ROWS x COLS: GROUP_M rows at a time, column by column within a group
  // (persistent warp-specialised tiles: each group's columns turned by one more than the group before's, so that a
  //  CTA walking one tile a group, as #12's 132 do on its 4 x 33 groups, takes another column, another B panel,
  //  each time; a cluster's pair keeps one column. #12 f16 on the H100: 0.992-0.996x the time, DRAM throughput
  //  27% against 30%, results/v25_h100/call6/)
  //  (TURN > 1, balanced columns: turned by TURN, so that such a CTA takes few of the wide columns)
  template <long long ROWS, long long COLS>
  __device__ __forceinline__ static void grouped(U t, U& row, U& col) {
    const U width = U(GROUP_M) * U(COLS);
    const U first = (t / width) * U(GROUP_M);
    const U rest = U(ROWS) - first;
    const U gsize = rest < U(GROUP_M) ? rest : U(GROUP_M);
    row = first + (t % width) % gsize;
    col = (t % width) / gsize;
    if constexpr (PERSIST && WS && COLS > 1) col = (col + t / width * U(Cfg::TURN)) % U(COLS);
  }

  // (0) which tile: batch outermost, then grouped rasterisation of the (m, n) tiles
  //     (clusters: consecutive CTAs take consecutive tile rows of one column, TILES_MR rows)
  __device__ __forceinline__ static void tile_coords(U bid, U& bz, U& m0, U& n0) {
    bz = BATCH > 1 ? bid / U(TILES_R) : U(0);
    const U t = BATCH > 1 ? bid % U(TILES_R) : bid;
    U tile_m, tile_n;
    if constexpr (SHARE_A) {  // (pairs u of tiles, the CTA's rank t % 2 within: the rows' pairs of columns, grouped,
                              //  then the last column's pairs of rows)
      const U u = t / 2u, r = t % 2u;
      if (u < U(A_UNITS)) {
        grouped<TILES_M, TILES_N / 2>(u, tile_m, tile_n);
        tile_n = 2u * tile_n + r;
      } else {
        tile_m = 2u * (u - U(A_UNITS)) + r;
        tile_n = U(TILES_N - 1);
      }
    } else if constexpr (GROUP_M > 1 && (TILES_M > GROUP_M || CLUSTER > 1)) {
      grouped<TILES_MR, TILES_N>(t, tile_m, tile_n);
    } else if constexpr (COLUMN_WALK) {
      tile_m = t % U(TILES_MR);
      tile_n = t / U(TILES_MR);
    } else {
      tile_m = t / U(TILES_N);
      tile_n = t % U(TILES_N);
    }
    m0 = tile_m * U(BM);
    n0 = tile_n * U(BN);
    if constexpr (BALANCED)  // (the narrow columns, 8 fewer each, after the WIDE_COLS wide ones)
      if (tile_n > U(WIDE_COLS)) n0 -= (tile_n - U(WIDE_COLS)) * U(BN - Cfg::WG_NT);
  }

  // the coordinates of tile t, its batch's base pointers of A and B, and the loaders' mn offsets for it
  __device__ __forceinline__ static void start_tile(U t, const TA* A, const TB* B, int tid, U& bz, U& m0, U& n0,
                                                    const TA*& Ab, const TB*& Bb, LA& la, LB& lb) {
    tile_coords(t, bz, m0, n0);
    Ab = A + gett_offset<I>(bz, typename Cfg::MapAb{});
    Bb = B + gett_offset<I>(bz, typename Cfg::MapBb{});
    la.init(tid, m0);
    lb.init(tid, n0);
  }

  // (stream-K) one CTA's share of one tile: k-tiles [kb, ke) of stream-K tile `tile`; ws: the launch's
  // workspace (SK_FLAG_BYTES of per-tile arrival counters, zeroed by the host, then two accumulator
  // slots per CTA: its first share when that starts inside a tile, its last when that ends inside one)
  struct Piece {
    long long cta, tile, kb, ke;
    void* ws;
  };
  __device__ __forceinline__ static long long sk_begin(long long c) {
    if constexpr (SK) return c * SK_ITERS / SK_CTAS;
    else return 0;
  }
  // the CTA whose share holds iteration `it` (the largest c with sk_begin(c) <= it)
  __device__ __forceinline__ static long long sk_cta_of(long long it) {
    if constexpr (SK) return ((it + 1) * SK_CTAS - 1) / SK_ITERS;
    else return 0;
  }
  // stream-K CTA c's share of the tile holding iteration `it`, up to its end `end` (sk_begin(c + 1))
  __device__ __forceinline__ static Piece sk_piece(long long c, long long it, long long end, void* ws) {
    const long long kb = it % KTILES;
    return Piece{c, it / KTILES, kb, kb + (end - it) < KTILES ? kb + (end - it) : KTILES, ws};
  }
  __device__ __forceinline__ static long long sk_slot(long long c, long long t0) {
    return c * 2 + (sk_begin(c) > t0 ? 0 : 1);  // (a share starting inside the tile is the CTA's first)
  }
  // after a share's k-loop: a whole tile goes on to its epilogue; a cut one is written to the CTA's slot,
  // and the CTA that arrives last at the tile's counter sums every share in CTA order (the same sum
  // whichever arrives last: deterministic) and goes on to the epilogue; the others stop here
  // (ct: the thread's index among the ETHREADS computing threads, which alone take part)
  template <int R>
  __device__ static bool sk_fixup(TAcc (&acc)[R], const Piece& p, int ct) {
    if (p.kb == 0 && p.ke == KTILES) return true;
    unsigned* flags = reinterpret_cast<unsigned*>(p.ws);
    TAcc* parts = reinterpret_cast<TAcc*>(reinterpret_cast<unsigned char*>(p.ws) + SK_FLAG_BYTES);
    constexpr long long SLOT = (long long)R * ETHREADS;
    const long long t0 = p.tile * KTILES;
    TAcc* mine = parts + sk_slot(p.cta, t0) * SLOT;
#pragma unroll
    for (int i = 0; i < R; ++i) mine[i * ETHREADS + ct] = acc[i];
    __threadfence();
    __shared__ unsigned last;
    sync_compute();
    const long long c_lo = sk_cta_of(t0), c_hi = sk_cta_of(t0 + KTILES - 1);
    if (ct == 0) last = atomicAdd(&flags[p.tile], 1u) == unsigned(c_hi - c_lo);
    sync_compute();
    if (!last) return false;
    __threadfence();
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = TAcc(0);
#pragma unroll 1
    for (long long c = c_lo; c <= c_hi; ++c) {
      const TAcc* src = parts + sk_slot(c, t0) * SLOT;
#pragma unroll
      for (int i = 0; i < R; ++i) acc[i] += __ldcg(src + i * ETHREADS + ct);
    }
    return true;
  }

  __device__ static void run(const TA* __restrict__ A, const TB* __restrict__ B, const TC* __restrict__ C,
                             TD* __restrict__ D, TAcc alpha, TAcc beta, unsigned char* smem,
                             const TmaDesc* tmA = nullptr, const TmaDesc* tmB = nullptr, void* ws = nullptr,
                             const TmaDesc* tmD = nullptr, const TmaDesc* tmBh = nullptr) {
    const int tid = threadIdx.x;
    if constexpr (WG) smem += (1024u - (unsigned)__cvta_generic_to_shared(smem) % 1024u) % 1024u;
    constexpr U NTILES = U(TILES_R) * U(BATCH);  // (clusters: the padded tile rows; an even grid keeps the pairs)
    const U step = PERSIST ? U(gridDim.x) : NTILES;  // (non-persistent: one tile per CTA)

    TA* sA = reinterpret_cast<TA*>(smem);
    TB* sB = reinterpret_cast<TB*>(smem + STAGES * A_STAGE_BYTES);
    auto stA = [&](int s) { return reinterpret_cast<TA*>(reinterpret_cast<unsigned char*>(sA) + s * A_STAGE_BYTES); };
    auto stB = [&](int s) { return reinterpret_cast<TB*>(reinterpret_cast<unsigned char*>(sB) + s * B_STAGE_BYTES); };

    if constexpr (WS) {
      // full[s] = bars[s] (the loaders' copies landed), empty[s] = bars[STAGES + s] (the computing warps'
      // wgmmas have read stage s)
      unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + BAR_OFFSET);
      // (the full barriers count the loaders' arrivals: one, its boxes' bytes expected, from the thread that
      //  issues a TMA stage, else one per loading thread as its cp.async copies land; the empty barriers one
      //  per computing warp, of each CTA of a cluster, as a stage is filled in both; every barrier initialised
      //  in both CTAs of a cluster before either multicasts or arrives remotely)
      const unsigned crank = CLUSTER > 1 ? cluster_rank() : 0u;
      if constexpr (Cfg::TMA_RANK > 0) {  // (the tensor maps into the TMA unit's cache before the first box)
        if (tid == 0) asm volatile("prefetch.tensormap [%0];\nprefetch.tensormap [%1];\n" ::"l"(tmA), "l"(tmB) : "memory");
        if constexpr (HALF_ATOM) {
          if (tid == 0) asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmBh) : "memory");
        }
        if constexpr (TMA_STORE) {
          if (tid == 128) asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmD) : "memory");
        }
      }
      if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) {
          mbar_init(&bars[s], Cfg::TMA_RANK > 0 ? 1u : 128u);
          mbar_init(&bars[STAGES + s], unsigned(CONSUMER_WARPS * CLUSTER));
        }
        if constexpr (CLUSTER > 1) asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
      }
      if constexpr (CLUSTER > 1) cluster_sync();
      else __syncthreads();
      // the CTA's work: its tile whole, (a stream-K CTA) its shares of one to three tiles in order, or
      // (persistent) tiles blockIdx.x, + gridDim.x, ..., the loads running on into the next tile while the
      // computing warpgroups store this one (the epilogue tile has shared memory of its own);
      // kstep: k-tiles through the stage ring so far (both sides count it alike across the shares / tiles)
      // (one copy of the walk per role, `loader` constant in each: the compiler allocates registers per role)
      const bool sk_cta = SK && U(blockIdx.x) >= U(DP_TILES);
      const long long c = (long long)blockIdx.x - DP_TILES, end = sk_cta ? sk_begin(c + 1) : KTILES;
      auto walk = [&](const bool loader) {
        long long kstep = 0;
        U g = U(blockIdx.x);
#pragma unroll 1
        for (long long it = sk_cta ? sk_begin(c) : 0; it < end;) {
          const Piece p = sk_cta ? sk_piece(c, it, end, ws) : Piece{c, 0, 0, KTILES, ws};
          if (sk_cta) g = U(DP_TILES + p.tile);
          U bz, m0, n0;
          tile_coords(g, bz, m0, n0);
          if (loader) {
            // (1') the loading warpgroup (TMA: its first thread; the others idle): k-tile kt into stage q % STAGES
            //      (q = kstep: the ring step) once the wgmmas of ring step q - STAGES released it; the copies
            //      arrive on the stage's full barrier
            if (Cfg::TMA_RANK == 0 || tid == 0) {
              const TA* Ab;
              const TB* Bb;
              LA la;
              LB lb;
              start_tile(g, A, B, tid, bz, m0, n0, Ab, Bb, la, lb);
              const bool rev = reversed(kstep);
#pragma unroll 1
              for (long long kk = p.kb; kk < p.ke; ++kk, ++kstep) {
                const long long kt = rev ? KTILES - 1 - kk : kk;
                const int s = int(kstep % STAGES);
                if (kstep >= STAGES) mbar_wait(&bars[STAGES + s], unsigned((kstep / STAGES - 1) & 1));
                if constexpr (Cfg::TMA_RANK > 0) {  // (the whole stage in a few boxes)
                  mbar_arrive_expect_tx(&bars[s], LA::tx_bytes(m0) + LB::template tx_bytes<HALF_ATOM>(n0));
                  constexpr int TR = Cfg::TMA_RANK, AR = Cfg::A_TMA_ROWS, BR = Cfg::B_TMA_ROWS;
                  constexpr long long AS = Cfg::A_TMA_SPLIT, BS = Cfg::B_TMA_SPLIT;
                  const U k0 = U(kt) * U(BK);
                  if constexpr (SHARE_A) {  // (A's half into both and the whole of B, or (an odd last column) as below)
                    if (pair_shares_a(g)) {
                      LA::template tma_half<TR, AS, AR>(stA(s), tmA, &bars[s], m0, k0, bz, crank);
                      LB::template tma<TR, BS, LB::template HALF_BOXES<BR>, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0,
                                                                                       bz, tmBh);
                    } else {
                      LA::template tma<TR, AS, LA::template HALF_BOXES<AR>>(stA(s), tmA, &bars[s], m0, k0, bz);
                      LB::template tma_half<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, crank, tmBh);
                    }
                  } else {
                    LA::template tma<TR, AS, AR>(stA(s), tmA, &bars[s], m0, k0, bz);
                    if constexpr (CLUSTER > 1)  // (B: this CTA's half, into both; the other half comes from the peer)
                      LB::template tma_half<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, crank, tmBh);
                    else
                      LB::template tma<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, tmBh);
                  }
                } else {
                  la.load(stA(s), Ab, tid, U(kt) * U(BK));
                  lb.load(stB(s), Bb, tid, U(kt) * U(BK));
                  cp_async_mbar_arrive(&bars[s]);
                }
              }
            }
          } else {
            // (PINGPONG: the CTA's tile j = kstep / KTILES is warpgroup j % 2's, the other counts its k-tiles and goes
            //  on; it starts once the other warpgroup has issued tile j - 1's wgmmas, and hands on tile j + 1's turn)
            const long long j = PINGPONG ? kstep / KTILES : 0;
            if (PINGPONG && (j & 1) != (long long)compute_wg()) {
              kstep += KTILES;
            } else {
              if (PINGPONG && j > 0) named_sync(PP_BAR + int((j - 1) & 1), ETHREADS);
              const int turn = PINGPONG && g + U(gridDim.x) < NTILES ? PP_BAR + int(j & 1) : -1;
              auto no_loads = [](int, long long) {};
              tile_body(C, D, alpha, beta, smem, stA, stB, no_loads, kstep, bz, m0, n0, bars,
                        sk_cta ? &p : nullptr, tmD, turn);
            }
          }
          if constexpr (PERSIST) {
            g = next_tile(g, NTILES);
            if (g >= NTILES) break;
            continue;
          }
          if (!sk_cta) break;
          it += p.ke - p.kb;
          __syncthreads();  // (the epilogue's reads of the pipeline's shared memory before the next share's loads)
        }
      };
      // (REG_SPLIT: the loading warpgroup hands registers to the computing ones, which hold MI x BN / 2
      //  accumulators a thread)
      if (tid < 128) {
        if constexpr (REG_SPLIT) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(LOAD_REGS));
        walk(true);
        cp_async_wait_all();
      } else {
        if constexpr (REG_SPLIT) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(COMPUTE_REGS));
        walk(false);
        if constexpr (TMA_STORE) {  // (D's last boxes written before the CTA leaves)
          if ((tid & 31) == 0) tma_store_wait<false>();
        }
      }
      if constexpr (CLUSTER > 1) cluster_sync();  // (no CTA leaves while its peer may still arrive on its barriers)
      return;
    }

    // (RES_A: A's panel, copied once; its copies join the first k-tile's group, whose wait covers them. With
    //  an op on A, the panel lands first and each thread applies it to the values it copied; the first
    //  k-tile's barrier then orders those stores before any thread reads the panel)
    if constexpr (RES_A) {
      TA* pan = panel_of(smem);
      LP lp;
      lp.init(tid, U(0));
      lp.load(pan, A, tid, U(0));
      if constexpr (!Cfg::OpA::kIdentity) {
        cp_async_commit();
        cp_async_wait<0>();
        lp.template transform<typename Cfg::OpA>(pan, tid, U(0));
      }
    }

    // one tile (p == nullptr: all its k-tiles, bounds known at compile time) or a stream-K share p of one,
    // with a pipeline of its own: the prologue fills PF stages, tile_body computes them and stores (or
    // hands the share on)
    auto one_tile = [&](U g, const Piece* p) {
      U bz, m0, n0;
      const TA* Ab;
      const TB* Bb;
      LA la;
      LB lb;
      start_tile(g, A, B, tid, bz, m0, n0, Ab, Bb, la, lb);
      auto load_k = [&](int s, long long nk) {
        if (nk < (p ? p->ke : KTILES)) {
          if constexpr (!RES_A) la.load(stA(s), Ab, tid, U(nk) * U(BK));
          lb.load(stB(s), Bb, tid, U(nk) * U(BK));
        }
        cp_async_commit();
      };
#pragma unroll
      for (int s = 0; s < PF; ++s) load_k(s, (p ? p->kb : 0) + s);
      long long kstep = 0;
      tile_body(C, D, alpha, beta, smem, stA, stB, load_k, kstep, bz, m0, n0, nullptr, p);
    };

    if constexpr (!PERSIST) {
      if (!SK || U(blockIdx.x) < U(DP_TILES)) {  // (one whole tile per CTA)
        one_tile(U(blockIdx.x), nullptr);
        return;
      }
      // a stream-K CTA: its shares of one to three tiles, in order
      const long long c = (long long)blockIdx.x - DP_TILES, end = sk_begin(c + 1);
#pragma unroll 1
      for (long long it = sk_begin(c); it < end;) {
        const Piece p = sk_piece(c, it, end, ws);
        one_tile(U(DP_TILES + p.tile), &p);
        it += p.ke - p.kb;
        __syncthreads();  // (the epilogue's reads of shared memory before the next share's loads)
      }
    } else {
      // persistent: the loads run ahead across this CTA's tiles: tile `ltile`, k-tile `lk` comes next;
      // the loaders hold that tile's mn offsets
      U ltile = U(blockIdx.x), lbz, lm0, ln0;
      long long lk = 0;
      const TA* lAb;
      const TB* lBb;
      LA la;
      LB lb;
      start_tile(ltile, A, B, tid, lbz, lm0, ln0, lAb, lBb, la, lb);
      // issue the copies of the next k-tile into stage s and move on (to the next tile after the last k-tile)
      auto load_next = [&](int s, long long) {
        if (KTILES > 0 && ltile < NTILES) {  // (K == 0: nothing to load, only C to scale)
          if constexpr (!RES_A) la.load(stA(s), lAb, tid, U(lk) * U(BK));
          lb.load(stB(s), lBb, tid, U(lk) * U(BK));
          if (++lk == KTILES) {
            lk = 0;
            ltile += step;
            if (ltile < NTILES) start_tile(ltile, A, B, tid, lbz, lm0, ln0, lAb, lBb, la, lb);
          }
        }
        cp_async_commit();
      };
      // (1) prologue: fill PF stages
#pragma unroll
      for (int s = 0; s < PF; ++s) load_next(s, s);
      long long kstep = 0;  // k-tiles computed by this CTA so far (all its tiles): the stage ring position
#pragma unroll 1
      for (U tile = U(blockIdx.x); tile < NTILES; tile += step) {
        U bz, m0, n0;
        tile_coords(tile, bz, m0, n0);
        tile_body(C, D, alpha, beta, smem, stA, stB, load_next, kstep, bz, m0, n0);
      }
      cp_async_wait<0>();
    }
  }

  // one wgmma W of a warpgroup: its 64-row block mi (from tile row row0; accumulators BN / 2 apart), k-step kk
  template <class W, int R>
  __device__ __forceinline__ static void wg_mma(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0, int mi, int kk) {
    W::run(acc + mi * (BN / 2), wg_desc(As + LA::wg_start(row0 + mi * 64, kk), LA::WG_LBO, LA::WG_SBO),
           wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));
  }
  // a warpgroup's wgmmas on one stage: KS k-steps of 16 (BK / 16, fewer on a partial last k-tile) over its NL
  // 64-row blocks from tile row row0 (accumulators BN / 2 apart), committed as one group; then wait until at most
  // WAIT groups are in flight. W: the wgmma (Cfg::Wgmma; Cfg::WgmmaTail on a warp-specialised grid's partial last
  // column)
  template <int NL, int WAIT, int KS, class W, int R>
  __device__ __forceinline__ static void wg_stage(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0) {
    wg_fence_regs(acc);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < KS * 16; kk += 16)
#pragma unroll
      for (int mi = 0; mi < NL; ++mi) wg_mma<W>(acc, As, Bs, row0, mi, kk);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(WAIT) : "memory");
    wg_fence_regs(acc);
  }
  // a computing warp's release of a stage (its wgmmas have read it; wait_group is warp-wide): one arrival
  // from its first lane on the stage's empty barrier, or (a cluster) on that of each CTA, whose loaders
  // multicast into this one
  __device__ __forceinline__ static void release_stage(unsigned long long* empty) {
    if ((threadIdx.x & 31) == 0) {
      if constexpr (CLUSTER > 1) {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(empty, unsigned(c));
      } else {
        mbar_arrive(empty);
      }
    }
  }
  // a computing warpgroup's wgmmas on stage s of a warp-specialised tile, then the release of the stage before
  // (prev; null on the first k-tile). Two 64-row blocks (NL == 2) go as two groups, in the order of cuBLAS's
  // kernel for this tile: the first block's KS k-steps committed, a wait for every group but that one (the
  // previous stage's), the release, then the second block committed with no wait, so the warps never wait
  // with a whole stage queued (#12 f16 on the H100: 566-573K cycles against 576-591K, results/v24_h100/call1).
  // One block, or ping-pong warpgroups (PINGPONG: the other warpgroup's wgmmas do not interleave with this one's
  // beyond the last of its previous tile, so the two blocks' accumulators alternate k-step by k-step): one group, a
  // wait for the one before, the release. W: as wg_stage's.
  template <int NL, int KS, class W, int R>
  __device__ __forceinline__ static void ws_stage(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0,
                                                  unsigned long long* prev) {
    if constexpr (NL == 2 && !PINGPONG) {
      wg_fence_regs(acc);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
        for (int kk = 0; kk < KS * 16; kk += 16) wg_mma<W>(acc, As, Bs, row0, mi, kk);
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        if (mi == 0) {
          asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
          if (prev) release_stage(prev);
        }
      }
      wg_fence_regs(acc);
    } else {
      wg_stage<NL, 1, KS, W>(acc, As, Bs, row0);
      if (prev) release_stage(prev);
    }
  }
  // (2') the k-loop of a computing warpgroup of a warp-specialised tile whose first NL 64-row blocks are live
  //      (ring steps kstep.. for k-tiles kbeg..kend - 1; its accumulator rows start at tile row crow), on wgmma W
  //      (turn >= 0, PINGPONG: after the last wgmmas are issued, this warp's arrival on named barrier `turn`, which
  //      lets the other warpgroup start its tile)
  template <int NL, class W, class SA, class SB, int R>
  __device__ __forceinline__ static void ws_kloop(TAcc (&acc)[R], SA stA, SB stB, unsigned long long* bars,
                                                  long long kstep, long long kbeg, long long kend, int crow,
                                                  int turn) {
    const long long tail = reversed(kstep) ? 0 : KTILES - 1;  // (the partial k-tile: first on a reversed walk)
#pragma unroll 1
    for (long long kt = kbeg; kt < kend; ++kt) {
      const long long q = kstep + (kt - kbeg);
      const int s = int(q % STAGES);
      mbar_wait(&bars[s], unsigned((q / STAGES) & 1));
      if constexpr (NL > 0) {
        // (the loaders' copies are generic-proxy writes; the wgmma reads through the async proxy, as TMA writes)
        if constexpr (Cfg::TMA_RANK == 0) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        unsigned long long* prev = kt > kbeg ? &bars[STAGES + int((q - 1) % STAGES)] : nullptr;
        if (K_TAIL < BK / 16 && kt == tail)
          ws_stage<NL, K_TAIL, W>(acc, stA(s), stB(s), crow, prev);
        else
          ws_stage<NL, BK / 16, W>(acc, stA(s), stB(s), crow, prev);
      } else if (kt > kbeg) {
        release_stage(&bars[STAGES + int((q - 1) % STAGES)]);
      }
    }
    if (PINGPONG && turn >= 0) named_arrive(turn, ETHREADS);
    if constexpr (NL > 0) {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      wg_fence_regs(acc);
    }
  }

  // ws_kloop on the warpgroup's live 64-row blocks of the tile at row m0 (all MI where no tile row passes M)
  template <class W, class SA, class SB, int R>
  __device__ __forceinline__ static void ws_kloop_rows(TAcc (&acc)[R], SA stA, SB stB, unsigned long long* bars,
                                                       long long kstep, long long kbeg, long long kend, int crow,
                                                       U m0, int turn) {
    if constexpr (FULL_M) {
      ws_kloop<MI, W>(acc, stA, stB, bars, kstep, kbeg, kend, crow, turn);
    } else {
      const long long rest = (M - (long long)m0 - crow + 63) / 64;  // (live blocks of this warpgroup)
      if (rest >= MI) {
        ws_kloop<MI, W>(acc, stA, stB, bars, kstep, kbeg, kend, crow, turn);
      } else if (MI == 2 && rest == 1) {
        ws_kloop<(MI > 1 ? 1 : 0), W>(acc, stA, stB, bars, kstep, kbeg, kend, crow, turn);
      } else {
        ws_kloop<0, W>(acc, stA, stB, bars, kstep, kbeg, kend, crow, turn);
      }
    }
  }

  // (EPI_CHUNK) the epilogue through each computing warp's region (see EPI_CHUNK): per 64-row block of the warpgroup
  // and EPI_COLS columns, the warp stages its 16 rows as finished D values (2-byte values: stmatrix, four 8 x 8
  // fragments at once; else accumulator pairs (n, n + 1) as one store), then stores them in D_VEC-wide vectors along
  // n (TMA_STORE: one lane stores the region's boxes through D's tensor map), and after its last stores releases the
  // stage to the loaders. The other warps' wgmmas have read the stage (the barrier before); no warp reads or writes
  // another's region. alpha == 1 skips the scaling (SCALE)
  template <bool SCALE, int R>
  __device__ __forceinline__ static void warp_stores(const TAcc (&acc)[R], TE* es, TD* __restrict__ Db, TAcc alpha,
                                                     U m0, U n0, int wm0, int lane, const TmaDesc* tmD, U bz) {
    const int g = lane >> 2, q = lane & 3;
    constexpr int VD = Cfg::D_VEC, CW = EPI_COLS, RP = CW + EPAD, RPM = 16 + EPAD, LV = D_NCONTIG ? CW / VD : 16 / VD;
    auto fin = [&](TAcc v) { return finished<SCALE>(v, alpha); };
    const U nlim = BALANCED ? n_limit(n0) : U(N);  // (BALANCED: not a narrow tile's next tile's first columns)
#pragma unroll
    for (int mi = 0; mi < MI; ++mi) {
#pragma unroll  // (whole: a chunk's accumulators are picked at compile time, so they stay in registers)
      for (int c0 = 0; c0 < BN; c0 += CW) {
        __syncwarp();  // (the region's reads of the previous chunk before it is staged again)
        if constexpr (sizeof(TE) == 2) {
          const int j = lane >> 3, r = (lane & 7) + 8 * (j & 1);  // (this lane's row of matrix j)
#pragma unroll
          for (int np = 0; np < CW / 16; ++np) {
            const int ni = c0 / 8 + 2 * np;
            unsigned w[4];
#pragma unroll
            for (int jj = 0; jj < 4; ++jj) {  // (matrix jj: rows 8 (jj & 1) .., columns of ni + (jj >> 1))
              const TAcc* a = &acc[(mi * NI + ni + (jj >> 1)) * 4 + 2 * (jj & 1)];
              w[jj] = bits_pair(fin(a[0]), fin(a[1]));
            }
            const int u = 2 * np + (j >> 1);  // (this lane's 16-byte unit of the row)
            if constexpr (!D_NCONTIG)  // (along m: this lane's address is column 8 u + lane % 8's, rows 8 (j & 1) ..)
              stmatrix_x4_trans(&es[(8 * u + (lane & 7)) * RPM + 8 * (j & 1)], w[0], w[1], w[2], w[3]);
            else if constexpr (TMA_STORE)  // (box u / 4, row r, unit u % 4 swizzled)
              stmatrix_x4(&es[(u >> 2) * 512 + r * 32 + (((u & 3) ^ ((r >> 1) & 3)) << 3)], w[0], w[1], w[2], w[3]);
            else
              stmatrix_x4(&es[r * RP + u * 8], w[0], w[1], w[2], w[3]);
          }
        } else {
#pragma unroll
          for (int nc = 0; nc < CW / 8; ++nc)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
              const TAcc* a = &acc[(mi * NI + c0 / 8 + nc) * 4 + 2 * h];
              *reinterpret_cast<Pack<TE, 2>*>(&es[(g + 8 * h) * RP + nc * 8 + 2 * q]) =
                  Pack<TE, 2>{{fin(a[0]), fin(a[1])}};
            }
        }
        const U row0 = m0 + U(wm0 + mi * 64);
        if constexpr (TMA_STORE) {
          // (the stmatrix writes, generic proxy, before the TMA unit reads them)
          asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
          __syncwarp();
          if (lane == 0) {
#pragma unroll
            for (int b = 0; b < BN / 32; ++b)
              if (FULL_N || n0 + U(32 * b) < U(N)) {
                const int c[4] = {int(n0) + 32 * b, int(row0), int(bz), 0};
                tma_store_box<Cfg::TMA_RANK>(es + b * 512, tmD, c);
              }
            tma_store_wait<true>();
          }
          continue;  // (the __syncwarp at the top of the next chunk: the region is read)
        }
        __syncwarp();
        // (the stores: along n, vector v of row o is columns c0 + v ..; along m, vector v of column o is rows v ..,
        //  a lane pair writing a column's 32 bytes, one sector where D is aligned. Plain stores: #12 f16 on the H100
        //  0.994-0.998x the time of st.global.cg, st.global.cs 0.995-0.999x, results/v26_h100/call2b/)
        constexpr int NV = (D_NCONTIG ? 16 : CW) * LV, OP = D_NCONTIG ? RP : RPM;
#pragma unroll
        for (int idx0 = 0; idx0 < NV; idx0 += 32) {
          const int idx = idx0 + lane, o = idx / LV, v = (idx % LV) * VD;
          if (NV % 32 != 0 && idx >= NV) break;
          const U gm = row0 + U(D_NCONTIG ? o : v), gn = n0 + U(c0 + (D_NCONTIG ? v : o));
          if (!(FULL_M || gm < U(M)) || !(FULL_N || gn < (BALANCED ? nlim : U(N)))) continue;
          TD* dst = Db + gett_offset<I>(gm, typename Cfg::MapDm{}) + gett_offset<I>(gn, typename Cfg::MapDn{});
          if constexpr (D_NCONTIG) {  // (a Pack copy: the SASS the v27 headline measured; copy_vec renames registers)
            Pack<TD, VD> out;
            load_run<VD, VD>(out.e, &es[o * OP + v]);
            *reinterpret_cast<Pack<TD, VD>*>(dst) = out;
          } else {  // (along m the Pack copy was split into 2- and 4-byte stores)
            copy_vec<TD, VD>(dst, &es[o * OP + v]);
          }
        }
      }
    }
  }
  template <int R>
  __device__ __forceinline__ static void store_chunked(const TAcc (&acc)[R], unsigned char* sa, unsigned char* sb,
                                                       unsigned long long* empty, TD* __restrict__ D, TAcc alpha, U bz,
                                                       U m0, U n0, int wm0, const TmaDesc* tmD) {
    const int lane = threadIdx.x & 31,
              cw = PINGPONG ? int(threadIdx.x >> 5) & 3 : int(threadIdx.x >> 5) - (THREADS - ETHREADS) / 32;
    TE* es = reinterpret_cast<TE*>(cw < EPI_REG_A ? sa + cw * EPI_REG_BYTES : sb + (cw - EPI_REG_A) * EPI_REG_BYTES);
    TD* Db = D + gett_offset<I>(bz, typename Cfg::MapDb{});
    if (alpha == TAcc(1))
      warp_stores<false>(acc, es, Db, alpha, m0, n0, wm0, lane, tmD, bz);
    else
      warp_stores<true>(acc, es, Db, alpha, m0, n0, wm0, lane, tmD, bz);
    // (the loaders' TMA writes into the stage, async proxy, after these generic accesses)
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    if constexpr (TMA_STORE) __syncwarp();  // (lane 0's wait: the TMA unit has read the region)
    release_stage(empty);
  }

  // (DIRECT_D) a computing thread's accumulators straight to D: per wgmma fragment row, pairs of
  // neighbouring columns (n, n + 1) as one store (D_VEC >= 2: contiguous and aligned), the row and column
  // offsets each computed once. QUAD_D (kernels/spec.py's KernelSpec.quad_d: 2-byte D in aligned vectors of 8 along
  // n, BN a multiple of 32): the four lanes of a quad, which hold one fragment row's pairs of four 8-column groups,
  // exchange them (a 4 x 4 transpose in two shfl.xor rounds) so that lane q stores group q's 8 columns as one
  // 16-byte vector: a warp's store writes whole 32-byte sectors, 8 rows of 64 bytes
  static constexpr bool QUAD_D = Cfg::QUAD_D;
  static_assert(!QUAD_D || (DIRECT_D && sizeof(TD) == 2 && Cfg::D_VEC >= 8 && BN % 32 == 0 && N % 8 == 0),
                "direct stores of whole 16-byte vectors along n");
  template <int R>
  __device__ __forceinline__ static void store_direct(const TAcc (&acc)[R], TD* __restrict__ D, TAcc alpha, U bz,
                                                      U m0, U n0, int wm0) {
    const int lane = threadIdx.x & 31, g = lane >> 2, q = lane & 3;
    TD* Db = D + gett_offset<I>(bz, typename Cfg::MapDb{});
    I roff[MI][2];
    bool rok[MI][2];
#pragma unroll
    for (int mi = 0; mi < MI; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const U gm = m0 + U(wm0 + mi * MSTEP + g + h * 8);
        rok[mi][h] = FULL_M || gm < U(M);
        roff[mi][h] = rok[mi][h] ? gett_offset<I>(gm, typename Cfg::MapDm{}) : I(0);
      }
    if constexpr (QUAD_D) {
#pragma unroll
      for (int j = 0; j < NI / 4; ++j) {
        const U gn = n0 + U(32 * j + 8 * q);  // (this lane's vector: N is a multiple of 8, so it is whole or past N)
        const bool cok = FULL_N || gn < U(N);
        const I coff = cok ? gett_offset<I>(gn, typename Cfg::MapDn{}) : I(0);
#pragma unroll
        for (int mi = 0; mi < MI; ++mi)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            unsigned x[4];  // (x[k]: columns 32 j + 8 k + 2 q, + 1 of the row)
#pragma unroll
            for (int k = 0; k < 4; ++k) {
              const TAcc* a = &acc[(mi * NI + 4 * j + k) * 4 + 2 * h];
              x[k] = bits_pair(finished(a[0], alpha), finished(a[1], alpha));
            }
            // (round b swaps bit b of the lane and of the index: a lane sends the words whose index bit differs from
            //  its own and takes its partner's in their place; after both, x[k] is lane k's word q: columns
            //  32 j + 8 q + 2 k, + 1)
#pragma unroll
            for (int b = 1; b <= 2; b *= 2) {
              const bool hi = q & b;
#pragma unroll
              for (int p = 0; p < 4; ++p) {
                if (p & b) continue;  // (the pair p, p + b)
                const unsigned got = __shfl_xor_sync(0xffffffffu, hi ? x[p] : x[p + b], b);
                if (hi) x[p] = got;
                else x[p + b] = got;
              }
            }
            if (rok[mi][h] && cok)
              *reinterpret_cast<uint4*>(Db + roff[mi][h] + coff) = make_uint4(x[0], x[1], x[2], x[3]);
          }
      }
      return;
    }
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) {
      const U gn = n0 + U(ni * 8 + 2 * q);
      if (!(FULL_N || gn < U(N))) continue;
      const I coff = gett_offset<I>(gn, typename Cfg::MapDn{});  // (N even: gn + 1 < N too)
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          if (!rok[mi][h]) continue;
          const TAcc* a = &acc[(mi * NI + ni) * 4 + 2 * h];
          *reinterpret_cast<Pack<TD, 2>*>(Db + roff[mi][h] + coff) = Pack<TD, 2>{{finished(a[0], alpha),
                                                                                    finished(a[1], alpha)}};
        }
    }
  }

  template <class SA, class SB, class LoadNext>
  __device__ __forceinline__ static void tile_body(const TC* __restrict__ C, TD* __restrict__ D, TAcc alpha,
                                                   TAcc beta, unsigned char* smem, SA stA, SB stB,
                                                   LoadNext& load_next, long long& kstep, U bz, U m0, U n0,
                                                   unsigned long long* bars = nullptr, const Piece* piece = nullptr,
                                                   const TmaDesc* tmD = nullptr, int turn = -1) {
    const int tid = threadIdx.x;

    // accumulators
    constexpr int ACC_R = MMA ? MI * NI * 4 : TM * TN;
    using SR = typename Cfg::SR;  // the sum over k: fma, or a semiring's add(acc, mul(x, y)) (simt only)
    static_assert(SR::kStandard || !MMA, "semirings run on the simt path");
    TAcc acc[ACC_R];
#pragma unroll
    for (int i = 0; i < ACC_R; ++i) acc[i] = SR::template zero<TAcc>();

    const int lane = tid & 31, warp = tid >> 5;
    const int wm0 = WS   ? (PINGPONG ? 0 : ((warp >> 2) - 1) * MW) + (warp & 3) * 16
                    : WG ? (warp >> 2) * 64 + (warp & 3) * 16
                    : MMA ? (warp / WARPS_N) * WM : 0;
    const int wn0 = WG ? 0 : MMA ? (warp % WARPS_N) * WN : 0;
    const int tm = MMA ? 0 : tid / TNS, tn = MMA ? 0 : tid % TNS;

    if constexpr (WS) {
      // (2') a computing warpgroup: wait for stage s to land, its MI x BK / 16 wgmmas, and the release of the
      //      stage of the previous k-tile once its wgmmas are complete (ws_stage: with two 64-row blocks, between
      //      the blocks)
      //      (ring step q = kstep + kt - kbeg: the loaders count the same steps across stream-K shares)
      //      Its 64-row blocks wholly past M (a partial last tile row) issue no wgmma: the warpgroup's
      //      first NL blocks are live, the loop is instantiated per NL (no branch among the wgmmas)
      const int crow = PINGPONG ? 0 : ((warp >> 2) - 1) * MW;
      long long kbeg = 0, kend = KTILES;
      if constexpr (SK) {
        if (piece) kbeg = piece->kb, kend = piece->ke;
      }
      //      The tiles of the last column, where N is not a multiple of BN, or of a balanced grid's narrow columns run
      //      the narrower Cfg::WgmmaTail (WG_NT columns: the accumulators past them stay zero, and the epilogue
      //      stores none of their columns)
      //      (the unbalanced grids' condition written out here, and n_limit's bound in warp_stores: with narrow_tile and
      //      n_limit deciding every grid, #12 f16 compiled to other SASS that ran 1.003-1.004x the time,
      //      results/v26_h100/call3b/)
      if (BALANCED ? narrow_tile(n0) : Cfg::WG_NT < BN && n0 + U(BN) > U(N))
        ws_kloop_rows<typename Cfg::WgmmaTail>(acc, stA, stB, bars, kstep, kbeg, kend, crow, m0, turn);
      else
        ws_kloop_rows<typename Cfg::Wgmma>(acc, stA, stB, bars, kstep, kbeg, kend, crow, m0, turn);
      kstep += kend - kbeg;
      // (the last step's stage, which the next share or tile reuses)
      // (EPI_CHUNK: after the epilogue, which stages D in it)
      if ((SK || PERSIST) && !EPI_CHUNK && kend > kbeg) release_stage(&bars[STAGES + int((kstep - 1) % STAGES)]);
    } else {
    // (2) main loop over the k-tiles (the pipeline's stages go round across this CTA's tiles: kstep)
    long long kbeg = 0, kend = KTILES;  // (stream-K: a share of the k-tiles)
    if constexpr (SK) {
      if (piece) kbeg = piece->kb, kend = piece->ke;
    }
    for (long long kt = kbeg; kt < kend; ++kt) {
      const long long ks = PERSIST ? kstep++ : kt - kbeg;  // (one tile per CTA: the ring starts with it)
      const int s = int(ks % STAGES);
      cp_async_wait<PF - 1>();
      if constexpr (!Cfg::OpA::kIdentity && !RES_A && !FRAG_OP_A)
        LA{}.template transform<typename Cfg::OpA>(stA(s), tid, U(kt) * U(BK));
      if constexpr (!Cfg::OpB::kIdentity && !FRAG_OP_B)
        LB{}.template transform<typename Cfg::OpB>(stB(s), tid, U(kt) * U(BK));
      // (the wgmma reads shared memory through the async proxy: make this thread's writes visible to it)
      if constexpr (WG) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
      // (2a) prefetch the k-tile PF steps ahead (of this tile or, persistent, the next) into the stage
      //      computed STAGES - PF iterations ago (the barrier above is after every warp finished reading it)
      load_next(int((ks + PF) % STAGES), kt + PF);
      // (2b) compute stage s
      const TA* As = RES_A ? panel_of(smem) + U(kt) * U(BK * LA::PITCH) : stA(s);
      const TB* Bs = stB(s);
      if constexpr (WG) {
        // BK / 16 wgmmas of this warpgroup's 64 rows x BN; WG_INFLIGHT of these batches stay in flight
        // past the next barrier, so the stage they read is refilled two iterations later (PF)
        wg_stage<1, WG_INFLIGHT, BK / 16, typename Cfg::Wgmma>(acc, As, Bs, (warp >> 2) * 64);
      } else if constexpr (MMA) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += KSTEP) {
          unsigned af[MI][4], bf[NI][2];
          const int li = lane >> 3, lr = lane & 7;
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
            // matrix li: rows (m) + (li & 1) * 8, k + (li >> 1) * KSTEP / 2; lane supplies row lr (an 8x8
            // b16 matrix is 8 x 4 tf32 values: the same instruction loads the tf32 fragments)
            const int mrow = wm0 + mi * 16 + (li & 1) * 8;
            const int kcol = kk + (li >> 1) * (KSTEP / 2);
            if constexpr (Cfg::A_KMAJOR)
              ldmatrix_x4<false>(af[mi], As + (mrow + lr) * LA::PITCH + kcol);
            else
              ldmatrix_x4<true>(af[mi], As + (kcol + lr) * LA::PITCH + mrow);
            if constexpr (FRAG_OP_A) frag_op<typename Cfg::OpA, TA>(af[mi], U(kt) * U(BK) + U(kk), lane);
          }
#pragma unroll
          for (int ni = 0; ni < NI; ++ni) {
            // matrix (lane >> 3) & 1: k + 8 * that; lanes 16..31 repeat lanes 0..15 (ignored by .x2)
            const int j = (lane >> 3) & 1;
            const int ncol = wn0 + ni * 8;
            if constexpr (Cfg::B_KMAJOR)
              ldmatrix_x2<false>(bf[ni], Bs + (ncol + lr) * LB::PITCH + kk + j * (KSTEP / 2));
            else
              ldmatrix_x2<true>(bf[ni], Bs + (kk + j * 8 + lr) * LB::PITCH + ncol);
            if constexpr (FRAG_OP_B) frag_op<typename Cfg::OpB, TB>(bf[ni], U(kt) * U(BK) + U(kk), lane);
          }
          if constexpr (TF32 == 2) {
            mma_f64_tile<MI, NI>(acc, af, bf);
          } else if constexpr (TF32) {
            mma_tf32_tile<TF32, MI, NI>(acc, af, bf);
          } else {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
              for (int ni = 0; ni < NI; ++ni)
                Mma<TA>::run(&acc[(mi * NI + ni) * 4], af[mi], bf[ni]);
          }
        }
      } else {
#pragma unroll
        for (int kk = 0; kk < BK; ++kk) {
          // zero-filled k >= K slots add 0 * x to an ordinary sum; a semiring must skip them
          if constexpr (!SR::kStandard && !FULL_K)
            if (U(kt) * U(BK) + U(kk) >= U(K)) break;
          TAcc a[TM], b[TN];
          simt_fragment<Cfg::A_KMAJOR, GM, TM, LA>(a, As, kk, [&](int i) { return row(tm, i); });
          simt_fragment<Cfg::B_KMAJOR, GN, TN, LB>(b, Bs, kk, [&](int j) { return col(tn, j); });
          // (b[j] stays in the operand reuse cache down the column; the other two sources, a[i] and the
          //  accumulator, then sit in different register banks more often than row by row: #20's FFMAs on
          //  same-bank pairs 43% -> 19% on #20's 128 x 64 tile, 6.08 -> 5.89 ms on the H100; with a 128-register
          //  cap, 70% -> 57%, results/v10_h100/call4/probe_order.txt)
#pragma unroll
          for (int j = 0; j < TN; ++j)
#pragma unroll
            for (int i = 0; i < TM; ++i) acc[i * TN + j] = SR::madd(acc[i * TN + j], a[i], b[j]);
        }
      }
    }
    }  // (k-loop of the non-warp-specialised paths)
    if constexpr (WG_INFLIGHT && !WS) {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      wg_fence_regs(acc);
    }
    if constexpr (!PERSIST) {  // (the staging tile reuses the pipeline buffers: drain them first)
      cp_async_wait<0>();
      sync_compute();
    } else if constexpr (WS && !DIRECT_D) {  // (no barrier in a warp-specialised k-loop: the last tile's stores read
      //  the staging tile; EPI_CHUNK: both warpgroups' wgmmas have read the last stage before it is staged in;
      //  PINGPONG: this warpgroup's, the stage's only reader)
      if constexpr (PINGPONG) named_sync(PP_BAR + 2 + compute_wg(), 128);
      else sync_compute();
    }  // (persistent: the staging tile is its own; the k-loop's barriers order it after the last tile's reads)
    if constexpr (SK) {
      if (piece && !sk_fixup(acc, *piece, tid - (THREADS - ETHREADS))) return;
    }
    if constexpr (DIRECT_D) {
      store_direct(acc, D, alpha, bz, m0, n0, wm0);
      return;
    }
    if constexpr (EPI_CHUNK) {
      const int last = int((kstep - 1) % STAGES);  // (the tile's last stage: K > 0)
      store_chunked(acc, reinterpret_cast<unsigned char*>(stA(last)), reinterpret_cast<unsigned char*>(stB(last)),
                    &bars[STAGES + last], D, alpha, bz, m0, n0, wm0, tmD);
      return;
    }

    // (3) stage the accumulator tile in shared memory, each value at its tile coordinate (the loaders'
    //     slot permutations undone)
    TE* es = reinterpret_cast<TE*>(smem + (PERSIST ? PIPE_BYTES : 0));
    using PA = typename LA::Perm;
    using PB = typename LB::Perm;
    if constexpr (MMA) {
      const int g = lane >> 2, q = lane & 3;
      // (n, n + 1) are neighbours in the staging tile when B's slots are not permuted and D runs along n
      constexpr bool PAIR = D_NCONTIG && LB::Perm::kIdentity;
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int m = PA::coord(wm0 + mi * MSTEP + g + h * 8), n = wn0 + ni * 8 + 2 * q;
            const TE v0 = staged(acc[(mi * NI + ni) * 4 + 2 * h], alpha);
            const TE v1 = staged(acc[(mi * NI + ni) * 4 + 2 * h + 1], alpha);
            if constexpr (PAIR) {
              *reinterpret_cast<Pack<TE, 2>*>(&epi(es, m, n)) = Pack<TE, 2>{{v0, v1}};
            } else {
              epi(es, m, PB::coord(n)) = v0;
              epi(es, m, PB::coord(n + 1)) = v1;
            }
          }
    } else if constexpr (D_NCONTIG && LB::Perm::kIdentity && GN > 1) {  // GN neighbours of a row: one store
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j0 = 0; j0 < TN; j0 += GN) {
          Pack<TE, GN> v;
#pragma unroll
          for (int e = 0; e < GN; ++e) v.e[e] = staged(acc[i * TN + j0 + e], alpha);
          *reinterpret_cast<Pack<TE, GN>*>(&epi(es, PA::coord(row(tm, i)), col(tn, j0))) = v;
        }
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          epi(es, PA::coord(row(tm, i)), PB::coord(col(tn, j))) = staged(acc[i * TN + j], alpha);
    }
    sync_compute();

    // (4) epilogue: D = op_d(alpha * acc + beta * op_c(C)), VD elements per store along D's
    //     contiguous dimension, coalesced across the threads
    //     D_RUN > 0: D's stride-1 run along the store dimension is only D_RUN elements long and goes on
    //     over the first D_CONT coordinates of the other dimension (ccsd_t's outputs); the threads then
    //     walk (run, continuation, next run, ...) so that a warp stores one contiguous stretch of D
    constexpr int VD = Cfg::D_VEC;
    constexpr int LVD = EC / VD;
    constexpr int DR = Cfg::D_RUN, DC = DR ? Cfg::D_CONT : 1;
    constexpr int RV = DR ? DR / VD : 1, EH = DR ? (EC + DR - 1) / DR : 1;
    constexpr int NVD = DR ? RV * DC * EH * ((ES + DC - 1) / DC) : LVD * ES;
    static_assert(EC % VD == 0, "D vector width must divide the tile");
    static_assert(!DR || (DR % VD == 0 && DC >= 1), "a D run is whole vectors");
    TD* Db = D + gett_offset<I>(bz, typename Cfg::MapDb{});
    const TC* Cb = nullptr;
    if constexpr (Cfg::READ_C) Cb = C + gett_offset<I>(bz, typename Cfg::MapCb{});
#pragma unroll 1
    for (int idx = tid - (THREADS - ETHREADS); idx < NVD; idx += ETHREADS) {  // (WS: the computing threads)
      int ec, sl;  // coordinates along the store dimension and the other one
      if constexpr (DR > 0) {
        const int r = idx / RV, r2 = r / DC;
        ec = (idx % RV) * VD + DR * (r2 % EH);
        sl = r % DC + DC * (r2 / EH);
        if (ec >= EC || sl >= ES) continue;
      } else {
        ec = (idx % LVD) * VD;
        sl = idx / LVD;
      }
      const int m = D_NCONTIG ? sl : ec, n = D_NCONTIG ? ec : sl;
      const U gm = m0 + U(m), gn = n0 + U(n);
      if (!(FULL_M || gm < U(M)) || !(FULL_N || gn < U(N))) continue;
      Pack<TD, VD> out;
      TE ev[VD];  // the VD staged values along the store dimension (contiguous in the staging tile)
      load_run<VD, EPI_ODD ? 1 : VD>(ev, &epi(es, m, n));
      if constexpr (STAGE_D) {  // (finished values)
#pragma unroll
        for (int e = 0; e < VD; ++e) out.e[e] = ev[e];
      } else {
        I coff_fixed = 0;
        if constexpr (Cfg::READ_C) {
          coff_fixed = D_NCONTIG ? gett_offset<I>(gm, typename Cfg::MapCm{}) : gett_offset<I>(gn, typename Cfg::MapCn{});
        }
#pragma unroll
        for (int e = 0; e < VD; ++e) {
          TAcc v = alpha * TAcc(ev[e]);
          if constexpr (Cfg::READ_C) {
            const I coff = coff_fixed + (D_NCONTIG ? gett_offset<I>(gn + U(e), typename Cfg::MapCn{})
                                                   : gett_offset<I>(gm + U(e), typename Cfg::MapCm{}));
            v += beta * TAcc(Cfg::OpC::template apply<TAcc>(TAcc(to_f(Cb[coff]))));
          }
          if constexpr (!Cfg::OpD::kIdentity) v = Cfg::OpD::template apply<TAcc>(v);
          out.e[e] = from_acc<TD>(v);
        }
      }
      const I doff = gett_offset<I>(gm, typename Cfg::MapDm{}) + gett_offset<I>(gn, typename Cfg::MapDn{});
      *reinterpret_cast<Pack<TD, VD>*>(Db + doff) = out;
    }
  }
};


// ------------------------------------------------------------------------------------------------
// Row-stream tiles (kernels/spec.py's TileConfig.rows): a long narrow GEMM whose wide input A is read k-major in
// whole rows of K contiguous elements, each row's place a function of m = i + P j (i < P, j < Q = M / P) with
// offset MapAm(i) + j K, so the rows of one i and consecutive j lie back to back (TCCG #2: A[d, c, a], m = (a, c),
// P = 312, rows of 312 halves, N = 24). A persistent CTA takes the units blockIdx.x, + gridDim.x, ... of UA values of
// i by UC of j (BM = UA x UC rows; units j-block first, so the CTAs running together read one compact stretch of A,
// as a grid-stride copy does), each landed by one 1-d bulk copy per i (UC rows) in a ring of STAGES stages on
// mbarriers. B sits in shared memory as [n][k] for the whole launch, its mma fragments in registers; the CTA's warps
// are RW 16-row blocks x ROWS parts of K, each summing its part of its block's rows with mma.sync m16n8k16 (and one
// m16n8k8 where K % 16 = 8); the parts meet in a staging tile, from which each thread stores one (n, j) run of UA
// values of D along i, in vectors of ROWS_DV (D's stride-1 run). A row's smem pitch is an odd number of 16-byte units
// (ldmatrix without bank conflicts): K x 2 bytes where that is odd (one copy per i), else 16 more (a copy per row).
// On the H100, #2 f16: 0.0255-0.0270 ms against the warp-specialised wgmma tile's 0.0275-0.0280 (tccg/results/v30_h100/).
template <class T> struct Mma8;
template <> struct Mma8<__half> {
  __device__ __forceinline__ static void run(float* c, const unsigned (&a)[2], unsigned b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(b));
  }
};
template <> struct Mma8<__nv_bfloat16> {
  __device__ __forceinline__ static void run(float* c, const unsigned (&a)[2], unsigned b) {
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]) : "r"(a[0]), "r"(a[1]), "r"(b));
  }
};
__device__ __forceinline__ void ldmatrix_x1(unsigned& r, const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];\n" : "=r"(r) : "r"(smem_addr(p)));
}
// a 1-d bulk copy of `bytes` (a multiple of 16, both addresses 16-byte aligned) completing on mbarrier `b`
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
               ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(b)) : "memory");
}
__host__ __device__ constexpr int rows_stage_pitch(int x) { return x % 16 == 4 || x % 16 == 12 ? x : rows_stage_pitch(x + 1); }

template <class Cfg>
struct Rows {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  using TC = typename Cfg::TC;
  using TD = typename Cfg::TD;
  using TAcc = typename Cfg::TAcc;
  using I = typename Cfg::Index;
  using U = typename Cfg::UIndex;
  static constexpr long long M = Cfg::M, N = Cfg::N, K = Cfg::K, P = Cfg::ROWS_P, Q = M / P;
  static constexpr int PARTS = Cfg::ROWS, UR = Cfg::BM, UA = Cfg::ROWS_RUN, UC = UR / UA, DV = Cfg::ROWS_DV;
  static constexpr int NT = Cfg::BN / 8, S = Cfg::STAGES, THREADS = Cfg::THREADS, RW = THREADS / 32 / PARTS;
  static constexpr int PITCH = Cfg::ROWS_PITCH, STAGE = UR * PITCH;
  static constexpr bool RUNS = PITCH == int(K) * 2;  // (one copy per i: its UC rows land back to back)
  static constexpr long long NJ = (Q + UC - 1) / UC, UNITS = (P + UA - 1) / UA * NJ;
  static constexpr int KS = int(K / 16), KS_H = (KS + PARTS - 1) / PARTS;  // k-steps of 16, and of a part
  // the staging tile: PARTS copies of [n][j][i] floats, i runs of UA + 1 and n rows 4 or 12 (mod 16) floats apart
  static constexpr int UP = UA + 1, DST_PITCH = rows_stage_pitch(UC * UP), DST = int(N) * DST_PITCH;
  static constexpr int B_OFF = S * STAGE, DST_OFF = B_OFF + NT * 8 * PITCH;
  static constexpr int BAR_OFF = (DST_OFF + PARTS * DST * 4 + 7) / 8 * 8;
  static constexpr int SMEM_BYTES = BAR_OFF + S * 8;
  static_assert(Cfg::MMA && !Cfg::WGMMA && !Cfg::WS && Cfg::TMA_RANK == 0 && Cfg::SK_CTAS == 0 && Cfg::BATCH == 1 &&
                    Cfg::SR::kStandard && !Cfg::TF32 && sizeof(TA) == 2 && Same<TA, TB>::value && Same<TAcc, float>::value,
                "row-stream tiles: f16 / bf16 mma.sync, no batch, the ordinary sum");
  static_assert(UR == 16 * RW && RW * PARTS * 32 == THREADS && UR % UA == 0 && UA % DV == 0 && N <= NT * 8 &&
                    K % 8 == 0 && K >= 16 && PITCH % 32 == 16 && PITCH >= 2 * K && M % P == 0 && P % DV == 0,
                "row-stream tile shape");

  // op_a on a fragment register's two values
  __device__ __forceinline__ static unsigned op_a(unsigned r) {
    if constexpr (Cfg::OpA::kIdentity) {
      return r;
    } else {
      const float lo = Cfg::OpA::template apply<float>(to_f(from_bits<TA>(r & 0xffffu)));
      const float hi = Cfg::OpA::template apply<float>(to_f(from_bits<TA>(r >> 16)));
      return bits_pair(from_acc<TA>(lo), from_acc<TA>(hi));
    }
  }

  // unit t of this CTA into stage t % S (one thread): ni values of i, each rows values of j from j0
  __device__ __forceinline__ static void issue(const TA* __restrict__ A, long long t, unsigned char* smem,
                                               unsigned long long* bars) {
    const long long u = blockIdx.x + t * gridDim.x, ib = u / NJ, j0 = (u % NJ) * UC;
    const int rows = int(Q - j0 < UC ? Q - j0 : UC), ni = int(P - ib * UA < UA ? P - ib * UA : UA);
    const int s = int(t % S);
    const unsigned bytes = unsigned(rows) * unsigned(K) * 2u;
    mbar_arrive_expect_tx(&bars[s], bytes * unsigned(ni));
    unsigned char* st = smem + s * STAGE;
    for (int a = 0; a < ni; ++a) {
      const TA* src = A + gett_offset<I>(U(ib * UA + a), typename Cfg::MapAm{}) + I(j0) * I(K);
      if constexpr (RUNS) {
        bulk_copy(st + a * UC * PITCH, src, bytes, &bars[s]);
      } else {
        for (int r = 0; r < rows; ++r) bulk_copy(st + (a * UC + r) * PITCH, src + r * K, unsigned(K) * 2u, &bars[s]);
      }
    }
  }

  // D's value at (m, n) from a sum
  __device__ __forceinline__ static TD finished(float v, TAcc alpha, TAcc beta, const TC* __restrict__ C, U m, int n) {
    v = alpha * v;
    if constexpr (Cfg::READ_C) {
      const I coff = gett_offset<I>(m, typename Cfg::MapCm{}) + gett_offset<I>(U(n), typename Cfg::MapCn{});
      v += beta * TAcc(Cfg::OpC::template apply<TAcc>(TAcc(to_f(C[coff]))));
    }
    if constexpr (!Cfg::OpD::kIdentity) v = Cfg::OpD::template apply<TAcc>(v);
    return from_acc<TD>(v);
  }

  __device__ static void run(const TA* __restrict__ A, const TB* __restrict__ B, const TC* __restrict__ C,
                             TD* __restrict__ D, TAcc alpha, TAcc beta, unsigned char* smem) {
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5, part = warp / RW, rw = warp % RW;
    TB* sB = reinterpret_cast<TB*>(smem + B_OFF);
    float* dst = reinterpret_cast<float*>(smem + DST_OFF);
    unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + BAR_OFF);
    const long long mine = (UNITS - 1 - (long long)blockIdx.x) / (long long)gridDim.x + 1;
    if (tid == 0) {
      for (int s = 0; s < S; ++s) mbar_init(&bars[s], 1u);
      asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads();
    if (tid == 0) {
      for (int t = 0; t < S && t < mine; ++t) issue(A, t, smem, bars);
    }
    // B as [n][k], op_b applied, zero past N (its mma fragments then read 0 there)
    for (int e = tid; e < NT * 8 * int(K); e += THREADS) {
      const int n = e / int(K), k = e % int(K);
      TB v = from_acc<TB>(0.f);
      if (n < N) {
        v = B[gett_offset<I>(U(k), typename Cfg::MapBk{}) + gett_offset<I>(U(n), typename Cfg::MapBn{})];
        if constexpr (!Cfg::OpB::kIdentity) v = from_acc<TB>(Cfg::OpB::template apply<float>(to_f(v)));
      }
      sB[n * (PITCH / 2) + k] = v;
    }
    __syncthreads();
    unsigned bf[KS_H][NT][2], bt[NT];
    {
      const unsigned char* brow = reinterpret_cast<unsigned char*>(sB) + (lane & 7) * PITCH + ((lane >> 3) & 1) * 16;
#pragma unroll
      for (int q = 0; q < KS_H; ++q) {
        const int ks = part * KS_H + q < KS ? part * KS_H + q : KS - 1;
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) ldmatrix_x2<false>(bf[q][nt], brow + nt * 8 * PITCH + ks * 32);
      }
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        bt[nt] = 0u;
        if constexpr (K % 16 == 8) {
          ldmatrix_x1(bt[nt], reinterpret_cast<unsigned char*>(sB) + (nt * 8 + (lane & 7)) * PITCH + KS * 32);
        }
      }
    }

    for (long long t = 0; t < mine; ++t) {
      const int s = int(t % S);
      mbar_wait(&bars[s], unsigned((t / S) & 1));
      float acc[2][NT][4] = {};
      const unsigned char* arow = smem + s * STAGE + (rw * 16 + (lane & 15)) * PITCH + (lane >> 4) * 16;
#pragma unroll
      for (int q = 0; q < KS_H; ++q) {
        if (part * KS_H + q < KS) {
          unsigned a[4];
          ldmatrix_x4<false>(a, arow + (part * KS_H + q) * 32);
#pragma unroll
          for (int x = 0; x < 4; ++x) a[x] = op_a(a[x]);
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) Mma<TA>::run(acc[q & 1][nt], a, bf[q][nt]);
        }
      }
      if constexpr (K % 16 == 8) {
        if (part == PARTS - 1) {
          unsigned a[2];
          ldmatrix_x2<false>(a, smem + s * STAGE + (rw * 16 + (lane & 15)) * PITCH + KS * 32);
          a[0] = op_a(a[0]);
          a[1] = op_a(a[1]);
#pragma unroll
          for (int nt = 0; nt < NT; ++nt) Mma8<TA>::run(acc[1][nt], a, bt[nt]);
        }
      }
      __syncthreads();  // (stage s read by every warp, and the last unit's stores have read the staging tile)
      if (tid == 0 && t + S < mine) issue(A, t + S, smem, bars);
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
        for (int h = 0; h < 4; ++h) {
          const int r = rw * 16 + (lane >> 2) + (h >> 1) * 8, n = nt * 8 + (lane & 3) * 2 + (h & 1);
          if (n < N) dst[part * DST + n * DST_PITCH + (r % UC) * UP + r / UC] = acc[0][nt][h] + acc[1][nt][h];
        }
      }
      __syncthreads();
      const long long u = blockIdx.x + t * gridDim.x, i0 = (u / NJ) * UA, jb = u % NJ;
      for (int e = tid; e < int(N) * UC; e += THREADS) {  // one (n, j) a thread: UA values along i
        const int n = e / UC, jj = e % UC;
        const long long j = jb * UC + jj;
        if (j >= Q) continue;
        float v[UA];
#pragma unroll
        for (int q = 0; q < UA; ++q) {
          v[q] = dst[n * DST_PITCH + jj * UP + q];
#pragma unroll
          for (int h = 1; h < PARTS; ++h) v[q] += dst[h * DST + n * DST_PITCH + jj * UP + q];
        }
        const I dn = gett_offset<I>(U(n), typename Cfg::MapDn{});
#pragma unroll
        for (int q0 = 0; q0 < UA; q0 += DV) {
          const U g = U(i0 + q0 + P * j);
          if (i0 + q0 + DV <= P) {
            Pack<TD, DV> out;
#pragma unroll
            for (int e2 = 0; e2 < DV; ++e2) out.e[e2] = finished(v[q0 + e2], alpha, beta, C, g + U(e2), n);
            *reinterpret_cast<Pack<TD, DV>*>(D + gett_offset<I>(g, typename Cfg::MapDm{}) + dn) = out;
          } else {
#pragma unroll
            for (int e2 = 0; e2 < DV; ++e2) {
              if (i0 + q0 + e2 < P) D[gett_offset<I>(g + U(e2), typename Cfg::MapDm{}) + dn] =
                  finished(v[q0 + e2], alpha, beta, C, g + U(e2), n);
            }
          }
        }
      }
    }
  }
};

}  // namespace gett
