"""Split-K sized by a model, for any extent: a long K over a small output (and, `wave_model_us`, a compute-bound
grid whose last wave leaves most SMs idle).

A GEMM whose output gives the machine only a few tiles but whose K is long (a dot product, a
matrix-vector product, M·N of a few thousand over K of 10^5..10^7) is a stream of A and B through few
CTAs: each CTA can keep only so many loads in flight, so the machine reads at a small fraction of its
bandwidth. Split-K cuts one k mode of extent E into S slices of q values (a new batch mode of the core
GEMM), so S times the CTAs read A and B once each; the slices' partial results land in an accumulate-type
workspace (f32 for 2-byte inputs, f64 for f64) that is summed afterwards.

The slice count comes from a model of the target (`split_model_us`): the bytes of A and B each tile row /
column reads, over the copy bandwidth scaled by how full the split grid keeps the machine (CTAs per SM
against the fewer of `STREAM_CTAS_PER_SM` and the CTAs of the core's tile that an SM holds, and the last
wave's idle slots), plus the workspace written and summed, plus the launches. The extent need not divide:
the first S x q values of the mode are the split core's, and the rest (fewer than q) form a *tail*
contraction over the same operands from index S x q on, planned like any other problem (so a long tail
splits again) and written as one more workspace slice.

A slice of a mode that is some operand's stride-1 mode keeps whole 16-byte vectors and long runs (q a
multiple of `SLICE_ALIGN`, at least `MIN_RUN`), so every slice starts aligned.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from .target import Target

#: CTAs an SM needs resident to stream its inputs at the copy bandwidth (each keeps a few stages of
#: loads in flight; a single CTA per SM is latency-bound). A tile of which an SM holds only one (its stages
#: fill the shared memory) is counted one to an SM. Not exact: on the H100 a split over twelve 128 x 128
#: tiles, two to an SM, ran 1.1x faster as 132 CTAs than as the 396 this count prefers
STREAM_CTAS_PER_SM = 2
#: shared memory the driver keeps per resident CTA (bytes; sm_80 / sm_90)
CTA_SMEM_RESERVE = 1024
#: the fewest k values a slice keeps: below this the workspace moves more bytes than the slice reads
MIN_SLICE_K = 256
#: a cut stride-1 mode keeps slices of whole 16-byte vectors (8 elements of 2 bytes; also 4- and 8-byte ones)
SLICE_ALIGN = 8
#: ... and runs at least this long
MIN_RUN = 64
#: the most slices considered
MAX_SLICES = 4096


@dataclass(frozen=True, slots=True)
class SplitTile:
    """A split core's CTA as the model sees it: its output tile (bm x bn) and how many of it an SM holds at
    once (its shared memory)."""

    bm: int
    bn: int
    resident: int

    @staticmethod
    def of(tile, in_bytes: tuple[int, int], target: Target, smem: int | None = None) -> SplitTile:
        """The SplitTile of TileConfig `tile` over inputs of `in_bytes` bytes an element; `smem` the CTA's shared
        memory where known (a KernelSpec's), else its pipeline stages'."""
        if smem is None:
            smem = tile.stages * tile.bk * (tile.bm * in_bytes[0] + tile.bn * in_bytes[1])
        return SplitTile(tile.bm, tile.bn, max(1, target.smem_per_sm // (smem + CTA_SMEM_RESERVE)))


def split_model_us(M: int, N: int, K: int, batch: int, in_bytes: tuple[int, int], acc_bytes: int,
                   tile: SplitTile, slices: int, target: Target) -> float:
    """Predicted microseconds of a split-K schedule with `slices` slices (1: unsplit).

    in_bytes: element sizes of A and B; acc_bytes: the workspace's; tile: the core's CTA.
    """
    tm, tn = math.ceil(M / tile.bm), math.ceil(N / tile.bn)
    read = K * batch * (M * in_bytes[0] * tn + N * in_bytes[1] * tm)  # (A once per tile column, B per row)
    ctas = tm * tn * batch * slices
    slots = min(STREAM_CTAS_PER_SM, tile.resident) * target.sm_count
    fill = min(1.0, ctas / slots) * (ctas / (math.ceil(ctas / slots) * slots) if ctas > slots else 1.0)
    t = target.copy_us(read) / fill
    if slices > 1:  # (the workspace written by the core and read by the sum, the output written once)
        t += target.copy_us(2 * slices * M * N * batch * acc_bytes) + target.launch_us
    return t


def wave_model_us(tiles: int, K: int, bm: int, bn: int, slices: int, peak_tflops: float, ws_bytes: int,
                  target: Target) -> float:
    """Predicted microseconds of a compute-bound grid of `tiles` bm x bn tiles over K, cut into `slices` k slices
    (1: unsplit): the tensor pipe (or FMA units) of an SM serve the CTAs on it in turn, so the SM with the most
    tile-slices sets the time -- ceil(tiles x slices / SMs) of them, each 2 bm bn K / slices flops at the SM's
    share of `peak_tflops` -- plus, when split, the workspace (`ws_bytes` a slice) written and summed and one
    more launch. A grid of 162 tiles on 132 SMs leaves 102 SMs idle half the time; 4 slices bring it to 5 rounds
    of a quarter of the work."""
    rounds = math.ceil(tiles * slices / target.sm_count)
    t = rounds * 2.0 * bm * bn * (K / slices) / (peak_tflops * 1e6 / target.sm_count)
    if slices > 1:
        t += target.copy_us(2 * slices * ws_bytes) + target.launch_us
    return t


def best_slices(M: int, N: int, K: int, batch: int, in_bytes: tuple[int, int], acc_bytes: int,
                tile: SplitTile, target: Target) -> int:
    """The slice count of least `split_model_us` (1: do not split), each slice keeping MIN_SLICE_K of K."""
    most = min(MAX_SLICES, K // MIN_SLICE_K)
    if most < 2:
        return 1
    cost = lambda s: split_model_us(M, N, K, batch, in_bytes, acc_bytes, tile, s, target)  # noqa: E731
    return min(range(1, most + 1), key=lambda s: (cost(s), s))


def cut(extent: int, slices: int, unit: bool) -> tuple[int, int] | None:
    """(q, S): `extent` cut into S slices of q values (S x q <= extent, the rest a tail of fewer than q), S as
    close to `slices` as the extent allows; q a multiple of SLICE_ALIGN and at least MIN_RUN where the mode is
    some operand's stride-1 mode (`unit`); None where no cut of at least 2 slices exists."""
    if slices < 2 or extent < 2:
        return None
    q = max(1, extent // slices)
    if unit:
        q = q // SLICE_ALIGN * SLICE_ALIGN
        if q < MIN_RUN:
            q = MIN_RUN
    elif q >= 4 * SLICE_ALIGN:  # (aligned slice starts where it costs little)
        q = q // SLICE_ALIGN * SLICE_ALIGN
    s = extent // q
    return (q, s) if s >= 2 else None


def best_kept(items: list, score: Callable[[object], int]) -> list:
    """The items whose score (how well a cut keeps the inputs' fused k runs: 0 not at all, more better) is the
    highest, in order; all of them where none scores above 0."""
    scores = [score(c) for c in items]
    best = max(scores, default=0)
    return [c for c, sc in zip(items, scores, strict=True) if sc == best] if best else items


def choose_cut(k_modes: tuple[str, ...], ext: dict[str, int], unit: set[str], K: int, slices: int,
               keeps: Callable[[str, int], int] | None = None):
    """(mode, q, S) for `slices` slices of K: the slowest k mode that gives at least half of them, else the
    k mode that gives the most; None where no k mode can be cut. keeps(mode, q): how well slices of q values of
    `mode` keep the inputs' fused k runs (0: not at all; more: better); only the cuts that keep them best are
    taken, all of them where none keeps them."""
    cuts = []
    for mode in reversed(k_modes):  # (slowest first: its slices are the largest contiguous pieces)
        c = cut(ext[mode], slices, mode in unit)
        if c is not None and K // ext[mode] * c[0] >= MIN_SLICE_K:
            cuts.append((mode, *c))
    if keeps is not None:
        cuts = best_kept(cuts, lambda c: keeps(c[0], c[1]))
    best = None
    for mode, q, s in cuts:
        if 2 * s >= slices:
            return mode, q, s
        if best is None or s > best[2]:
            best = (mode, q, s)
    return best


__all__ = ["SplitTile", "best_slices", "choose_cut", "cut", "split_model_us", "wave_model_us"]
