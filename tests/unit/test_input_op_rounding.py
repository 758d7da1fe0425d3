"""An input's op(x) is held in the input's own type before the product, on the CPU executor as on the GPU's
loaders and packs (gettpy.ops): checked against numpy's own `op(a)` followed by a float64 product, and the GPU's
packed schedule (run on numpy through backends.staged) against the CPU executor's in-place one."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy
from gettpy import ops
from gettpy.backends import cpu, staged
from gettpy.plan.problem import ContractionProblem, TensorInfo
from gettpy.plan.schedule import make_schedule


def _info(name, modes, x):
    return TensorInfo(name, modes, tuple(s // x.itemsize for s in x.strides), {2: "f16", 4: "f32", 8: "f64"}[
        x.itemsize], op=ops.identity)


@pytest.mark.parametrize("op,twin", [(ops.tanh, np.tanh), (ops.square, np.square),
                                     (ops.leaky_relu(0.1), lambda x: np.where(x > 0, x, x * np.float32(0.1)))])
def test_float32_inputs_summed_in_float64(op, twin):
    """float32 inputs into a float64 result: the products of float32 op(a) values, summed in float64."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal((600, 1000)).astype(np.float32)[::2, ::2]  # (no stride-1 run: the GPU schedule packs A)
    b = rng.standard_normal((500, 300)).astype(np.float32)
    got = gettpy.einsum("ik,kj->ij", a, b, ops=[op, None], dtype=np.float64)
    ref = twin(a).astype(np.float64) @ b.astype(np.float64)
    assert twin(a).dtype == np.float32
    assert np.max(np.abs(got - ref)) <= 1e-13 * np.max(np.abs(ref))
    # (the GPU's schedule: A packed with its op applied, run on numpy)
    p = ContractionProblem(TensorInfo("A", ("i", "k"), (a.strides[0] // 4, a.strides[1] // 4), "f32", op=op),
                           _info("B", ("k", "j"), b), None, _info("D", ("i", "j"), got),
                           (("i", 300), ("j", 300), ("k", 500)))
    s = make_schedule(p)
    assert s.pack_a is not None and s.pack_a.op.is_identity  # (the pack applies the op)
    d = np.full((300, 300), 7.0)
    staged.run(s, np, cpu.execute, a, b, None, d, 1.0, 0.0)
    assert np.max(np.abs(d - ref)) <= 1e-13 * np.max(np.abs(ref))


def test_float16_op_beyond_the_range_is_inf_as_numpy():
    """square(300) is past float16's range: inf in op(a), as numpy's np.square on the float16 array, into a float32
    result; values in range are exact."""
    a = np.full((4, 5), 300, np.float16)
    a[1] = 2
    b = np.ones((5, 3), np.float16)
    with np.errstate(invalid="ignore"):
        got = gettpy.einsum("ik,kj->ij", a, b, ops=["square", None], dtype=np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = np.square(a).astype(np.float64) @ b.astype(np.float64)
    assert np.isinf(ref[0]).all() and np.array_equal(got, ref.astype(np.float32))
    assert got[1].tolist() == [20.0, 20.0, 20.0]


def test_semiring_and_one_operand_paths_round_as_well():
    """The gathered product (semirings) and one-operand sums hold op(x) in the input's type too."""
    h = np.full((2, 3), 300, np.float16)
    z = np.zeros((3, 2), np.float16)
    got = gettpy.einsum("ik,kj->ij", h, z, ops=["square", None], dtype=np.float32, semiring="max_plus")
    assert np.isinf(got).all() and (got > 0).all()  # (max over k of inf + 0)
    rng = np.random.default_rng(8)
    a = rng.standard_normal((40, 5000)).astype(np.float32)
    b = rng.standard_normal((5000, 3)).astype(np.float32)
    got = gettpy.einsum("ik,kj->ij", a, b, ops=["tanh", None], dtype=np.float64, semiring="max_plus")
    ref = np.max(np.tanh(a).astype(np.float64)[:, :, None] + b.astype(np.float64)[None], axis=1)
    np.testing.assert_array_equal(got, ref)
    got = gettpy.einsum("ij->i", a, ops=["tanh"], dtype=np.float64)
    ref = np.tanh(a).astype(np.float64).sum(axis=1)
    assert np.max(np.abs(got - ref)) <= 1e-12 * np.max(np.abs(ref))
    assert np.max(np.abs(got - np.tanh(a.astype(np.float64)).sum(axis=1))) > 1e-9  # (float64 tanh is another value)


def test_bfloat16_input_op_held_in_bfloat16():
    ml = pytest.importorskip("ml_dtypes")
    rng = np.random.default_rng(9)
    a = (rng.standard_normal((64, 256)) * 2).astype(ml.bfloat16)
    b = rng.standard_normal((256, 32)).astype(ml.bfloat16)
    got = gettpy.einsum("ik,kj->ij", a, b, ops=["tanh", None], dtype=np.float32)
    ref = np.tanh(a.astype(np.float32)).astype(ml.bfloat16).astype(np.float64) @ b.astype(np.float64)
    assert np.max(np.abs(got - ref)) <= 1e-5 * np.max(np.abs(ref))


def test_inputs_of_two_types_op_in_own_type_on_every_api():
    """float16 A beside float32 B: exp(12) past float16's range is inf through einsum, Contraction and
    plan/contract alike (the plan API's cast to the common type applies the op first, in float16)."""
    a = np.array([[12.0, 1.0], [2.0, 3.0]], np.float16)
    b = np.ones((2, 2), np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        ref = np.exp(a).astype(np.float64) @ b.astype(np.float64)
        got_e = gettpy.einsum("ij,jk->ik", a, b, ops=["exp", None])
        got_c = gettpy.Contraction("ij,jk->ik", a, b, ops=["exp", None]).execute()
        c = np.zeros((2, 2), np.float32)
        td = gettpy.TensorDescriptor
        p = gettpy.plan(td(a.shape, (2, 1), np.float16, op="exp"), "ij", td.of(b), "jk", td.of(c), "ik")
        got_p = gettpy.contract(p, 1.0, a, b, 0.0, c, c)
    for got in (got_e, got_c, got_p):
        assert np.isinf(got[0]).all() and np.allclose(got[1], ref[1], rtol=1e-6)
