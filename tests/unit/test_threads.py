"""Plans and caches shared by several threads: every thread's results stay right (CPU executor)."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
from harness import assert_close, nonzero

import gettpy
from gettpy.plan.cache import clear_plan_cache


def test_einsum_and_contract_from_many_threads():
    clear_plan_cache()
    rng = np.random.default_rng(0)
    exprs = ["ij,jk->ik", "abk,kc->abc", "iij,jk->ik", "ij,jk,kl->il", "ab,ab->"]
    shapes = {"ij,jk->ik": [(5, 6), (6, 7)], "abk,kc->abc": [(3, 4, 5), (5, 6)], "iij,jk->ik": [(4, 4, 5), (5, 3)],
              "ij,jk,kl->il": [(3, 4), (4, 5), (5, 2)], "ab,ab->": [(6, 7), (6, 7)]}
    jobs = []
    for n in range(400):
        e = exprs[n % len(exprs)]
        ops = [nonzero(rng, s) for s in shapes[e]]
        jobs.append((e, ops, np.einsum(e, *ops)))
    a, b = nonzero(rng, (8, 9)), nonzero(rng, (9, 10))
    desc = gettpy.TensorDescriptor.of
    plan = gettpy.plan(desc(a), "ik", desc(b), "kj", desc(np.empty((8, 10))), "ij")

    def work(job):
        e, ops, ref = job
        got = gettpy.einsum(e, *ops)
        d = np.full((8, 10), np.nan)
        gettpy.contract(plan, 2.0, a, b, 0.0, None, d)
        return got, ref, d

    with ThreadPoolExecutor(max_workers=8) as pool:
        for got, ref, d in pool.map(work, jobs):
            assert_close(got, ref)
            assert_close(d, 2 * a @ b)
