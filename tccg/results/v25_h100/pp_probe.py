"""v25 probe (H100): TCCG #12 f16 on ping-pong warpgroups (TileConfig.pingpong) against the heuristic's cooperative
256 x 160 tile and torch.einsum (cuBLAS). Variants, on top of v23's epi_probe.py (whose `plain` and `torch` are the
heuristic kernel and cuBLAS): `ppBMxBN_S` (the heuristic tile as BM x BN in S stages with pingpong=True: each
computing warpgroup a whole BM-row tile, the two in turn, so that one's epilogue runs while the other's wgmmas do),
with an optional `gN` suffix for N tile rows per raster group. Each is checked against float64 first.

    PYTHONPATH=. python3 tccg/results/v25_h100/pp_probe.py [rounds] [variants, comma list]
(rounds = 0: one launch each forward then reversed, for Nsight Compute; tccg/results/v23_h100/ncu_pair.sh with
PROBE=this file)
"""
import dataclasses
import pathlib
import re
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v23_h100"))
import epi_probe  # noqa: E402

_base = epi_probe.variant


def variant(name: str, heur, text: str):
    m = re.fullmatch(r"pp(\d+)x(\d+)_(\d+)(?:g(\d+))?", name)
    if not m:
        return _base(name, heur, text)
    bm, bn, stages = (int(x) for x in m.groups()[:3])
    tile = dataclasses.replace(heur.tile, bm=bm, bn=bn, wn=bn, stages=stages, pingpong=True,
                               group_m=int(m.group(4) or heur.tile.group_m))
    return dataclasses.replace(heur, tile=tile), text


epi_probe.variant = variant

if __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,pp128x160_5,torch").split(","))
