// gett_run.cuh — gett::Gett, part 3 of its class body: run, the schedule driver (one tile a CTA, persistent
// walks, warp-specialised loaders and computing warpgroups, stream-K CTAs)
  __device__ static void run(const TA* __restrict__ A, const TB* __restrict__ B, const TC* __restrict__ C,
                             TD* __restrict__ D, TAcc alpha, TAcc beta, unsigned char* smem,
                             const TmaDesc* tmA = nullptr, const TmaDesc* tmB = nullptr, void* ws = nullptr,
                             const TmaDesc* tmBh = nullptr) {
    const int tid = threadIdx.x;
    if constexpr (WG) smem += (1024u - (unsigned)__cvta_generic_to_shared(smem) % 1024u) % 1024u;
    constexpr U NTILES = U(TILES_R) * U(BATCH);  // (clusters: the padded tile rows; an even grid keeps the pairs)
    const U step = PERSIST ? U(gridDim.x) : NTILES;  // (non-persistent: one tile per CTA)

    TA* sA = reinterpret_cast<TA*>(smem);
    TB* sB = reinterpret_cast<TB*>(smem + STAGES * A_STAGE_BYTES);
    auto stA = [&](int s) { return reinterpret_cast<TA*>(reinterpret_cast<unsigned char*>(sA) + s * A_STAGE_BYTES); };
    auto stB = [&](int s) { return reinterpret_cast<TB*>(reinterpret_cast<unsigned char*>(sB) + s * B_STAGE_BYTES); };

    if constexpr (WS) {
      // full[s] = bars[s] (the loaders' copies landed), empty[s] = bars[STAGES + s] (the computing warps'
      // wgmmas have read stage s)
      unsigned long long* bars = reinterpret_cast<unsigned long long*>(smem + BAR_OFFSET);
      // (the full barriers count the loaders' arrivals: one, its boxes' bytes expected, from the thread that
      //  issues a TMA stage, else one per loading thread as its cp.async copies land; the empty barriers one
      //  per computing warp, of each CTA of a cluster, as a stage is filled in both; every barrier initialised
      //  in both CTAs of a cluster before either multicasts or arrives remotely)
      const unsigned crank = CLUSTER > 1 ? cluster_rank() : 0u;
      if constexpr (Cfg::TMA_RANK > 0) {  // (the tensor maps into the TMA unit's cache before the first box)
        if (tid == 0) asm volatile("prefetch.tensormap [%0];\nprefetch.tensormap [%1];\n" ::"l"(tmA), "l"(tmB) : "memory");
        if constexpr (HALF_ATOM) {
          if (tid == 0) asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmBh) : "memory");
        }
      }
      if (tid == 0) {
        for (int s = 0; s < STAGES; ++s) {
          mbar_init(&bars[s], Cfg::TMA_RANK > 0 ? 1u : 128u);
          mbar_init(&bars[STAGES + s], unsigned(CONSUMER_WARPS * CLUSTER));
        }
        if constexpr (CLUSTER > 1) asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
      }
      if constexpr (CLUSTER > 1) cluster_sync();
      else __syncthreads();
      // the CTA's work: its tile whole, (a stream-K CTA) its shares of one to three tiles in order, or
      // (persistent) tiles blockIdx.x, + gridDim.x, ..., the loads running on into the next tile while the
      // computing warpgroups store this one (the epilogue tile has shared memory of its own);
      // kstep: k-tiles through the stage ring so far (both sides count it alike across the shares / tiles)
      // (one copy of the walk per role, `loader` constant in each: the compiler allocates registers per role)
      const bool sk_cta = SK && U(blockIdx.x) >= U(DP_TILES);
      const long long c = (long long)blockIdx.x - DP_TILES, end = sk_cta ? sk_begin(c + 1) : KTILES;
      auto walk = [&](const bool loader) {
        long long kstep = 0;
        U g = U(blockIdx.x);
#pragma unroll 1
        for (long long it = sk_cta ? sk_begin(c) : 0; it < end;) {
          const Piece p = sk_cta ? sk_piece(c, it, end, ws) : Piece{c, 0, 0, KTILES, ws};
          if (sk_cta) g = U(DP_TILES + p.tile);
          U bz, m0, n0;
          tile_coords(g, bz, m0, n0);
          if (loader) {
            // (1') the loading warpgroup (TMA: its first thread; the others idle): k-tile kt into stage q % STAGES
            //      (q = kstep: the ring step) once the wgmmas of ring step q - STAGES released it; the copies
            //      arrive on the stage's full barrier
            if (Cfg::TMA_RANK == 0 || tid == 0) {
              const TA* Ab;
              const TB* Bb;
              LA la;
              LB lb;
              start_tile(g, A, B, tid, bz, m0, n0, Ab, Bb, la, lb);
              const bool rev = reversed(kstep);
#pragma unroll 1
              for (long long kk = p.kb; kk < p.ke; ++kk, ++kstep) {
                const long long kt = rev ? KTILES - 1 - kk : kk;
                const int s = int(kstep % STAGES);
                if (kstep >= STAGES) mbar_wait(&bars[STAGES + s], unsigned((kstep / STAGES - 1) & 1));
                if constexpr (Cfg::TMA_RANK > 0) {  // (the whole stage in a few boxes)
                  mbar_arrive_expect_tx(&bars[s], LA::tx_bytes(m0) + LB::template tx_bytes<HALF_ATOM>(n0));
                  constexpr int TR = Cfg::TMA_RANK, AR = Cfg::A_TMA_ROWS, BR = Cfg::B_TMA_ROWS;
                  constexpr long long AS = Cfg::A_TMA_SPLIT, BS = Cfg::B_TMA_SPLIT;
                  const U k0 = U(kt) * U(BK);
                  LA::template tma<TR, AS, AR>(stA(s), tmA, &bars[s], m0, k0, bz);
                  if constexpr (CLUSTER > 1)  // (B: this CTA's half, into both; the other half comes from the peer)
                    LB::template tma_half<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, crank, tmBh);
                  else
                    LB::template tma<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, tmBh);
                } else {
                  la.load(stA(s), Ab, tid, U(kt) * U(BK));
                  lb.load(stB(s), Bb, tid, U(kt) * U(BK));
                  cp_async_mbar_arrive(&bars[s]);
                }
              }
            }
          } else {
            auto no_loads = [](int, long long) {};
            tile_body(C, D, alpha, beta, smem, stA, stB, no_loads, kstep, bz, m0, n0, bars, sk_cta ? &p : nullptr);
          }
          if constexpr (PERSIST) {
            g = next_tile(g, NTILES);
            if (g >= NTILES) break;
            continue;
          }
          if (!sk_cta) break;
          it += p.ke - p.kb;
          __syncthreads();  // (the epilogue's reads of the pipeline's shared memory before the next share's loads)
        }
      };
      // (REG_SPLIT: the loading warpgroup hands registers to the computing ones, which hold MI x BN / 2
      //  accumulators a thread)
      if (tid < 128) {
        if constexpr (REG_SPLIT) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(LOAD_REGS));
        walk(true);
        cp_async_wait_all();
      } else {
        if constexpr (REG_SPLIT) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(COMPUTE_REGS));
        walk(false);
      }
      if constexpr (CLUSTER > 1) cluster_sync();  // (no CTA leaves while its peer may still arrive on its barriers)
      return;
    }

    // (RES_A: A's panel, copied once; its copies join the first k-tile's group, whose wait covers them. With
    //  an op on A, the panel lands first and each thread applies it to the values it copied; the first
    //  k-tile's barrier then orders those stores before any thread reads the panel. A flat panel's words are
    //  scattered to slots that other threads transform: a barrier between)
    if constexpr (RES_A) {
      TA* pan = panel_of(smem);
      LP lp;
      lp.init(tid, U(0));
      lp.load(pan, A, tid, U(0));
      if constexpr (!Cfg::OpA::kIdentity) {
        cp_async_commit();
        cp_async_wait<0>();
        if constexpr (Cfg::A_FLAT) __syncthreads();
        lp.template transform<typename Cfg::OpA>(pan, tid, U(0));
      }
    }

    // one tile (p == nullptr: all its k-tiles, bounds known at compile time) or a stream-K share p of one,
    // with a pipeline of its own: the prologue fills PF stages, tile_body computes them and stores (or
    // hands the share on)
    auto one_tile = [&](U g, const Piece* p) {
      U bz, m0, n0;
      const TA* Ab;
      const TB* Bb;
      LA la;
      LB lb;
      start_tile(g, A, B, tid, bz, m0, n0, Ab, Bb, la, lb);
      auto load_k = [&](int s, long long nk) {
        if (nk < (p ? p->ke : KTILES)) {
          if constexpr (!RES_A) la.load(stA(s), Ab, tid, U(nk) * U(BK));
          lb.load(stB(s), Bb, tid, U(nk) * U(BK));
        }
        cp_async_commit();
      };
#pragma unroll
      for (int s = 0; s < PF; ++s) load_k(s, (p ? p->kb : 0) + s);
      long long kstep = 0;
      tile_body(C, D, alpha, beta, smem, stA, stB, load_k, kstep, bz, m0, n0, nullptr, p);
    };

    if constexpr (!PERSIST) {
      if (!SK || U(blockIdx.x) < U(DP_TILES)) {  // (one whole tile per CTA)
        one_tile(U(blockIdx.x), nullptr);
        return;
      }
      // a stream-K CTA: its shares of one to three tiles, in order
      const long long c = (long long)blockIdx.x - DP_TILES, end = sk_begin(c + 1);
#pragma unroll 1
      for (long long it = sk_begin(c); it < end;) {
        const Piece p = sk_piece(c, it, end, ws);
        one_tile(U(DP_TILES + p.tile), &p);
        it += p.ke - p.kb;
        __syncthreads();  // (the epilogue's reads of shared memory before the next share's loads)
      }
    } else {
      // persistent: the loads run ahead across this CTA's tiles: tile `ltile`, k-tile `lk` comes next;
      // the loaders hold that tile's mn offsets
      U ltile = U(blockIdx.x), lbz, lm0, ln0;
      long long lk = 0;
      const TA* lAb;
      const TB* lBb;
      LA la;
      LB lb;
      start_tile(ltile, A, B, tid, lbz, lm0, ln0, lAb, lBb, la, lb);
      // issue the copies of the next k-tile into stage s and move on (to the next tile after the last k-tile)
      auto load_next = [&](int s, long long) {
        if (KTILES > 0 && ltile < NTILES) {  // (K == 0: nothing to load, only C to scale)
          if constexpr (!RES_A) la.load(stA(s), lAb, tid, U(lk) * U(BK));
          lb.load(stB(s), lBb, tid, U(lk) * U(BK));
          if (++lk == KTILES) {
            lk = 0;
            ltile += step;
            if (ltile < NTILES) start_tile(ltile, A, B, tid, lbz, lm0, ln0, lAb, lBb, la, lb);
          }
        }
        cp_async_commit();
      };
      // (1) prologue: fill PF stages
#pragma unroll
      for (int s = 0; s < PF; ++s) load_next(s, s);
      long long kstep = 0;  // k-tiles computed by this CTA so far (all its tiles): the stage ring position
#pragma unroll 1
      for (U tile = U(blockIdx.x); tile < NTILES; tile += step) {
        U bz, m0, n0;
        tile_coords(tile, bz, m0, n0);
        tile_body(C, D, alpha, beta, smem, stA, stB, load_next, kstep, bz, m0, n0);
      }
      cp_async_wait<0>();
    }
  }

