"""v21 probe (H100): how fast this device streams #2's 57.6 MB input when nothing else happens: a raw kernel
reading it in 16-byte loads (grid-stride, 4 loads in flight a thread, one word written per thread), CuPy's
sum, and a copy of it (read + write), each timed with CUDA events (median of 50), against #2's core time.

    PYTHONPATH=. python3 tccg/results/v21_h100/read_probe.py
"""
import statistics

import cupy

NBYTES = 92352 * 312 * 2
READ = cupy.RawKernel(r'''
extern "C" __global__ void rd(const uint4* __restrict__ p, unsigned long long n, unsigned* out) {
  unsigned acc = 0;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
  unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = __ldcs(p + i), b = __ldcs(p + i + stride), c = __ldcs(p + i + 2 * stride), d = __ldcs(p + i + 3 * stride);
    acc ^= a.x ^ a.w ^ b.y ^ b.z ^ c.x ^ c.w ^ d.y ^ d.z;
  }
  for (; i < n; i += stride) { uint4 a = __ldcs(p + i); acc ^= a.x ^ a.w; }
  out[(unsigned long long)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}''', "rd")


def timed(f, reps=50):
    f()
    ts = []
    for _ in range(reps):
        e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
        e0.record()
        f()
        e1.record()
        e1.synchronize()
        ts.append(cupy.cuda.get_elapsed_time(e0, e1))
    return statistics.median(ts)


x = cupy.random.default_rng(1).random(NBYTES // 2, dtype=cupy.float32).astype(cupy.float16)
y = cupy.empty_like(x)
n16 = NBYTES // 16
sms = cupy.cuda.Device().attributes["MultiProcessorCount"]
for blocks_per_sm in (4, 8, 16):
    out = cupy.empty(sms * blocks_per_sm * 256, dtype=cupy.uint32)
    ms = timed(lambda g=sms * blocks_per_sm, o=out: READ((g,), (256,), (x, cupy.uint64(n16), o)))
    print(f"raw 16-byte reads, {blocks_per_sm} CTAs of 256 an SM: {ms:.4f} ms, {NBYTES / ms / 1e6:.0f} GB/s")
ms = timed(lambda: x.sum(dtype=cupy.float32))
print(f"cupy sum: {ms:.4f} ms, {NBYTES / ms / 1e6:.0f} GB/s")
ms = timed(lambda: cupy.copyto(y, x))
print(f"cupy copy: {ms:.4f} ms, {2 * NBYTES / ms / 1e6:.0f} GB/s (read + write)")
