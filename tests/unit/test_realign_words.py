"""The arithmetic of realigned rows (gett_loader.cuh's load_realign / settle_realign), enumerated in Python: for
random element sizes, row widths, task splits, misalignments and valid counts, every slot of a task receives the
row's element (zero past the valid count), every word copied holds at least one of the task's valid elements (so no
read leaves their page), the shift is the kernel's (32-bit lanes picked by selects, then a funnel shift), and the
stage that kernels/spec.py counts holds the raw area."""
from __future__ import annotations

import numpy as np
import pytest

from gettpy.kernels.spec import ITEMSIZE, OperandSpec, TileConfig, _stage_bytes, realign_group
from gettpy.layouts.descriptor import DimMap


def _funnel_r(lo: int, hi: int, sh: int) -> int:
    return ((hi << 32 | lo) >> sh) & 0xFFFFFFFF


def _task(mem: bytes, addr: int, item: int, g: int, n: int) -> tuple[list[int], bytes]:
    """One task as the kernel runs it: (word addresses copied, the g * 16 bytes settled into its slots)."""
    fw = 16 // item
    lead = (addr % 16) // item
    base = addr - addr % 16
    raw, copied = bytearray(), []
    for w in range(g + 1):
        if n > 0 and w * fw - lead < n:
            copied.append(base + 16 * w)
            raw += mem[base + 16 * w: base + 16 * w + 16]
        else:
            raw += bytes(16)
    x = [int.from_bytes(raw[4 * j: 4 * j + 4], "little") for j in range(4 * (g + 1))]
    lb = lead * item
    l4, sh = lb >> 2, (lb & 3) * 8
    out = bytearray()
    for q in range(g):
        z = []
        for j in range(5):
            b = 4 * q + j
            lo = x[b + 1] if l4 & 1 else x[b]
            hi = x[b + 3] if l4 & 1 else x[b + 2]
            z.append(hi if l4 & 2 else lo)
        word = b"".join(_funnel_r(z[j], z[j + 1], sh).to_bytes(4, "little") for j in range(4))
        for e in range(fw):  # (elements past the valid count: zero)
            if q * fw + e >= n:
                word = word[: e * item] + bytes(item) + word[(e + 1) * item:]
        out += word
    return copied, bytes(out)


CASES = [(int(r.choice([2, 4])), int(r.choice([1, 2, 4, 8])), int(r.integers(0, 4096)))
         for r in [np.random.default_rng(s) for s in range(80)]]


@pytest.mark.parametrize("item,g,start", CASES)
def test_task_shifts_every_element_and_reads_inside_its_run(item, g, start):
    rng = np.random.default_rng(start)
    fw = 16 // item
    mem = rng.integers(0, 256, 1 << 14, dtype=np.uint8).tobytes()
    addr = 64 + start * item  # (any element-aligned start)
    for n in sorted({g * fw, int(rng.integers(1, g * fw + 1)), 1, 0}):
        copied, got = _task(mem, addr, item, g, n)
        want = mem[addr: addr + n * item] + bytes((g * fw - n) * item)
        assert got == want
        run = (addr, addr + n * item - 1)
        assert all(w + 15 >= run[0] and w <= run[1] for w in copied), "a word holding none of the task's elements"
        assert len(copied) == (0 if n == 0 else (addr % 16 + n * item + 15) // 16)


@pytest.mark.parametrize("dtype", ["f16", "bf16", "f32"])
@pytest.mark.parametrize("kmajor", [True, False])
@pytest.mark.parametrize("tmn,bk", [(64, 16), (128, 32), (32, 64), (96, 32), (16, 16)])
def test_stage_holds_the_raw_area(dtype, kmajor, tmn, bk):
    item = ITEMSIZE[dtype]
    fw = 16 // item
    tc, ts = (bk, tmn) if kmajor else (tmn, bk)
    if tc % fw:
        pytest.skip("rows of part words are refused")
    mn = DimMap(tmn * 3, (1,), (tmn * 3,), (1,) if not kmajor else (1001,))
    k = DimMap(bk * 5, (1,), (bk * 5,), (1,) if kmajor else (1001,))
    op = OperandSpec(dtype, mn, k, DimMap(1, (), (), ()), 1, kmajor, 1, realign=True)
    g = realign_group(op, tmn, bk)
    assert g == (tc // fw if kmajor else next(x for x in (4, 2, 1) if (tc // fw) % x == 0))
    tasks = ts * tc // (g * fw)
    slots = ts * (tc + fw) * item
    raw = 0 if kmajor else 16 * (g + 1) * tasks  # (k-major: a row's g + 1 words are its padded slots)
    tile = TileConfig(max(tmn, 16), 16, bk, 2, tm=4, tn=2) if True else None
    assert _stage_bytes(tile, op, tmn) >= slots + raw + 8 * tasks
    if kmajor:
        assert (tc + fw) * item == 16 * (g + 1)  # (the padded row is exactly the task's words)
