"""v24 probe (H100): the k-loop of TCCG #12 f16's persistent 256 x 160 warp-specialised tile, ordered as
cuBLAS's kernel orders its own (v23 call10's SASS of nvjet_sm90_hsh_256x160_64x3_2x1_v_bz_coopA_TTT: per
stage, one 64-row block's four wgmmas, then a wait for every earlier group, then the previous stage's release,
then the other block's four and the commit). Variants, on top of v23's epi_probe.py (whose variants still
work): `early` (that order, each block its own group: the first block committed, a wait for all groups but
it, which is the previous stage's, the release, then the second block committed with no wait; a wait for
every group before the first block's commit also waits for that block under ptxas); `mfirst` (one group a stage as now, block by block instead
of k-step by k-step); `early3`, `mfirst3` (the same on 3 stages, cuBLAS's depth).

    PYTHONPATH=. python3 tccg/results/v24_h100/kloop_probe.py [rounds] [variants, comma list]
"""
import dataclasses
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v23_h100"))
import epi_probe  # noqa: E402

STAGE = """        if (K_TAIL < BK / 16 && kt == tail)
          wg_stage<NL, 1, K_TAIL>(acc, stA(s), stB(s), crow);
        else
          wg_stage<NL, 1>(acc, stA(s), stB(s), crow);
      }
      if (kt > kbeg) release_stage(&bars[STAGES + int((q - 1) % STAGES)]);"""
EARLY = """        unsigned long long* prev_ = kt > kbeg ? &bars[STAGES + int((q - 1) % STAGES)] : nullptr;
        if constexpr (NL == 2) {
          if (K_TAIL < BK / 16 && kt == tail)
            wg_early<K_TAIL>(acc, stA(s), stB(s), crow, prev_);
          else
            wg_early<BK / 16>(acc, stA(s), stB(s), crow, prev_);
        } else {
          if (K_TAIL < BK / 16 && kt == tail)
            wg_stage<NL, 1, K_TAIL>(acc, stA(s), stB(s), crow);
          else
            wg_stage<NL, 1>(acc, stA(s), stB(s), crow);
          if (prev_) release_stage(prev_);
        }
      } else {
        if (kt > kbeg) release_stage(&bars[STAGES + int((q - 1) % STAGES)]);
      }"""
HELPER_AT = "  // a computing warp's release of a stage"
HELPER = """  template <int KS, int R>
  __device__ __forceinline__ static void wg_early(TAcc (&acc)[R], const TA* As, const TB* Bs, int row0,
                                                  unsigned long long* prev) {
    wg_fence_regs(acc);
    asm volatile("wgmma.fence.sync.aligned;\\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < KS * 16; kk += 16)
      Cfg::Wgmma::run(acc, wg_desc(As + LA::wg_start(row0, kk), LA::WG_LBO, LA::WG_SBO),
                      wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));
    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\\n" ::: "memory");
    if (prev) release_stage(prev);
#pragma unroll
    for (int kk = 0; kk < KS * 16; kk += 16)
      Cfg::Wgmma::run(acc + BN / 2, wg_desc(As + LA::wg_start(row0 + 64, kk), LA::WG_LBO, LA::WG_SBO),
                      wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));
    asm volatile("wgmma.commit_group.sync.aligned;\\n" ::: "memory");
    wg_fence_regs(acc);
  }
"""
ORDER = """    for (int kk = 0; kk < KS * 16; kk += 16)
#pragma unroll
      for (int mi = 0; mi < NL; ++mi)
        Cfg::Wgmma::run(acc + mi * (BN / 2), wg_desc(As + LA::wg_start(row0 + mi * 64, kk), LA::WG_LBO, LA::WG_SBO),
                        wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));"""
MFIRST = """    for (int mi = 0; mi < NL; ++mi)
#pragma unroll
      for (int kk = 0; kk < KS * 16; kk += 16)
        Cfg::Wgmma::run(acc + mi * (BN / 2), wg_desc(As + LA::wg_start(row0 + mi * 64, kk), LA::WG_LBO, LA::WG_SBO),
                        wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));"""

_base = epi_probe.variant


def variant(name: str, heur, text: str):
    if "+" in name:
        return _base(name, heur, text)  # (joined names come back here part by part through epi_probe.variant)
    stages = 3 if name[-1] == "3" and name[:-1] in ("early", "mfirst") else None
    core = name[:-1] if stages else name
    spec = heur if stages is None else dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, stages=3))
    if core == "early":
        assert STAGE in text and HELPER_AT in text
        return spec, text.replace(STAGE, EARLY).replace(HELPER_AT, HELPER + HELPER_AT, 1)
    if core == "mfirst":
        assert ORDER in text
        return spec, text.replace(ORDER, MFIRST)
    return _base(name, heur, text)


epi_probe.variant = variant

if __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,early,mfirst,torch").split(","))
