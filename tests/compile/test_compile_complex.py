"""The real GETT launches of a complex contraction compiled by NVRTC for sm_90 (no GPU needed; skipped without
NVRTC or the CUDA headers)."""
from __future__ import annotations

import numpy as np
import pytest
from harness import nonzero, problem_of

from gettpy.plan.complex_paths import real_plan
from gettpy.plan.plan import make_plan


# ------------------------------------------------------------------------------------------ the real kernels compile
@pytest.mark.parametrize("dt_in,dt_out", [("c64", "c64"), ("c128", "c128"), ("c64", "c128")])
def test_real_plans_compile(dt_in, dt_out, tmp_path, monkeypatch, rng):
    """NVRTC (no GPU needed) compiles the kernels of the real launches: plain, accumulating, into a temporary."""
    from gettpy.dtypes import numpy_dtype
    from gettpy.kernels import build as B
    from gettpy.plan.tiles import kernel_spec

    monkeypatch.setenv("GETTPY_CACHE_DIR", str(tmp_path))
    a = nonzero(rng, (9, 6, 7), numpy_dtype(dt_in))  # "bda"
    b = np.asfortranarray(nonzero(rng, (6, 5), numpy_dtype(dt_in)))  # "dc"
    d = np.empty((7, 9, 5), numpy_dtype(dt_out))
    p = make_plan(problem_of("bda,dc->abc", a, b, None, d)).problem
    for rp in (real_plan(p), real_plan(p, (45, 5, 1))):
        for read_c in (False, True):
            spec = kernel_spec(rp, read_c)
            assert spec.compute == ("f64" if dt_out == "c128" else "f32")
            k = B.build(spec, "sm_90")
            assert k.report.spills == 0 and len(k.cubin) > 1000, k.log
