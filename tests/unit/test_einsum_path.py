"""gettpy.einsum_path: numpy's signature and return format, the pairwise order gettpy's einsum takes, a path both
numpy's and gettpy's einsum accept and compute the same value with (numpy float64 the reference)."""
from __future__ import annotations

import numpy as np
import pytest

import gettpy


@pytest.mark.parametrize("eq,shapes", [("ij,jk,kl->il", [(10, 20), (20, 30), (30, 5)]),
                                       ("abc,cd,db,ae->e", [(3, 4, 5), (5, 6), (6, 4), (3, 7)]),
                                       ("...i,ai->...", [(2, 3, 4), (3, 4)]),
                                       ("ii->i", [(3, 3)]), ("i,i->", [(7,), (7,)]),
                                       ("ij,jk,kl,lm->im", [(2, 9), (9, 1), (1, 8), (8, 3)])])
@pytest.mark.parametrize("optimize", ["greedy", "optimal", True, False])
def test_einsum_path_is_numpys_format_and_a_path_both_einsums_take(eq, shapes, optimize):
    rng = np.random.default_rng(4)
    ops = [rng.standard_normal(s) for s in shapes]
    path, report = gettpy.einsum_path(eq, *ops, optimize=optimize)
    assert path[0] == "einsum_path" and all(isinstance(s, tuple) for s in path[1:])
    assert len(path) - 1 == max(1, len(ops) - 1) and "Complete contraction" in report
    if len(ops) > 1:
        assert all(len(s) == 2 for s in path[1:])  # (gettpy contracts two at a time)
        if optimize is False:
            assert path[1:] == [(0, 1)] * (len(ops) - 1)
    want = np.einsum(eq, *ops)
    np.testing.assert_allclose(np.einsum(eq, *ops, optimize=path), want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(gettpy.einsum(eq, *ops, optimize=path), want, rtol=1e-12, atol=1e-12)


def test_einsum_path_takes_the_sublist_form_and_returns_an_explicit_path_as_given():
    rng = np.random.default_rng(5)
    a, b, c = rng.standard_normal((4, 6)), rng.standard_normal((6, 3)), rng.standard_normal((3, 2))
    given = ["einsum_path", (0, 2), (0, 1)]
    path, report = gettpy.einsum_path("ij,jk,kl->il", a, b, c, optimize=given)
    assert path == given and report.splitlines()[0].split()[-1] == "ij,jk,kl->il"
    assert gettpy.einsum_path(a, [0, 1], b, [1, 2], c, [2, 3], [0, 3])[0] == gettpy.einsum_path("ij,jk,kl->il", a, b,
                                                                                             c)[0]
    with pytest.raises(gettpy.ShapeError):
        gettpy.einsum_path("ij,jk->ik", a, c)
