// gett_loader.cuh — the loader policy: one operand's tile, global -> shared, through its maps (cp.async or TMA)
// (namespace gett; pasted by kernels/render.py)
// ------------------------------------------------------------------------------------------------
// TileLoader: one operand's (TMN x TBK) tile, global -> shared, through its maps.
//   KMAJOR: the smem tile is [TMN][TBK + PAD] (k contiguous) else [TBK][TMN + PAD] (mn contiguous).
//   V: elements per copy along the smem-contiguous dimension (V > 1 only along a vectorisable dim).
//   SW: 0 = padded rows (PITCH = TC + 16 bytes, conflict-free for ldmatrix); 1 = wgmma's 128-byte
//     swizzle: atoms of 8 rows x 128 bytes (ATOM elements a row), the 16-byte chunk j of row r stored
//     at chunk j ^ (r % 8). K-major tiles are one atom wide (TC == ATOM: 64 2-byte or 128 1-byte
//     elements); MN-major tiles (2-byte elements) are cut into column atoms (TC rounded up to 64),
//     each TS rows deep.
//   L2P: the copies' L2 prefetch size (copy_async; 0 = none).
//   VS (mn-contiguous tiles): the vector runs along the map term with divisor VS, i.e. its elements are
//     the coordinates l, l + VS, ..., l + (V-1)*VS of the tile (a tile 2-D over two modes). They land in
//     consecutive smem slots: coordinate l sits at slot perm(l) (below); VS == 1 is the identity.
// Each thread owns ITERS vectors; the mn offsets and predicates of its vectors are hoisted (init),
// the k offsets are evaluated per k-tile.
// ------------------------------------------------------------------------------------------------
template <int V, int VS>
struct SlotPerm {
  static constexpr bool kIdentity = VS == 1;
  // slot p = j + V * r  <->  tile coordinate l = r % VS + VS * (j + V * (r / VS))
  __device__ __forceinline__ static int coord(int p) {
    if constexpr (VS == 1) return p;
    const int j = p % V, r = p / V;
    return r % VS + VS * (j + V * (r / VS));
  }
  // first coordinate of the vector that fills slots [V * r, V * r + V)
  __device__ __forceinline__ static int vector_coord(int r) {
    if constexpr (VS == 1) return r * V;
    return r % VS + VS * V * (r / VS);
  }
};

template <class T, int TMN, int TBK, int V0, bool KMAJOR, int THREADS, long long EXT_MN, long long EXT_K,
          class MapMN, class MapK, class I, class U, int VS = 1, int SW = 0, int L2P = 0, int FLAT = 0, bool RA = false>
struct TileLoader {
  static constexpr int TC = KMAJOR ? TBK : TMN;  // smem-contiguous extent
  static constexpr int TS = KMAJOR ? TMN : TBK;  // strided extent
  static constexpr int FW = 16 / int(sizeof(T));  // (elements of a 16-byte word: a copy, a swizzle chunk)
  // RA (load_realign): every smem row's TC elements, contiguous in global memory at any alignment, are read as the
  // aligned 16-byte words that hold them. A task is RA_G words of a row (V elements): it copies RA_G + 1 words into
  // its raw area, and `settle` (the same thread, once those copies have landed) shifts them into the row's slots.
  // K-major, a task is a whole row, whose padded slots (PITCH = TC + FW) are its raw area, shifted in place;
  // mn-major rows are cut into tasks of up to 4 words, each with its own raw area after the slots
  static constexpr int RA_G = KMAJOR ? TC / FW : (TC / FW) % 4 == 0 ? 4 : (TC / FW) % 2 == 0 ? 2 : 1;
  static constexpr int V = RA ? RA_G * FW : V0;
  static constexpr int PAD = SW ? 0 : FW;
  static constexpr int ATOM = 128 / int(sizeof(T));  // (elements of a swizzle row)
  // (swizzled mn-major tiles hold whole column atoms: a tile 224 wide takes 4 atoms, the wgmma reading
  //  the first 224 columns; the copies fill TC columns, a TMA box the whole last atom)
  static constexpr int TCA = SW && !KMAJOR ? (TC + 63) / 64 * 64 : TC;
  static constexpr int PITCH = TCA + PAD;
  // FLAT (load_flat): 0 off; 1 the words stored to their slots as they arrive (a resident panel, loaded once);
  // 2 the words copied by cp.async into a raw area after the slots (one word of header, then FLAT_WORDS), and
  // scattered to their slots by `settle` when the stage is consumed
  static constexpr int FLAT_MODE = FLAT;
  static constexpr int FLAT_WORDS = (TBK * int(EXT_MN) + FW - 1) / FW + 1;  // (+1: a start inside a word)
  static constexpr int FLAT_ITERS = (FLAT_WORDS + THREADS - 1) / THREADS;
  static constexpr int RAW_OFF = (TS * PITCH + FW - 1) / FW * FW;
  // (RA: after the slots, mn-major, each task's RA_G + 1 words; then a header of two ints a task: the lead and the
  //  valid count)
  static constexpr int RA_TASKS = RA ? TS * (TC / V) : 0;
  static constexpr int RA_HDR = RAW_OFF + (KMAJOR ? 0 : FW * (RA_G + 1) * RA_TASKS);
  __device__ __forceinline__ static T* ra_raw(T* stage, int idx, int sl) {
    return KMAJOR ? stage + sl * PITCH : stage + RAW_OFF + FW * (RA_G + 1) * idx;
  }
  static constexpr int STAGE_ELEMS = FLAT == 2 ? RAW_OFF + FW * (FLAT_WORDS + 1)
                                     : RA ? RA_HDR + FW * ((RA_TASKS * 8 + 15) / 16) : TS * PITCH;
  static constexpr bool SETTLES = FLAT == 2 || RA;
  // (k-major TMA boxes of a map that holds half the tile's rows, as a cluster's maps do, ROWS of a split map)
  template <int ROWS>
  static constexpr int HALF_BOXES = ROWS ? ROWS : KMAJOR ? TMN / 2 : 0;
  static constexpr int LV = TC / V;  // vectors per smem row
  static constexpr int NV = LV * TS;
  static constexpr int ITERS = (NV + THREADS - 1) / THREADS;
  static constexpr bool EVEN = NV % THREADS == 0;
  static constexpr bool FULL_MN = EXT_MN % TMN == 0;
  static constexpr bool FULL_K = EXT_K % TBK == 0;
  static constexpr int BYTES = V * int(sizeof(T));
  static constexpr bool ASYNC = BYTES >= 4;
  static_assert(TC % V == 0, "vector width must divide the tile");
  static_assert(BYTES <= 16 || RA, "at most 16-byte vectors");
  static_assert(!RA || (V0 == 1 && VS == 1 && SW == 0 && !FLAT && TC % FW == 0 && sizeof(T) == 2),
                "realigned rows: unswizzled, unpermuted rows of whole 16-byte words, 2-byte elements");
  static_assert(ITERS <= 32, "too many loads per thread for the predicate mask");
  static_assert(VS == 1 || (!KMAJOR && TMN % (VS * V) == 0), "vector step VS needs an mn-contiguous tile");
  static_assert(!SW || (TS % 8 == 0 && (KMAJOR ? sizeof(T) <= 2 && TC == ATOM : sizeof(T) == 2 && TC % 16 == 0)),
                "the 128-byte swizzle: k-major tiles one atom wide, mn-major ones of 2-byte elements");
  using Perm = SlotPerm<KMAJOR ? 1 : V, KMAJOR ? 1 : VS>;
  // wgmma descriptor strides (bytes): LBO between 64-wide column atoms (MN-major; unused K-major),
  // SBO between groups of 8 rows
  static constexpr unsigned WG_LBO = KMAJOR ? 16u : unsigned(TS * 128), WG_SBO = 1024u;

  // element offset in a stage of (strided row sl, contiguous column c); a vector never crosses a
  // 16-byte chunk, so it stays contiguous under the swizzle
  __device__ __forceinline__ static int slot(int sl, int c) {
    if constexpr (!SW) {
      return sl * PITCH + c;
    } else {
      const int w = c % ATOM;
      return (c / ATOM) * (TS * ATOM) + sl * ATOM + (((w / FW) ^ (sl & 7)) * FW) + w % FW;
    }
  }
  // element offset of the unswizzled start of the (mn0.., k0..) sub-tile a wgmma reads (mn0 % 64 ==
  // 0, k0 a multiple of its 32-byte k-step): the hardware applies the swizzle to the address bits itself
  __device__ __forceinline__ static int wg_start(int mn0, int k0) {
    return KMAJOR ? mn0 * ATOM + k0 : (mn0 >> 6) * (TS * 64) + k0 * 64;
  }

  I mn_off[ITERS];
  unsigned mn_ok;  // bit i: vector i of this thread is inside the tile and inside the mn extent
  int mn_left[RA && !KMAJOR ? ITERS : 1];  // (RA, mn-major: the extent's elements from the task's first on)

  __device__ __forceinline__ static T* at(T* s, int k, int mn) {
    return KMAJOR ? s + mn * PITCH + k : s + k * PITCH + mn;
  }

  __device__ __forceinline__ void init(int tid, U mn0) {
    mn_ok = 0;
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      const int cv = idx % LV, sl = idx / LV;
      const U g = mn0 + U(KMAJOR ? sl : Perm::vector_coord(cv));
      const bool ok = (EVEN || idx < NV) && (FULL_MN || g < U(EXT_MN));
      mn_off[i] = ok ? gett_offset<I>(g, MapMN{}) : I(0);
      mn_ok |= (ok ? 1u : 0u) << i;
      if constexpr (RA && !KMAJOR) mn_left[i] = ok ? int(min(U(V), U(EXT_MN) - g)) : 0;
    }
  }

  // (1) issue the copies of k-tile k0 into `stage` (zero-filled outside the extents)
  __device__ __forceinline__ void load(T* stage, const T* base, int tid, U k0) const {
    if constexpr (FLAT) {
      load_flat(stage, base, tid, k0);
      return;
    }
    if constexpr (RA) {
      load_realign(stage, base, tid, k0);
      return;
    }
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      if (!EVEN && idx >= NV) continue;
      const int cv = idx % LV, sl = idx / LV;
      const U gk = k0 + U(KMAJOR ? cv * V : sl);
      const bool ok = ((mn_ok >> i) & 1u) && (FULL_K || gk < U(EXT_K));
      const I off = ok ? I(mn_off[i] + gett_offset<I>(gk, MapK{})) : I(0);
      T* dst = stage + slot(sl, cv * V);
      if constexpr (ASYNC) {
        copy_async<BYTES, !(FULL_MN && FULL_K), L2P>(dst, base + off, ok);
      } else {  // 1- or 2-byte gather (no 4-byte cp.async): guarded load, plain shared store
        static_assert(BYTES == 1 || BYTES == 2, "non-async copies are 1- or 2-byte words");
        using W = typename Cond<BYTES == 1, unsigned char, unsigned short>::type;
        W v = 0;
        if (ok) v = __ldg(reinterpret_cast<const W*>(base + off));
        *reinterpret_cast<W*>(dst) = v;
      }
    }
  }

  // (1'') FLAT (an mn-major tile over the whole mn extent whose k rows lie EXT_MN apart: a k-tile is one run of
  //       rows x EXT_MN elements from base + k0 x EXT_MN, however misaligned its rows are): the run read as the
  //       aligned 16-byte words that hold it, each element stored to its (k, mn) slot; rows past EXT_K are
  //       zero-filled. A word holding a byte of the run lies in the run's page, so its other bytes are readable.
  static_assert(!FLAT || (!KMAJOR && VS == 1 && SW == 0 && EXT_MN <= TMN && sizeof(T) <= 2),
                "flat k-tiles: mn-major, unswizzled, the whole mn extent in one tile, 1- or 2-byte elements");
  using Word = typename Cond<sizeof(T) == 1, unsigned char, unsigned short>::type;
  __device__ __forceinline__ static int flat_rows(U k0) { return FULL_K ? TBK : int(min(U(TBK), U(EXT_K) - k0)); }
  // (rows past EXT_K, from run element n on: zeros)
  __device__ __forceinline__ static void flat_zero(T* stage, int tid, int n) {
    constexpr int EM = int(EXT_MN);
    if constexpr (!FULL_K) {
      for (int idx = n + tid; idx < TBK * EM; idx += THREADS) {
        const int k = idx / EM;
        *reinterpret_cast<Word*>(stage + slot(k, idx - k * EM)) = Word(0);
      }
    }
  }
  __device__ __forceinline__ void load_flat(T* stage, const T* base, int tid, U k0) const {
    constexpr int EM = int(EXT_MN);
    const int n = flat_rows(k0) * EM;
    const unsigned long long a = reinterpret_cast<unsigned long long>(base + gett_offset<I>(k0, MapK{}));
    const int lead = int((a & 15ull) / sizeof(T));  // (elements of the first word before the run)
    const uint4* words = reinterpret_cast<const uint4*>(a - (a & 15ull));
    if constexpr (FLAT == 2) {
      // (the header: every thread writes the same lead and `settle` reads back its own write)
      T* raw = stage + RAW_OFF;
      *reinterpret_cast<int*>(raw) = lead;
#pragma unroll
      for (int i = 0; i < FLAT_ITERS; ++i) {
        const int w = tid + i * THREADS;
        const bool ok = w < FLAT_WORDS && w * FW - lead < n;
        if (w < FLAT_WORDS) copy_async<16, true, L2P>(raw + FW * (w + 1), ok ? words + w : words, ok);
      }
      return;
    }
#pragma unroll 4
    for (int i = 0; i < FLAT_ITERS; ++i) {
      const int w = tid + i * THREADS;
      const int f0 = w * FW - lead;  // (the run's index of the word's first element)
      if (w >= FLAT_WORDS || f0 >= n) continue;
      scatter<void, false>(stage, __ldg(words + w), f0, n);
    }
    flat_zero(stage, tid, n);
  }
  // the elements of word v, the run's elements f0.., to their slots (those of the run's first n; as op(x), rounded
  // to T, where APPLY: the stage transform's arithmetic)
  template <class Op, bool APPLY>
  __device__ __forceinline__ static void scatter(T* stage, uint4 v, int f0, int n) {
    constexpr int EM = int(EXT_MN);
    const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
    for (int j = 0; j < FW; ++j) {
      const int f = f0 + j;
      if (f >= 0 && f < n) {
        const int k = f / EM;
        if constexpr (APPLY) {
          using CT = decltype(to_f(e[j]));
          stage[slot(k, f - k * EM)] = from_acc<T>(Op::template apply<CT>(to_f(e[j])));
        } else {
          stage[slot(k, f - k * EM)] = e[j];
        }
      }
    }
  }
  // (FLAT == 2, when the stage is consumed, after this thread's copies have landed) the words this thread copied,
  // each element to its slot (as op(x), rounded to T, where APPLY: the stage transform's arithmetic), and the rows
  // past EXT_K zero-filled; the caller's barrier then publishes the slots
  template <class Op, bool APPLY>
  __device__ __forceinline__ static void settle(T* stage, int tid, U k0) {
    const int n = flat_rows(k0) * int(EXT_MN);
    const T* raw = stage + RAW_OFF;
    const int lead = *reinterpret_cast<const int*>(raw);
#pragma unroll
    for (int i = 0; i < FLAT_ITERS; ++i) {
      const int w = tid + i * THREADS;
      const int f0 = w * FW - lead;
      if (w >= FLAT_WORDS || f0 >= n) continue;
      scatter<Op, APPLY>(stage, *reinterpret_cast<const uint4*>(raw + FW * (w + 1)), f0, n);
    }
    flat_zero(stage, tid, n);
  }

  // (1''') RA: task i's words (a row of the tile: mn_off[i] is its row, or its first mn coordinate, mn-major). A
  //        word is copied only where it holds one of the task's valid elements, so it lies in their page; the
  //        others are zero-filled. The header keeps the lead (elements of the first word before the task's
  //        first element) and the valid count for `settle`.
  __device__ __forceinline__ void load_realign(T* stage, const T* base, int tid, U k0) const {
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      if (!EVEN && idx >= NV) continue;
      const int cv = idx % LV, sl = idx / LV;
      const U gk = k0 + U(KMAJOR ? cv * V : sl);
      const bool ok = ((mn_ok >> i) & 1u) && (FULL_K || gk < U(EXT_K));
      int n = 0;
      if (ok) {
        if constexpr (KMAJOR) n = FULL_K ? V : int(min(U(V), U(EXT_K) - gk));
        else n = mn_left[i];
      }
      const unsigned long long a =
          reinterpret_cast<unsigned long long>(base + (ok ? I(mn_off[i] + gett_offset<I>(gk, MapK{})) : I(0)));
      const int lead = int((a & 15ull) / sizeof(T));
      const uint4* words = reinterpret_cast<const uint4*>(a - (a & 15ull));
      T* raw = ra_raw(stage, idx, sl);
#pragma unroll
      for (int w = 0; w <= RA_G; ++w) {  // (a zero-filled copy names the first word: its source is aligned too)
        const bool wok = n > 0 && w * FW - lead < n;
        copy_async<16, true, L2P>(raw + FW * w, wok ? words + w : words, wok);
      }
      reinterpret_cast<int2*>(stage + RA_HDR)[idx] = int2{lead, n};
    }
  }
  // (RA, when the stage is consumed, after this thread's copies have landed) each task's words shifted by its lead
  // into its slots (all read before any is written: k-major, they are the same row), the elements past its valid
  // count zero (as op(x), rounded to T, where APPLY); the caller's barrier then publishes the slots
  template <class Op, bool APPLY>
  __device__ __forceinline__ static void settle_realign(T* stage, int tid) {
    using W = typename Cond<sizeof(T) == 1, unsigned char,
                            typename Cond<sizeof(T) == 2, unsigned short, unsigned>::type>::type;
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      if (!EVEN && idx >= NV) continue;
      const int cv = idx % LV, sl = idx / LV;
      const int2 h = reinterpret_cast<const int2*>(stage + RA_HDR)[idx];
      const uint4* raw = reinterpret_cast<const uint4*>(ra_raw(stage, idx, sl));  // (k-major: the row itself)
      unsigned x[4 * (RA_G + 1)];
#pragma unroll
      for (int w = 0; w <= RA_G; ++w) {
        const uint4 r = raw[w];
        x[4 * w] = r.x, x[4 * w + 1] = r.y, x[4 * w + 2] = r.z, x[4 * w + 3] = r.w;
      }
      const int lb = h.x * int(sizeof(T));  // (the lead in bytes: l4 whole 32-bit lanes, then sh bits)
      const int l4 = lb >> 2, sh = (lb & 3) * 8;
#pragma unroll
      for (int q = 0; q < RA_G; ++q) {
        unsigned z[5];  // (z[j] = x[4q + j + l4], l4 <= 3)
#pragma unroll
        for (int j = 0; j < 5; ++j) {
          const int b = 4 * q + j;
          const unsigned lo = (l4 & 1) ? x[b + 1] : x[b];
          const unsigned hi = (l4 & 1) ? x[b + 3] : x[b + 2];
          z[j] = (l4 & 2) ? hi : lo;
        }
        Pack<T, FW> v;
        unsigned* o = reinterpret_cast<unsigned*>(&v);
#pragma unroll
        for (int j = 0; j < 4; ++j) o[j] = __funnelshift_r(z[j], z[j + 1], sh);
        if (APPLY || h.y < (q + 1) * FW) {
#pragma unroll
          for (int e = 0; e < FW; ++e) {
            const bool in = q * FW + e < h.y;
            if constexpr (APPLY) {
              using CT = decltype(to_f(v.e[e]));
              v.e[e] = from_acc<T>(in ? Op::template apply<CT>(to_f(v.e[e])) : CT(0));
            } else if (!in) {
              reinterpret_cast<W*>(&v)[e] = W(0);
            }
          }
        }
        *reinterpret_cast<Pack<T, FW>*>(stage + slot(sl, cv * V + q * FW)) = v;
      }
    }
  }
  // (the consume step of the stages that need one: FLAT == 2 or RA)
  template <class Op, bool APPLY>
  __device__ __forceinline__ static void settle_stage(T* stage, int tid, U k0) {
    if constexpr (RA) settle_realign<Op, APPLY>(stage, tid);
    else settle<Op, APPLY>(stage, tid, k0);
  }

  // (1') TMA: the stage as boxes of the operand's tensor map (dims innermost first: the smem-contiguous
  //      dimension, the other, the batch): one box of ATOM x TS (k-major: a 128-byte row each) or one box of 64 x 64
  //      per column atom (mn-major, 2-byte elements), each landing in the swizzled layout `slot` describes;
  //      zero-filled outside the tensor.
  //      SPLIT > 0 (k-major): the mn dimension is two dims of the map, rows mn % SPLIT and slabs mn / SPLIT,
  //      read in boxes of ROWS rows (ROWS divides both the tile's rows and SPLIT: no box straddles two slabs,
  //      kernels/tma.py), each one ROWS x 128-byte piece of the stage
  // (a box's coordinates: the smem-contiguous dimension, the other (cut at SPLIT), the batch)
  template <long long SPLIT>
  __device__ __forceinline__ static void box_coords(int (&c)[4], U inner, U outer, U bz) {
    static_assert(SPLIT == 0 || KMAJOR, "split mn dimensions on k-major tiles");
    c[0] = int(inner);
    if constexpr (SPLIT > 0) {
      c[1] = int(outer % U(SPLIT));
      c[2] = int(outer / U(SPLIT));
      c[3] = int(bz);
    } else {
      c[1] = int(outer);
      c[2] = int(bz);
      c[3] = 0;
    }
  }
  // (k-major: the rows [r0, r0 + n) of the stage as boxes of ROWS rows, or one box where ROWS == 0)
  template <int R, long long SPLIT, int ROWS>
  __device__ __forceinline__ static void kmajor_boxes(T* stage, const TmaDesc* map, unsigned long long* bar, U mn0,
                                                      U k0, U bz, int r0, int n, unsigned short mask) {
    constexpr int BR = ROWS > 0 ? ROWS : TS;
    static_assert(BR % 8 == 0, "boxes of whole swizzle atoms");
    int c[4];
#pragma unroll
    for (int r = r0; r < r0 + n; r += BR) {
      box_coords<SPLIT>(c, k0, mn0 + U(r), bz);
      if (mask) tma_box_mc<R>(stage + r * ATOM, map, bar, c, mask);
      else tma_box<R>(stage + r * ATOM, map, bar, c);
    }
  }
  // (mn-major, HALF: kernels/tma.py's half_atom_geometry) the tile's last column atom, of whose 64 columns it uses
  // TMN % 64 = 32, as a box of those columns through `half`, B's map with boxes of 32 columns (which land in the first
  // half of each 128-byte row, as the 64-column box's would); false for the other atoms
  template <int R, bool HALF>
  __device__ __forceinline__ static bool half_box(T* stage, const TmaDesc* half, unsigned long long* bar, U mn0, U k0,
                                                  U bz, int a, unsigned short mask) {
    if constexpr (HALF) {
      static_assert(!KMAJOR && TMN % 64 == 32, "a half-used last column atom");
      if (a != TCA / 64 - 1) return false;
      int c[4];
      box_coords<0>(c, mn0 + U(64 * a), k0, bz);
      if (mask) tma_box_mc<R>(stage + a * TS * 64, half, bar, c, mask);
      else tma_box<R>(stage + a * TS * 64, half, bar, c);
      return true;
    } else {
      return false;
    }
  }
  template <int RANK, long long SPLIT, int ROWS, bool HALF = false>
  __device__ __forceinline__ static void tma(T* stage, const TmaDesc* map, unsigned long long* bar, U mn0, U k0,
                                             U bz, const TmaDesc* half = nullptr) {
    static_assert(SW && (KMAJOR ? TC == ATOM : TS == 64 && sizeof(T) == 2), "TMA boxes fill 128-byte-swizzled stages");
    static_assert(ROWS == 0 || (KMAJOR && TS % ROWS == 0), "k-major boxes that fill the tile's rows");
    constexpr int R = RANK + (SPLIT > 0 ? 1 : 0);
    int c[4];
    if constexpr (KMAJOR) {
      kmajor_boxes<R, SPLIT, ROWS>(stage, map, bar, mn0, k0, bz, 0, TS, 0);
    } else {
#pragma unroll
      for (int a = 0; a < TCA / 64; ++a) {
        if (!live_atom(mn0, a) || half_box<R, HALF>(stage, half, bar, mn0, k0, bz, a, 0)) continue;
        box_coords<0>(c, mn0 + U(64 * a), k0, bz);
        tma_box<R>(stage + a * TS * 64, map, bar, c);
      }
    }
  }
  // (cluster of two) this CTA's half (part 0 or 1) of the stage's boxes, multicast into both CTAs: the
  //      k-major rows are cut in halves (the map's box is TMN / 2 rows, or ROWS of a split map), the mn-major
  //      boxes share out by column atom (alternately)
  template <int RANK, long long SPLIT, int ROWS, bool HALF = false>
  __device__ __forceinline__ static void tma_half(T* stage, const TmaDesc* map, unsigned long long* bar, U mn0, U k0,
                                                  U bz, unsigned part, const TmaDesc* half = nullptr) {
    static_assert(SW && (KMAJOR ? TC == ATOM && TS % 16 == 0 : TS == 64 && sizeof(T) == 2), "halves of whole atoms");
    static_assert(ROWS == 0 || (KMAJOR && (TS / 2) % ROWS == 0), "k-major boxes that fill the half's rows");
    constexpr int R = RANK + (SPLIT > 0 ? 1 : 0);
    int c[4];
    if constexpr (KMAJOR) {
      kmajor_boxes<R, SPLIT, ROWS ? ROWS : TS / 2>(stage, map, bar, mn0, k0, bz, int(part) * (TS / 2), TS / 2,
                                                   (unsigned short)3);
    } else {  // (part p: the atoms p, p + 2, ...; an odd count leaves part 0 one more)
#pragma unroll
      for (int a = 0; a < TCA / 64; ++a)
        if ((a & 1) == int(part) && live_atom(mn0, a) && !half_box<R, HALF>(stage, half, bar, mn0, k0, bz, a, 3)) {
          box_coords<0>(c, mn0 + U(64 * a), k0, bz);
          tma_box_mc<R>(stage + a * TS * 64, map, bar, c, (unsigned short)3);
        }
    }
  }
  // (mn-major) whether column atom a of the tile at mn0 holds any coordinate inside the extent: the others are
  // not loaded (their columns feed only accumulators past M or N, which are never stored: a narrow operand's tile
  // then loads only the atoms it uses)
  __device__ __forceinline__ static bool live_atom(U mn0, int a) {
    return EXT_MN % TCA == 0 || mn0 + U(64 * a) < U(EXT_MN);
  }
  // the bytes the stage's boxes bring for the tile at mn0 (HALF: the last atom's box half of the others')
  template <bool HALF = false>
  __device__ __forceinline__ static unsigned tx_bytes(U mn0) {
    static_assert(!HALF || (!KMAJOR && TMN % 64 == 32), "a half-used last column atom");
    constexpr unsigned HALF_LESS = HALF ? unsigned(TS * 32 * int(sizeof(T))) : 0u;
    if constexpr (KMAJOR || EXT_MN % TCA == 0) {
      return unsigned(TS * TCA * int(sizeof(T))) - HALF_LESS;
    } else {
      unsigned n = 0;
#pragma unroll
      for (int a = 0; a < TCA / 64; ++a) n += live_atom(mn0, a) ? 1u : 0u;
      return n * unsigned(TS * 64 * int(sizeof(T))) - (live_atom(mn0, TCA / 64 - 1) ? HALF_LESS : 0u);
    }
  }

  // (2) apply the operand's op to the elements this thread copied into `stage`; elements with
  //     k >= K are set to 0 (so op(0) != 0 cannot leak into the sum).
  template <class Op>
  __device__ __forceinline__ void transform(T* stage, int tid, U k0) const {
#pragma unroll
    for (int i = 0; i < ITERS; ++i) {
      const int idx = tid + i * THREADS;
      if (!EVEN && idx >= NV) continue;
      const int cv = idx % LV, sl = idx / LV;
      const U gk = k0 + U(KMAJOR ? cv * V : sl);
      // one vector load and one vector store per copy (the copy's destination is V-aligned)
      Pack<T, V>* pp = reinterpret_cast<Pack<T, V>*>(stage + slot(sl, cv * V));
      Pack<T, V> v = *pp;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        using CT = decltype(to_f(v.e[e]));
        const bool kin = FULL_K || (KMAJOR ? gk + U(e) : gk) < U(EXT_K);
        const CT x = Op::template apply<CT>(to_f(v.e[e]));
        v.e[e] = from_acc<T>(kin ? x : CT(0));
      }
      *pp = v;
    }
  }
};

