"""The GETT CUDA kernel: template (gett.cuh), spec, rendering, NVRTC build and caches, reports; and
the tiled copy the schedule's packs use on the GPU (permute.py).

`kernels/` only ever receives a fully decided KernelSpec (see spec.py); the planner decides it
(gettpy/plan/tiles.py) and the GPU backend launches it (gettpy/backends/gpu.py).
"""
from .pad import pad, unpad
from .spec import KernelSpec, OperandSpec, OutputSpec, TileConfig

__all__ = ["KernelSpec", "OperandSpec", "OutputSpec", "TileConfig", "pad", "unpad"]
