"""Diagonal fold: a long sum over a tiny output (a dot product, a matrix-vector product) as a GEMM that pads less.

The kernel's tiles are at least 16 wide on both sides (the tensor cores' fragments; narrow tiles are 16 x 128),
so a GEMM whose output is 1 x 1 or 300 x 1 computes a whole tile per k for a few useful sums: the padded
multiply-adds, not the bytes, then set its time. Folding cuts a summed mode k of extent E into k1 (the FOLD
fastest values) and k2 (the rest), and gives k1 to both sides of the output as two modes, k1a of A and k1b of
B (each with k's stride):

    W[m.., k1a, n.., k1b] = sum_k2 A[m.., k1a + FOLD k2] B[k1b + FOLD k2, n..]      (a GEMM of M FOLD x N FOLD)
    D[m.., n..] = sum_k1 W[m.., k1, n.., k1]                                        (its diagonal, summed)

The GEMM does FOLD^2 products per FOLD values of k where the plain one did a whole tile per value: for a dot
product 16 x 128 / 16 = 128 products per k instead of 2048. The folded GEMM is planned like any problem
(a long K over a small output: split-K); the E mod FOLD values the fold leaves form a tail contraction,
added after the diagonal sum. `fold_gain` decides from the target: fold where the plain tiles' padded
products take longer than reading the inputs and the folded ones pad at least twice less.
"""
from __future__ import annotations

import math
from dataclasses import replace

from .problem import ContractionProblem, TensorInfo
from .target import Target

#: values of k folded onto each side of the output
FOLD = 16
#: the fraction of peak a narrow or padded tile reaches (the tuner's model: mma.sync from shared memory)
PADDED_EFFICIENCY = 0.35
#: the fold must cut the padded products at least this many times
MIN_GAIN = 2.0
#: suffixes of the two fold modes
FOLD_A, FOLD_B = "~fa", "~fb"


def padded_products(M: int, N: int, batch: int, tile: tuple[int, int]) -> int:
    """Products per k of a grid of `tile` (bm, bn) tiles over an M x N output (times batch)."""
    return math.ceil(M / tile[0]) * tile[0] * math.ceil(N / tile[1]) * tile[1] * batch


def peak_kind(dtype: str, compute: str, target: Target) -> str:
    """The Target.peaks kind the core of inputs `dtype` (accumulated in `compute`) runs on."""
    if dtype in ("f16", "bf16"):
        return "mma"
    if dtype == "f32" and compute in ("f32", "f64") and target.dmma:
        return "dmma"
    return "simt64" if compute == "f64" else "simt32"


def fold_gain(M: int, N: int, K: int, batch: int, in_bytes: int, plain_tile: tuple[int, int],
              folded_tile: tuple[int, int], kind: str, target: Target) -> float:
    """How many times fewer padded products per k the fold computes (0 where the plain tiles' padded products
    take less time than reading the inputs once: the fold would not pay)."""
    plain = padded_products(M, N, batch, plain_tile)
    products_us = 2 * plain * K / (target.peak(kind) * 1e6 * PADDED_EFFICIENCY)
    read_us = target.copy_us(K * batch * (M + N) * in_bytes)
    if products_us <= read_us:
        return 0.0
    folded = padded_products(M * FOLD, N * FOLD, batch, folded_tile) / FOLD
    return plain / folded


def fold_candidate(problem: ContractionProblem, k_modes: tuple[str, ...], min_extent: int) -> str | None:
    """The summed mode to fold: one held by both inputs, of extent at least `min_extent`, the longest; None
    without one (or where the problem is a fold's own GEMM already)."""
    if any(m.endswith((FOLD_A, FOLD_B)) for m, _ in problem.extents):
        return None
    ext = dict(problem.extents)
    held = [m for m in k_modes if m in problem.a.modes and m in problem.b.modes and ext[m] >= min_extent]
    return max(held, key=lambda m: (ext[m], -k_modes.index(m)), default=None)


def folded_problem(problem: ContractionProblem, mode: str, d_order: tuple[str, ...], acc: str):
    """(the fold's GEMM problem, k1a, k1b): `mode` cut into FOLD fastest values, given to A as k1a and to B as
    k1b, and `mode` keeping the extent // FOLD slower values; its output is a packed `acc` workspace with the
    modes `d_order` with k1b first and k1a after the n modes (the GEMM stores along n)."""
    ext = dict(problem.extents)
    k1a, k1b = mode + FOLD_A, mode + FOLD_B

    def cut(t: TensorInfo, k1: str) -> TensorInfo:
        st = t.stride_of()[mode]
        i = t.modes.index(mode)
        return replace(t, modes=t.modes[:i] + (k1, mode) + t.modes[i + 1:],
                       strides=t.strides[:i] + (st, st * FOLD) + t.strides[i + 1:])

    ext[mode] = ext[mode] // FOLD
    ext[k1a] = ext[k1b] = FOLD
    strides, acc_st = {}, 1
    for m in d_order:
        strides[m] = acc_st
        acc_st *= ext[m]
    d = TensorInfo("workspace", d_order, tuple(strides[m] for m in d_order), acc)
    return (ContractionProblem(cut(problem.a, k1a), cut(problem.b, k1b), None, d, tuple(sorted(ext.items())),
                               problem.compute), k1a, k1b)


__all__ = ["FOLD", "fold_candidate", "fold_gain", "folded_problem", "padded_products", "peak_kind"]
