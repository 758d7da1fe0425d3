// gett_tile.cuh — gett::Gett, part 6 of its class body: one tile's mainloop (mma.sync, wgmma, SIMT) and the
// staged epilogue; closes the class
  template <class SA, class SB, class LoadNext>
  __device__ __forceinline__ static void tile_body(const TC* __restrict__ C, TD* __restrict__ D, TAcc alpha,
                                                   TAcc beta, unsigned char* smem, SA stA, SB stB,
                                                   LoadNext& load_next, long long& kstep, U bz, U m0, U n0,
                                                   unsigned long long* bars = nullptr, const Piece* piece = nullptr) {
    const int tid = threadIdx.x;

    // accumulators
    constexpr int ACC_R = MMA ? MI * NI * 4 : TM * TN;
    using SR = typename Cfg::SR;  // the sum over k: fma, or a semiring's add(acc, mul(x, y)) (simt only)
    static_assert(SR::kStandard || !MMA, "semirings run on the simt path");
    TAcc acc[ACC_R];
#pragma unroll
    for (int i = 0; i < ACC_R; ++i) acc[i] = SR::template zero<TAcc>();

    const int lane = tid & 31, warp = tid >> 5;
    const int wm0 = WS   ? ((warp >> 2) - 1) * MW + (warp & 3) * 16
                    : WG ? (warp >> 2) * 64 + (warp & 3) * 16
                    : MMA ? (warp / WARPS_N) * WM : 0;
    const int wn0 = WG ? 0 : MMA ? (warp % WARPS_N) * WN : 0;
    const int tm = MMA ? 0 : tid / TNS, tn = MMA ? 0 : tid % TNS;

    if constexpr (WS) {
      // (2') a computing warpgroup: wait for stage s to land, its MI x BK / 16 wgmmas, and the release of the
      //      stage of the previous k-tile once its wgmmas are complete (ws_stage: with two 64-row blocks, between
      //      the blocks)
      //      (ring step q = kstep + kt - kbeg: the loaders count the same steps across stream-K shares)
      //      Its 64-row blocks wholly past M (a partial last tile row) issue no wgmma: the warpgroup's
      //      first NL blocks are live, the loop is instantiated per NL (no branch among the wgmmas)
      const int crow = ((warp >> 2) - 1) * MW;
      long long kbeg = 0, kend = KTILES;
      if constexpr (SK) {
        if (piece) kbeg = piece->kb, kend = piece->ke;
      }
      //      The tiles of the last column, where N is not a multiple of BN, run the narrower Cfg::WgmmaTail (WG_NT
      //      columns: the accumulators past them stay zero, and the epilogue stores none of their columns)
      if (Cfg::WG_NT < BN && n0 + U(BN) > U(N))
        ws_kloop_rows<typename Cfg::WgmmaTail>(acc, stA, stB, bars, kstep, kbeg, kend, crow, m0);
      else
        ws_kloop_rows<typename Cfg::Wgmma>(acc, stA, stB, bars, kstep, kbeg, kend, crow, m0);
      kstep += kend - kbeg;
      // (the last step's stage, which the next share or tile reuses)
      // (EPI_CHUNK: after the epilogue, which stages D in it)
      if ((SK || PERSIST) && !EPI_CHUNK && kend > kbeg) release_stage(&bars[STAGES + int((kstep - 1) % STAGES)]);
    } else {
    // (2) main loop over the k-tiles (the pipeline's stages go round across this CTA's tiles: kstep)
    long long kbeg = 0, kend = KTILES;  // (stream-K: a share of the k-tiles)
    if constexpr (SK) {
      if (piece) kbeg = piece->kb, kend = piece->ke;
    }
    for (long long kt = kbeg; kt < kend; ++kt) {
      const long long ks = PERSIST ? kstep++ : kt - kbeg;  // (one tile per CTA: the ring starts with it)
      const int s = int(ks % STAGES);
      cp_async_wait<PF - 1>();
      // (flat k-tiles and realigned rows: the words this thread copied go to their slots, with the op unless on
      //  the fragments)
      if constexpr (LA::SETTLES && !RES_A)
        LA::template settle_stage<typename Cfg::OpA, !Cfg::OpA::kIdentity && !FRAG_OP_A>(stA(s), tid, U(kt) * U(BK));
      else if constexpr (!Cfg::OpA::kIdentity && !RES_A && !FRAG_OP_A)
        LA{}.template transform<typename Cfg::OpA>(stA(s), tid, U(kt) * U(BK));
      if constexpr (LB::SETTLES)
        LB::template settle_stage<typename Cfg::OpB, !Cfg::OpB::kIdentity && !FRAG_OP_B>(stB(s), tid, U(kt) * U(BK));
      else if constexpr (!Cfg::OpB::kIdentity && !FRAG_OP_B)
        LB{}.template transform<typename Cfg::OpB>(stB(s), tid, U(kt) * U(BK));
      // (the wgmma reads shared memory through the async proxy: make this thread's writes visible to it)
      if constexpr (WG) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
      __syncthreads();
      // (2a) prefetch the k-tile PF steps ahead (of this tile or, persistent, the next) into the stage
      //      computed STAGES - PF iterations ago (the barrier above is after every warp finished reading it)
      load_next(int((ks + PF) % STAGES), kt + PF);
      // (2b) compute stage s
      const TA* As = RES_A ? panel_of(smem) + U(kt) * U(BK * LA::PITCH) : stA(s);
      const TB* Bs = stB(s);
      if constexpr (WG) {
        // BK / 16 wgmmas of this warpgroup's 64 rows x BN; WG_INFLIGHT of these batches stay in flight
        // past the next barrier, so the stage they read is refilled two iterations later (PF)
        wg_stage<1, WG_INFLIGHT, BK / KSTEP, typename Cfg::Wgmma>(acc, As, Bs, (warp >> 2) * 64);
      } else if constexpr (F64_IN) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += KSTEP) {
          // (B's fragments for the k-step, then A's one 16-row block at a time: 8-byte fragments of every block at
          //  once spilled beside the 128 registers of f64 accumulators)
          double bf[NI][2];
#pragma unroll
          for (int ni = 0; ni < NI; ++ni) frag64_b<LB>(bf[ni], Bs, wn0 + ni * 8, kk, lane);
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
            double af[1][4];
            frag64_a<LA>(af[0], As, wm0 + mi * 16, kk, lane);
            mma_f64_tile<1, NI>(&acc[mi * NI * 4], af, bf);
          }
        }
      } else if constexpr (MMA) {
#pragma unroll
        for (int kk = 0; kk < BK; kk += KSTEP) {
          unsigned af[MI][4], bf[NI][2];
          const int li = lane >> 3, lr = lane & 7;
#pragma unroll
          for (int mi = 0; mi < MI; ++mi) {
            // matrix li: rows (m) + (li & 1) * 8, k + (li >> 1) * KSTEP / 2; lane supplies row lr (an 8x8
            // b16 matrix is 8 x 4 tf32 values, or 8 x 16 int8 ones: the same instruction loads those fragments)
            const int mrow = wm0 + mi * 16 + (li & 1) * 8;
            const int kcol = kk + (li >> 1) * (KSTEP / 2);
            if constexpr (Cfg::A_KMAJOR)
              ldmatrix_x4<false>(af[mi], As + (mrow + lr) * LA::PITCH + kcol);
            else if constexpr (TF32)
              frag32_a_mn<LA::PITCH>(af[mi], As, wm0 + mi * 16, kk, lane);
            else
              ldmatrix_x4<true>(af[mi], As + (kcol + lr) * LA::PITCH + mrow);
            if constexpr (FRAG_OP_A) frag_op<typename Cfg::OpA, TA>(af[mi], U(kt) * U(BK) + U(kk), lane);
          }
#pragma unroll
          for (int ni = 0; ni < NI; ++ni) {
            // matrix (lane >> 3) & 1: k + 8 * that; lanes 16..31 repeat lanes 0..15 (ignored by .x2)
            const int j = (lane >> 3) & 1;
            const int ncol = wn0 + ni * 8;
            if constexpr (Cfg::B_KMAJOR)
              ldmatrix_x2<false>(bf[ni], Bs + (ncol + lr) * LB::PITCH + kk + j * (KSTEP / 2));
            else if constexpr (TF32)
              frag32_b_mn<LB::PITCH>(bf[ni], Bs, ncol, kk, lane);
            else
              ldmatrix_x2<true>(bf[ni], Bs + (kk + j * 8 + lr) * LB::PITCH + ncol);
            if constexpr (FRAG_OP_B) frag_op<typename Cfg::OpB, TB>(bf[ni], U(kt) * U(BK) + U(kk), lane);
          }
          if constexpr (TF32 == 2) {
            mma_f64_tile<MI, NI>(acc, af, bf);
          } else if constexpr (TF32) {
            mma_tf32_tile<TF32, MI, NI>(acc, af, bf);
          } else {
#pragma unroll
            for (int mi = 0; mi < MI; ++mi)
#pragma unroll
              for (int ni = 0; ni < NI; ++ni)
                Mma<TA, TB>::run(&acc[(mi * NI + ni) * 4], af[mi], bf[ni]);
          }
        }
      } else {
        // (a semiring skips the zero-filled k >= K slots, which add 0 * x to an ordinary sum)
        const int kmax = SR::kStandard || FULL_K ? BK : int(min(U(BK), U(K) - U(kt) * U(BK)));
#pragma unroll
        for (int kk0 = 0; kk0 < BK; kk0 += KV) {
          if (!SR::kStandard && !FULL_K && kk0 >= kmax) break;
          TAcc a[KV][TM], b[KV][TN];
          simt_block<Cfg::A_KMAJOR, KVA, GM, TM, LA>(a, As, kk0, [&](int i) { return row(tm, i); });
          simt_block<Cfg::B_KMAJOR, KVB, GN, TN, LB>(b, Bs, kk0, [&](int j) { return col(tn, j); });
#pragma unroll
          for (int e = 0; e < KV; ++e) {
            if (!SR::kStandard && !FULL_K && kk0 + e >= kmax) break;
            // (b[j] stays in the operand reuse cache down the column; the other two sources, a[i] and the
            //  accumulator, then sit in different register banks more often than row by row: on a 128 x 64
            //  tile, FFMAs on same-bank pairs fell from 43% to 19% of them, and the kernel ran 3% faster on the
            //  H100)
#pragma unroll
            for (int j = 0; j < TN; ++j)
#pragma unroll
              for (int i = 0; i < TM; ++i) acc[i * TN + j] = SR::madd(acc[i * TN + j], a[e][i], b[e][j]);
          }
        }
      }
    }
    }  // (k-loop of the non-warp-specialised paths)
    if constexpr (WG_INFLIGHT && !WS) {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      wg_fence_regs(acc);
    }
    if constexpr (!PERSIST) {  // (the staging tile reuses the pipeline buffers: drain them first)
      cp_async_wait<0>();
      sync_compute();
    } else if constexpr (WS && !DIRECT_D) {  // (no barrier in a warp-specialised k-loop: the last tile's stores read
      //  the staging tile; EPI_CHUNK: both warpgroups' wgmmas have read the last stage before it is staged in)
      sync_compute();
    }  // (persistent: the staging tile is its own; the k-loop's barriers order it after the last tile's reads)
    if constexpr (SK) {
      if (piece && !sk_fixup(acc, *piece, tid - (THREADS - ETHREADS))) return;
    }
    if constexpr (DIRECT_D) {
      store_direct(acc, D, alpha, bz, m0, n0, wm0);
      return;
    }
    if constexpr (EPI_CHUNK) {
      const int last = int((kstep - 1) % STAGES);  // (the tile's last stage: K > 0)
      store_chunked(acc, reinterpret_cast<unsigned char*>(stA(last)), reinterpret_cast<unsigned char*>(stB(last)),
                    &bars[STAGES + last], D, alpha, bz, m0, n0, wm0);
      return;
    }

    // (3) stage the accumulator tile in shared memory, each value at its tile coordinate (the loaders'
    //     slot permutations undone)
    TE* es = reinterpret_cast<TE*>(smem + (PERSIST ? PIPE_BYTES : 0));
    using PA = typename LA::Perm;
    using PB = typename LB::Perm;
    if constexpr (MMA) {
      const int g = lane >> 2, q = lane & 3;
      // (n, n + 1) are neighbours in the staging tile when B's slots are not permuted and D runs along n
      constexpr bool PAIR = D_NCONTIG && LB::Perm::kIdentity;
#pragma unroll
      for (int mi = 0; mi < MI; ++mi)
#pragma unroll
        for (int ni = 0; ni < NI; ++ni)
#pragma unroll
          for (int h = 0; h < 2; ++h) {
            const int m = PA::coord(wm0 + mi * MSTEP + g + h * 8), n = wn0 + ni * 8 + 2 * q;
            const TE v0 = staged(acc[(mi * NI + ni) * 4 + 2 * h], alpha);
            const TE v1 = staged(acc[(mi * NI + ni) * 4 + 2 * h + 1], alpha);
            if constexpr (PAIR) {
              *reinterpret_cast<Pack<TE, 2>*>(&epi(es, m, n)) = Pack<TE, 2>{{v0, v1}};
            } else {
              epi(es, m, PB::coord(n)) = v0;
              epi(es, m, PB::coord(n + 1)) = v1;
            }
          }
    } else if constexpr (D_NCONTIG && LB::Perm::kIdentity && GN > 1) {  // GN neighbours of a row: one store
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j0 = 0; j0 < TN; j0 += GN) {
          Pack<TE, GN> v;
#pragma unroll
          for (int e = 0; e < GN; ++e) v.e[e] = staged(acc[i * TN + j0 + e], alpha);
          *reinterpret_cast<Pack<TE, GN>*>(&epi(es, PA::coord(row(tm, i)), col(tn, j0))) = v;
        }
    } else {
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
          epi(es, PA::coord(row(tm, i)), PB::coord(col(tn, j))) = staged(acc[i * TN + j], alpha);
    }
    sync_compute();

    // (4) epilogue: D = op_d(alpha * acc + beta * op_c(C)), VD elements per store along D's
    //     contiguous dimension, coalesced across the threads
    //     D_RUN > 0: D's stride-1 run along the store dimension is only D_RUN elements long and goes on
    //     over the first D_CONT coordinates of the other dimension (ccsd_t's outputs); the threads then
    //     walk (run, continuation, next run, ...) so that a warp stores one contiguous stretch of D
    constexpr int VD = Cfg::D_VEC;
    constexpr int LVD = EC / VD;
    constexpr int DR = Cfg::D_RUN, DC = DR ? Cfg::D_CONT : 1;
    constexpr int RV = DR ? DR / VD : 1, EH = DR ? (EC + DR - 1) / DR : 1;
    constexpr int NVD = DR ? RV * DC * EH * ((ES + DC - 1) / DC) : LVD * ES;
    static_assert(EC % VD == 0, "D vector width must divide the tile");
    static_assert(!DR || (DR % VD == 0 && DC >= 1), "a D run is whole vectors");
    TD* Db = D + gett_offset<I>(bz, typename Cfg::MapDb{});
    const TC* Cb = nullptr;
    if constexpr (Cfg::READ_C) Cb = C + gett_offset<I>(bz, typename Cfg::MapCb{});
    if constexpr (ROW_WALK) {
      store_rows(es, Cb, Db, alpha, beta, tid - (THREADS - ETHREADS), m0, n0);
      return;
    }
#pragma unroll 1
    for (int idx = tid - (THREADS - ETHREADS); idx < NVD; idx += ETHREADS) {  // (WS: the computing threads)
      int ec, sl;  // coordinates along the store dimension and the other one
      if constexpr (DR > 0) {
        const int r = idx / RV, r2 = r / DC;
        ec = (idx % RV) * VD + DR * (r2 % EH);
        sl = r % DC + DC * (r2 / EH);
        if (ec >= EC || sl >= ES) continue;
      } else {
        ec = (idx % LVD) * VD;
        sl = idx / LVD;
      }
      const int m = D_NCONTIG ? sl : ec, n = D_NCONTIG ? ec : sl;
      const U gm = m0 + U(m), gn = n0 + U(n);
      if (!(FULL_M || gm < U(M)) || !(FULL_N || gn < U(N))) continue;
      I coff_fixed = 0;  // (C's offset along the other dimension; along the store dimension per value below)
      if constexpr (Cfg::READ_C) {
        coff_fixed = D_NCONTIG ? gett_offset<I>(gm, typename Cfg::MapCm{}) : gett_offset<I>(gn, typename Cfg::MapCn{});
      }
      const Pack<TD, VD> out = finished_vec(es, m, n, Cb, alpha, beta, [&](int e) {
        return coff_fixed + (D_NCONTIG ? gett_offset<I>(gn + U(e), typename Cfg::MapCn{})
                                       : gett_offset<I>(gm + U(e), typename Cfg::MapCm{}));
      });
      const I doff = gett_offset<I>(gm, typename Cfg::MapDm{}) + gett_offset<I>(gn, typename Cfg::MapDn{});
      *reinterpret_cast<Pack<TD, VD>*>(Db + doff) = out;
    }
  }

  // the D_VEC finished values of the staging tile at (m, n) along the store dimension: op_d(alpha * acc + beta *
  // op_c(C)), C's value e at Cb[coff(e)] (read only with READ_C; without C the tile holds finished values already)
  template <class COff>
  __device__ __forceinline__ static Pack<TD, Cfg::D_VEC> finished_vec(const TE* es, int m, int n, const TC* Cb,
                                                                      TAcc alpha, TAcc beta, COff coff) {
    constexpr int VD = Cfg::D_VEC;
    Pack<TD, VD> out;
    TE ev[VD];  // (contiguous in the staging tile)
    load_run<VD, EPI_ODD ? 1 : VD>(ev, &epi(const_cast<TE*>(es), m, n));
#pragma unroll
    for (int e = 0; e < VD; ++e) {
      if constexpr (STAGE_D) {
        out.e[e] = ev[e];
      } else {
        TAcc v = alpha * TAcc(ev[e]);
        if constexpr (Cfg::READ_C) v += beta * TAcc(Cfg::OpC::template apply<TAcc>(TAcc(to_f(Cb[coff(e)]))));
        if constexpr (!Cfg::OpD::kIdentity) v = Cfg::OpD::template apply<TAcc>(v);
        out.e[e] = from_acc<TD>(v);
      }
    }
    return out;
  }

  // (ROW_WALK) the staged epilogue where a warp's lanes keep one row of the staging tile together and every thread
  // one vector position along the store dimension (the vectors of a staged row, EC / D_VEC, a multiple of 32 that
  // divides ETHREADS; no run-by-run walk): a thread's offsets along the store dimension, in D and C, are computed
  // once per tile; its rows are sl0, sl0 + SSTEP, ..., and lane j computes the offsets of the warp's j-th row of
  // each 32 and passes them round, so that a row costs one shuffle instead of a map evaluation. With odd extents
  // D's vectors are single elements, and evaluating two multi-mode maps per element bound the epilogue
  static constexpr int LVD_ = EC / Cfg::D_VEC;
  static constexpr bool ROW_WALK = Cfg::D_RUN == 0 && ETHREADS % LVD_ == 0 && LVD_ % 32 == 0;
  __device__ __forceinline__ static void store_rows(const TE* es, const TC* Cb, TD* Db, TAcc alpha, TAcc beta, int t,
                                                    U m0, U n0) {
    constexpr int VD = Cfg::D_VEC, SSTEP = ETHREADS / LVD_, ROWS = (ES + SSTEP - 1) / SSTEP;
    using MDe = typename Cond<D_NCONTIG, typename Cfg::MapDn, typename Cfg::MapDm>::type;
    using MDs = typename Cond<D_NCONTIG, typename Cfg::MapDm, typename Cfg::MapDn>::type;
    using MCe = typename Cond<D_NCONTIG, typename Cfg::MapCn, typename Cfg::MapCm>::type;
    using MCs = typename Cond<D_NCONTIG, typename Cfg::MapCm, typename Cfg::MapCn>::type;
    constexpr U LIM_E = U(D_NCONTIG ? N : M), LIM_S = U(D_NCONTIG ? M : N);
    constexpr bool FULL_E = D_NCONTIG ? FULL_N : FULL_M, FULL_S = D_NCONTIG ? FULL_M : FULL_N;
    const int lane = t & 31, ec = (t % LVD_) * VD, sl0 = t / LVD_;
    const U ge = (D_NCONTIG ? n0 : m0) + U(ec), gs0 = (D_NCONTIG ? m0 : n0) + U(sl0);
    const bool eok = FULL_E || ge < LIM_E;  // (a vector is whole or past the edge: EC % VD == 0, D_VEC divides it)
    const I de = eok ? gett_offset<I>(ge, MDe{}) : I(0);
    I ce[Cfg::READ_C ? VD : 1];
    if constexpr (Cfg::READ_C) {
#pragma unroll
      for (int e = 0; e < VD; ++e) ce[e] = eok ? gett_offset<I>(ge + U(e), MCe{}) : I(0);
    }
    // (row i of this thread: sl0 + i SSTEP; rows grow with i, so the first one past the tile or the edge ends it)
    auto row_ok = [&](int i) { return i < ROWS && sl0 + i * SSTEP < ES && (FULL_S || gs0 + U(i * SSTEP) < LIM_S); };
    auto one = [&](int i, I ds, I cs) {
      if (!eok) return;
      const int sl = sl0 + i * SSTEP;
      *reinterpret_cast<Pack<TD, VD>*>(Db + de + ds) =
          finished_vec(es, D_NCONTIG ? sl : ec, D_NCONTIG ? ec : sl, Cb, alpha, beta, [&](int e) { return cs + ce[e]; });
    };
#pragma unroll 1
    for (int i0 = 0; i0 < ROWS; i0 += 32) {
      const bool ok = row_ok(i0 + lane);
      const U gs = gs0 + U((i0 + lane) * SSTEP);
      const I dsl = ok ? gett_offset<I>(gs, MDs{}) : I(0);
      I csl = I(0);
      if constexpr (Cfg::READ_C) csl = ok ? gett_offset<I>(gs, MCs{}) : I(0);
      const int live = __popc(__ballot_sync(0xffffffffu, ok));  // (the warp's rows of these 32 in the tile)
#pragma unroll 4
      for (int j = 0; j < live; ++j) {
        const I ds = __shfl_sync(0xffffffffu, dsl, j);
        const I cs = Cfg::READ_C ? __shfl_sync(0xffffffffu, csl, j) : I(0);
        one(i0 + j, ds, cs);
      }
    }
  }
};

