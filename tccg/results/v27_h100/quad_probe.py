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
every CTA prefetch everything, 33 copies of each A box), joined by + to a store variant (`quad+ahAB8`).

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


def variant(name: str, heur, text: str):
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
