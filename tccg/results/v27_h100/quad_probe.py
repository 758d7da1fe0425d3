"""v27 probe (H100): TCCG #12 f16's epilogue with no shared memory (gett.cuh's DIRECT_D with QUAD_D: each quad of
lanes exchanges its fragment row's pairs with two shfl.xor rounds and stores 16-byte vectors straight to D) against
the heuristic's chunked epilogue (each warp staging its rows in the tile's last stage, which the loaders get back only
after the stores, and a barrier between the two computing warpgroups before it), and torch.einsum (cuBLAS), timed in
turn on the same inputs (v26's bal_probe.py harness: each kernel checked against float64 first, D poisoned).
Variants: `plain` (the heuristic kernel), `quad` (the heuristic tile with chunked=False: DIRECT_D, QUAD_D), `pairs`
(the same with QUAD_D off: v14's direct stores of 4-byte pairs), `quadlateN` (`quad`, its second computing warpgroup
starting its first tile N cycles late, so that one warpgroup's stores may overlap the other's wgmmas: with no barrier
between them, nothing brings them back in step), `torch`, and bal_probe.py's variants. Call 2: `ahXD` (X = A, B or
AB: the k-tile D further along the walk prefetched into the L2 once a wave, each A panel's by one CTA of its row in
turn, each B panel's by one of its column in turn, so that the loads find it there and not in DRAM; v23's `aheadN` had
every CTA prefetch everything, 33 copies of each A box), joined by + to a store variant (`quad+ahAB8`). Call 4: `desc` (each stage's wgmma descriptors built once from
its base, each wgmma's a constant added to the base's low word: about half the k-loop's instructions). Call 6:
`testwait` (every mbarrier wait polls with test_wait instead of try_wait, which may suspend the thread), `hintN` (try_wait
with a suspend time hint of N ns). Call 8: `inter1`, `mfirst1` (a stage's wgmmas as one group, k-steps interleaved over
the two 64-row blocks or block by block, then the wait for the group before and the release: v23's order). Call 11:
`nowait` (the computing warps do not wait for their stages to land), `nowait+noload` (nor does the loader copy anything):
the k-loop's wgmmas and stage handshakes alone (D comes out wrong).

    PYTHONPATH=. python3 tccg/results/v27_h100/quad_probe.py [rounds] [variants, comma list]
"""
import dataclasses
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v26_h100"))
import bal_probe  # noqa: E402  (it puts v25's pp_probe and v23's epi_probe on the path)
import epi_probe  # noqa: E402

QUAD = "static constexpr bool QUAD_D = Cfg::QUAD_D;"
CROW = "      const int crow = PINGPONG ? 0 : ((warp >> 2) - 1) * MW;"
_bal = bal_probe.variant


def ahead(dist: int, on_a: bool, on_b: bool) -> str:
    """The loader's L2 prefetches (cp.async.bulk.prefetch.tensor) of the k-tile `dist` further along its tile's walk,
    issued once for each k-tile of each A panel and each B panel of the wave: A's by the CTA of tile column kt % TILES_N
    of the row, B's three column atoms by that of tile row kt % GROUP_M of the raster group (rank-2 maps)."""
    a = """
                    if (tc == U(kt % TILES_N))
                      asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\\n"
                                   ::"l"(tmA), "r"(int(kn * BK)), "r"(int(m0)) : "memory");""" if on_a else ""
    b = """
                    if (tr == U(kt % GROUP_M))
                      for (int a = 0; a < 3; ++a)
                        asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\\n"
                                     ::"l"(tmB), "r"(int(n0) + 64 * a), "r"(int(kn * BK)) : "memory");""" if on_b else ""
    return f"""                {{
                  const long long kn = rev ? kt - {dist} : kt + {dist};
                  const U tr = (m0 / U(BM)) % U(GROUP_M), tc = n0 / U(BN);
                  if (kn >= 0 && kn < KTILES) {{{a}{b}
                  }}
                }}
"""


WG_MMA = """    W::run(acc + mi * (BN / 2), wg_desc(As + LA::wg_start(row0 + mi * 64, kk), LA::WG_LBO, LA::WG_SBO),
           wg_desc(Bs + LB::wg_start(0, kk), LB::WG_LBO, LB::WG_SBO));"""
# (desc: each stage's two base descriptors computed once, each wgmma's the base's low word plus a constant: the
#  start address field cannot carry, shared memory being under 256 KB)
DESC = """    const unsigned la = unsigned(wg_desc(As + LA::wg_start(row0, 0), LA::WG_LBO, LA::WG_SBO)),
                   lb = unsigned(wg_desc(Bs, LB::WG_LBO, LB::WG_SBO));
    constexpr unsigned ha = ((LA::WG_SBO >> 4) & 0x3FFFu) | (1u << 30), hb = ((LB::WG_SBO >> 4) & 0x3FFFu) | (1u << 30);
    unsigned long long da, db;
    asm("mov.b64 %0, {%1, %2};" : "=l"(da) : "r"(la + unsigned(LA::wg_start(mi * 64, kk) * int(sizeof(TA)) >> 4)), "n"(ha));
    asm("mov.b64 %0, {%1, %2};" : "=l"(db) : "r"(lb + unsigned(LB::wg_start(0, kk) * int(sizeof(TB)) >> 4)), "n"(hb));
    W::run(acc + mi * (BN / 2), da, db);"""


MBAR_WAIT = """  asm volatile("{\\n.reg .pred p;\\nWAIT:\\nmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra WAIT;\\n}\\n"
               ::"r"(smem_addr(b)), "r"(parity) : "memory");"""
# (testwait: every mbarrier wait polls with test_wait, which never suspends the thread; hintN: try_wait with a suspend
#  time hint of N ns)
TEST_WAIT = """  asm volatile("{\\n.reg .pred p;\\nWAIT:\\nmbarrier.test_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra WAIT;\\n}\\n"
               ::"r"(smem_addr(b)), "r"(parity) : "memory");"""


def hint_wait(ns: int) -> str:
    return MBAR_WAIT.replace("p, [%0], %1;", f"p, [%0], %1, {ns};")


TWO_GROUPS = "    if constexpr (NL == 2 && !PINGPONG) {\n      wg_fence_regs(acc);"
KK_MI = """    for (int kk = 0; kk < KS * 16; kk += 16)
#pragma unroll
      for (int mi = 0; mi < NL; ++mi) wg_mma<W>(acc, As, Bs, row0, mi, kk);"""
MI_KK = """    for (int mi = 0; mi < NL; ++mi)
#pragma unroll
      for (int kk = 0; kk < KS * 16; kk += 16) wg_mma<W>(acc, As, Bs, row0, mi, kk);"""


FULL_WAIT = "      mbar_wait(&bars[s], unsigned((q / STAGES) & 1));\n"
NOWAIT_FN = "__device__ __forceinline__ void mbar_nowait(unsigned long long*, unsigned) {}\n"
MBAR_ARRIVE_FN = "__device__ __forceinline__ void mbar_arrive(unsigned long long* b) {"
ISSUE = "                  mbar_arrive_expect_tx(&bars[s], LA::tx_bytes(m0) + LB::tx_bytes(n0));\n"


def variant(name: str, heur, text: str):
    if name == "nowait":  # (the computing warps do not wait for their stages to land: wgmmas on whatever is there)
        assert text.count(FULL_WAIT) == 1 and text.count(MBAR_ARRIVE_FN) == 1
        text = text.replace(MBAR_ARRIVE_FN, NOWAIT_FN + MBAR_ARRIVE_FN)
        return bal_probe.fresh(heur), text.replace(FULL_WAIT, FULL_WAIT.replace("mbar_wait", "mbar_nowait"))
    if name == "noload":  # (the loader waits for free stages and copies nothing: only with nowait)
        assert text.count(ISSUE) == 1
        return bal_probe.fresh(heur), text.replace(ISSUE, "                  continue;\n" + ISSUE)
    if name in ("inter1", "mfirst1"):  # (a stage's wgmmas as one group, k-steps interleaved over the two blocks or
        #  block by block, then a wait for the group before and the release: the order before v24's two groups)
        assert text.count(TWO_GROUPS) == 1 and text.count(KK_MI) == 1
        text = text.replace(TWO_GROUPS, TWO_GROUPS.replace("NL == 2 && !PINGPONG", "false"))
        return bal_probe.fresh(heur), text.replace(KK_MI, MI_KK) if name == "mfirst1" else text
    if name == "testwait" or re.fullmatch(r"hint\d+", name):
        assert text.count(MBAR_WAIT) == 1
        return bal_probe.fresh(heur), text.replace(MBAR_WAIT, TEST_WAIT if name == "testwait" else
                                                   hint_wait(int(name[4:])))
    if name == "desc":
        assert text.count(WG_MMA) == 1
        return bal_probe.fresh(heur), text.replace(WG_MMA, DESC)
    if "+" in name:  # (parts applied in turn, each to the one before's spec and text)
        spec = heur
        for part in name.split("+"):
            spec, text = variant(part, spec, text)
        return spec, text
    m = re.fullmatch(r"ah(A|B|AB)(\d+)", name)
    if m:
        assert text.count(bal_probe.LOADER) == 1 and heur.tma_rank == 2 and not heur.b.kmajor and heur.a.kmajor
        assert not heur.wide_cols and heur.tile.group_m == 4 and heur.tile.bn == 160
        return bal_probe.fresh(heur), text.replace(bal_probe.LOADER, bal_probe.LOADER + ahead(
            int(m.group(2)), "A" in m.group(1), "B" in m.group(1)))
    direct = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, chunked=False))
    if name in ("quad", "pairs") or name.startswith("quadlate"):
        assert direct.direct_d and text.count(QUAD) == 1 and text.count(CROW) == 1
        if name == "pairs":
            text = text.replace(QUAD, "static constexpr bool QUAD_D = false;")
        m = re.fullmatch(r"quadlate(\d+)", name)
        if m:
            text = text.replace(CROW, CROW + "\n      if (kstep == 0 && crow != 0) { const long long t0_ = clock64(); "
                                f"while (clock64() - t0_ < {int(m.group(1))}) {{}} }}")
        return direct, text
    return _bal(name, heur, text)


epi_probe.variant = variant

if __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,quad,pairs,torch").split(","))
