// gett_kernel.cuh — gett::Gett, part 1 of its class body: the configuration (Cfg's constants re-exposed and
// checked), shared-memory layout and the per-path helpers. Parts 2-6 follow in render.py's HEADERS order; the
// class closes at the end of gett_tile.cuh.
// ------------------------------------------------------------------------------------------------
// The kernel
// ------------------------------------------------------------------------------------------------
template <class Cfg>
struct Gett {
  using TA = typename Cfg::TA;
  using TB = typename Cfg::TB;
  using TC = typename Cfg::TC;
  using TD = typename Cfg::TD;
  using TAcc = typename Cfg::TAcc;
  using I = typename Cfg::Index;   // signed offsets (int or long long)
  using U = typename Cfg::UIndex;  // unsigned coordinates

  static constexpr bool MMA = Cfg::MMA;
  static constexpr bool WG = Cfg::WGMMA;  // the mma path on wgmma (warpgroups of 64 x BN)
  static constexpr int TF32 = Cfg::TF32;  // 0: f16/bf16 m16n8k16 (or simt); 1: tf32, 3: 3xtf32, 2: f64 mma (f32 inputs)
  // I8: s8/u8 inputs on m16n8k32 (gett_mma.cuh's Mma<TA, TB>) or wgmma k32, summed in unsigned 32-bit accumulators
  // that wrap
  static constexpr bool I8 = Cfg::MMA && sizeof(typename Cfg::TA) == 1;
  // (a wgmma reads k-steps of 32 bytes and a stage's rows are one 128-byte swizzle atom: 16 or 32 k per step, a
  //  k-tile of 64 or 128)
  static_assert(!WG || (MMA && !Cfg::TF32 && (sizeof(typename Cfg::TA) == 2 || (I8 && Cfg::WS))
                        && Cfg::WM == 64 && Cfg::WN == Cfg::BN && Cfg::BK * int(sizeof(typename Cfg::TA)) == 128
                        && (Cfg::WS ? 384 : (Cfg::BM / 64) * 128) == Cfg::THREADS), "bad wgmma tile");
  static constexpr int KSTEP = TF32 ? 8 : I8 ? 32 : 16;  // k of one mma (its A and B fragments: 16-byte k columns)
  static constexpr int BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES;
  static constexpr int THREADS = Cfg::THREADS;
  static constexpr long long M = Cfg::M, N = Cfg::N, K = Cfg::K, BATCH = Cfg::BATCH;
  static constexpr long long TILES_M = (M + BM - 1) / BM, TILES_N = (N + BN - 1) / BN;
  static constexpr long long TILES = TILES_M * TILES_N;
  // (clusters of CLUSTER CTAs along m: the tile rows rounded up to whole clusters, TILES_R tiles per batch)
  static constexpr int CLUSTER = Cfg::CLUSTER;
  // HALF_ATOM (kernels/spec.py's TileConfig.half_atom): B's half-used last column atom as 32 columns through tmBh
  static constexpr bool HALF_ATOM = Cfg::HALF_ATOM;
  static constexpr long long TILES_MR = (TILES_M + CLUSTER - 1) / CLUSTER * CLUSTER;
  static constexpr long long TILES_R = TILES_MR * TILES_N;
  static_assert(CLUSTER == 1 || (CLUSTER == 2 && Cfg::WS && Cfg::TMA_RANK > 0 && Cfg::SK_CTAS == 0 &&
                                 Cfg::GROUP_M % 2 == 0), "clusters of two TMA tiles, an even raster group");
  static constexpr long long KTILES = (K + BK - 1) / BK;
  static constexpr int GROUP_M = Cfg::GROUP_M;
  // one group holds every tile row and one B (per batch) outgrows half the L2: walk down each column of
  // tiles, so that its B panel comes from DRAM once (row by row, it comes back for every tile row: measured
  // on the H100 as three times B's bytes read). Not for a small B that the L2 keeps: there the column walk
  // measured slower
  static constexpr bool COLUMN_WALK = GROUP_M > 1 && TILES_M > 1 && TILES_M <= GROUP_M &&
                                      N * K * (long long)sizeof(typename Cfg::TB) > (24LL << 20);
  // (FULL_M: no tile row past M, nor a cluster's padding row)
  static constexpr bool FULL_M = M % BM == 0 && TILES_MR == TILES_M;
  static constexpr bool FULL_N = N % BN == 0, FULL_K = K % BK == 0;
  // stream-K (SK_CTAS > 0): the last SK_TILES tiles (raster order) are not one CTA's each; their
  // SK_TILES x KTILES k-iterations are dealt out evenly to SK_CTAS CTAs after the DP_TILES whole-tile
  // CTAs, so that the grid's last, partial wave of tiles becomes a full wave of equal shares. A tile
  // cut between CTAs is summed by the CTA that finishes its share last (`sk_fixup`)
  static constexpr long long SK_CTAS = Cfg::SK_CTAS, SK_TILES = Cfg::SK_TILES;
  static constexpr bool SK = SK_CTAS > 0;
  static constexpr long long DP_TILES = TILES * BATCH - SK_TILES, SK_ITERS = SK_TILES * KTILES;
  static constexpr int SK_FLAG_BYTES = Cfg::SK_FLAG_BYTES;
  static_assert(!SK || (!Cfg::PERSIST && Cfg::SR::kStandard && SK_TILES > 0 && KTILES > 0),
                "stream-K: tiles that are not persistent, the ordinary sum");
  static constexpr bool NO_PARTIAL = FULL_M && FULL_N && FULL_K;  // the "no partial tiles" specialisation
  // (a partial last k-tile: its wgmmas wholly past K, on zero-filled stages, are skipped: K_TAIL k-steps remain;
  //  K = 5136 on BK = 64 of 2-byte inputs: 1 of 4)
  static constexpr int K_TAIL = FULL_K ? BK / KSTEP : int(((K % BK) + KSTEP - 1) / KSTEP);
  // SERP (kernels/spec.py's TileConfig.serpentine: persistent warp-specialised tiles): a CTA walks the k-tiles of
  // its odd-numbered tiles backwards, so that a tile starts on the k-slabs its CTA's last one ended on, which the
  // L2 may still hold (the tile's sequence number: kstep / KTILES at its start, on both sides)
  static constexpr bool SERP = Cfg::SERP;
  static_assert(!SERP || (Cfg::PERSIST && Cfg::WS && Cfg::SK_CTAS == 0 && KTILES > 0),
                "serpentine k-walks: persistent warp-specialised tiles, no stream-K, K > 0");
  __device__ __forceinline__ static bool reversed(long long kstep) { return SERP && ((kstep / KTILES) & 1); }
  static_assert(STAGES >= 2, "the pipeline needs at least two stages");
  // wgmma with >= 4 stages keeps one batch of wgmmas in flight across the next iteration's barrier;
  // the prefetch distance PF (k-tiles loaded ahead) then leaves that batch's stage alone (with 3
  // stages, loading 2 k-tiles ahead measured faster on memory-bound shapes than 1 ahead + in flight)
  static constexpr int WG_INFLIGHT = Cfg::WGMMA && STAGES >= 4 ? 1 : 0;
  static constexpr int PF = STAGES - 1 - WG_INFLIGHT;

  // WS (warp-specialised wgmma): warpgroup 0 only loads (cp.async, arriving on the stages' mbarriers),
  // the CW warpgroups after it only compute, MW rows each, and store; no CTA-wide barrier in the k-loop
  static constexpr bool WS = Cfg::WS;
  static constexpr int CW = 2, MW = WS ? BM / CW : 64;
  static constexpr int LTHREADS = WS ? 128 : THREADS;  // threads that load
  // REG_SPLIT (kernels/spec.py's TileConfig.reg_split decides it, REG_SPLIT_REGS the counts): accumulators
  // past 128 a computing thread, TMA tiles only. 384 threads launch with 168 registers each; the one-thread
  // TMA loaders keep LOAD_REGS, the computing threads take COMPUTE_REGS (cp.async loaders hold the mn
  // offsets of their copies and spill with under 168; kernels/build.py refuses a launch count short of it)
  static constexpr bool REG_SPLIT = Cfg::REG_SPLIT;
  static constexpr int LOAD_REGS = Cfg::LOAD_REGS, COMPUTE_REGS = Cfg::COMPUTE_REGS;
  static_assert(REG_SPLIT == (WS && (MW / 64) * BN / 2 > 128) && (!REG_SPLIT || Cfg::TMA_RANK > 0),
                "setmaxnreg for more than 128 accumulators a thread, on TMA tiles");
  static constexpr int ETHREADS = WS ? THREADS - 128 : THREADS;  // threads that compute and store
  // (WS: the warps that read each stage, a CTA: both computing warpgroups')
  static constexpr int CONSUMER_WARPS = ETHREADS / 32;
  // (WS: this thread's computing warpgroup, 0 or 1)
  __device__ __forceinline__ static int compute_wg() { return int(threadIdx.x >> 7) - 1; }

  using LA = TileLoader<TA, BM, BK, Cfg::A_VEC, Cfg::A_KMAJOR, LTHREADS, M, K, typename Cfg::MapAm,
                        typename Cfg::MapAk, I, U, Cfg::A_VS, WG, Cfg::L2_PREFETCH, Cfg::A_FLAT ? 2 : 0,
                        Cfg::A_REALIGN>;
  using LB = TileLoader<TB, BN, BK, Cfg::B_VEC, Cfg::B_KMAJOR, LTHREADS, N, K, typename Cfg::MapBn,
                        typename Cfg::MapBk, I, U, Cfg::B_VS, WG, Cfg::L2_PREFETCH, Cfg::B_FLAT ? 2 : 0,
                        Cfg::B_REALIGN>;
  static_assert(!(Cfg::A_FLAT || Cfg::B_FLAT || Cfg::A_REALIGN || Cfg::B_REALIGN) || (!WS && !WG),
                "flat k-tiles and realigned rows feed the mma.sync and simt tiles' cp.async stages (and flat ones A's "
                "resident panel)");
  static_assert(Cfg::TMA_RANK == 0 || WS, "TMA boxes feed warp-specialised tiles");
  static_assert(!WS || (WG && MW % 64 == 0 && MW <= 128 && LA::ASYNC && LB::ASYNC && Cfg::OpA::kIdentity &&
                        Cfg::OpB::kIdentity), "warp-specialised tiles: wgmma, whole 64-row "
                "blocks per computing warpgroup, cp.async copies, no op on A or B (applied in a pack instead)");
  __host__ __device__ static constexpr int round16(int x) { return (x + 15) / 16 * 16; }
  // RES_A (kernels/spec.py's TileConfig.resident_a: mma.sync / simt tiles, M <= BM, no batch, A mn-contiguous
  // in smem): A's panel of KTILES * BK rows is copied once per CTA, before its first k-tile, in the layout of
  // a stage KTILES k-tiles deep (k-tile kt's rows are a stage's), and the stages hold B alone; an op on A is
  // applied to the panel once
  static constexpr bool RES_A = Cfg::RES_A;
  using LP = typename Cond<RES_A, TileLoader<TA, BM, int(KTILES * BK), Cfg::A_VEC, Cfg::A_KMAJOR, LTHREADS, M, K,
                                             typename Cfg::MapAm, typename Cfg::MapAk, I, U, Cfg::A_VS, WG,
                                             Cfg::L2_PREFETCH, Cfg::A_FLAT ? 1 : 0>,
                           LA>::type;
  static_assert(!RES_A || (!WG && !Cfg::A_KMAJOR && !Cfg::A_REALIGN && M <= BM && BATCH == 1 && KTILES > 0 &&
                           LP::PITCH == LA::PITCH),
                "a resident A panel: mma.sync / simt tiles, one tile row, no batch, A mn-major");
  static constexpr int PANEL_BYTES = RES_A ? round16(LP::STAGE_ELEMS * int(sizeof(TA))) : 0;
  __device__ __forceinline__ static TA* panel_of(unsigned char* smem) {  // (at BAR_OFFSET: see SMEM_BYTES)
    return reinterpret_cast<TA*>(smem + BAR_OFFSET);
  }
  static constexpr int A_STAGE_BYTES = RES_A ? 0 : round16(LA::STAGE_ELEMS * int(sizeof(TA)));
  static constexpr int B_STAGE_BYTES = round16(LB::STAGE_ELEMS * int(sizeof(TB)));
  static constexpr int PIPE_BYTES = STAGES * (A_STAGE_BYTES + B_STAGE_BYTES);
  static_assert(!WG || (A_STAGE_BYTES % 1024 == 0 && B_STAGE_BYTES % 1024 == 0), "wgmma stages are whole atoms");

  // SIMT path: thread (tm, tn) owns groups of GM neighbouring rows, GM * TMS rows apart (row(tm, i)),
  // and likewise GN columns (col(tn, j)): on an mn-contiguous smem tile a group is one vector load of
  // up to 16 bytes, and the quarter-warps' loads are conflict-free
  static constexpr int TM = Cfg::TM, TN = Cfg::TN;
  static constexpr int TMS = MMA ? 1 : BM / TM, TNS = MMA ? 1 : BN / TN;
  __host__ __device__ static constexpr int group(int t, int item) {
    int g = 1;
    while (g * 2 <= t && t % (g * 2) == 0 && g * 2 * item <= 16) g *= 2;
    return g;
  }
  // (k-major tiles keep GM = 1: neighbouring rows there are a padded row apart, and groups of them
  //  would put a quarter-warp's scalar loads on a few banks)
  static constexpr int GM = MMA || Cfg::A_KMAJOR ? 1 : group(TM, int(sizeof(TA)));
  static constexpr int GN = MMA || Cfg::B_KMAJOR ? 1 : group(TN, int(sizeof(TB)));
  __device__ __forceinline__ static int row(int tm, int i) { return i % GM + GM * tm + (i / GM) * (GM * TMS); }
  __device__ __forceinline__ static int col(int tn, int j) { return j % GN + GN * tn + (j / GN) * (GN * TNS); }
  // epilogue staging tile: [BM][BN + EPAD] when D is stored along n, else [BN][BM + EPAD]. Without a
  // C to add, the tile holds finished D values (op_d(alpha * acc) rounded to D's type, the same
  // arithmetic as in registers): a narrower D then moves half the shared-memory bytes, and a thread's
  // VD values are one 16-byte load. The pad shifts consecutive rows by 16 bytes (2-byte values: the
  // 8 rows x 4 column pairs of an mma fragment store hit 32 different banks; the simt path's rows of
  // 16 threads) or, on the mma path, 32 bytes (4- and 8-byte values, stored as pairs: 16 threads per
  // wavefront).
  static constexpr bool D_NCONTIG = Cfg::D_NCONTIG;
  static constexpr bool STAGE_D = !Cfg::READ_C && sizeof(TD) < sizeof(TAcc);
  using TE = typename Cond<STAGE_D, TD, TAcc>::type;
  // (simt, D stored along m, threads owning groups of neighbouring columns: those columns are whole
  //  rows of the staging tile apart; an odd pitch spreads them over the banks, and the reads go scalar.
  //  Where B's slots are permuted, the columns of neighbouring threads are neighbours instead)
  static constexpr bool EPI_ODD = !MMA && !D_NCONTIG && GN > 1 && LB::Perm::kIdentity;
  static constexpr int EPAD = EPI_ODD ? 1 : (MMA && sizeof(TE) >= 4 ? 32 : 16) / int(sizeof(TE));
  static constexpr int EC = D_NCONTIG ? BN : BM, ES = D_NCONTIG ? BM : BN;
  static constexpr int EPITCH = EC + EPAD;
  // PERSIST: a CTA walks tiles blockIdx.x, + gridDim.x, ... and its loads run ahead across the tiles
  // (the next tile's first k-tiles arrive while this one's epilogue runs), so the epilogue tile has
  // shared memory of its own, after the pipeline's; otherwise it reuses the pipeline's
  static constexpr bool PERSIST = Cfg::PERSIST;
  // DIRECT_D (kernels/spec.py's KernelSpec.direct_d decides it: persistent TMA tiles, D stored along n in
  // vectors of 2 or more, N even, no C, no run-by-run walk): no staging tile; each computing thread stores
  // its accumulator pairs (n, n + 1) straight to D, so that the whole of shared memory holds stages the
  // loads of the next tile fill meanwhile
  static constexpr bool DIRECT_D = Cfg::DIRECT_D;
  static_assert(!DIRECT_D || (PERSIST && Cfg::TMA_RANK > 0 && !Cfg::READ_C && D_NCONTIG && Cfg::D_VEC >= 2 &&
                              N % 2 == 0 && Cfg::D_RUN == 0), "direct stores of accumulator pairs along n");
  // EPI_CHUNK (kernels/spec.py's TileConfig.chunked: persistent warp-specialised tiles, D stored in vectors along n,
  // or 2-byte D along m, no C, K > 0): each computing warp stages its own 16-row groups, EPI_COLS columns at a time,
  // in a region of its own in the A or B buffer of the tile's last stage (EPI_REG_A regions in A, the rest in B), and
  // stores them from there, with no barrier between the warps; the stage goes back to the loaders after the stores
  // (`store_chunked`): no shared memory of its own, so that the pipeline keeps all its stages while the next
  // tile's loads run during the stores. Along n, region rows are EPI_COLS + EPAD values: an odd number of 16-byte
  // (2-byte values) or 32-byte (4-byte) units apart, whose 8 rows an stmatrix or a fragment row's pairs spread over
  // the banks. Along m, the region holds the 16 rows column by column (stmatrix .trans), each column 16 + EPAD values
  // (three 16-byte units) from the next. EPI_COLS: bn, or the largest multiple of 16 dividing it for which the 8
  // regions fit (kernels/spec.py's KernelSpec.epi_cols chooses it; epi_fits checks it here)
  static constexpr bool EPI_CHUNK = Cfg::EPI_CHUNK;
  __host__ __device__ static constexpr int epi_region(int cols) {
    return (D_NCONTIG ? 16 * (cols + EPAD) : cols * (16 + EPAD)) * int(sizeof(TE));
  }
  __host__ __device__ static constexpr bool epi_fits(int cols) {
    return cols > 0 && BN % cols == 0 && cols % 16 == 0 && (!D_NCONTIG || cols % Cfg::D_VEC == 0) &&
           A_STAGE_BYTES / epi_region(cols) + B_STAGE_BYTES / epi_region(cols) >= CONSUMER_WARPS;
  }
  static constexpr int EPI_COLS = Cfg::EPI_COLS, EPI_REG_BYTES = epi_region(EPI_COLS > 0 ? EPI_COLS : 16);
  // next_tile: the persistent walk's tile after g (of ntiles; ntiles or more: none)
  __device__ __forceinline__ static U next_tile(U g, U) { return g + U(gridDim.x); }
  static constexpr int EPI_REG_A = A_STAGE_BYTES / EPI_REG_BYTES;
  static_assert(!EPI_CHUNK || (PERSIST && WS && !DIRECT_D && !Cfg::READ_C && Cfg::D_RUN == 0 &&
                               (D_NCONTIG || sizeof(TE) == 2) &&
                               K > 0 && LA::Perm::kIdentity && LB::Perm::kIdentity && sizeof(TE) == sizeof(TD) &&
                               (sizeof(TE) == 2 || sizeof(TE) == 4) && epi_fits(EPI_COLS) && EPI_REG_BYTES % 16 == 0),
                "chunked epilogues: persistent warp-specialised tiles storing D along n (or 2-byte D along m), no C, "
                "regions that fit");
  static constexpr int EPI_BYTES = DIRECT_D || EPI_CHUNK ? 0 : round16(ES * EPITCH * int(sizeof(TE)));
  // (wgmma: + 1024 bytes to align the swizzle atoms, which need 1024-byte-aligned stages)
  // (WS: + two mbarriers per stage after the pipeline and epilogue buffers)
  static constexpr int BAR_OFFSET = PERSIST ? PIPE_BYTES + EPI_BYTES : PIPE_BYTES > EPI_BYTES ? PIPE_BYTES : EPI_BYTES;
  // (RES_A: A's panel after the pipeline and epilogue buffers, which it outlives)
  static constexpr int SMEM_BYTES = BAR_OFFSET + PANEL_BYTES + (WG ? 1024 : 0) + (WS ? 16 * STAGES : 0);

  // MMA path: warps tile the block, each warp a WM x WN tile of 16x8 mma tiles
  static constexpr int WM = Cfg::WM, WN = Cfg::WN;
  // (wgmma: warp w of warpgroup g owns rows 64 g + 16 (w % 4) .. + 16 of the accumulator, in the
  //  fragment order of 16x8 mma tiles along n, i.e. MI = 1, NI = BN / 8)
  static constexpr int WARPS_N = MMA ? BN / WN : 1;
  //  WS: a computing warpgroup owns MW rows, MW / 64 blocks of those, MSTEP = 64 rows apart)
  static constexpr int MI = WG ? (WS ? MW / 64 : 1) : MMA ? WM / 16 : 1, NI = MMA ? WN / 8 : 1;
  static constexpr int MSTEP = WS ? 64 : 16;
  static_assert(!MMA || WG || (BM % WM == 0 && BN % WN == 0 && WM % 16 == 0 && WN % 8 == 0 && BK % 16 == 0 &&
                               (BM / WM) * (BN / WN) * 32 == THREADS), "bad MMA tile configuration");
  static_assert(!TF32 || MMA, "tf32 and f64-core fragments are mma.sync tiles");
  static_assert(!MMA || (TF32 == 2) == Same<TAcc, double>::value,
                "an mma tile accumulates in f64 exactly on the f64 tensor-core path (TF32 == 2)");
  static_assert(MMA || (BM % TM == 0 && BN % TN == 0 && TMS * TNS == THREADS), "bad SIMT tile configuration");

  // a barrier of the threads that compute and store (all of them, but the loaders of a WS tile)
  __device__ __forceinline__ static void sync_compute() {
    if constexpr (WS) named_sync(1, ETHREADS);
    else __syncthreads();
  }
  __device__ __forceinline__ static TE& epi(TE* es, int m, int n) {
    return D_NCONTIG ? es[m * EPITCH + n] : es[n * EPITCH + m];
  }
  // SIMT k-steps read together: on a k-major tile of 4- or 8-byte values, KV consecutive k of one row are one
  // 16-byte load (4 or 2 values), not KV scalar loads that the compiler merges only where it can prove their
  // alignment (it left 5 to 29 scalar or 8-byte loads a k-tile on about a third of the f32 simt tiles); the
  // 16-byte row pad keeps 8 rows' 16-byte loads on distinct banks. KV divides the padded row (BK a multiple of
  // the 16-byte word) and BK. Not for 1- and 2-byte values: holding 4 k-steps of them took a max-plus f16 tile
  // from 48 to 94 registers.
  template <class TS, bool KMAJOR>
  __host__ __device__ static constexpr int simt_kvec() {
    return KMAJOR && !MMA && (sizeof(TS) == 4 || sizeof(TS) == 8) && BK % (16 / int(sizeof(TS))) == 0
               ? 16 / int(sizeof(TS)) : 1;
  }
  static constexpr int KVA = simt_kvec<TA, Cfg::A_KMAJOR>(), KVB = simt_kvec<TB, Cfg::B_KMAJOR>();
  static constexpr int KV = KVA > KVB ? KVA : KVB;
  // a SIMT thread's T values of KV consecutive smem rows kk0.. (x[v]: row kk0 + v) at tile coordinates at(0..T-1):
  // one KVL-wide load along k a coordinate where KVL == KV, else row by row (simt_fragment)
  template <bool KMAJOR, int KVL, int G, int T, class L, class TS, class At>
  __device__ __forceinline__ static void simt_block(TAcc (&x)[KV][T], const TS* s, int kk0, At at) {
    if constexpr (KVL == KV && KV > 1) {
#pragma unroll
      for (int i = 0; i < T; ++i) {
        const Pack<TS, KV> v = *reinterpret_cast<const Pack<TS, KV>*>(L::at(const_cast<TS*>(s), kk0, at(i)));
#pragma unroll
        for (int e = 0; e < KV; ++e) x[e][i] = TAcc(to_f(v.e[e]));
      }
    } else {
#pragma unroll
      for (int e = 0; e < KV; ++e) simt_fragment<KMAJOR, G, T, L>(x[e], s, kk0 + e, at);
    }
  }
  // a SIMT thread's T values of one smem row kk at tile coordinates at(0..T-1) (groups of G neighbours):
  // vector loads on an mn-contiguous tile, scalar loads on a k-major one
  template <bool KMAJOR, int G, int T, class L, class TS, class At>
  __device__ __forceinline__ static void simt_fragment(TAcc (&x)[T], const TS* s, int kk, At at) {
    if constexpr (!KMAJOR && G > 1) {
#pragma unroll
      for (int i0 = 0; i0 < T; i0 += G) {
        const Pack<TS, G> v = *reinterpret_cast<const Pack<TS, G>*>(L::at(const_cast<TS*>(s), kk, at(i0)));
#pragma unroll
        for (int e = 0; e < G; ++e) x[i0 + e] = TAcc(to_f(v.e[e]));
      }
    } else {
#pragma unroll
      for (int i = 0; i < T; ++i) x[i] = TAcc(to_f(*L::at(const_cast<TS*>(s), kk, at(i))));
    }
  }
  // FRAG_OP_A / FRAG_OP_B (kernels/spec.py's TileConfig.frag_op_a / frag_op_b: mma.sync tiles, an op on the
  // operand): the op is applied to the operand's fragments in registers after ldmatrix, not to the stage in
  // shared memory between its wait and its barrier. A thread's register j of a fragment holds k = 2 (lane % 4)
  // + {0, 1} of the k-step, 8 more in the second half of the registers (A's 16 x 16: registers 2, 3; B's
  // 16 x 8: register 1); values past K are zero after the op, as on a transformed stage
  static constexpr bool FRAG_OP_A = Cfg::FRAG_OP_A, FRAG_OP_B = Cfg::FRAG_OP_B;
  static_assert(!FRAG_OP_A || (MMA && !WG && !TF32 && !RES_A && !Cfg::OpA::kIdentity),
                "ops on A's fragments: mma.sync tiles (not wgmma, not tf32, no resident panel) with an op on A");
  static_assert(!FRAG_OP_B || (MMA && !WG && !TF32 && !Cfg::OpB::kIdentity),
                "ops on B's fragments: mma.sync tiles (not wgmma, not tf32) with an op on B");
  static_assert(!I8 || (!TF32 && sizeof(TB) == 1 && Same<TAcc, unsigned>::value && Cfg::A_KMAJOR && Cfg::B_KMAJOR &&
                        BK % 32 == 0 && !RES_A && !FRAG_OP_A && !FRAG_OP_B && !Cfg::SK_CTAS && !PERSIST),
                "int8 tiles: mma.sync or warp-specialised wgmma (cp.async- or TMA-fed) over k-major 8-bit A and B, bk a "
                "multiple of 32, u32 accumulators");
  // (f64 inputs on the f64 tensor cores: F64_IN) a thread's m16n8k8.f64 fragments read from f64 tiles one value each,
  // at the positions the f32 path's ldmatrix gives (gett_mma.cuh's mma_f64): A (g, t), (g + 8, t), (g, t + 4),
  // (g + 8, t + 4) of the 16 rows from row0; B (k t, n g), (k t + 4, n g) of the 8 columns from col0; either
  // orientation (L::at)
  static constexpr bool F64_IN = MMA && TF32 == 2 && sizeof(TA) == 8;
  static_assert(!F64_IN || (sizeof(TB) == 8 && !FRAG_OP_A && !FRAG_OP_B && !RES_A), "f64 inputs: both, plain tiles");
  template <class L, class T>
  __device__ __forceinline__ static void frag64_a(double (&a)[4], const T* s, int row0, int kk, int lane) {
    const int g = lane >> 2, t = lane & 3;
    T* p = const_cast<T*>(s);
    a[0] = *L::at(p, kk + t, row0 + g);
    a[1] = *L::at(p, kk + t, row0 + g + 8);
    a[2] = *L::at(p, kk + t + 4, row0 + g);
    a[3] = *L::at(p, kk + t + 4, row0 + g + 8);
  }
  template <class L, class T>
  __device__ __forceinline__ static void frag64_b(double (&b)[2], const T* s, int col0, int kk, int lane) {
    const int g = lane >> 2, t = lane & 3;
    T* p = const_cast<T*>(s);
    b[0] = *L::at(p, kk + t, col0 + g);
    b[1] = *L::at(p, kk + t + 4, col0 + g);
  }
  template <class Op, class T, int R>
  __device__ __forceinline__ static void frag_op(unsigned (&r)[R], U k0, int lane) {
#pragma unroll
    for (int j = 0; j < R; ++j) {
      unsigned out = 0;
#pragma unroll
      for (int e = 0; e < 2; ++e) {  // (TileLoader::transform's arithmetic, on a register's two values)
        const float x = Op::template apply<float>(to_f(from_bits<T>((r[j] >> (16 * e)) & 0xffffu)));
        const T y = from_acc<T>(FULL_K || k0 + U(2 * (lane & 3) + e + 8 * (j / (R / 2))) < U(K) ? x : 0.0f);
        out |= unsigned(to_bits(y)) << (16 * e);
      }
      r[j] = out;
    }
  }
  // the finished D value of an accumulator with no C to add: op_d(alpha * acc), rounded to D's type
  // (SCALE = false: alpha is known to be 1)
  template <bool SCALE = true>
  __device__ __forceinline__ static TD finished(TAcc v, TAcc alpha) {
    if constexpr (SCALE) v = alpha * v;
    if constexpr (!Cfg::OpD::kIdentity) v = Cfg::OpD::template apply<TAcc>(v);
    return from_acc<TD>(v);
  }
  // an accumulator as staged: itself, or (STAGE_D) the finished D value
  __device__ __forceinline__ static TE staged(TAcc v, TAcc alpha) {
    if constexpr (STAGE_D) return finished(v, alpha);
    else return v;
  }
  // D_REALIGN (the chunked epilogue): D's rows along n are contiguous (one stride-1 map term) but start at any
  // alignment (odd row lengths or pitches, or an offset base), so D_VEC is 1; each row's lead comes from its
  // address. Each staged row of a chunk is then stored as the aligned 16-byte words inside its span, one vector
  // store each, and the values before the first and after the last word one by one (`store_row_realigned`): a
  // store instruction writes whole sectors, where element stores left partial ones that the L2 completed by reading
  // D (an f16 D of 2 GB with rows of 10395 took 4.2x the time of rows of 10080 on the H100, reading 1.5 GB more;
  // realigned, 2.4x faster; 1.01-2.18x on the 11 real-code rows that take it). The element-store loop also spilled
  // 250-600 bytes a thread under the 168-register cap; these stores spill none
  static constexpr bool D_REALIGN = Cfg::D_REALIGN;
  static_assert(!D_REALIGN || (Cfg::EPI_CHUNK && D_NCONTIG && Cfg::D_VEC == 1 && Cfg::D_RUN == 0 && !Cfg::READ_C &&
                               (sizeof(TD) == 2 || sizeof(TD) == 4)),
                "realigned D rows: the chunked epilogue along n, single values, no run walk or C, 2- or 4-byte D");

