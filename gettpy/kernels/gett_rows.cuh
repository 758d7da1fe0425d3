// gett_rows.cuh — gett::Rows, the row-stream kernel of long narrow GEMMs (namespace gett; pasted by
// kernels/render.py)

// ------------------------------------------------------------------------------------------------
// Row-stream tiles (kernels/spec.py's TileConfig.rows): a long narrow GEMM whose wide input A is read k-major in
// whole rows of K contiguous elements, each row's place a function of m = i + P j (i < P, j < Q = M / P) with
// offset MapAm(i) + j K, so the rows of one i and consecutive j lie back to back (e.g. A[d, c, a] with m = (a, c),
// P = |a|, rows of |d| values, N small). A persistent CTA takes the units blockIdx.x, + gridDim.x, ... of UA values of
// i by UC of j (BM = UA x UC rows; units j-block first, so the CTAs running together read one compact stretch of A,
// as a grid-stride copy does), each landed by one 1-d bulk copy per i (UC rows) in a ring of STAGES stages on
// mbarriers. B sits in shared memory as [n][k] for the whole launch, its mma fragments in registers; the CTA's warps
// are RW 16-row blocks x ROWS parts of K, each summing its part of its block's rows with mma.sync m16n8k16 (and one
// m16n8k8 where K % 16 = 8); the parts meet in a staging tile, from which each thread stores one (n, j) run of UA
// values of D along i, in vectors of ROWS_DV (D's stride-1 run). A row's smem pitch is an odd number of 16-byte units
// (ldmatrix without bank conflicts): K x 2 bytes where that is odd (one copy per i), else 16 more (a copy per row).
// For a narrow N the whole of A streams through at close to copy bandwidth, which a wgmma tile's 64-row blocks do not
// reach there.
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
