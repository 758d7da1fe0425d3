"""v26 probe (H100): TCCG #12 f16 on balanced tile columns (TileConfig.balanced: 15 columns of 160 and 18 of 152, raster
groups turned by 5) against v25's grid (32 columns of 160 and one of 16, turned by 1) and torch.einsum (cuBLAS), timed
in turn on the same inputs (v23's epi_probe.py / v25's pp_probe.py harness; each kernel checked against float64
first). Variants: `plain` (the heuristic kernel), `bal` (the heuristic tile balanced), `unbal` (balanced=False: v25's
kernel), `unbalT` (v25's columns with the groups turned by T: the turn alone), `balT` (balanced columns turned by T: with
T = 1 some CTAs take 5 wide tiles, so the balance alone is off), `torch`, and pp_probe.py's variants. Calls 1 and 1b
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

from gettpy.kernels.spec import KernelSpec  # noqa: E402

_pp = pp_probe.variant


def turned(spec: KernelSpec, turn: int) -> KernelSpec:
    """`spec` rendered with its raster groups turned by `turn` (KernelSpec.raster_turn overridden)."""
    cls = type(f"Turned{turn}", (KernelSpec,), {"raster_turn": property(lambda self: turn)})
    return cls(**{f: getattr(spec, f) for f in spec.__dataclass_fields__})


def variant(name: str, heur, text: str):
    unbal = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, balanced=False))
    bal = dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, balanced=True))
    assert (bal.wide_cols, bal.raster_turn) == (15, 5), "#12's balanced grid"
    if name in ("unbal", "bal"):
        return unbal if name == "unbal" else bal, text
    m = re.fullmatch(r"(unbal|bal)(\d+)", name)
    if m:
        return turned(unbal if m.group(1) == "unbal" else bal, int(m.group(2))), text
    return _pp(name, heur, text)


epi_probe.variant = variant
# (epi_probe.main asserts its store variants' target text; since v25 the chunked epilogue stores through store_cg)
epi_probe.STORE = """          store_cg(reinterpret_cast<Pack<TD, VD>*>(Db + gett_offset<I>(gm, typename Cfg::MapDm{}) +
                                                   gett_offset<I>(gn, typename Cfg::MapDn{})), out);"""

if __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,unbal,torch").split(","))
