"""v27 probe (H100): TCCG #12 f16's epilogue with no shared memory (gett.cuh's DIRECT_D with QUAD_D: each quad of
lanes exchanges its fragment row's pairs with two shfl.xor rounds and stores 16-byte vectors straight to D) against
the heuristic's chunked epilogue (each warp staging its rows in the tile's last stage, which the loaders get back only
after the stores, and a barrier between the two computing warpgroups before it), and torch.einsum (cuBLAS), timed in
turn on the same inputs (v26's bal_probe.py harness: each kernel checked against float64 first, D poisoned).
Variants: `plain` (the heuristic kernel), `quad` (the heuristic tile with chunked=False: DIRECT_D, QUAD_D), `pairs`
(the same with QUAD_D off: v14's direct stores of 4-byte pairs), `quadlateN` (`quad`, its second computing warpgroup
starting its first tile N cycles late, so that one warpgroup's stores may overlap the other's wgmmas: with no barrier
between them, nothing brings them back in step), `torch`, and bal_probe.py's variants.

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


def variant(name: str, heur, text: str):
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
