"""The long-K kernel (gettpy.kernels.longk) compiled by NVRTC for sm_90: every candidate tile of the planner, both
reads of each input it is taken for, in each type of its item size (f16 and bf16, or float32; no GPU needed;
skipped without NVRTC or the CUDA headers): no spills, and few enough registers for the CTAs an SM is meant to
hold."""
from __future__ import annotations

import itertools
import re

import pytest

from gettpy.dtypes import ITEMSIZE
from gettpy.kernels.build import compile_source
from gettpy.kernels.longk import LongKLayout, kt, longk_source
from gettpy.plan.longk import CANDIDATES

#: (candidate, input type) of every candidate tile and the types of its item size
COMPILED = [(c, dt) for c in CANDIDATES for dt in ("f16", "bf16", "f32") if ITEMSIZE[dt] == c.itemsize]


@pytest.mark.parametrize("cand,dtype", COMPILED, ids=[f"{c.tile.bm}x{c.tile.bn}-{dt}" + "-f64mma" * c.tile.f64_mma
                                                     for c, dt in COMPILED])
def test_longk_tiles_compile_without_spills(cand, dtype):
    """Each candidate with every read the planner takes it for (k-major only where it has no m / n-major step)."""
    tile = cand.tile
    for a_kmajor, b_kmajor in itertools.product((True, False), repeat=2):
        if cand.step_mn is None and not (a_kmajor and b_kmajor):
            continue
        lay = LongKLayout(dtype, 101, 51, 965510, a_kmajor, 965510 if a_kmajor else 101, b_kmajor,
                          965510 if b_kmajor else 51, tile, kt(dtype) * 59)
        cubin, log = compile_source(longk_source(lay), "gett_longk", "sm_90")
        assert cubin and "0 bytes spill stores" in log, log
        regs = int(re.search(r"Used (\d+) registers", log).group(1))
        assert regs * tile.threads * tile.min_blocks <= 65536, (tile, regs)
