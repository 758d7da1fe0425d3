"""Layout maps: from a GEMM coordinate to a tensor's element offset, without moving data."""
from .descriptor import DimMap, OperandLayout, build_dim_map, build_operand_layout
from .emulate import gather_matrix, gett_offset, operand_offsets, scatter_matrix

__all__ = [
    "DimMap", "OperandLayout", "build_dim_map", "build_operand_layout",
    "gett_offset", "operand_offsets", "gather_matrix", "scatter_matrix",
]
