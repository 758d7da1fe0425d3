"""GPU tests of the ops on B, and on A and B, applied to their mma fragments in registers (TileConfig.frag_op_b,
frag_op_a) instead of to each shared-memory stage: checked against numpy float64 with K not a multiple of bk
(values past K must be zero after the op), partial tiles, persistent, resident-A and stream-K tiles, A k-major
and m-major in shared memory, f16 and bf16.

The op `inf_at_zero` maps 0 to infinity: the zero-filled slots past K would then put inf * 0 = NaN into the
sums unless they are zeroed after the op, as a transformed stage zeroes them.
"""
from __future__ import annotations

import pytest
from harness import FRAG_OP_CASES as CASES
from harness import inf_at_zero, run_forced

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("frags", ["b", "ab"])
@pytest.mark.parametrize("op", ["leaky_relu", "inf_at_zero"])
@pytest.mark.parametrize("name,la,lb,ld,ext,tile,dts,order", CASES, ids=[c[0] for c in CASES])
def test_frag_ops(name, la, lb, ld, ext, tile, dts, order, op, frags, rng):
    from gettpy import ops
    from gettpy.errors import KernelError
    from gettpy.kernels.spec import TileConfig

    if "a" in frags and tile.get("resident_a"):
        with pytest.raises(KernelError, match="resident A panel applies A's op itself"):
            TileConfig(**tile, frag_op_a=True, frag_op_b=True)
        return
    f = ops.leaky_relu(0.1) if op == "leaky_relu" else inf_at_zero()
    t = TileConfig(**tile, frag_op_a="a" in frags, frag_op_b=True)
    spec = run_forced(rng, la, lb, ld, ext, t, dts[0], dts[1], order=order, with_c=True, alpha=1.5, beta=-0.5,
                      ops=(f, f, None, None))
    assert spec.tile.frag_op_b and spec.tile.frag_op_a == ("a" in frags) and spec.op_a and spec.op_b
    assert spec.K % spec.tile.bk
