// gett.cuh — the shared GETT kernel template of gettpy (header-only, NVRTC-clean).
//
// One GEMM template reads every tensor in place through layout maps. For each operand and each GEMM
// dimension (m, n, k and the batch b) the rendered prelude gives a Map of compile-time Terms:
//
//     offset(g) = sum_i ((g / div_i) % mod_i) * stride_i        (elements; strides may be < 0 or 0)
//
// `gett_offset` (gett_map.cuh) is that map, written once; gettpy.layouts.emulate.gett_offset mirrors it by name.
//
//   D[m,n,b] = op_d( alpha * sum_k op_a(A[m,k,b]) * op_b(B[k,n,b]) + beta * op_c(C[m,n,b]) )
//
// The prelude (gettpy/kernels/render.py) defines a `Cfg` struct with the element types, the extents
// (M, N, K, BATCH are compile-time constants: a kernel is specialised per contraction), the tile
// configuration, the maps, the vector widths, the op functors and the flags; one extern "C" wrapper
// calls gett::Gett<Cfg>::run (or gett::Rows<Cfg>::run). The compute paths share the loaders, the pipeline and
// the epilogue:
//   * MMA  (f16/bf16 inputs): mma.sync.m16n8k16 with fp32 accumulation, fragments through ldmatrix
//          (.trans when the smem tile is MN-major) from padded, conflict-free shared memory;
//   * SIMT (f32/f64, complex64/complex128, integer inputs; semirings): register-tiled FMAs on the compute type
//          (a complex one as four real FMAs, gett_elements.cuh's Complex);
//   * WGMMA (f16/bf16 inputs, sm_90a): warpgroup wgmma.mma_async reading A and B straight from shared
//          memory through matrix descriptors; the loaders then write 128-byte-swizzled tiles (the
//          canonical K-major or MN-major layouts of the instruction) instead of padded ones.
// Global -> shared loads: cp.async (16/8/4 bytes, zero-fill for the partial tiles) in a STAGES-deep
// pipeline; a 1- or 2-byte gather (an f16/bf16 or narrow integer operand with no vectorisable dimension) is a
// guarded load + st.shared instead. Three variants of the schedule around the k-loop:
//   * PERSIST: a grid of the resident CTAs walks the tiles; the pipeline runs on into the next tile;
//   * WS (wgmma only): warpgroup 0 loads, two warpgroups compute and store; per-stage mbarriers
//          ("full": the copies landed, "empty": the wgmmas read the stage) instead of CTA barriers;
//   * TMA_RANK > 0 (with WS): the stages arrive as boxes of the operands' tensor maps, one thread
//          issuing cp.async.bulk.tensor, completing bytes on the full mbarrier.
// This file is the first of the template's headers, one concern each; kernels/render.py pastes them in the order
// of its HEADERS after it, inside namespace gett.
#pragma once
#include <cuda_fp16.h>
#include <cuda_bf16.h>
