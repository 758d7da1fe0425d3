"""v24 probe (H100): the k-loop of TCCG #12 f16's persistent 256 x 160 warp-specialised tile, ordered as
cuBLAS's kernel orders its own (v23 call10's SASS of nvjet_sm90_hsh_256x160_64x3_2x1_v_bz_coopA_TTT: per
stage, one 64-row block's four wgmmas, then a wait for every earlier group, then the previous stage's release,
then the other block's four and the commit). Variants, on top of v23's epi_probe.py (whose variants still
work): `early` (that order, each block its own group: the first block committed, a wait for all groups but
it, which is the previous stage's, the release, then the second block committed with no wait; a wait for
every group before the first block's commit also waits for that block under ptxas); `mfirst` (one group a
stage as now, block by block instead of k-step by k-step); `early3`, `mfirst3` (the same on 3 stages,
cuBLAS's depth). `early` went into gett.cuh (ws_stage) after call 1, so on later code it stops at its assert.

`stamps` (call 3): the heuristic kernel writing %globaltimer into a device array: each CTA's entry (its loading
thread, before the barriers' set-up), its computing warps' start, the end of each of its tiles, and its SM; the
last of 30 launches is read back and summarised (where the SMs' idle time in Nsight Compute's SM Active Cycles
comes from: the start, the end, or tiles of uneven length); call 4 adds each CTA's SM clock (clock64 over its
computing warps' span) and #2. `notail` (call 5): the grid's last, partial tile column on the full-width wgmma,
as before KernelSpec.wg_tail_n (#12: 160 columns computed for 16). `gN` (call 6): raster groups of N tile rows
(TileConfig.group_m; the heuristic's 4 makes each wave of 132 tiles 4 rows x all 33 columns, 63 MB of A and B from
DRAM a wave; 8-12 make it about 48 MB).

    PYTHONPATH=. python3 tccg/results/v24_h100/kloop_probe.py [rounds] [variants, comma list]
"""
import dataclasses
import pathlib
import re
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

STAMP_GLOBALS = """__device__ unsigned long long gett_ts[1024 * 16];
static __device__ __forceinline__ unsigned long long gett_now() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
"""
ENTRY = """        if constexpr (CLUSTER > 1) asm volatile("fence.mbarrier_init.release.cluster;\\n" ::: "memory");"""
WALK = """      auto walk = [&](const bool loader) {
        long long kstep = 0;"""
WALK_STAMP = """
        if (!loader && tid == 128) {
          unsigned sm_;
          asm volatile("mov.u32 %0, %%smid;" : "=r"(sm_));
          gett_ts[blockIdx.x * 16 + 5] = gett_now();
          gett_ts[blockIdx.x * 16 + 6] = sm_;
          gett_ts[blockIdx.x * 16 + 8] = clock64();
        }"""
BODY = ("            tile_body(C, D, alpha, beta, smem, stA, stB, no_loads, kstep, bz, m0, n0, bars, "
        "sk_cta ? &p : nullptr,\n                      tmD);")
BODY_STAMP = ("\n            if (tid == 128 && g / U(gridDim.x) < U(5)) {"
              " gett_ts[blockIdx.x * 16 + unsigned(g / U(gridDim.x))] = gett_now();"
              " gett_ts[blockIdx.x * 16 + 9] = clock64(); }")

TAIL = "      if (Cfg::WG_NT < BN && n0 + U(BN) > U(N))"
KWAIT = "      mbar_wait(&bars[s], unsigned((q / STAGES) & 1));"
KWAIT_STAMPS = """      if (threadIdx.x == 128 && q / KTILES == 1) {  // (the second tile: k-loop start, k-tile 4, last)
        if (kt == kbeg) gett_ts[blockIdx.x * 16 + 10] = gett_now();
        if (kt == kbeg + 4) gett_ts[blockIdx.x * 16 + 11] = gett_now();
        if (kt == kend - 1) gett_ts[blockIdx.x * 16 + 13] = gett_now();
      }
""" + KWAIT + """
      if (threadIdx.x == 128 && q / KTILES == 1 && kt == kbeg) gett_ts[blockIdx.x * 16 + 12] = gett_now();"""

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
    if re.fullmatch(r"g\d+", core):  # (gN: raster groups of N tile rows, TileConfig.group_m)
        return dataclasses.replace(spec, tile=dataclasses.replace(spec.tile, group_m=int(core[1:]))), text
    if core == "notail":  # (the last tile column on the full-width wgmma, as before KernelSpec.wg_tail_n)
        assert TAIL in text
        return spec, text.replace(TAIL, "      if (false)")
    if core == "stamps":
        for old in (ENTRY, WALK, BODY, KWAIT):
            assert text.count(old) == 1, old
        entry = "        gett_ts[blockIdx.x * 16 + 7] = gett_now();\n" + ENTRY
        return spec, STAMP_GLOBALS + text.replace(ENTRY, entry).replace(WALK, WALK + WALK_STAMP).replace(
            BODY, BODY + BODY_STAMP).replace(KWAIT, KWAIT_STAMPS)
    if core == "mfirst":
        assert ORDER in text
        return spec, text.replace(ORDER, MFIRST)
    return _base(name, heur, text)


epi_probe.variant = variant


def stamps(out: str, num: str = "12", pre: str = "") -> None:
    """Call 3: the heuristic kernel's per-CTA timeline (see the module's docstring), printed and saved as JSON."""
    import json
    import statistics

    import cupy
    import numpy as np

    import gettpy.kernels.render as render_mod
    from gettpy.backends.gpu import launch
    from gettpy.kernels import build
    from gettpy.plan.tiles import kernel_spec
    from tccg.suite import parse_cases
    from tccg.tile_probe import core_inputs

    case = parse_cases(num)[0]
    sched, plan, ka, kb, d, ref = core_inputs(case, "f16", "f16")
    heur = kernel_spec(plan, False)
    spec, text = variant(pre + "stamps", heur, render_mod.header_text())
    original = render_mod.header_text
    render_mod.header_text = lambda: text
    try:
        for _ in range(29):
            launch(spec, ka.data.ptr, kb.data.ptr, 0, d.data.ptr, 1.0, 0.0)
        mod = next(m for key, (f, m) in build._FUNCS.items() if key[0] == spec)
        addr = mod.get_global_var("gett_ts")  # (the array's device address)
        mem = cupy.cuda.UnownedMemory(addr, 1024 * 16 * 8, mod)
        raw = cupy.ndarray((1024, 16), dtype=cupy.uint64, memptr=cupy.cuda.MemoryPointer(mem, 0))
        raw.fill(0)  # (the last launch's stamps only)
        launch(spec, ka.data.ptr, kb.data.ptr, 0, d.data.ptr, 1.0, 0.0)
        cupy.cuda.Device().synchronize()
    finally:
        render_mod.header_text = original
    err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
    ts = raw.get().astype(np.int64)
    n = int((ts[:, 7] > 0).sum())
    ts = ts[:n]
    t0 = ts[:, 7].min()
    rel = (ts - t0) / 1000.0  # (us)
    tiles = (ts[:, 0:5] > 0).sum(axis=1)
    entry, start = rel[:, 7], rel[:, 5]
    ends = np.where(ts[:, 0:5] > 0, rel[:, 0:5], np.nan)
    dur = np.diff(np.concatenate([start[:, None], ends], axis=1), axis=1)
    last = np.nanmax(ends, axis=1)
    mhz = (ts[:, 9] - ts[:, 8]) / ((last - start) * 1.0)  # (SM cycles a microsecond, computing warps' span)
    print(f"{num} f16 {pre}stamps: {n} CTAs ({spec.grid} tiles, {spec.tile.stages} stages), err {err:.1e}, "
          f"tiles a CTA {np.bincount(tiles).tolist()}")
    print(f"  entry after the first CTA's: max {entry.max():.2f} us, median {np.median(entry):.2f}")
    print(f"  computing warps' start: min {start.min():.2f} max {start.max():.2f} median {np.median(start):.2f}")
    for i in range(int(tiles.max())):
        x, e = dur[:, i][~np.isnan(dur[:, i])], ends[:, i][~np.isnan(ends[:, i])]
        print(f"  tile {i} ({len(x)} CTAs): length min {x.min():.2f} median {np.median(x):.2f} max {x.max():.2f} us;"
              f" end min {e.min():.2f} median {np.median(e):.2f} max {e.max():.2f}")
    print(f"  last end: min {last.min():.2f} median {np.median(last):.2f} max {last.max():.2f} us")
    busy = (last - entry).sum() / (n * last.max())
    print(f"  CTA-busy fraction of the kernel (entry to last end over {n} x the last end): {busy:.4f}")
    print(f"  SM clock over the computing warps' span: median {np.median(mhz):.0f} MHz (min {mhz.min():.0f}, "
          f"max {mhz.max():.0f})")
    kt = -(-spec.K // spec.tile.bk)
    k0, k4, w0, kl = (ts[:, i] / 1000.0 for i in (10, 11, 12, 13))
    if (k0 > 0).all() and kt > 6:  # (the second tile's k-loop: its first stage's wait, 4 k-tiles, the rest, the end)
        e1 = ts[:, 1] / 1000.0
        print(f"  tile 1: first stage waited {np.median(w0 - k0):.2f} us; k-tiles 0-3 {np.median(k4 - k0):.2f} us "
              f"({np.median(k4 - k0) / 4:.3f} a k-tile); k-tiles 4-{kt - 2} {np.median((kl - k4) / (kt - 5)):.3f} us a "
              f"k-tile; the last k-tile and the epilogue {np.median(e1 - kl):.2f} us; from the first tile's end to "
              f"this k-loop's start {np.median(k0 - ts[:, 0] / 1000.0):.2f} us (medians over the CTAs)")
    order = np.argsort(last)
    print("  earliest finishers (cta sm last):", [(int(c), int(ts[c, 6]), round(float(last[c]), 1)) for c in order[:6]])
    print("  latest finishers (cta sm last):", [(int(c), int(ts[c, 6]), round(float(last[c]), 1)) for c in order[-6:]])
    json.dump({"entry": entry.tolist(), "start": start.tolist(), "ends": np.nan_to_num(ends, nan=-1).tolist(),
               "tile1_k": (ts[:, 10:14] - t0).tolist(),
               "sm": ts[:, 6].tolist(), "mhz": mhz.tolist(), "err": err,
               "median_tile_us": statistics.median(dur[~np.isnan(dur)].tolist())},
              open(f"{out}/stamps_{num}{pre.replace('+', '_')}.json", "w"))


if __name__ == "__main__" and len(sys.argv) > 1 and sys.argv[1] == "stamps":
    for item in (sys.argv[3] if len(sys.argv) > 3 else "12").split(","):  # (num, or num:variant to stamp on top of)
        num_, _, pre_ = item.partition(":")
        stamps(sys.argv[2], num_, pre_ + "+" if pre_ else "")
elif __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,early,mfirst,torch").split(","))
