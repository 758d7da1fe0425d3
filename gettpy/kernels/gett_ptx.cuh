// gett_ptx.cuh — PTX primitives of data movement: cp.async, mbarriers, TMA boxes, clusters, named barriers
// (namespace gett; pasted by kernels/render.py)
// ------------------------------------------------------------------------------------------------
// Global -> shared copies
// ------------------------------------------------------------------------------------------------
// L2P: the copy's L2 prefetch size (PTX .level::prefetch_size; 0 = no hint, 64, 128 or 256 bytes): the L2
// fetches the aligned block of that size around the copied bytes, so the rest of a row that a tile reads
// one k-tile at a time (k-major rows not aligned to 128 bytes, e.g. 624-byte rows) comes from DRAM whole
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

