// gett_wgmma_loop.cuh — gett::Gett, part 4 of its class body: the warp-specialised wgmma mainloop
  // one wgmma W of a warpgroup: its 64-row block mi (from tile row row0; accumulators BN / 2 apart), k-step kk
  template <class W, int R>
  __device__ __forceinline__ static void wg_mma(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0, int mi, int kk) {
    W::run(acc + mi * (BN / 2), wg_desc(As + LA::wg_start(row0 + mi * 64, kk), LA::WG_LBO, LA::WG_SBO),
           wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));
  }
  // a warpgroup's wgmmas on one stage: KS k-steps of KSTEP (BK / KSTEP, fewer on a partial last k-tile) over its NL
  // 64-row blocks from tile row row0 (accumulators BN / 2 apart), committed as one group; then wait until at most
  // WAIT groups are in flight. W: the wgmma (Cfg::Wgmma; Cfg::WgmmaTail on a warp-specialised grid's partial last
  // column)
  template <int NL, int WAIT, int KS, class W, int R>
  __device__ __forceinline__ static void wg_stage(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0) {
    wg_fence_regs(acc);
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < KS * KSTEP; kk += KSTEP)
#pragma unroll
      for (int mi = 0; mi < NL; ++mi) wg_mma<W>(acc, As, Bs, row0, mi, kk);
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(WAIT) : "memory");
    wg_fence_regs(acc);
  }
  // a computing warp's release of a stage (its wgmmas have read it; wait_group is warp-wide): one arrival
  // from its first lane on the stage's empty barrier, or (a cluster) on that of each CTA, whose loaders
  // multicast into this one
  __device__ __forceinline__ static void release_stage(unsigned long long* empty) {
    if ((threadIdx.x & 31) == 0) {
      if constexpr (CLUSTER > 1) {
#pragma unroll
        for (int c = 0; c < CLUSTER; ++c) mbar_arrive_cluster(empty, unsigned(c));
      } else {
        mbar_arrive(empty);
      }
    }
  }
  // a computing warpgroup's wgmmas on stage s of a warp-specialised tile, then the release of the stage before
  // (prev; null on the first k-tile). Two 64-row blocks (NL == 2) go as two groups, in the order of cuBLAS's
  // kernel for this tile: the first block's KS k-steps committed, a wait for every group but that one (the
  // previous stage's), the release, then the second block committed with no wait, so the warps never wait
  // with a whole stage queued (measured faster on the H100 than one group per stage). One block: one group, a wait
  // for the one before, the release. W: as wg_stage's.
  template <int NL, int KS, class W, int R>
  __device__ __forceinline__ static void ws_stage(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0,
                                                  unsigned long long* prev) {
    if constexpr (NL == 2) {
      wg_fence_regs(acc);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
      for (int mi = 0; mi < 2; ++mi) {
#pragma unroll
        for (int kk = 0; kk < KS * KSTEP; kk += KSTEP) wg_mma<W>(acc, As, Bs, row0, mi, kk);
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        if (mi == 0) {
          asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
          if (prev) release_stage(prev);
        }
      }
      wg_fence_regs(acc);
    } else {
      wg_stage<NL, 1, KS, W>(acc, As, Bs, row0);
      if (prev) release_stage(prev);
    }
  }
  // (2') the k-loop of a computing warpgroup of a warp-specialised tile whose first NL 64-row blocks are live
  //      (ring steps kstep.. for k-tiles kbeg..kend - 1; its accumulator rows start at tile row crow), on wgmma W
  template <int NL, class W, class SA, class SB, int R>
  __device__ __forceinline__ static void ws_kloop(TAcc (&acc)[R], SA stA, SB stB, unsigned long long* bars,
                                                  long long kstep, long long kbeg, long long kend, int crow) {
    const long long tail = reversed(kstep) ? 0 : KTILES - 1;  // (the partial k-tile: first on a reversed walk)
#pragma unroll 1
    for (long long kt = kbeg; kt < kend; ++kt) {
      const long long q = kstep + (kt - kbeg);
      const int s = int(q % STAGES);
      mbar_wait(&bars[s], unsigned((q / STAGES) & 1));
      if constexpr (NL > 0) {
        // (the loaders' copies are generic-proxy writes; the wgmma reads through the async proxy, as TMA writes)
        if constexpr (Cfg::TMA_RANK == 0) asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
        unsigned long long* prev = kt > kbeg ? &bars[STAGES + int((q - 1) % STAGES)] : nullptr;
        if (K_TAIL < BK / KSTEP && kt == tail)
          ws_stage<NL, K_TAIL, W>(acc, stA(s), stB(s), crow, prev);
        else
          ws_stage<NL, BK / KSTEP, W>(acc, stA(s), stB(s), crow, prev);
      } else if (kt > kbeg) {
        release_stage(&bars[STAGES + int((q - 1) % STAGES)]);
      }
    }
    if constexpr (NL > 0) {
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      wg_fence_regs(acc);
    }
  }

  // ws_kloop on the warpgroup's live 64-row blocks of the tile at row m0 (all MI where no tile row passes M)
  template <class W, class SA, class SB, int R>
  __device__ __forceinline__ static void ws_kloop_rows(TAcc (&acc)[R], SA stA, SB stB, unsigned long long* bars,
                                                       long long kstep, long long kbeg, long long kend, int crow,
                                                       U m0) {
    if constexpr (FULL_M) {
      ws_kloop<MI, W>(acc, stA, stB, bars, kstep, kbeg, kend, crow);
    } else {
      const long long rest = (M - (long long)m0 - crow + 63) / 64;  // (live blocks of this warpgroup)
      if (rest >= MI) {
        ws_kloop<MI, W>(acc, stA, stB, bars, kstep, kbeg, kend, crow);
      } else if (MI == 2 && rest == 1) {
        ws_kloop<(MI > 1 ? 1 : 0), W>(acc, stA, stB, bars, kstep, kbeg, kend, crow);
      } else {
        ws_kloop<0, W>(acc, stA, stB, bars, kstep, kbeg, kend, crow);
      }
    }
  }

