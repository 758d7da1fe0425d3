"""v30 probe (H100): how fast #2's 57.6 MB big input can be streamed when timed as `python -m tccg` times #2
(three input sets rotated, CUDA-graph batches of about 2 ms, median of 20 replays), beside gettpy's and
torch.einsum's #2 timed the same way in the same process.

Readers (each reads every byte of its set and folds it into one word a thread, so nothing is skipped):
- grid: grid-stride 16-byte loads, U in flight a thread, G CTAs of 256 an SM;
- chunk: each CTA reads one contiguous 1/grid of the buffer, U 16-byte loads in flight a thread;
- bulk: each CTA streams its contiguous share through a ring of S shared-memory stages of Z bytes, filled by
  one thread with 1-d `cp.async.bulk` copies completing on mbarriers; the 256 threads fold each stage.

    PYTHONPATH=. python3 tccg/results/v30_h100/stream_probe.py
"""
import statistics

import cupy

from tccg import peers, timing
from tccg.suite import SUITE

SRC = r'''
extern "C" __global__ void grid_rd(const uint4* __restrict__ p, unsigned long long n, unsigned* out) {
  unsigned acc = 0;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + (U - 1) * stride < n; i += U * stride) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(p + i + u * stride);
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < n; i += stride) { uint4 a = __ldcs(p + i); acc ^= a.x ^ a.y ^ a.z ^ a.w; }
  if (acc == 0x12345678u) out[0] = acc;
}

extern "C" __global__ void chunk_rd(const uint4* __restrict__ p, unsigned long long n, unsigned* out) {
  unsigned acc = 0;
  const unsigned long long per = (n + gridDim.x - 1) / gridDim.x;
  const unsigned long long beg = blockIdx.x * per, end = min(beg + per, n);
  unsigned long long i = beg + threadIdx.x;
  for (; i + (U - 1) * blockDim.x < end; i += U * blockDim.x) {
    uint4 v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) v[u] = __ldcs(p + i + u * blockDim.x);
#pragma unroll
    for (int u = 0; u < U; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; i < end; i += blockDim.x) { uint4 a = __ldcs(p + i); acc ^= a.x ^ a.y ^ a.z ^ a.w; }
  if (acc == 0x12345678u) out[0] = acc;
}

__device__ __forceinline__ void wait_bar(unsigned bar, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}\n"
               :: "r"(bar), "r"(parity) : "memory");
}

extern "C" __global__ void __launch_bounds__(256) bulk_rd(const char* __restrict__ p, unsigned long long nbytes,
                                                         unsigned* out) {
  extern __shared__ __align__(128) char smem[];
  __shared__ __align__(8) unsigned long long bars[S];
  const unsigned long long per = ((nbytes / 16 + gridDim.x - 1) / gridDim.x) * 16;
  const unsigned long long beg = blockIdx.x * per;
  const unsigned long long end = min(beg + per, nbytes);
  const long long total = end > beg ? (long long)(end - beg) : 0;
  const int n = (int)((total + Z - 1) / Z);
  const unsigned sm = (unsigned)__cvta_generic_to_shared(smem);
  const unsigned b0 = (unsigned)__cvta_generic_to_shared(bars);
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b0 + 8 * s));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int j) {
    const int s = j % S;
    const unsigned bytes = (unsigned)min((long long)Z, total - (long long)j * Z);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b0 + 8 * s), "r"(bytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(sm + s * Z), "l"(p + beg + (unsigned long long)j * Z), "r"(bytes), "r"(b0 + 8 * s) : "memory");
  };
  if (threadIdx.x == 0) for (int j = 0; j < S && j < n; ++j) issue(j);
  unsigned acc = 0;
  for (int j = 0; j < n; ++j) {
    const int s = j % S;
    wait_bar(b0 + 8 * s, (unsigned)((j / S) & 1));
    const unsigned bytes = (unsigned)min((long long)Z, total - (long long)j * Z);
    const uint4* st = reinterpret_cast<const uint4*>(smem + s * Z);
    for (unsigned q = threadIdx.x; q < bytes / 16; q += blockDim.x) { uint4 a = st[q]; acc ^= a.x ^ a.y ^ a.z ^ a.w; }
    __syncthreads();
    if (threadIdx.x == 0 && j + S < n) issue(j + S);
  }
  if (acc == 0x12345678u) out[0] = acc;
}
'''


def module(u=4, s=4, z=32768):
    return cupy.RawModule(code=SRC, options=("-std=c++17", f"-DU={u}", f"-DS={s}", f"-DZ={z}"))


def main():
    case = SUITE[1]
    assert case.num == 2
    subs = case.einsum_subscripts()
    sa, sb, sc = case.shapes()
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
    sets = [(peers_rand(sa), peers_rand(sb)) for _ in range(3)]
    outs = [cupy.empty(sc, dtype=cupy.float16, order="F") for _ in range(3)]
    nbytes = sets[0][0].nbytes
    sink = cupy.zeros(4, dtype=cupy.uint32)
    print(f"#2 {subs}: A {sa} {nbytes / 1e6:.1f} MB, B {sb}, D {sc} {outs[0].nbytes / 1e6:.1f} MB; {sms} SMs")
    rows = []

    def t(name, calls, nb, timer=timing.time_cupy):
        ms = statistics.median(timer(calls)[0] for _ in range(3))
        rows.append((name, ms, nb / ms / 1e6))
        print(f"{name:44s} {ms:.5f} ms  {nb / ms / 1e6:7.0f} GB/s", flush=True)

    ref = cupy.einsum(subs, sets[0][0].astype(cupy.float64), sets[0][1].astype(cupy.float64))
    g = [peers.gettpy_call(subs, a, b, c, "f16", "none") for (a, b), c in zip(sets, outs)]
    g[0]()
    err = float(cupy.abs(outs[0].astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
    print(f"gettpy #2 max rel err {err:.2e}")
    assert err < 1e-2
    tc = [peers.torch_call(subs, a, b, "f16", "none") for a, b in sets]
    r = tc[0]()
    err = float(cupy.abs(cupy.from_dlpack(r.double().contiguous()) - ref).max() / cupy.abs(ref).max())
    print(f"torch #2 max rel err {err:.2e}")
    t("gettpy #2 (A + B + D)", g, nbytes + outs[0].nbytes)
    t("torch.einsum #2 (its own layout)", tc, nbytes + outs[0].nbytes, timing.time_torch)
    n16 = nbytes // 16
    for u in (4, 8):
        m = module(u=u)
        for per_sm in (2, 4, 8):
            k = m.get_function("grid_rd")
            t(f"grid U={u} {per_sm}x256/SM (read A)",
              [lambda a=a, k=k, gsz=sms * per_sm: k((gsz,), (256,), (a, cupy.uint64(n16), sink)) for a, _ in sets], nbytes)
        for per_sm in (1, 2, 4):
            k = m.get_function("chunk_rd")
            t(f"chunk U={u} {per_sm}x256/SM (read A)",
              [lambda a=a, k=k, gsz=sms * per_sm: k((gsz,), (256,), (a, cupy.uint64(n16), sink)) for a, _ in sets], nbytes)
    for s, z, per_sm in ((4, 32768, 1), (6, 32768, 1), (8, 16384, 1), (4, 16384, 2), (3, 65536, 1), (12, 16384, 1)):
        k = module(s=s, z=z).get_function("bulk_rd")
        k.max_dynamic_shared_size_bytes = s * z
        t(f"bulk S={s} Z={z} {per_sm}/SM (read A)",
          [lambda a=a, k=k, gsz=sms * per_sm, sz=s * z: k((gsz,), (256,), (a, cupy.uint64(nbytes), sink), shared_mem=sz)
           for a, _ in sets], nbytes)
    best = min(rows[2:], key=lambda r: r[1])
    print(f"\nfastest reader: {best[0]} {best[1]:.5f} ms; gettpy {rows[0][1]:.5f}, torch {rows[1][1]:.5f}")


def peers_rand(shape):
    x = cupy.random.uniform(-1.0, 1.0, size=shape, dtype=cupy.float32)
    return cupy.asarray(x.astype(cupy.float16), order="F")


if __name__ == "__main__":
    main()
