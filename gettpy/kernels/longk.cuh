// longk.cuh — the long-K kernel: partial GEMMs of a small M x N over slices of a long K, with inputs read at any
// alignment (namespace longk; the prelude rendered by kernels/longk.py defines BM, BN, WARPS_M, WARPS_N, NS,
// A_KMAJOR, B_KMAJOR, INPUT_T, F64_MMA and MIN_BLOCKS, and pastes the template's PTX primitives, before this text).
//
// W[z, m, n] = alpha * sum over k in slice z of A(m, k) * B(n, k), each input a 2-D view with one unit stride:
// k-major (element (r, k) at r * ld + k) or m/n-major (at k * ld + r), ld any. A CTA computes one BM x BN tile of
// one slice; its k loop streams KT values of k a step (128 bytes of a k-major line).
//
// Loads. A stage holds a tile's lines (k-major: BM or BN rows of KT values; m/n-major: KT rows of BM or BN values),
// each line a contiguous run that may start at any element offset (odd leading dimensions are the rule in real
// codes). Every line is copied as the aligned 16-byte words that hold it (cp.async, one word more than its
// vectors), NS - 1 stages in flight, then shifted into an aligned tile (2-byte values: funnel shifts over 32-bit
// lanes; 4-byte values: each read at its own offset) where the products read it. A line's misalignment is the
// same at every step (k-major lines advance 128 bytes; m/n-major steps move whole rows of a leading dimension times
// 128 bytes), so each thread works out its words' addresses and shifts once (`Input::init`) and the loop only adds
// a step.
//
// Compute. 2-byte inputs (f16, bf16): mma.sync m16n8k16 with f32 accumulators, WARPS_M x WARPS_N warps each a
// (BM / WARPS_M) x (BN / WARPS_N) tile, fragments by ldmatrix (.trans for m/n-major tiles). float32 inputs, tiles
// stored k row by k row: FMA on the CUDA cores (float32 products and sums), each thread blocks of 4 x 4 outputs fed
// by float4 reads; or (F64_MMA) mma.sync m16n8k8 on the float64 tensor cores, each value widened exactly, products
// exact and sums in float64, as the GETT template's float32 tiles compute.
namespace longk {

using T = INPUT_T;                              // (both inputs' type)
constexpr bool SIMT = sizeof(T) == 4;           // float32: tiles by k rows (FMA or f64 mma); 2-byte: mma.sync
constexpr int ES = sizeof(T), VV = 16 / ES;     // bytes a value, values a 16-byte vector
constexpr int KT = 128 / ES;
constexpr int THREADS = WARPS_M * WARPS_N * 32;
constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
static_assert(WM % 16 == 0 && WN % (SIMT ? (F64_MMA ? 8 : 32) : 16) == 0,
              "a warp tile is whole 16 x 16 blocks (FMA: 16 x 32, float64 mma: 16 x 8)");
static_assert(SIMT || !F64_MMA, "the float64 tensor cores take float32 inputs");
static_assert(NS >= 2, "at least one stage in flight while another is shifted");
constexpr int OUT_OF_RANGE = 1 << 30;

__device__ __forceinline__ unsigned pick(unsigned q, unsigned a, unsigned b, unsigned c, unsigned d) {
  return q == 0 ? a : q == 1 ? b : q == 2 ? c : d;
}

// One input's stage geometry and a thread's share of its copies (`issue`) and shifts (`shift_in`).
//   LINES lines of LEN values a stage; WPL 16-byte words copied a line. The aligned tile is what the products
//   read: for 2-byte mma.sync the lines as they are, rows PITCH values apart (8 more than LEN: rows of ldmatrix's
//   eight addresses fall in different banks); for float32 k row by k row, TILE_R values each, rows ROW apart, so a
//   k-major input is transposed as it is shifted in (TRANS; its vectors are then dealt to threads line by line,
//   so that a warp's stores of one value fill consecutive words of one k row). The f64 mma's fragment loads put
//   lane (g, t) at word t ROW + g: ROW is 8 or 24 mod 32 (kernels/longk.py's f64_row), so that the 32 lanes
//   hit 32 banks.
template <bool KMAJ, int TILE_R>
struct Input {
  static constexpr int LINES = KMAJ ? TILE_R : KT, LEN = KMAJ ? KT : TILE_R;
  static constexpr int ROW = TILE_R + (F64_MMA ? (TILE_R % 16 == 0 ? 8 : 16) : 0);
  static constexpr int VPL = LEN / VV, WPL = VPL + 1, PITCH = SIMT ? ROW : LEN + 8;
  static constexpr bool TRANS = SIMT && KMAJ;
  static constexpr int RAW_BYTES = LINES * WPL * 16, TILE_BYTES = (SIMT ? KT * ROW : LINES * PITCH) * ES;
  static constexpr int NW = (LINES * WPL + THREADS - 1) / THREADS, NV = (LINES * VPL + THREADS - 1) / THREADS;

  const char* word[NW];  // the aligned word a slot copies at the slice's first step
  int need[NW];          // the slot's word is copied where need < limit(kv) (OUT_OF_RANGE: never)
  int shift[NV];         // a vector slot's byte offset in its first word
  int first[NV];         // k-major: the vector's first k (OUT_OF_RANGE: row out of range); m/n-major: its line
  int count[NV];         // m/n-major: values of the vector inside the extent
  long long step;        // bytes a line advances a step

  // the line and vector of vector slot i
  static __device__ __forceinline__ void slot(int i, int& line, int& v) {
    if constexpr (TRANS) {
      v = i / LINES; line = i - v * LINES;
    } else {
      line = i / VPL; v = i - line * VPL;
    }
  }
  // kv: values of k left from the step's first (the slice's end clamps the last step); k-major: bytes of a line
  static __device__ __forceinline__ int limit(long long kv) {
    return KMAJ ? ES * (int)(kv < LEN ? kv : LEN) : (int)(kv < KT ? kv : KT);
  }
  __device__ __forceinline__ void init(const char* x, long long ld, int extent, int r0, long long k0, int t) {
    step = KMAJ ? (long long)ES * KT : (long long)ES * KT * ld;
    int rows = extent - r0 < LEN ? extent - r0 : LEN;  // (m/n-major: values of a line inside the extent)
#pragma unroll
    for (int j = 0; j < NW; ++j) {
      int i = t + j * THREADS, line = i / WPL, w = i - line * WPL;
      long long e = KMAJ ? (long long)(r0 + line) * ld + k0 : (k0 + line) * ld + r0;
      unsigned long long addr = (unsigned long long)(x + ES * e);
      int s = (int)(addr & 15);
      word[j] = (const char*)((addr & ~15ull) + 16 * w);
      if (i >= LINES * WPL)
        need[j] = OUT_OF_RANGE;
      else if (KMAJ)  // (copied while a value of the line lies in it: 16 w - s < bytes of values)
        need[j] = r0 + line < extent ? 16 * w - s : OUT_OF_RANGE;
      else            // (copied while its line is inside the slice)
        need[j] = 16 * w < s + ES * rows ? line : OUT_OF_RANGE;
    }
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      int i = t + j * THREADS, line, v;
      slot(i, line, v);
      long long e = KMAJ ? (long long)(r0 + line) * ld + k0 : (k0 + line) * ld + r0;
      shift[j] = (int)((unsigned long long)(x + ES * e) & 15);
      if (i >= LINES * VPL) {
        first[j] = OUT_OF_RANGE; count[j] = 0;
      } else if (KMAJ) {
        first[j] = r0 + line < extent ? VV * v : OUT_OF_RANGE; count[j] = 0;
      } else {
        first[j] = line; count[j] = rows - VV * v;
      }
    }
  }
  // copy step `kt`'s words into `raw`
  __device__ __forceinline__ void issue(int kt, long long kv, char* raw, int t) const {
    const int lim = limit(kv);
#pragma unroll
    for (int j = 0; j < NW; ++j)
      if (need[j] < lim) gett::copy_async<16, false>(raw + 16 * (t + j * THREADS), word[j] + kt * step, true);
  }
  // shift the landed words of `raw` into the aligned tile, zeroing values outside the extent and the slice
  __device__ __forceinline__ void shift_in(long long kv, const char* raw, char* tile, int t) const {
#pragma unroll
    for (int j = 0; j < NV; ++j) {
      int i = t + j * THREADS, line, v;
      if (i >= LINES * VPL) break;
      slot(i, line, v);
      int n = KMAJ ? (int)(kv < LEN ? kv : LEN) - first[j] : (first[j] < kv ? count[j] : 0);
      uint4 o = make_uint4(0, 0, 0, 0);
      if constexpr (ES == 4) {  // (whole 4-byte values: each read where it lies, no word picked or shifted)
        const unsigned* x = reinterpret_cast<const unsigned*>(raw + 16 * (line * WPL + v) + shift[j]);
        o.x = n > 0 ? x[0] : 0u; o.y = n > 1 ? x[1] : 0u; o.z = n > 2 ? x[2] : 0u; o.w = n > 3 ? x[3] : 0u;
      } else if (n > 0) {
        const uint4* w = reinterpret_cast<const uint4*>(raw + 16 * (line * WPL + v));
        uint4 lo = w[0], hi = w[1];
        unsigned q = (unsigned)shift[j] >> 2, sh = 8 * ((unsigned)shift[j] & 3);
        unsigned x0 = pick(q, lo.x, lo.y, lo.z, lo.w), x1 = pick(q, lo.y, lo.z, lo.w, hi.x),
                 x2 = pick(q, lo.z, lo.w, hi.x, hi.y), x3 = pick(q, lo.w, hi.x, hi.y, hi.z),
                 x4 = pick(q, hi.x, hi.y, hi.z, hi.w);
        o.x = __funnelshift_r(x0, x1, sh); o.y = __funnelshift_r(x1, x2, sh);
        o.z = __funnelshift_r(x2, x3, sh); o.w = __funnelshift_r(x3, x4, sh);
        if (n < VV) {  // (values past the end: whatever the words held)
          unsigned m[4];
#pragma unroll
          for (int b = 0; b < 4; ++b) m[b] = n >= 2 * b + 2 ? 0xffffffffu : n == 2 * b + 1 ? 0xffffu : 0u;
          o.x &= m[0]; o.y &= m[1]; o.z &= m[2]; o.w &= m[3];
        }
      }
      if constexpr (TRANS) {  // (the vector's four values are k = 4 v .. 4 v + 3 of row `line`)
        unsigned* d = reinterpret_cast<unsigned*>(tile) + VV * v * ROW + line;
        d[0] = o.x; d[ROW] = o.y; d[2 * ROW] = o.z; d[3 * ROW] = o.w;
      } else {
        *reinterpret_cast<uint4*>(tile + ES * (line * PITCH + VV * v)) = o;
      }
    }
  }
};

using InA = Input<A_KMAJOR, BM>;
using InB = Input<B_KMAJOR, BN>;
constexpr int STAGE_BYTES = InA::RAW_BYTES + InB::RAW_BYTES;

// A warp's MI x NI blocks of m16n8 accumulators (lane (g, q) holds rows g and g + 8, columns 2 q and 2 q + 1 of
// each, value h = 2 (row half) + column) written to W, rows from r0 and columns from c0, those in range only;
// value(i, j, h) gives each.
template <int MI, int NI, class S, class V>
__device__ __forceinline__ void store_m16n8(S* w, int M, int N, int r0, int c0, int lane, V value) {
  const int g = lane >> 2, q = lane & 3;
#pragma unroll
  for (int i = 0; i < MI; ++i)
#pragma unroll
    for (int j = 0; j < NI; ++j)
#pragma unroll
      for (int h = 0; h < 4; ++h) {
        int m = r0 + 16 * i + g + 8 * (h >> 1), n = c0 + 8 * j + 2 * q + (h & 1);
        if (m < M && n < N) w[(long long)m * N + n] = value(i, j, h);
      }
}

// mma.sync products: a warp's WM x WN tile of m16n8 accumulators, fragments by ldmatrix from the aligned tiles
template <class E, int NB>  // (NB = WN / 16 fragment columns a warp)
struct MmaTile {
  float acc[WM / 16][WN / 8][4];

  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < WM / 16; ++i)
#pragma unroll
      for (int j = 0; j < WN / 8; ++j) acc[i][j][0] = acc[i][j][1] = acc[i][j][2] = acc[i][j][3] = 0.f;
  }
  // the warp's A fragments (rows m) and B fragments (columns n) of k values kk..kk+15
  static __device__ __forceinline__ void fragments(const char* ta, const char* tb, int wm, int wn, int kk, int lane,
                                                   unsigned (&af)[WM / 16][4], unsigned (&bf)[NB][4]) {
    const int j = lane >> 3, r = lane & 7;
#pragma unroll
    for (int i = 0; i < WM / 16; ++i) {
      int m = wm * WM + 16 * i;
      if constexpr (A_KMAJOR)  // (matrices: rows m..m+7 / m+8.., k kk.. / kk+8..)
        gett::ldmatrix_x4<false>(af[i], ta + 2 * ((m + (lane & 15)) * InA::PITCH + kk + 8 * (lane >> 4)));
      else
        gett::ldmatrix_x4<true>(af[i], ta + 2 * ((kk + 8 * (j >> 1) + r) * InA::PITCH + m + 8 * (j & 1)));
    }
#pragma unroll
    for (int i = 0; i < NB; ++i) {
      int n = wn * WN + 16 * i;
      if constexpr (B_KMAJOR)
        gett::ldmatrix_x4<false>(bf[i], tb + 2 * ((n + 8 * (j >> 1) + r) * InB::PITCH + kk + 8 * (j & 1)));
      else
        gett::ldmatrix_x4<true>(bf[i], tb + 2 * ((kk + 8 * (j & 1) + r) * InB::PITCH + n + 8 * (j >> 1)));
    }
  }
  __device__ __forceinline__ void step(const char* ta, const char* tb, int wm, int wn, int lane) {
#pragma unroll
    for (int kk = 0; kk < KT; kk += 16) {
      unsigned af[WM / 16][4], bf[NB][4];
      fragments(ta, tb, wm, wn, kk, lane, af, bf);
#pragma unroll
      for (int i = 0; i < WM / 16; ++i)
#pragma unroll
        for (int j = 0; j < WN / 8; ++j) {
          const unsigned b[2] = {bf[j >> 1][2 * (j & 1)], bf[j >> 1][2 * (j & 1) + 1]};
          gett::Mma<E>::run(acc[i][j], af[i], b);
        }
    }
  }
  __device__ __forceinline__ void store(float* w, int M, int N, int m0, int n0, float alpha, int wm, int wn,
                                        int lane) const {
    store_m16n8<WM / 16, WN / 8>(w, M, N, m0 + wm * WM, n0 + wn * WN, lane,
                                 [&](int i, int j, int h) { return alpha * acc[i][j][h]; });
  }
};

// FMA products: each thread blocks of 4 x 4 outputs, rows wm WM + 16 i + 4 (lane / 8) + p and columns
// wn WN + 32 j + 4 (lane % 8) + q, fed by float4 reads of a k row of each tile (a warp reads 4 distinct
// float4 of A and 8 of B: one shared-memory wavefront each)
template <int FM, int FN>  // (FM = WM / 16, FN = WN / 32 blocks a thread)
struct FmaTile {
  float acc[FM][FN][4][4];

  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j)
#pragma unroll
        for (int p = 0; p < 4; ++p) acc[i][j][p][0] = acc[i][j][p][1] = acc[i][j][p][2] = acc[i][j][p][3] = 0.f;
  }
  __device__ __forceinline__ void step(const char* ta, const char* tb, int wm, int wn, int lane) {
    const float* pa = reinterpret_cast<const float*>(ta) + wm * WM + 4 * (lane >> 3);
    const float* pb = reinterpret_cast<const float*>(tb) + wn * WN + 4 * (lane & 7);
#pragma unroll
    for (int kk = 0; kk < KT; ++kk) {
      float4 a[FM], b[FN];
#pragma unroll
      for (int i = 0; i < FM; ++i) a[i] = *reinterpret_cast<const float4*>(pa + kk * InA::ROW + 16 * i);
#pragma unroll
      for (int j = 0; j < FN; ++j) b[j] = *reinterpret_cast<const float4*>(pb + kk * InB::ROW + 32 * j);
#pragma unroll
      for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
          const float av[4] = {a[i].x, a[i].y, a[i].z, a[i].w}, bv[4] = {b[j].x, b[j].y, b[j].z, b[j].w};
#pragma unroll
          for (int p = 0; p < 4; ++p)
#pragma unroll
            for (int q = 0; q < 4; ++q) acc[i][j][p][q] = fmaf(av[p], bv[q], acc[i][j][p][q]);
        }
    }
  }
  __device__ __forceinline__ void store(float* w, int M, int N, int m0, int n0, float alpha, int wm, int wn,
                                        int lane) const {
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j)
#pragma unroll
        for (int p = 0; p < 4; ++p)
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            int m = m0 + wm * WM + 16 * i + 4 * (lane >> 3) + p, n = n0 + wn * WN + 32 * j + 4 * (lane & 7) + q;
            if (m < M && n < N) w[(long long)m * N + n] = alpha * acc[i][j][p][q];
          }
  }
};

// f64 mma.sync products of float32 tiles: a warp's (MI = WM / 16) x (NI = WN / 8) m16n8 blocks of float64
// accumulators, each fragment register one shared load of a k-row tile (the template's frag32 loads), widened
template <int MI, int NI>
struct DmmaTile {
  double acc[MI * NI * 4];

  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < MI * NI * 4; ++i) acc[i] = 0.0;
  }
  __device__ __forceinline__ void step(const char* ta, const char* tb, int wm, int wn, int lane) {
    const float* fa = reinterpret_cast<const float*>(ta);
    const float* fb = reinterpret_cast<const float*>(tb);
#pragma unroll
    for (int kk = 0; kk < KT; kk += 8) {
      unsigned af[MI][4], bf[NI][2];
#pragma unroll
      for (int i = 0; i < MI; ++i) gett::frag32_a_mn<InA::ROW>(af[i], fa, wm * WM + 16 * i, kk, lane);
#pragma unroll
      for (int j = 0; j < NI; ++j) gett::frag32_b_mn<InB::ROW>(bf[j], fb, wn * WN + 8 * j, kk, lane);
      gett::mma_f64_tile<MI, NI>(acc, af, bf);
    }
  }
  __device__ __forceinline__ void store(double* w, int M, int N, int m0, int n0, float alpha, int wm, int wn,
                                        int lane) const {
    store_m16n8<MI, NI>(w, M, N, m0 + wm * WM, n0 + wn * WN, lane,
                        [&](int i, int j, int h) { return (double)alpha * acc[(i * NI + j) * 4 + h]; });
  }
};

// (the products of the input type and units: only the chosen one is instantiated)
template <int U> struct Pick { template <class E> using tile = MmaTile<E, WN / 16>; };
template <> struct Pick<1> { template <class E> using tile = FmaTile<WM / 16, WN / 32>; };
template <> struct Pick<2> { template <class E> using tile = DmmaTile<WM / 16, WN / 8>; };
using Products = Pick<SIMT ? (F64_MMA ? 2 : 1) : 0>::tile<T>;
// (the workspace's type: float64 sums stay unrounded until the slices are added)
template <bool D> struct SumOf { using type = float; };
template <> struct SumOf<true> { using type = double; };
using Sum = SumOf<F64_MMA>::type;

}  // namespace longk

extern "C" __global__ void __launch_bounds__(longk::THREADS, MIN_BLOCKS)
gett_longk(const char* __restrict__ A, long long lda, int M, const char* __restrict__ B, long long ldb, int N,
           long long K, long long slice, longk::Sum* __restrict__ W, float alpha) {
  using namespace longk;
  extern __shared__ __align__(128) char smem[];
  char* ta = smem + NS * STAGE_BYTES;
  char* tb = ta + InA::TILE_BYTES;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5, wm = warp / WARPS_N, wn = warp % WARPS_N;
  const int m0 = blockIdx.x * BM, n0 = blockIdx.y * BN;
  const long long k0 = (long long)blockIdx.z * slice;
  const long long k1 = k0 + slice < K ? k0 + slice : K;
  const int steps = (int)((k1 - k0 + KT - 1) / KT);

  InA ia; ia.init(A, lda, M, m0, k0, t);
  InB ib; ib.init(B, ldb, N, n0, k0, t);
  Products acc;
  acc.zero();

  // (1) NS - 1 steps in flight
#pragma unroll
  for (int s = 0; s < NS - 1; ++s) {
    if (s < steps) {
      char* raw = smem + s * STAGE_BYTES;
      ia.issue(s, k1 - k0 - (long long)s * KT, raw, t);
      ib.issue(s, k1 - k0 - (long long)s * KT, raw + InA::RAW_BYTES, t);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
  }
  for (int kt = 0; kt < steps; ++kt) {
    // (2) step kt's words landed (every thread's), and every thread is done with the stage refilled next
    asm volatile("cp.async.wait_group %0;\n" ::"n"(NS - 2) : "memory");
    __syncthreads();
    const int s = kt + NS - 1;
    if (s < steps) {
      char* raw = smem + (s % NS) * STAGE_BYTES;
      ia.issue(s, k1 - k0 - (long long)s * KT, raw, t);
      ib.issue(s, k1 - k0 - (long long)s * KT, raw + InA::RAW_BYTES, t);
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    // (3) shift step kt into the aligned tiles
    const char* raw = smem + (kt % NS) * STAGE_BYTES;
    const long long kv = k1 - k0 - (long long)kt * KT;
    ia.shift_in(kv, raw, ta, t);
    ib.shift_in(kv, raw + InA::RAW_BYTES, tb, t);
    __syncthreads();
    // (4) the warp's products
    acc.step(ta, tb, wm, wn, lane);
  }
  // (5) the slice's partial sums, alpha applied
  acc.store(W + (long long)blockIdx.z * M * N, M, N, m0, n0, alpha, wm, wn, lane);
}
