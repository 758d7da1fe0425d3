"""v28 probe (H100): #12's shape on stages of exactly 52 KB in the real kernel, by the other orientation.

wgmma_bench.py (this folder) finds the copy ring keeping up with the wgmmas only on 52 KB stages (nothing fetched
past the tile). #12's kernel reads B's 160 columns MN-major in three 64-column atoms (56 KB a stage); its other
orientation (m = a: A MN-major in four atoms, n = b: B K-major in exactly 160 rows) needs D along m, which the chunked
epilogue does not stage. So this probe times a GEMM of #12's kind on M = N = 5120 (20 x 32 tiles of 256 x 160 either
way, no partial tile), K = 5136, A[a, c] and B[c, b] column-major as #12's, with D[a, b] either
  F: column-major, as #12's D: the kernel's m = b (B K-major), n = a (A MN-major, 3 atoms: 56 KB stages), or
  C: row-major: m = a (A MN-major, 4 atoms), n = b (B K-major, 160 rows: 52 KB stages), D along n in both.
Each tile (the heuristic's, and the heuristic's with the TileConfig fields given, e.g. `cluster=1+stages=3`) is checked
against float64, then all are timed
round-robin with CUDA events (tile_probe.round_robin: 5 rounds of 20 batches of 5 launches) beside torch.matmul on the
same inputs into its own row-major result. `--m12` adds #12 itself (M = 5136, D column-major: its 33rd tile column 16
wide) on the heuristic's tile, with torch.matmul on its inputs, to the same rounds; `--patch A,B` adds #12's
heuristic kernel with header variants (v27's quad_probe names, e.g. `desc`, or `pp:NAME` for v25's pp_probe, e.g.
`pp:noatom2`). `--flip` adds D column-major on
the partition with A and B trading roles (m = a: 52 KB stages, D along m through the chunked epilogue's stmatrix
.trans path), on D F's heuristic tile and the given ones, for M = 5120 and with `--m12` for #12. `--sustain S` then
runs every entry back to back for S seconds, forward then in reverse, while nvidia-smi samples the SM clock and the
board's power every 50 ms (v12's clock_probe.sampled), and prints ms a call, clock, power and the energy a call.

    PYTHONPATH=. python3 tccg/results/v28_h100/orient_probe.py [FIELD=VALUE+... ...]
"""
from __future__ import annotations

import dataclasses
import statistics
import sys

import numpy as np

M = N = 5120
K = 5136


def problem(d_order: str, m: int = M):
    from gettpy.plan.problem import ContractionProblem, TensorInfo
    from tccg.runner import _strides

    ta = TensorInfo("A", ("a", "c"), _strides((m, K), "F"), "f16")
    tb = TensorInfo("B", ("c", "b"), _strides((K, N), "F"), "f16")
    td = TensorInfo("D", ("a", "b"), _strides((m, N), d_order), "f16")
    return ContractionProblem(ta, tb, None, td, (("a", m), ("b", N), ("c", K)))


def main(tiles: list[str]) -> None:
    import cupy
    import torch

    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec
    from tccg.tile_probe import round_robin, tile_run

    m12, flip = "--m12" in tiles, "--flip" in tiles
    patches = []
    if "--patch" in tiles:  # (header variants of #12's heuristic kernel: v27's quad_probe names, or pp:NAME for v25's)
        patches = tiles[tiles.index("--patch") + 1].split(",")
        del tiles[tiles.index("--patch"):tiles.index("--patch") + 2]
    sustain = float(tiles[tiles.index("--sustain") + 1]) if "--sustain" in tiles else 0.0
    if sustain:
        del tiles[tiles.index("--sustain"):tiles.index("--sustain") + 2]
    tiles = [t for t in tiles if t not in ("--m12", "--flip")]
    rng = np.random.default_rng(12)
    a12 = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, (5136, K)).astype(np.float16)), order="F")
    a = cupy.asfortranarray(a12[:M])
    b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, (K, N)).astype(np.float16)), order="F")
    runs = []
    torch_runs = []
    configs = [("F", M, False), ("C", M, False)] + ([("F", 5136, False)] if m12 else [])
    configs += ([("F", M, True)] + ([("F", 5136, True)] if m12 else [])) if flip else []
    f_tile = None
    for order, m, swap in configs:
        am = a12 if m == 5136 else a
        ref = am.astype(cupy.float64) @ b.astype(cupy.float64)
        prob = problem(order, m)
        part = None
        if swap:
            from gettpy.plan.partition import partition

            part = partition(prob).traded()
        sched = make_schedule(prob, part=part)
        assert sched.pack_a is None and sched.pack_b is None and sched.stage_d is None, sched
        plan = sched.core
        ka, kb = (b, am) if plan.part.swapped else (am, b)
        d = cupy.empty((m, N), dtype=cupy.float16, order=order)
        heur = kernel_spec(plan, False)
        if swap:  # (D F's heuristic tile on the flipped plan)
            heur = kernel_spec(plan, False, tile=f_tile)
        elif order == "F" and m == M:
            f_tile = heur.tile
        tag = f"D {order}" + (" M 5136 (#12)" if m == 5136 else "") + (" flipped" if swap else "")
        print(f"{tag}: m {plan.part.m} n {plan.part.n} swapped {plan.part.swapped}; A k-major "
              f"{heur.a.kmajor}, B k-major {heur.b.kmajor}; heuristic {heur.tile}", flush=True)
        for label in ["H"] + (tiles if m == M or swap else []):
            fields = dict(kv.split("=") for kv in label.split("+")) if label != "H" else {}
            kinds = {f.name: f.type for f in dataclasses.fields(heur.tile)}
            tile = dataclasses.replace(heur.tile, **{k: bool(int(v)) if kinds[k] in (bool, "bool") else int(v)
                                                     for k, v in fields.items()})
            try:
                spec, run = tile_run(plan, tile, ka, kb, d)
                d.fill(cupy.nan)
                run()
                err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"  {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                continue
            print(f"  {label}: {spec.tile.bm}x{spec.tile.bn}/{spec.tile.stages} c{spec.tile.cluster} smem "
                  f"{spec.smem_bytes} err {err:.1e}", flush=True)
            if err < 1e-2:
                runs.append((f"{tag} {label}", run, [], m))
        if patches and m == 5136 and not swap:
            runs += patched_runs(patches, plan, ka, kb, d, ref, tag)
        if order == "F" and not swap:  # (torch.matmul on these inputs, into its own row-major result)
            ta, tb = torch.as_tensor(am, device="cuda"), torch.as_tensor(b, device="cuda")
            out = torch.empty((m, N), dtype=torch.float16, device="cuda")
            torch.matmul(ta, tb, out=out)
            terr = float(cupy.abs(cupy.asarray(out).astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            print(f"  torch.matmul M {m} (row-major result): err {terr:.1e}", flush=True)
            torch_runs.append((f"torch M {m}", lambda ta=ta, tb=tb, out=out: torch.matmul(ta, tb, out=out), [], m))
    runs += torch_runs
    round_robin([(run, times) for _, run, times, _ in runs], 5)
    base = statistics.median(runs[0][2])
    for label, _, times, m in runs:
        ms = statistics.median(times)
        print(f"{label:40s} {ms:8.4f} ms  {2 * m * N * K / ms / 1e9:6.1f} TFLOP/s  {ms / base:6.3f}x D F H",
              flush=True)
    if sustain:
        import pathlib

        sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v12_h100"))
        from clock_probe import sampled

        print(f"sustained, {sustain:.0f} s each, forward then reversed:")
        for label, run, _, m in runs + runs[::-1]:
            ms, clk, pw, ns = sampled(run, sustain)
            print(f"{label:40s} {ms:8.4f} ms  {2 * m * N * K / ms / 1e9:6.1f} TFLOP/s  SM {clk:5.0f} MHz  {pw:4.0f} W  "
                  f"{pw * ms:6.1f} mJ a call ({ns})", flush=True)


def patched_runs(names, plan, ka, kb, d, ref, tag):
    """(label, launch, times, M) of #12's heuristic kernel with each header variant, checked against float64 (timed
    either way; a variant that computes D wrong says so in its label). Each variant is loaded with the kernel caches
    cleared before and after, under a spec object of its own: gettpy.backends.gpu.launch keeps each spec object's
    loaded kernel, so the heuristic's and the variants' run side by side."""
    import pathlib

    import cupy

    import gettpy.kernels.render as render_mod
    from gettpy.backends.gpu import launch
    from gettpy.kernels import build
    from gettpy.plan.tiles import kernel_spec

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "v27_h100"))
    import quad_probe  # noqa: E402  (it puts v26's bal_probe and v25's pp_probe on the path)
    import pp_probe  # noqa: E402

    here, original = render_mod.header_text(), render_mod.header_text
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    out = []
    for name in names:
        heur = kernel_spec(plan, False)
        spec, text = pp_probe.variant(name[3:], heur, here) if name.startswith("pp:") else \
            quad_probe.variant(name, heur, here)
        spec = dataclasses.replace(spec)  # (an object of its own)
        build._FUNCS.clear()
        render_mod.header_text = lambda t=text: t
        try:
            d.fill(cupy.nan)
            launch(spec, *ptrs, 1.0, 0.0)
            cupy.cuda.Device().synchronize()
        finally:
            render_mod.header_text = original
            build._FUNCS.clear()
        err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        print(f"  patch {name}: err {err:.1e}", flush=True)
        label = f"{tag} H {name}" + ("" if err < 1e-2 else " (D wrong)")
        out.append((label, lambda s=spec: launch(s, *ptrs, 1.0, 0.0), [], 5136))
    return out


if __name__ == "__main__":
    main(sys.argv[1:])
