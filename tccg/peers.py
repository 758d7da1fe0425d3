"""The libraries gettpy is compared with, each as "make one call on one input set".

Every factory returns a zero-argument callable that enqueues the whole computation on the current
stream (nothing synchronises), so that timing.py can capture it into a CUDA graph, or raises
`Unavailable` with the reason the peer cannot run this configuration (the table then shows '-' and
the CSV's note column says why).

Fused-op configurations follow seed 004 Section IV-D: C = op(op(A) . op(B)), the same unary op on A,
on B and on the result. gettpy fuses all three (``ops=[op, op], op_out=op``). The peers run the op as
separate in-place elementwise kernels (in place, as the seed assumes for cuTENSOR's unfused case),
timed together with the contraction. cuTENSOR 2.x accepts only identity/conj as op_A/op_B of a
contraction (2.8 answers CUTENSOR_STATUS_NOT_SUPPORTED to OP_RELU there, measured on an H100) and has no
op on a contraction's result, so for cuTENSOR too every op is a separate kernel. (The seed's cuTENSOR
2.0 run fused ReLU; that no longer applies.)
"""
from __future__ import annotations

LEAKY_SLOPE = 0.01
OPS = ("none", "relu", "leaky_relu")


class Unavailable(Exception):
    """This peer cannot run this configuration (library missing, dtype not supported, ...)."""


# -- availability -------------------------------------------------------------------------------------

def have_gpu() -> bool:
    """True when cupy imports and sees at least one CUDA device; any failure means no GPU."""
    try:
        import cupy

        return cupy.cuda.runtime.getDeviceCount() > 0
    except BaseException:  # noqa: BLE001 - ImportError, CUDARuntimeError, missing driver, ...
        return False


def torch_status() -> str | None:
    """None when torch with CUDA is usable, else the reason it is not."""
    try:
        import torch
    except Exception as e:  # noqa: BLE001
        return f"torch not importable ({type(e).__name__}: {e})"
    if not torch.cuda.is_available():
        return "torch has no CUDA device"
    return None


def cutensor_status() -> str | None:
    """None when cupyx.cutensor can contract on this device, else the reason it cannot."""
    try:
        import cupy
        from cupyx import cutensor

        if not cutensor.check_availability("contraction"):
            return "cupyx.cutensor: contraction not available on this device"
        a = cupy.ones((4, 4), dtype=cupy.float32)
        c = cupy.zeros((4, 4), dtype=cupy.float32)
        cutensor.contraction(1.0, a, ("i", "k"), a, ("k", "j"), 0.0, c, ("i", "j"))
        cupy.cuda.Device().synchronize()
        if float(c[0, 0]) != 4.0:
            return "cupyx.cutensor: smoke test gave a wrong result"
    except Exception as e:  # noqa: BLE001
        return f"cuTENSOR unavailable ({type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"
    return None


def cutensor_version() -> str:
    try:
        from cupy_backends.cuda.libs import cutensor as ct

        v = ct.get_version()
        return f"{v // 10000}.{v // 100 % 100}.{v % 100}"
    except Exception:  # noqa: BLE001
        return "?"


def cutensor_algos() -> list[tuple[str, int]]:
    """(name, value) of the cuTENSOR algorithms to try; 'default' (the heuristic) first."""
    from cupy_backends.cuda.libs import cutensor as ct

    out = []
    for name in ("ALGO_DEFAULT", "ALGO_DEFAULT_PATIENT", "ALGO_GETT", "ALGO_TGETT", "ALGO_TTGT"):
        if hasattr(ct, name):
            out.append((name[5:].lower(), int(getattr(ct, name))))
    return out


# -- the ops as separate in-place kernels ------------------------------------------------------------

_LEAKY_KERNEL = None


def _flat(x):
    """A 1-D view of a C- or F-contiguous cupy array (cupy's elementwise kernels index an F-order
    array dimension by dimension, which is several times slower than a flat pass); else x itself."""
    if x.flags.c_contiguous:
        return x.reshape(-1)
    if x.flags.f_contiguous:
        return x.T.reshape(-1)
    return x


def cupy_op_inplace(op: str, x) -> None:
    """Apply `op` to the cupy array x in place (one elementwise kernel; nothing for 'none')."""
    global _LEAKY_KERNEL
    import cupy

    if op == "none":
        return
    x = _flat(x)
    if op == "relu":
        cupy.maximum(x, 0, out=x)
        return
    if op == "leaky_relu":
        if _LEAKY_KERNEL is None:
            _LEAKY_KERNEL = cupy.ElementwiseKernel(
                "float64 s", "T x", "x = ((double)x > 0.0) ? x : (T)(s * (double)x)", "tccg_leaky_relu_inplace")
        _LEAKY_KERNEL(LEAKY_SLOPE, x)
        return
    raise ValueError(f"unknown op {op!r}")


def torch_op_inplace(op: str, t) -> None:
    import torch

    if op == "relu":
        torch.relu_(t)
    elif op == "leaky_relu":
        torch.nn.functional.leaky_relu_(t, LEAKY_SLOPE)
    elif op != "none":
        raise ValueError(f"unknown op {op!r}")


def numpy_op(op: str, x):
    """The op on a float64 array (numpy or cupy: uses the array's own methods), out of place."""
    if op == "none":
        return x
    if op == "relu":
        return x * (x > 0)
    if op == "leaky_relu":
        return x * (x > 0) + LEAKY_SLOPE * x * (x <= 0)
    raise ValueError(f"unknown op {op!r}")


def gettpy_op(op: str):
    import gettpy

    return {"none": None, "relu": gettpy.ops.relu, "leaky_relu": gettpy.ops.leaky_relu(LEAKY_SLOPE)}[op]


# -- one call per library -----------------------------------------------------------------------------

def gettpy_call(subs: str, a, b, c, dtype: str, op: str):
    """gettpy.einsum(subs, a, b, out=c) with the op fused on A, B and the result."""
    import gettpy

    kw = {}
    if dtype == "f16f32":
        import numpy as np

        kw["dtype"] = np.float32
    if op != "none":
        g = gettpy_op(op)
        kw.update(ops=[g, g], op_out=g)

    def call():
        return gettpy.einsum(subs, a, b, out=c, **kw)
    return call


def cupy_call(subs: str, a, b, dtype: str, op: str):
    """cupy.einsum (allocates its result; it has no `out`); ops as separate in-place kernels."""
    import cupy

    if dtype == "bf16":
        raise Unavailable("cupy has no bfloat16")
    kw = {"dtype": cupy.float32} if dtype == "f16f32" else {}

    def call():
        cupy_op_inplace(op, a)
        cupy_op_inplace(op, b)
        r = cupy.einsum(subs, a, b, **kw)
        cupy_op_inplace(op, r)
        return r
    return call


def torch_call(subs: str, a, b, dtype: str, op: str, into=None):
    """torch.einsum on DLPack views of the cupy arrays (or on torch tensors for bf16).

    fp16 -> fp32 (f16f32): torch.einsum in fp16 (fp32 accumulation) then a cast of the result.
    into: an output array in D's layout; the result is then copied into it (torch.einsum returns the
    layout its GEMM produced, which need not be D's: `same_layout`).
    """
    import torch

    ta = a if isinstance(a, torch.Tensor) else torch.from_dlpack(a)
    tb = b if isinstance(b, torch.Tensor) else torch.from_dlpack(b)
    td = None if into is None else into if isinstance(into, torch.Tensor) else torch.from_dlpack(into)

    def call():
        torch_op_inplace(op, ta)
        torch_op_inplace(op, tb)
        r = torch.einsum(subs, ta, tb)
        torch_op_inplace(op, r)
        if dtype == "f16f32":
            r = r.float()
        if td is not None:
            return td.copy_(r)
        return r
    return call


def same_layout(r, d) -> bool:
    """Whether torch tensor `r` has the strides (in elements) of array `d` along every axis longer than 1."""
    dst = [s // d.itemsize for s in d.strides] if hasattr(d, "strides") else list(d.stride())  # (numpy/cupy, torch)
    return all(n <= 1 or int(x) == int(y) for n, x, y in zip(r.shape, r.stride(), dst, strict=True))


def empty_in_layout(r, dtype):
    """An empty cupy array of `dtype` with the shape of torch tensor `r` and its (dense) stride order, e.g.
    the layout torch.einsum chose for its result, so gettpy can be timed writing that same layout."""
    import cupy

    order = sorted(range(r.dim()), key=lambda i: (-int(r.stride(i)), -i))  # slowest first
    buf = cupy.empty(tuple(int(r.shape[i]) for i in order), dtype=dtype)
    out = buf.transpose([order.index(i) for i in range(r.dim())])
    if not same_layout(r, out):
        raise ValueError(f"torch result strides {tuple(r.stride())} are not a dense permutation of {tuple(r.shape)}")
    return out


def cutensor_call(modes: tuple[str, str, str], a, b, c, dtype: str, op: str, algo: int):
    """cupyx.cutensor.contraction(1, A, B, 0, C) with algorithm `algo`; ops as separate kernels."""
    from cupyx import cutensor

    if dtype == "f16f32":
        raise Unavailable("cuTENSOR has no fp16 x fp16 -> fp32 contraction")
    if dtype == "bf16":
        raise Unavailable("cupyx.cutensor has no bfloat16")
    ma, mb, mc = (tuple(m) for m in modes)

    def call():
        cupy_op_inplace(op, a)
        cupy_op_inplace(op, b)
        cutensor.contraction(1.0, a, ma, b, mb, 0.0, c, mc, algo=algo)
        cupy_op_inplace(op, c)
        return c
    return call
