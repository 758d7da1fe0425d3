// gett_schedule.cuh — gett::Gett, part 2 of its class body: tile schedulers (rasterisation, tile coordinates,
// stream-K shares and their fix-up)
  // grouped rasterisation of unit t over ROWS x COLS: GROUP_M rows at a time, column by column within a group
  // (persistent warp-specialised tiles: each group's columns turned by one more than the group before's, so that a
  //  CTA walking one tile a group, as a grid of GROUP_M x columns CTAs does, takes another column, another B panel,
  //  each time; a cluster's pair keeps one column)
  template <long long ROWS, long long COLS>
  __device__ __forceinline__ static void grouped(U t, U& row, U& col) {
    const U width = U(GROUP_M) * U(COLS);
    const U first = (t / width) * U(GROUP_M);
    const U rest = U(ROWS) - first;
    const U gsize = rest < U(GROUP_M) ? rest : U(GROUP_M);
    row = first + (t % width) % gsize;
    col = (t % width) / gsize;
    if constexpr (PERSIST && WS && COLS > 1) col = (col + t / width) % U(COLS);
  }

  // (0) which tile: batch outermost, then grouped rasterisation of the (m, n) tiles
  //     (clusters: consecutive CTAs take consecutive tile rows of one column, TILES_MR rows)
  __device__ __forceinline__ static void tile_coords(U bid, U& bz, U& m0, U& n0) {
    bz = BATCH > 1 ? bid / U(TILES_R) : U(0);
    const U t = BATCH > 1 ? bid % U(TILES_R) : bid;
    U tile_m, tile_n;
    if constexpr (GROUP_M > 1 && (TILES_M > GROUP_M || CLUSTER > 1)) {
      grouped<TILES_MR, TILES_N>(t, tile_m, tile_n);
    } else if constexpr (COLUMN_WALK) {
      tile_m = t % U(TILES_MR);
      tile_n = t / U(TILES_MR);
    } else {
      tile_m = t / U(TILES_N);
      tile_n = t % U(TILES_N);
    }
    m0 = tile_m * U(BM);
    n0 = tile_n * U(BN);
  }

  // the coordinates of tile t, its batch's base pointers of A and B, and the loaders' mn offsets for it
  __device__ __forceinline__ static void start_tile(U t, const TA* A, const TB* B, int tid, U& bz, U& m0, U& n0,
                                                    const TA*& Ab, const TB*& Bb, LA& la, LB& lb) {
    tile_coords(t, bz, m0, n0);
    Ab = A + gett_offset<I>(bz, typename Cfg::MapAb{});
    Bb = B + gett_offset<I>(bz, typename Cfg::MapBb{});
    la.init(tid, m0);
    lb.init(tid, n0);
  }

  // (stream-K) one CTA's share of one tile: k-tiles [kb, ke) of stream-K tile `tile`; ws: the launch's
  // workspace (SK_FLAG_BYTES of per-tile arrival counters, zeroed by the host, then two accumulator
  // slots per CTA: its first share when that starts inside a tile, its last when that ends inside one)
  struct Piece {
    long long cta, tile, kb, ke;
    void* ws;
  };
  __device__ __forceinline__ static long long sk_begin(long long c) {
    if constexpr (SK) return c * SK_ITERS / SK_CTAS;
    else return 0;
  }
  // the CTA whose share holds iteration `it` (the largest c with sk_begin(c) <= it)
  __device__ __forceinline__ static long long sk_cta_of(long long it) {
    if constexpr (SK) return ((it + 1) * SK_CTAS - 1) / SK_ITERS;
    else return 0;
  }
  // stream-K CTA c's share of the tile holding iteration `it`, up to its end `end` (sk_begin(c + 1))
  __device__ __forceinline__ static Piece sk_piece(long long c, long long it, long long end, void* ws) {
    const long long kb = it % KTILES;
    return Piece{c, it / KTILES, kb, kb + (end - it) < KTILES ? kb + (end - it) : KTILES, ws};
  }
  __device__ __forceinline__ static long long sk_slot(long long c, long long t0) {
    return c * 2 + (sk_begin(c) > t0 ? 0 : 1);  // (a share starting inside the tile is the CTA's first)
  }
  // after a share's k-loop: a whole tile goes on to its epilogue; a cut one is written to the CTA's slot,
  // and the CTA that arrives last at the tile's counter sums every share in CTA order (the same sum
  // whichever arrives last: deterministic) and goes on to the epilogue; the others stop here
  // (ct: the thread's index among the ETHREADS computing threads, which alone take part)
  template <int R>
  __device__ static bool sk_fixup(TAcc (&acc)[R], const Piece& p, int ct) {
    if (p.kb == 0 && p.ke == KTILES) return true;
    unsigned* flags = reinterpret_cast<unsigned*>(p.ws);
    TAcc* parts = reinterpret_cast<TAcc*>(reinterpret_cast<unsigned char*>(p.ws) + SK_FLAG_BYTES);
    constexpr long long SLOT = (long long)R * ETHREADS;
    const long long t0 = p.tile * KTILES;
    TAcc* mine = parts + sk_slot(p.cta, t0) * SLOT;
#pragma unroll
    for (int i = 0; i < R; ++i) mine[i * ETHREADS + ct] = acc[i];
    __threadfence();
    __shared__ unsigned last;
    sync_compute();
    const long long c_lo = sk_cta_of(t0), c_hi = sk_cta_of(t0 + KTILES - 1);
    if (ct == 0) last = atomicAdd(&flags[p.tile], 1u) == unsigned(c_hi - c_lo);
    sync_compute();
    if (!last) return false;
    __threadfence();
#pragma unroll
    for (int i = 0; i < R; ++i) acc[i] = TAcc(0);
#pragma unroll 1
    for (long long c = c_lo; c <= c_hi; ++c) {
      const TAcc* src = parts + sk_slot(c, t0) * SLOT;
#pragma unroll
      for (int i = 0; i < R; ++i) acc[i] += __ldcg(src + i * ETHREADS + ct);
    }
    return true;
  }

