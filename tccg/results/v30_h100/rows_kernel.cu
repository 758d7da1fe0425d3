// v30 prototype: #2 (C[a,b,c] = A[d,c,a] B[b,d], column-major) as a stream of whole rows of the big input.
// Units of UA a-values x UC c-values (UR = UA * UC = 16 * NW rows of A, K = 312 contiguous halves each); unit u
// of the persistent CTA blockIdx.x is blockIdx.x + t * gridDim.x, c-blocks fastest, so that the CTAs running
// together read one compact stretch of A (A's memory order is d, c, a). Each unit lands by 1-d bulk copies (one
// per a: UC rows, contiguous) in a ring of S stages; warp w multiplies rows 16w..16w+15 by B (resident, [n][k])
// with mma.sync m16n8k16 (and one m16n8k8 for K % 16 = 8), stages its 16 x 24 sums, and the CTA stores D[a..a+UA)
// for each (b, c) as UA-value vectors.
#include <cuda_fp16.h>
#ifndef UA
#define UA 8
#endif
#ifndef UC
#define UC 8
#endif
#ifndef NW
#define NW 4
#endif
#ifndef S
#define S 4
#endif
#ifndef KSPLIT
#define KSPLIT 1
#endif
constexpr int K = 312, N = 24, NT = 3, P = 312, Q = 296;
constexpr long long SAI = 312LL * 296, SAJ = 312;           // A's strides of a (i) and c (j); SAJ == K: runs
constexpr long long SBK = 24, SBN = 1;                        // B[b, d]: k = d, n = b
constexpr long long SDI = 1, SDJ = 312LL * 24, SDN = 312;     // D[a, b, c]
constexpr int UR = UA * UC, PITCH = K * 2, STAGE = UR * PITCH;
constexpr int NI = (P + UA - 1) / UA, NJ = (Q + UC - 1) / UC, UNITS = NI * NJ;
constexpr int UP = UA + 1;                                    // staged floats per (n, c): UA + 1 (banks)
__host__ __device__ constexpr int pitch_of(int x) { return x % 16 == 4 || x % 16 == 12 ? x : pitch_of(x + 1); }
constexpr int DST_PITCH = pitch_of(UC * UP);                  // floats per n: 2 n apart = 8 banks apart
constexpr int DST = N * DST_PITCH;                            // floats of one k-half's staging
constexpr int RW = NW / KSPLIT;                               // warps a k-half: 16 rows each
constexpr int KS = K / 16, KS_H = (KS + KSPLIT - 1) / KSPLIT; // k-steps of 16, a k-half's
static_assert(UR == 16 * RW, "one 16-row block a warp of each k-half");
static_assert((PITCH / 16) % 2 == 1, "row pitch an odd number of 16-byte units: conflict-free ldmatrix");
constexpr int SMEM = S * STAGE + NT * 8 * PITCH + KSPLIT * DST * 4 + S * 8;

__device__ __forceinline__ void wait_bar(unsigned bar, unsigned parity) {
  asm volatile("{\n.reg .pred p;\nW:\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}\n"
               :: "r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void ldsm4(unsigned (&r)[4], unsigned a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));
}
__device__ __forceinline__ void ldsm2(unsigned (&r)[2], unsigned a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(r[0]), "=r"(r[1]) : "r"(a));
}
__device__ __forceinline__ void ldsm1(unsigned& r, unsigned a) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(r) : "r"(a));
}

extern "C" __global__ void __launch_bounds__(32 * NW) rows2(const __half* __restrict__ A, const __half* __restrict__ B,
                                                          __half* __restrict__ D) {
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned char* sB = smem + S * STAGE;
  float* dst = reinterpret_cast<float*>(sB + NT * 8 * PITCH);
  unsigned long long* bars = reinterpret_cast<unsigned long long*>(dst + KSPLIT * DST);
  const unsigned s0 = (unsigned)__cvta_generic_to_shared(smem), sb0 = (unsigned)__cvta_generic_to_shared(sB);
  const unsigned b0 = (unsigned)__cvta_generic_to_shared(bars);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int mine = (UNITS - (int)blockIdx.x + (int)gridDim.x - 1) / (int)gridDim.x;

  auto issue = [&](int t) {  // unit t of this CTA into stage t % S (thread 0)
    const int u = blockIdx.x + t * gridDim.x, ib = u / NJ, jb = u % NJ, j0 = jb * UC;
    const int rows = min(UC, Q - j0), ni = min(UA, P - ib * UA);
    const unsigned bytes = (unsigned)(rows * PITCH), bar = b0 + 8 * (t % S);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(bytes * ni) : "memory");
    for (int a = 0; a < ni; ++a) {
      const __half* src = A + (long long)(ib * UA + a) * SAI + (long long)j0 * SAJ;
      asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                   :: "r"(s0 + (t % S) * STAGE + a * UC * PITCH), "l"(src), "r"(bytes), "r"(bar) : "memory");
    }
  };
  if (tid == 0) {
    for (int s = 0; s < S; ++s) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b0 + 8 * s));
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (tid == 0) for (int t = 0; t < S && t < mine; ++t) issue(t);
  for (int e = tid; e < NT * 8 * K; e += blockDim.x) {  // B resident as [n][k]
    const int n = e / K, k = e % K;
    reinterpret_cast<__half*>(sB)[n * (PITCH / 2) + k] = n < N ? B[k * SBK + n * SBN] : __float2half(0.f);
  }
  __syncthreads();
  unsigned bf[KS_H][NT][2], btail[NT] = {};
  {
    const int kh = warp / RW;
    const unsigned brow = sb0 + (lane & 7) * PITCH + ((lane >> 3) & 1) * 16;
#pragma unroll
    for (int q = 0; q < KS_H; ++q)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        const int ks = min(kh * KS_H + q, KS - 1);
        unsigned b[2];
        ldsm2(b, brow + nt * 8 * PITCH + ks * 32);
        bf[q][nt][0] = b[0];
        bf[q][nt][1] = b[1];
      }
    if constexpr (K % 16 == 8) {
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) ldsm1(btail[nt], sb0 + (nt * 8 + (lane & 7)) * PITCH + KS * 32);
    }
  }

  for (int t = 0; t < mine; ++t) {
    const int s = t % S;
    wait_bar(b0 + 8 * s, (unsigned)((t / S) & 1));
    float acc[2][NT][4] = {};
    const int kh = warp / RW, rw = warp % RW;
    const unsigned arow = s0 + s * STAGE + (rw * 16 + (lane & 15)) * PITCH + (lane >> 4) * 16;
#pragma unroll
    for (int q = 0; q < KS_H; ++q) {
      const int ks = kh * KS_H + q;
      if (ks < KS) {
        unsigned a[4];
        ldsm4(a, arow + ks * 32);
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
          asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                       "{%0,%1,%2,%3};"
                       : "+f"(acc[q & 1][nt][0]), "+f"(acc[q & 1][nt][1]), "+f"(acc[q & 1][nt][2]), "+f"(acc[q & 1][nt][3])
                       : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(bf[q][nt][0]), "r"(bf[q][nt][1]));
      }
    }
    if constexpr (K % 16 == 8) {
      if (kh == KSPLIT - 1) {
        unsigned a[2];
        ldsm2(a, s0 + s * STAGE + (rw * 16 + (lane & 15)) * PITCH + KS * 32);
#pragma unroll
        for (int nt = 0; nt < NT; ++nt)
          asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};"
                       : "+f"(acc[1][nt][0]), "+f"(acc[1][nt][1]), "+f"(acc[1][nt][2]), "+f"(acc[1][nt][3])
                       : "r"(a[0]), "r"(a[1]), "r"(btail[nt]));
      }
    }
    __syncthreads();  // stage s read by every warp; the last unit's stores done
    if (tid == 0 && t + S < mine) issue(t + S);
    {
      const int kh = warp / RW, rw = warp % RW;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int h = 0; h < 4; ++h) {
          const int r = rw * 16 + (lane >> 2) + (h >> 1) * 8, n = nt * 8 + (lane & 3) * 2 + (h & 1);
          if (n < N) dst[kh * DST + n * DST_PITCH + (r % UC) * UP + r / UC] = acc[0][nt][h] + acc[1][nt][h];
        }
    }
    __syncthreads();
    const int u = blockIdx.x + t * gridDim.x, ib = u / NJ, jb = u % NJ;
    for (int e = tid; e < N * UC; e += blockDim.x) {  // one (n, c) a thread: UA values of D along a
      const int n = e / UC, jj = e % UC, j = jb * UC + jj, i0 = ib * UA;
      if (j >= Q) continue;
      float v[UA];
#pragma unroll
      for (int q = 0; q < UA; ++q) {
        v[q] = dst[n * DST_PITCH + jj * UP + q];
#pragma unroll
        for (int h = 1; h < KSPLIT; ++h) v[q] += dst[h * DST + n * DST_PITCH + jj * UP + q];
      }
      __half* out = D + i0 * SDI + (long long)j * SDJ + n * SDN;
      if (i0 + UA <= P) {
#pragma unroll
        for (int q = 0; q < UA; q += 8) {
          uint4 w;
          __half2 h0 = __floats2half2_rn(v[q], v[q + 1]), h1 = __floats2half2_rn(v[q + 2], v[q + 3]);
          __half2 h2 = __floats2half2_rn(v[q + 4], v[q + 5]), h3 = __floats2half2_rn(v[q + 6], v[q + 7]);
          w.x = *reinterpret_cast<unsigned*>(&h0); w.y = *reinterpret_cast<unsigned*>(&h1);
          w.z = *reinterpret_cast<unsigned*>(&h2); w.w = *reinterpret_cast<unsigned*>(&h3);
          *reinterpret_cast<uint4*>(out + q) = w;
        }
      } else {
#pragma unroll
        for (int q = 0; q < UA; ++q)
          if (i0 + q < P) out[q] = __float2half(v[q]);
      }
    }
  }
}
