// gett_elements.cuh — element types: 2-byte bits, conversions to and from the compute type, complex and integer
// elements, vectors (Pack), the identity op (namespace gett; pasted by kernels/render.py)
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

// ------------------------------------------------------------------------------------------------
// Complex elements: complex64 / complex128 as numpy and CuPy store them (re, im interleaved, aligned to their
// size), so the loaders read them in place through the layout maps, whose strides count complex elements. The
// SIMT path runs on them as on a real type: TAcc = Complex<float> (complex64 compute) or Complex<double>, and a
// multiply-add is four real FMAs in registers. A real operand converts to the compute type with im = 0.
// ------------------------------------------------------------------------------------------------
template <class R>
struct alignas(2 * sizeof(R)) Complex {
  R re, im;
  __host__ __device__ constexpr Complex(R r = R(0), R i = R(0)) : re(r), im(i) {}
  template <class S>
  __device__ __forceinline__ explicit Complex(Complex<S> z) : re(R(z.re)), im(R(z.im)) {}
};
using cfloat = Complex<float>;
using cdouble = Complex<double>;
template <class R>
__device__ __forceinline__ Complex<R> operator+(Complex<R> x, Complex<R> y) { return {x.re + y.re, x.im + y.im}; }
template <class R>
__device__ __forceinline__ Complex<R> operator-(Complex<R> x, Complex<R> y) { return {x.re - y.re, x.im - y.im}; }
template <class R>
__device__ __forceinline__ Complex<R> operator-(Complex<R> x) { return {-x.re, -x.im}; }
template <class R>
__device__ __forceinline__ Complex<R> operator*(Complex<R> x, Complex<R> y) {
  return {::fma(x.re, y.re, -x.im * y.im), ::fma(x.re, y.im, x.im * y.re)};
}
template <class R>
__device__ __forceinline__ Complex<R>& operator+=(Complex<R>& x, Complex<R> y) { return x = x + y; }
template <class R>
__device__ __forceinline__ bool operator==(Complex<R> x, Complex<R> y) { return x.re == y.re && x.im == y.im; }
// acc + x y (found by argument-dependent lookup from the prelude's Cfg::SR::madd): the four real products
template <class R>
__device__ __forceinline__ Complex<R> fma(Complex<R> x, Complex<R> y, Complex<R> acc) {
  acc.re = ::fma(x.re, y.re, acc.re);
  acc.im = ::fma(x.re, y.im, acc.im);
  acc.re = ::fma(-x.im, y.im, acc.re);
  acc.im = ::fma(x.im, y.re, acc.im);
  return acc;
}
// the conj op of gettpy.ops (rendered as gett::conj(x)): the identity on real values
template <class R>
__device__ __forceinline__ Complex<R> conj(Complex<R> z) { return {z.re, -z.im}; }
template <class T>
__device__ __forceinline__ T conj(T x) { return x; }
template <class R>
__device__ __forceinline__ Complex<R> to_f(Complex<R> x) { return x; }
template <class R> struct From<Complex<R>> {
  template <class A> __device__ __forceinline__ static Complex<R> cvt(A v) { return Complex<R>(v); }
};

// ------------------------------------------------------------------------------------------------
// Integer and bool elements (the SIMT path): stored as themselves, summed in an unsigned 32- or 64-bit compute
// type (Cfg::SR's madd is acc + x * y there, not fma), so every product and sum wraps modulo 2^32 or 2^64 (well
// defined, two's complement); converting the sum to a narrower D keeps its low bits: numpy's wrap-around in the
// result type. A signed value widens with its sign. bool reads as 0 / 1 and a D of bool is the sum != 0 (numpy's
// or of ands).
// ------------------------------------------------------------------------------------------------
#define GETT_EXACT_ELEMENT(T)                                                                  \
  __device__ __forceinline__ T to_f(T x) { return x; }                                          \
  template <> struct From<T> {                                                                  \
    template <class A> __device__ __forceinline__ static T cvt(A v) { return static_cast<T>(v); } \
  };
GETT_EXACT_ELEMENT(signed char)
GETT_EXACT_ELEMENT(short)
GETT_EXACT_ELEMENT(int)
GETT_EXACT_ELEMENT(long long)
GETT_EXACT_ELEMENT(unsigned char)
GETT_EXACT_ELEMENT(unsigned short)
GETT_EXACT_ELEMENT(unsigned)
GETT_EXACT_ELEMENT(unsigned long long)
GETT_EXACT_ELEMENT(bool)
#undef GETT_EXACT_ELEMENT

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

