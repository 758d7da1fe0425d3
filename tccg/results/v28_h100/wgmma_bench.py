"""v28 probe (H100): how fast can two warpgroups issue #12 f16's wgmmas, on their own, in a bare kernel?

Session 24 measured #12's k-loop at 1,367 cycles a k-tile (93.7% of the tensor pipe) and its wgmmas alone, in the
kernel with no copies and no waits, at 1,326-1,342 (~83.75 cycles an m64n160k16 against 80). This probe asks whether
that 4.7% belongs to the wgmma shape and operand layouts or to the kernel around it. One CTA an SM (132), 384
threads: warpgroups 0 and 1 issue wgmmas over a ring of shared-memory stages (random f16 in [-1, 1]; D is not
computed), warpgroup 2 optionally copies bytes into the stages ahead with cp.async.bulk (paced a k-tile ahead of
the computing warps, as the loaders are) to see what landing copies cost the wgmmas. Each computing warpgroup records
clock64() around its loop; printed: cycles a k-tile (median over CTAs and warpgroups, 10th / 90th percentiles),
cycles a wgmma against the pipe's N / 2.

Variant keys (joined with '+'): nN (wgmma width, default 160), am / bm (A / B MN-major; default A K-major, B
MN-major as #12's kernel reads them), ak / bk (K-major), oN (issue order: 0 the kernel's: block 0's 4 k-steps
committed, wait 1, block 1's committed; 1 one group of all 8, wait 1; 2 k-step by k-step over both blocks, one group,
wait 1), wg1 (one computing warpgroup), l1 (one 64-row block a warpgroup), noise (the copies), nofence (no register
fences around a stage's wgmmas), rel (each computing warp's lane 0 arrives on a local mbarrier after the wait, as a
stage's release does), relc (each warp's lane 0 releases
its stage in every CTA of the cluster, as the kernel's warps do, and warpgroup 2's thread waits for the stages to be
free, copying nothing; with c2, in clusters of 2), skewN (warpgroup 1 starts N cycles late), pipe (the kernel's ring: warpgroup 2's thread copies
each stage once the computing warps released it, the computing warps wait for it to land; order 0 only), c2 (pipe in
clusters of 2: each CTA copies its A and half of B multicast to both, and the releases arrive in both CTAs), kN
(stages N = 64 or 32 deep in k: a K-major operand then 64-byte swizzled), sN (at most N stages, default 4), chN (pipe:
copies of at most N bytes, default 8192; B's multicast half is one copy), nomc (pipe in clusters: each CTA copies all of
its B itself, no multicast; the releases still arrive in both CTAs), split (pipe+c2: a stage's A is copied once this
CTA's warps released it, B's multicast half once the peer's did too: two empty barriers a stage, each warp arriving on
its own CTA's and remotely on the peer's).
Cycles "a k-tile" are a stage's.

    PYTHONPATH=. python3 tccg/results/v28_h100/wgmma_bench.py [variant ...]
"""
from __future__ import annotations

import re
import sys

import numpy as np

SRC = r"""
#define N_ %(n)d
#define TA_ %(ta)d
#define TB_ %(tb)d
#define NL %(nl)d
#define NWG %(nwg)d
#define ORDER %(order)d
#define NOISE %(noise)d
#define FENCE %(fence)d
#define BK %(bk)d
#define KS (BK / 16)
#define A_BYTES (256 * BK * 2)
#define B_BYTES (TB_ ? ((N_ + 63) / 64) * BK * 128 : N_ * BK * 2)
// a K-major operand's rows are BK * 2 bytes: the 128-byte swizzle for BK 64, the 64-byte one for BK 32 (descriptor
// layout 1 / 2); MN-major atoms are 64 wide and BK deep under the 128-byte swizzle
#define KSW (BK == 64 ? 1ull : 2ull)
#define STAGE_BYTES (A_BYTES + B_BYTES)
#define STAGES %(stages)d
#define PIPE %(pipe)d
#define CL %(cl)d
#define SKEW %(skew)d
#define REL %(rel)d
#define CHUNK %(chunk)d
#define MC %(mc)d
#define SPLIT %(split)d

__device__ __forceinline__ unsigned smem_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ unsigned long long desc(const void* p, unsigned lbo, unsigned sbo, unsigned long long sw) {
  const unsigned a = smem_addr(p);
  return (unsigned long long)((a & 0x3FFFFu) >> 4) | ((unsigned long long)((lbo >> 4) & 0x3FFFu) << 16) |
         ((unsigned long long)((sbo >> 4) & 0x3FFFu) << 32) | (sw << 62);
}
template <int R>
__device__ __forceinline__ void fence_regs(float (&acc)[R]) {
#if FENCE
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+f"(acc[i])::"memory");
#endif
}
__device__ __forceinline__ void mma(float* d, unsigned long long da, unsigned long long db) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %%%(np2)d, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n%(n)dk16.f32.f16.f16 {%(regs)s}, %%%(np0)d, %%%(np1)d, p, 1, 1, %(ta)d, %(tb)d;\n}\n"
               : %(outs)s
               : "l"(da), "l"(db), "r"(1));
}
// wgmma of 64-row block mi at k-step kk of a stage
__device__ __forceinline__ void one(float* acc, const unsigned char* st, int row0, int mi, int kk) {
  const unsigned char* a = st;
  const unsigned char* b = st + A_BYTES;
  const int r = row0 + mi * 64;
  unsigned long long da = TA_ ? desc(a + (r / 64) * (BK * 128) + kk * 128, BK * 128u, 1024u, 1ull)
                              : desc(a + r * (BK * 2) + kk * 2, 16u, 8u * BK * 2u, KSW);
  unsigned long long db = TB_ ? desc(b + kk * 128, BK * 128u, 1024u, 1ull) : desc(b + kk * 2, 16u, 8u * BK * 2u, KSW);
  mma(acc + mi * (N_ / 2), da, db);
}
__device__ __forceinline__ void mbar_wait(unsigned long long* b, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nWAIT:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%%0], %%1;\n@!p bra WAIT;\n}\n"
               ::"r"(smem_addr(b)), "r"(parity) : "memory");
}

__device__ __forceinline__ void arrive(unsigned long long* b) {
  asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.shared::cta.b64 st, [%%0];\n}\n" ::"r"(smem_addr(b)) : "memory");
}
__device__ __forceinline__ void arrive_cluster(unsigned long long* b, unsigned cta) {
  asm volatile("{\n.reg .b32 r;\nmapa.shared::cluster.u32 r, %%0, %%1;\n"
               "mbarrier.arrive.shared::cluster.b64 _, [r];\n}\n" ::"r"(smem_addr(b)), "r"(cta) : "memory");
}
// a computing warp's release of a stage: lane 0 arrives on it in every CTA of the cluster
__device__ __forceinline__ void release(unsigned long long* b) {
  if ((threadIdx.x & 31) == 0) {
    if (CL > 1) {
#pragma unroll
      for (int c = 0; c < CL; ++c) arrive_cluster(b, unsigned(c));
    } else {
      arrive(b);
    }
  }
}
__device__ __forceinline__ void cluster_sync() {
  if (CL > 1) asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;\n" ::: "memory");
}
__device__ __forceinline__ void copy(void* dst, const void* src, int bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%%0], [%%1], %%2, [%%3];\n"
               ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)) : "memory");
}
__device__ __forceinline__ void copy_mc(void* dst, const void* src, int bytes, unsigned long long* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%%0], [%%1], "
               "%%2, [%%3], %%4;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(bytes), "r"(smem_addr(bar)),
               "h"((unsigned short)((1u << CL) - 1)) : "memory");
}

extern "C" __global__ void __launch_bounds__(384, 1) %(cluster)s bench(long long* out, const unsigned char* src, long long src_bytes,
                                                         int iters) {
  extern __shared__ __align__(16) unsigned char raw[];
  unsigned char* smem = (unsigned char*)(((unsigned long long)raw + 1023) & ~1023ull);
  unsigned long long* full = (unsigned long long*)(smem + STAGES * STAGE_BYTES);
  unsigned long long* empty = full + STAGES;
  unsigned long long* dummy = empty + STAGES;
  unsigned long long* empty_r = dummy + 1;  // (SPLIT: the peer's warps' releases; empty then counts this CTA's)
  volatile int* progress = (volatile int*)(empty_r + STAGES);
  const int wg = threadIdx.x / 128;
  // random f16 in [-1, 1] everywhere (the tensor cores' power depends on the values)
  for (int i = threadIdx.x; i < STAGES * STAGE_BYTES / 2; i += blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ (blockIdx.x * 97u);
    h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    ((__half*)smem)[i] = __float2half(float(int(h & 0xFFFFu) - 32768) / 32768.0f);
  }
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%%0], 1;\n" ::"r"(smem_addr(&full[s])) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%%0], %%1;\n" ::"r"(smem_addr(&empty[s])),
                   "r"(SPLIT ? NWG * 4 : NWG * 4 * CL) : "memory");
      asm volatile("mbarrier.init.shared::cta.b64 [%%0], %%1;\n" ::"r"(smem_addr(&empty_r[s])), "r"(NWG * 4)
                   : "memory");
    }
    asm volatile("mbarrier.init.shared::cta.b64 [%%0], %%1;\n" ::"r"(smem_addr(dummy)), "r"(NWG * 4) : "memory");
    *progress = 0;
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  cluster_sync();
  if (wg >= NWG) {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (REL == 2 && threadIdx.x == 256) {  // (relc: the loader's waits for free stages, nothing copied)
      for (int it = STAGES; it < iters; ++it) mbar_wait(&empty[it %% STAGES], unsigned((it / STAGES - 1) & 1));
    }
    if (PIPE && threadIdx.x == 256) {
      unsigned rank = 0;
      if (CL > 1) asm volatile("mov.u32 %%0, %%%%cluster_ctarank;\n" : "=r"(rank));
      for (int it = 0; it < iters; ++it) {
        const int s = it %% STAGES;
        if (it >= STAGES) mbar_wait(&empty[s], unsigned((it / STAGES - 1) & 1));
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%%0], %%1;\n" ::"r"(smem_addr(&full[s])),
                     "r"(STAGE_BYTES) : "memory");
        unsigned char* st = smem + s * STAGE_BYTES;
        const long long span = src_bytes / 2 - STAGE_BYTES;
        const unsigned char* ga = src + ((((long long)(blockIdx.x * 131 + it) * A_BYTES) %% span) & ~1023ll);
        const unsigned char* gb = src + src_bytes / 2 + ((((long long)(blockIdx.x / CL * 37 + it) * B_BYTES) %% span) & ~1023ll);
        for (int c = 0; c < A_BYTES; c += CHUNK) copy(st + c, ga + c, A_BYTES - c < CHUNK ? A_BYTES - c : CHUNK, &full[s]);
        if (CL > 1 && MC) {
          if (SPLIT && it >= STAGES) mbar_wait(&empty_r[s], unsigned((it / STAGES - 1) & 1));
          const int half = B_BYTES / CL;
          copy_mc(st + A_BYTES + rank * half, gb + rank * half, half, &full[s]);
        } else {
          for (int c = 0; c < B_BYTES; c += CHUNK)
            copy(st + A_BYTES + c, gb + c, B_BYTES - c < CHUNK ? B_BYTES - c : CHUNK, &full[s]);
        }
      }
    }
    if (!PIPE && NOISE && threadIdx.x == 256) {
      for (int it = 0; it < iters; ++it) {
        const int s = it %% STAGES;
        if (it >= STAGES) mbar_wait(&full[s], unsigned((it / STAGES - 1) & 1));
        while (*progress < it - (STAGES - 2)) {}
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%%0], %%1;\n" ::"r"(smem_addr(&full[s])),
                     "r"(STAGE_BYTES) : "memory");
        const long long base = ((long long)(blockIdx.x * 131 + it) * STAGE_BYTES) %% (src_bytes - STAGE_BYTES);
        const unsigned char* g = src + (base & ~15ll);
        for (int c = 0; c < STAGE_BYTES; c += 8192) {
          const int n = STAGE_BYTES - c < 8192 ? STAGE_BYTES - c : 8192;
          asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%%0], [%%1], %%2, [%%3];\n"
                       ::"r"(smem_addr(smem + s * STAGE_BYTES + c)), "l"(g + c), "r"(n), "r"(smem_addr(&full[s]))
                       : "memory");
        }
      }
      for (int it = iters > STAGES ? iters - STAGES : 0; it < iters; ++it)
        mbar_wait(&full[it %% STAGES], unsigned((it / STAGES) & 1));
    }
    cluster_sync();
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  float acc[NL * N_ / 2];
#pragma unroll
  for (int i = 0; i < NL * N_ / 2; ++i) acc[i] = 0.f;
  asm volatile("bar.sync 1, %%0;\n" ::"n"(NWG * 128));
  const int row0 = wg * 128;
  if (SKEW && wg == 1) {
    const long long w = clock64();
    while (clock64() - w < SKEW) {}
  }
  const long long t0 = clock64();
#pragma unroll 1
  for (int it = 0; it < iters; ++it) {
    const unsigned char* st = smem + (it %% STAGES) * STAGE_BYTES;
    if (PIPE) mbar_wait(&full[it %% STAGES], unsigned((it / STAGES) & 1));
    fence_regs(acc);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
    if (ORDER == 0 && NL == 2) {
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
        for (int kk = 0; kk < KS * 16; kk += 16) one(acc, st, row0, mi, kk);
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        if (mi == 0) {
          asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
          // (no branch among the wgmmas: ptxas serialises them around one; the first k-tile releases the dummy)
          if (SPLIT) {  // (this CTA's release locally, the peer's copy of the stage remotely)
            if ((threadIdx.x & 31) == 0 && it > 0) {
              unsigned rank;
              asm volatile("mov.u32 %%0, %%%%cluster_ctarank;\n" : "=r"(rank));
              arrive(&empty[(it - 1) %% STAGES]);
              arrive_cluster(&empty_r[(it - 1) %% STAGES], rank ^ 1u);
            }
          } else if (PIPE || REL == 2) {
            release(it > 0 ? &empty[(it - 1) %% STAGES] : dummy);
          }
          if (REL == 1 && (threadIdx.x & 31) == 0) arrive(dummy);
        }
      }
    } else if (ORDER == 2) {
#pragma unroll
      for (int kk = 0; kk < KS * 16; kk += 16)
#pragma unroll
        for (int mi = 0; mi < NL; ++mi) one(acc, st, row0, mi, kk);
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    } else {
#pragma unroll
      for (int mi = 0; mi < NL; ++mi)
#pragma unroll
        for (int kk = 0; kk < KS * 16; kk += 16) one(acc, st, row0, mi, kk);
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    }
    fence_regs(acc);
    if (NOISE && threadIdx.x == 0) *progress = it + 1;
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  fence_regs(acc);
  const long long t1 = clock64();
  cluster_sync();
  float s = 0.f;
#pragma unroll
  for (int i = 0; i < NL * N_ / 2; ++i) s += acc[i];
  if (threadIdx.x %% 128 == 0) out[blockIdx.x * 2 + wg] = s == 12345.f ? 0 : t1 - t0;
}
"""


#: variant keys that set parameters (module docstring), and key prefixes that take a number
FLAGS = {"base": {}, "am": {"ta": 1}, "ak": {"ta": 0}, "bm": {"tb": 1}, "bk": {"tb": 0}, "wg1": {"nwg": 1},
         "l1": {"nl": 1}, "noise": {"noise": 1}, "nomc": {"mc": 0}, "pipe": {"pipe": 1}, "c2": {"cl": 2},
         "rel": {"rel": 1}, "relc": {"rel": 2}, "nofence": {"fence": 0}, "split": {"split": 1}}
NUMERIC = {"n": "n", "o": "order", "k": "bk", "ch": "chunk", "s": "smax", "skew": "skew"}


def parse(name: str) -> dict:
    """The kernel parameters of a variant key (module docstring)."""
    v = {"n": 160, "ta": 0, "tb": 1, "nl": 2, "nwg": 2, "order": 0, "noise": 0, "fence": 1, "pipe": 0, "cl": 1,
         "skew": 0, "rel": 0, "bk": 64, "smax": 4, "chunk": 8192, "mc": 1, "split": 0}
    for key in filter(None, name.split("+")):
        m = re.fullmatch(r"([a-z]+)(\d+)", key)
        if key in FLAGS:
            v.update(FLAGS[key])
        elif m and m.group(1) in NUMERIC:
            v[NUMERIC[m.group(1)]] = int(m.group(2))
        else:
            raise SystemExit(f"unknown variant key {key!r}")
    b = ((v["n"] + 63) // 64) * v["bk"] * 128 if v["tb"] else v["n"] * v["bk"] * 2
    v["stage_bytes"] = 256 * v["bk"] * 2 + b
    v["stages"] = min(v["smax"], (227 * 1024 - 2048) // v["stage_bytes"])
    if v["pipe"] and v["noise"]:
        raise SystemExit("pipe and noise are two kinds of copies: one at a time")
    return v


def source(v: dict) -> str:
    n = v["n"] * v["nl"] // 2 // v["nl"]  # accumulators a wgmma: N / 2
    regs = ",".join(f"%{i}" for i in range(n))
    outs = ", ".join(f'"+f"(d[{i}])' for i in range(n))
    cluster = f"__cluster_dims__({v['cl']}, 1, 1)" if v["cl"] > 1 else ""
    return "#include <cuda_fp16.h>\n" + SRC % dict(v, regs=regs, outs=outs, np0=n, np1=n + 1, np2=n + 2,
                                                   cluster=cluster)


def compile_variant(name: str):
    """(parameters, cubin, ptxas report) of a variant; refused where ptxas serialises the wgmmas (its C7515 note:
    a branch or a store among them, or a release after the loop, did so in this probe), which would time that."""
    from gettpy.kernels.build import compile_source, parse_ptxas

    v = parse(name)
    cubin, log = compile_source(source(v), "wgmma_bench", "sm_90a")
    if "C7515" in log and v["fence"]:
        raise SystemExit(f"{name}: ptxas serialised the wgmmas:\n{log}")
    return v, cubin, parse_ptxas(log)


def run(name: str, iters: int = 3000, reps: int = 3):
    import cupy
    from cupy_backends.cuda.api import driver

    v, cubin, rep = compile_variant(name)
    mod = cupy.cuda.function.Module()
    mod.load(cubin)
    f = mod.get_function("bench")
    smem = v["stages"] * v["stage_bytes"] + 1024 + 256
    driver.funcSetAttribute(f.ptr, 8, smem)  # (CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    src = cupy.random.default_rng(0).uniform(-1, 1, 16 << 20, dtype=cupy.float32).astype(cupy.float16).view(cupy.uint8)
    out = cupy.zeros(2 * sms, dtype=cupy.int64)
    per = []
    for _ in range(reps + 1):  # (the first a warm-up)
        f((sms,), (384,), (out, src, np.int64(src.size), np.int32(iters)), shared_mem=smem)
        cupy.cuda.Device().synchronize()
        c = cupy.asnumpy(out).reshape(sms, 2)[:, : v["nwg"]].ravel() / iters
        per.append(c)
    c = np.concatenate(per[1:])
    k = np.median(c)
    wg = k / (v["nwg"] * v["nl"] * v["bk"] // 16)
    print(f"{name:28s} k{v['bk']} n{v['n']} A{'mk'[v['ta'] == 0]} B{'mk'[v['tb'] == 0]} st{v['stages']} regs {rep.registers:3d} "
          f"spill {rep.spill_stores:3d}: {k:7.1f} cycles a k-tile (p10 {np.percentile(c, 10):7.1f}, "
          f"p90 {np.percentile(c, 90):7.1f}); {wg:6.2f} a wgmma against {v['n'] / 2:.0f} "
          f"({v['n'] / 2 / wg:.1%})", flush=True)


def main(argv: list[str]) -> None:
    names = argv or ["base"]
    if argv and argv[0] == "--compile":
        for name in argv[1:]:
            v, _, rep = compile_variant(name)
            print(f"{name}: {rep}")
        return
    for name in names:
        run(name)


if __name__ == "__main__":
    main(sys.argv[1:])
