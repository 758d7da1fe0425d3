"""Multi-operand einsum: intermediates are laid out for the contraction that consumes them (the modes
they share with their partner there fastest, in the partner's order), and the results match numpy."""
from __future__ import annotations

import importlib

import numpy as np
import pytest
from harness import assert_close, nonzero

import gettpy

einsum_mod = importlib.import_module("gettpy.einsum")


def _program(subs, *arrays, optimize=True):
    return einsum_mod._program((subs, *arrays), list(arrays), None, None, optimize, None, None, "numpy", "safe")


def test_intermediate_is_laid_out_for_its_consumer():
    """(A B) has modes i, k, m; its partner C[k, m, l] is F-ordered (k fastest, then m): the intermediate
    is made with k fastest, then m (shape (i, m, k) in C order), not in the order of appearance."""
    rng = np.random.default_rng(0)
    a, b = nonzero(rng, (3, 4)), nonzero(rng, (4, 5, 6))
    c = np.asfortranarray(nonzero(rng, (5, 6, 7)))
    path = ["einsum_path", (0, 1), (0, 1)]
    prog = _program("ij,jkm,kml->il", a, b, c, optimize=path)
    assert prog.steps[0].out_shape == (3, 6, 5)
    assert_close(gettpy.einsum("ij,jkm,kml->il", a, b, c, optimize=path), np.einsum("ij,jkm,kml->il", a, b, c))
    c_order = np.ascontiguousarray(c)  # a C-ordered partner (l fastest, then m, then k): (i, k, m)
    assert _program("ij,jkm,kml->il", a, b, c_order, optimize=path).steps[0].out_shape == (3, 5, 6)


def test_consumer_order():
    from gettpy.plan.problem import TensorInfo

    partner = TensorInfo("C", ("l", "m", "j"), (1, 28, 7), "f64")  # l fastest, then j, then m
    assert einsum_mod._consumer_order(("i", "j", "m"), partner) == ("i", "m", "j")  # j fastest, then m
    assert einsum_mod._consumer_order(("i", "j", "m"), None) == ("i", "j", "m")


@pytest.mark.parametrize("subs,shapes", [
    ("ab,bc,cd,de->ae", [(3, 4), (4, 5), (5, 6), (6, 2)]),
    ("abc,cd,bde,ea->", [(3, 4, 5), (5, 6), (4, 6, 2), (2, 3)]),
    ("ij,jk,ki->", [(4, 5), (5, 6), (6, 4)]),
    ("bij,bjk,bkl->bil", [(2, 3, 4), (2, 4, 5), (2, 5, 3)]),
    ("ab,cd,ef->abcdef", [(2, 3), (3, 2), (2, 2)]),
])
@pytest.mark.parametrize("optimize", [True, False, "greedy", "optimal"])
def test_networks_match_numpy(subs, shapes, optimize):
    rng = np.random.default_rng(2)
    ops = [nonzero(rng, s) for s in shapes]
    assert_close(gettpy.einsum(subs, *ops, optimize=optimize), np.einsum(subs, *ops))


def test_contract_expression_runs_einsums_path_and_checks_shapes():
    import opt_einsum as oe

    from gettpy.errors import ShapeError

    rng = np.random.default_rng(3)
    shapes = [(3, 4), (4, 5), (5, 6), (6, 2)]
    ops = [nonzero(rng, s) for s in shapes]
    e = gettpy.contract_expression("ab,bc,cd,de->ae", *shapes)
    want = oe.contract_path("ab,bc,cd,de->ae", *shapes, shapes=True)[0]
    assert [tuple(sorted(p)) for p in e.path] == [tuple(sorted(p)) for p in want]
    assert_close(e(*ops), np.einsum("ab,bc,cd,de->ae", *ops))
    out = np.empty((3, 2))
    assert e(*ops, out=out) is out
    assert_close(out, np.einsum("ab,bc,cd,de->ae", *ops))
    with pytest.raises(ShapeError, match="operand 2: shape"):
        e(ops[0], ops[1], ops[3], ops[2])
    with pytest.raises(ShapeError, match="takes 4 operands"):
        e(*ops[:3])
