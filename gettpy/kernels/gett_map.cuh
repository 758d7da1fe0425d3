// gett_map.cuh — the layout map: Term / Map and gett_offset (namespace gett; pasted by kernels/render.py)
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

