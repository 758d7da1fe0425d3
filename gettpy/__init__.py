"""gettpy: tensor contractions on NVIDIA GPUs through GETT (GEMM-like tensor-tensor contraction).

    >>> import numpy as np, gettpy
    >>> a, b = np.ones((2, 3)), np.ones((3, 4))
    >>> gettpy.einsum("ij,jk->ik", a, b).sum()
    24.0

numpy arrays run on the CPU executor (the same plans, through a numpy emulation of the layout maps);
CuPy arrays run on the shared CUDA GETT kernel.
"""
from . import ops
from .api import Contraction, ContractionPlan, PlanPreference, TensorDescriptor, contract, plan
from .einsum import einsum
from .errors import DtypeError, GettpyError, KernelError, LayoutError, ShapeError, SubscriptError
from .kernels import pad, unpad
from .numpy_api import contract_expression, einsum_path, tensordot, transpose
from .tune import tune

__version__ = "0.1.0"
__all__ = [
    "einsum", "einsum_path", "tensordot", "transpose", "contract_expression", "plan", "contract", "Contraction",
    "ContractionPlan", "TensorDescriptor", "PlanPreference", "ops", "pad", "unpad", "tune",
    "GettpyError", "SubscriptError", "ShapeError", "LayoutError", "DtypeError", "KernelError",
]
