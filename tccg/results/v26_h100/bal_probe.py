"""v26 probe (H100): TCCG #12 f16 on balanced tile columns (TileConfig.balanced: 15 columns of 160 and 18 of 152, raster
groups turned by 5) against v25's grid (32 columns of 160 and one of 16, turned by 1) and torch.einsum (cuBLAS), timed
in turn on the same inputs (v23's epi_probe.py / v25's pp_probe.py harness; each kernel checked against float64
first). Variants: `plain` (the heuristic kernel), `bal` (the heuristic tile balanced), `unbal` (balanced=False: v25's
kernel), `unbalT` (v25's columns with the groups turned by T: the turn alone), `balT` (balanced columns turned by T: with
T = 1 some CTAs take 5 wide tiles, so the balance alone is off), `torch`, and pp_probe.py's variants. Call 2:
`pfaN_D` / `pfabN_D` (the heuristic kernel whose loader prefetches its CTA's next tile's first N k-tiles of A, or of A
and B, into the L2 as it loads the k-tile D before its tile's last: the next raster group's A rows come from DRAM at the
tile boundary, behind D's writes), `oddN` (the odd clusters start N cycles late: D's write bursts in two halves, the
CTAs still close enough in step to share A and B in the L2; v23's `oddlate` was 57,000 cycles, half a tile), `stplain`
(D's vectors stored with plain st.global instead of the heuristic's st.global.cg; pp_probe.py's `stcs`: .cs). Call 3:
`inline` (the kernel's narrow-column conditions as before the review's mend: the same logic, other SASS; it patches
commit cb502f6's gett.cuh, whose mend was taken back after call 3b, so on later code it stops at its assert). Calls 1 and 1b
ran at commit 15a706d (call 1 at 089eb88), when the heuristic took balanced columns: their `plain` is `bal`; since then `plain` is `unbal`.

    PYTHONPATH=. python3 tccg/results/v26_h100/bal_probe.py [rounds] [variants, comma list]
"""
import dataclasses
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v25_h100"))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v23_h100"))
import epi_probe  # noqa: E402
import pp_probe  # noqa: E402

import gettpy.kernels.render as render_mod  # noqa: E402
from gettpy.kernels.spec import KernelSpec  # noqa: E402

_pp = pp_probe.variant
LOADER = """                const long long kt = rev ? KTILES - 1 - kk : kk;
                const int s = int(kstep % STAGES);
"""


def prefetch(n: int, ahead: int, with_b: bool) -> str:
    """The loader's L2 prefetches (cp.async.bulk.prefetch.tensor) of the CTA's next tile's first n k-tiles of A (and
    with_b of B's three column atoms), issued as it loads the k-tile `ahead` before its tile's last (rank-2 maps)."""
    b = """
                    for (int a = 0; a < 3; ++a)
                      asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {%1, %2}];\\n"
                                   ::"l"(tmB), "r"(int(nn0) + 64 * a), "r"(nk) : "memory");""" if with_b else ""
    return f"""
                if (kk == p.ke - {ahead} && g + U(gridDim.x) < NTILES) {{
                  U nbz, nm0, nn0;
                  tile_coords(g + U(gridDim.x), nbz, nm0, nn0);
                  const bool nrev = reversed(kstep + (p.ke - kk));
                  for (int i = 0; i < {n}; ++i) {{
                    const int nk = int((nrev ? KTILES - 1 - i : i) * BK);
                    asm volatile("cp.async.bulk.prefetch.tensor.2d.L2.global.tile [%0, {{%1, %2}}];\\n"
                                 ::"l"(tmA), "r"(nk), "r"(int(nm0)) : "memory");{b}
                  }}
                }}
"""


def turned(spec: KernelSpec, turn: int) -> KernelSpec:
    """`spec` rendered with its raster groups turned by `turn` (KernelSpec.raster_turn overridden)."""
    cls = type(f"Turned{turn}", (KernelSpec,), {"raster_turn": property(lambda self: turn)})
    return cls(**{f: getattr(spec, f) for f in spec.__dataclass_fields__})


PLAIN_STORE = """          *reinterpret_cast<Pack<TD, VD>*>(Db + gett_offset<I>(gm, typename Cfg::MapDm{}) +
                                           gett_offset<I>(gn, typename Cfg::MapDn{})) = out;"""


# (the review's mend: narrow_tile and n_limit serve every grid; before it, the unbalanced grids' conditions were written
#  out at the two call sites, which compiled #12 f16 to 2168 SASS instructions against 2064 since)
INLINE = [("      if (narrow_tile(n0))\n",
           "      if (BALANCED ? narrow_tile(n0) : Cfg::WG_NT < BN && n0 + U(BN) > U(N))\n"),
          ("    const U nlim = n_limit(n0);", "    const U nlim = BALANCED ? n_limit(n0) : U(N);"),
          ("!(FULL_N || gn < nlim)) continue;", "!(FULL_N || gn < (BALANCED ? nlim : U(N)))) continue;")]


def fresh(spec: KernelSpec) -> KernelSpec:
    """A copy of `spec` of its own identity: gettpy.backends.gpu.launch caches the loaded kernel by the spec's id, so
    two header variants returned on one spec object would both run the first one's kernel (as pp_probe.py's rotN in
    v25's call 6 and stcs / stcg in its call 9 did, and this file's call 2)."""
    return dataclasses.replace(spec)


def variant(name: str, heur, text: str):
    unbal = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, balanced=False))
    bal = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, balanced=True))
    assert (bal.wide_cols, bal.raster_turn) == (15, 5), "#12's balanced grid"
    if name in ("unbal", "bal"):
        return unbal if name == "unbal" else bal, text
    m = re.fullmatch(r"(unbal|bal)(\d+)", name)
    if m:
        return turned(unbal if m.group(1) == "unbal" else bal, int(m.group(2))), text
    m = re.fullmatch(r"pf(ab?)(\d+)_(\d+)", name)  # (pfaN_D / pfabN_D: the next tile's first N k-tiles of A / A and B
    if m:                                         #  prefetched into the L2 from D k-tiles before the tile's end)
        assert text.count(LOADER) == 1 and heur.tma_rank == 2 and not heur.b.kmajor
        return fresh(heur), text.replace(LOADER, LOADER + prefetch(int(m.group(2)), int(m.group(3)),
                                                                   m.group(1) == "ab"))
    if name == "inline":  # (the call sites as before the review's mend)
        for a, b in INLINE:
            assert text.count(a) == 1, a
            text = text.replace(a, b)
        return fresh(heur), text
    if name == "stplain":  # (D's 16-byte vectors stored plainly, as before v25's st.global.cg)
        assert text.count(epi_probe.STORE) == 1
        return fresh(heur), text.replace(epi_probe.STORE, PLAIN_STORE)
    m = re.fullmatch(r"odd(\d+)", name)  # (oddN: the odd clusters start N cycles late, so their tiles' boundaries and
    if m:                               #  D's write bursts fall N cycles after the others')
        assert text.count(epi_probe.WALK) == 1
        late = epi_probe.ODDLATE.replace("57000", m.group(1))
        return fresh(heur), text.replace(epi_probe.WALK, epi_probe.WALK + late)
    spec, text = _pp(name, heur, text)
    return fresh(spec) if spec is heur else spec, text


epi_probe.variant = variant
# (epi_probe.main asserts its store variants' target text: from v25's .cg stores to v26's revert (calls 1b-2b) the
#  chunked epilogue stored through store_cg; since then plainly, as epi_probe's STORE has it)
CG_STORE = """          store_cg(reinterpret_cast<Pack<TD, VD>*>(Db + gett_offset<I>(gm, typename Cfg::MapDm{}) +
                                                   gett_offset<I>(gn, typename Cfg::MapDn{})), out);"""
if CG_STORE in render_mod.header_text():
    epi_probe.STORE = CG_STORE

if __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,unbal,torch").split(","))
