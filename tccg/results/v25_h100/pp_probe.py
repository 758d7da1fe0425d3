"""v25 probe (H100): TCCG #12 f16 on ping-pong warpgroups (TileConfig.pingpong) against the heuristic's cooperative
256 x 160 tile and torch.einsum (cuBLAS). Variants, on top of v23's epi_probe.py (whose `plain` and `torch` are the
heuristic kernel and cuBLAS): `ppBMxBN_S` (the heuristic tile as BM x BN in S stages with pingpong=True: each
computing warpgroup a whole BM-row tile, the two in turn, so that one's epilogue runs while the other's wgmmas do),
with an optional `gN` suffix for N tile rows per raster group; `coBMxBN_S` the same tile without pingpong (the two
warpgroups on halves of one tile, as the heuristic's). Each is checked against float64 first. `noatom2` (call 3): the
heuristic kernel without the third 64-column atom of B's mn-major stage (#12's 160 columns take three atoms, 192
columns, so each stage brings 32 columns of the next tile; here the atom is not loaded at all, so the tile's columns
128-159 come out wrong): how much less the k-loop takes with 8 KB a stage less written into shared memory. `halfmma`
(call 4): the heuristic kernel with each computing warpgroup's second 64-row block issuing no wgmma (half the tensor
work on the same loads; D's rows of those blocks come out wrong): whether a k-tile takes its tensor work's time or a
floor of its own. A `cN` suffix on `pp`/`co` sets clusters of N CTAs. `rotN` (call 6): the heuristic kernel with
each raster group's tile columns turned by N more than the previous group's (a persistent CTA takes one tile of
each group, so it no longer takes the same column, and the same B panel, in every round; a cluster's pair keeps its
column): whether the last CTAs to finish (always the same ones, v24's stamps) are slow for their tiles or their SMs.
`gN` (call 7, after gett.cuh took the turned columns): raster groups of N tile rows (TileConfig.group_m). `sw128`
(call 8, after mn-major stages an odd multiple of 32 wide took the 64-byte swizzle): #12's B in three 64-column atoms
under the 128-byte swizzle again, 32 columns of the next tile in each stage. `stcs`, `stcg` (call 9): D's 16-byte
stores of the chunked epilogue as st.global.cs (evict-first in the L2) or st.global.cg. The 64-byte swizzle was taken out after
call 8 (slower, and one GPU test failed), so `sw128` needs commit 14ee108's gett.cuh, spec.py and tma.py.

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

import gettpy.kernels.spec as spec_mod  # noqa: E402
import gettpy.kernels.tma as tma_mod  # noqa: E402
from gettpy.kernels.spec import KernelSpec  # noqa: E402

_base = epi_probe.variant
AW_RULE = "TC % 64 != 0 && TC % 32 == 0 ? 32 : 64"


def sizeof_ok(spec) -> bool:
    """D's store vectors are 16 bytes (the stcs / stcg variants store them as int4)."""
    return spec.d.vec * {"f16": 2, "bf16": 2, "f32": 4}[spec.d.dtype] == 16


class _Sw128(KernelSpec):
    """A KernelSpec whose mn-major stages keep the 128-byte swizzle at any width (as before v25): its shared memory,
    chunk columns and tensor maps computed with spec.swizzle_atom at 64 throughout."""

    def _as_sw128(self, name):
        saved = spec_mod.swizzle_atom, tma_mod.swizzle_atom
        spec_mod.swizzle_atom = tma_mod.swizzle_atom = lambda kmajor, tmn: 64
        try:
            return getattr(super(), name)
        finally:
            spec_mod.swizzle_atom, tma_mod.swizzle_atom = saved

    smem_bytes = property(lambda self: self._as_sw128("smem_bytes"))
    epi_cols = property(lambda self: self._as_sw128("epi_cols"))
    tma_geometries = property(lambda self: self._as_sw128("tma_geometries"))
LIVE = """  __device__ __forceinline__ static bool live_atom(U mn0, int a) {
    return EXT_MN % TCA == 0 || mn0 + U(64 * a) < U(EXT_MN);"""
NO_ATOM2 = """  __device__ __forceinline__ static bool live_atom(U mn0, int a) {
    return (TCA != 192 || a != 2) && (EXT_MN % TCA == 0 || mn0 + U(64 * a) < U(EXT_MN));"""
ROT = "      tile_n = (t % width) / gsize;"
HALF = """    if constexpr (FULL_M) {
      ws_kloop<MI, W>("""
HALF_MMA = """    if constexpr (FULL_M) {
      ws_kloop<1, W>("""


def variant(name: str, heur, text: str):
    if name == "noatom2":
        assert LIVE in text
        return heur, text.replace(LIVE, NO_ATOM2)
    if re.fullmatch(r"rot\d+", name):  # (rotN: each raster group's columns turned by N more than the group before's)
        assert text.count(ROT) == 1
        return heur, text.replace(ROT, f"      tile_n = ((t % width) / gsize + U({int(name[3:])}) * (t / width)) % U(TILES_N);")
    if name in ("stcs", "stcg"):  # (D's 16-byte stores as st.global.cs / .cg: evict-first, or L2 only)
        assert sizeof_ok(heur) and text.count(epi_probe.STORE) == 1
        fn = "__" + name
        new = (f"          {fn}(reinterpret_cast<int4*>(Db + gett_offset<I>(gm, typename Cfg::MapDm{{}}) +\n"
               "                                           gett_offset<I>(gn, typename Cfg::MapDn{})),\n"
               "                *reinterpret_cast<const int4*>(&out));")
        return heur, text.replace(epi_probe.STORE, new)
    if name == "sw128":  # (B's 160 columns in 3 atoms of 64 under the 128-byte swizzle, as before v25)
        assert text.count(AW_RULE) == 1
        fields = {f: getattr(heur, f) for f in heur.__dataclass_fields__}
        return _Sw128(**fields), text.replace(AW_RULE, "false ? 32 : 64")
    if re.fullmatch(r"g\d+", name):  # (gN: raster groups of N tile rows, TileConfig.group_m, with the turned columns)
        return dataclasses.replace(heur, tile=dataclasses.replace(heur.tile, group_m=int(name[1:]))), text
    if name == "halfmma":
        assert HALF in text
        return heur, text.replace(HALF, HALF_MMA, 1)
    m = re.fullmatch(r"(pp|co)(\d+)x(\d+)_(\d+)(?:g(\d+))?(?:c(\d+))?", name)
    if not m:
        return _base(name, heur, text)
    bm, bn, stages = (int(x) for x in m.groups()[1:4])
    tile = dataclasses.replace(heur.tile, bm=bm, bn=bn, wn=bn, stages=stages, pingpong=m.group(1) == "pp",
                               group_m=int(m.group(5) or heur.tile.group_m),
                               cluster=int(m.group(6) or heur.tile.cluster))
    return dataclasses.replace(heur, tile=tile), text


epi_probe.variant = variant

if __name__ == "__main__":
    epi_probe.main(int(sys.argv[1]) if len(sys.argv) > 1 else 300,
                   (sys.argv[2] if len(sys.argv) > 2 else "plain,pp128x160_5,torch").split(","))
