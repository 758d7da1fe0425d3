// gett_mma.cuh — PTX primitives of the tensor cores: ldmatrix / stmatrix, mma.sync (f16, bf16, tf32, f64, s8/u8),
// wgmma descriptors (namespace gett; pasted by kernels/render.py)
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
// (f64 inputs, mode 2 on 8-byte elements, give their fragments as read from f64 tiles; f32 ones are widened first)
__device__ __forceinline__ void mma_f64(double* c, const double (&a)[4], const double (&b)[2]) {
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};\n"
               : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
               : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
__device__ __forceinline__ void mma_f64(double* c, const unsigned (&a)[4], const unsigned (&b)[2]) {
  const double wa[4] = {double(__uint_as_float(a[0])), double(__uint_as_float(a[1])), double(__uint_as_float(a[2])),
                        double(__uint_as_float(a[3]))};
  const double wb[2] = {double(__uint_as_float(b[0])), double(__uint_as_float(b[1]))};
  mma_f64(c, wa, wb);
}
// (ptxas widens each fragment register once, not once per mma that reads it: a k-tile of 32 on a 128 x 64 tile
//  has 96 F2F.F64.F32 for its 64 DMMAs. F: unsigned, f32 bits to widen, or double)
template <int MI, int NI, class F>
__device__ __forceinline__ void mma_f64_tile(double* acc, const F (&af)[MI][4], const F (&bf)[NI][2]) {
#pragma unroll
  for (int mi = 0; mi < MI; ++mi)
#pragma unroll
    for (int ni = 0; ni < NI; ++ni) mma_f64(&acc[(mi * NI + ni) * 4], af[mi], bf[ni]);
}
// The same fragments from an mn-major f32 tile (element (k, mn) at k * PITCH + mn): ldmatrix.trans moves 16-bit
// halves, which would split the 32-bit values, so each register is one shared load. At the stage's pitch of
// 4 mod 32 words (a tile 32k wide plus TileLoader's 16-byte pad) lane (g, t) reads bank 4t + g, which two lanes
// share (g and t + 1 against g + 4 and t): every load is a 2-way bank conflict, twice ldmatrix's wavefronts.
template <int PITCH>
__device__ __forceinline__ void frag32_a_mn(unsigned (&a)[4], const float* s, int m0, int k0, int lane) {
  const float* p = s + (k0 + (lane & 3)) * PITCH + m0 + (lane >> 2);
  a[0] = __float_as_uint(p[0]);
  a[1] = __float_as_uint(p[8]);
  a[2] = __float_as_uint(p[4 * PITCH]);
  a[3] = __float_as_uint(p[4 * PITCH + 8]);
}
template <int PITCH>
__device__ __forceinline__ void frag32_b_mn(unsigned (&b)[2], const float* s, int n0, int k0, int lane) {
  const float* p = s + (k0 + (lane & 3)) * PITCH + n0 + (lane >> 2);
  b[0] = __float_as_uint(p[0]);
  b[1] = __float_as_uint(p[4 * PITCH]);
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

template <class TA, class TB = TA> struct Mma;
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

// int8 tensor cores (mma.m16n8k32, s8 or u8 inputs, each of its own signedness; s32 accumulators): without
// .satfinite the s32 sums wrap modulo 2^32, so the accumulators are the kernel's unsigned compute type (the same
// bits) and D keeps the low bits of alpha * sum + beta * C (numpy's wrap-around). With g = lane / 4, t = lane % 4:
// A register r holds row g + 8 (r & 1), k = 4 t + 16 (r >> 1) .. + 3; B register r holds column g, k = 4 t + 16 r ..
// + 3; C register j: row g + 8 (j >> 1), column 2 t + (j & 1) (as m16n8k16's). In bytes these are the fragments of
// m16n8k16 (2 t, 2 t + 1 of 2-byte values = bytes 4 t .. 4 t + 3), so ldmatrix (b16, not transposed) of k-major
// tiles loads them; there is no transposing 8-bit ldmatrix, hence both tiles k-major (kernels/spec.py checks it)
#define GETT_MMA_I8(TA_, TB_, PA, PB)                                                                           \
  template <> struct Mma<TA_, TB_> {                                                                              \
    __device__ __forceinline__ static void run(unsigned* c, const unsigned (&a)[4], const unsigned (&b)[2]) {     \
      asm volatile("mma.sync.aligned.m16n8k32.row.col.s32." PA "." PB ".s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "        \
                   "{%8,%9}, {%0,%1,%2,%3};\n"                                                                    \
                   : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])                                              \
                   : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                          \
    }                                                                                                             \
  };
GETT_MMA_I8(signed char, signed char, "s8", "s8")
GETT_MMA_I8(signed char, unsigned char, "s8", "u8")
GETT_MMA_I8(unsigned char, signed char, "u8", "s8")
GETT_MMA_I8(unsigned char, unsigned char, "u8", "u8")
#undef GETT_MMA_I8

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
__device__ __forceinline__ void wg_fence_regs(unsigned (&acc)[R]) {
#pragma unroll
  for (int i = 0; i < R; ++i) asm volatile("" : "+r"(acc[i])::"memory");
}
template <int R>
__device__ __forceinline__ void wg_fence_regs(double (&)[R]) {}

