"""v29 probe (H100): TileConfig.share_a on #12, timed beside the heuristic and torch.matmul.

#12 (ab-ac-cb, column-major; the kernel's m = b, 5120 rows K-major, n = a, 5136 columns MN-major) on 256 x 160 tiles in
clusters of two: the heuristic's pairs take tile rows m, m + 1 of one column and share B (each CTA reads 32 KB of A and
half of B's 24 KB from L2 a k-tile: 44 KB); share_a's take columns n, n + 1 of one row and share A (16 + 24 = 40 KB),
the 33rd column's 16-wide tiles pairing along m. Under the H100's power cap, v28 found #12's time following its energy
a call, and 9% fewer L2 bytes a stage (B's third atom dropped, D wrong) took 2.5% off it (v28 call19).
Entries: #12 and M = N = 5120 (no 33rd column) on the heuristic's tile and with each FIELD=VALUE+... of argv added to
it (e.g. `share_a=1`, `share_a=1+group_m=8`), each checked against float64, then timed round-robin with CUDA events
(tile_probe.round_robin) beside torch.matmul on the same inputs, then (`--sustain S`) each back to back for S seconds,
forward then reversed, with nvidia-smi sampling the SM clock and board power (v12's clock_probe.sampled).

`--patch NAME,...` (call 13) adds the heuristic's kernel with gett.cuh patched (checked against float64 like the
others): `bfirst`, the loader issuing B's boxes (the multicast half, which the peer CTA waits for too) before A's;
`wgrel` (call 14), each computing warpgroup releasing a stage into each CTA of the cluster with one arrival (its first
thread's, after the warpgroup-wide wgmma wait; the chunked epilogue's release after a barrier of the warpgroup) instead of
one from each warp: 4 arrivals a stage on each empty barrier, not 16.

    PYTHONPATH=. python3 tccg/results/v29_h100/share_probe.py share_a=1 [--sustain 3] [--patch bfirst]
"""
from __future__ import annotations

import dataclasses
import pathlib
import statistics
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve()
K = 5136


def main(args: list[str]) -> None:
    import cupy
    import torch

    sys.path.insert(0, str(HERE.parents[1] / "v28_h100"))
    sys.path.insert(0, str(HERE.parents[1] / "v12_h100"))
    from orient_probe import problem

    from gettpy.plan.schedule import make_schedule
    from gettpy.plan.tiles import kernel_spec
    from tccg.tile_probe import round_robin, tile_run

    sustain = float(args[args.index("--sustain") + 1]) if "--sustain" in args else 0.0
    if sustain:
        del args[args.index("--sustain"):args.index("--sustain") + 2]
    patches = args[args.index("--patch") + 1].split(",") if "--patch" in args else []
    if patches:
        del args[args.index("--patch"):args.index("--patch") + 2]
    rng = np.random.default_rng(12)
    a12 = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, (5136, K)).astype(np.float16)), order="F")
    b = cupy.asarray(np.asfortranarray(rng.uniform(-1, 1, (K, 5120)).astype(np.float16)), order="F")
    runs = []
    for m in (5136, 5120):
        am = a12 if m == 5136 else cupy.asfortranarray(a12[:m])
        ref = am.astype(cupy.float64) @ b.astype(cupy.float64)
        sched = make_schedule(problem("F", m))
        assert sched.pack_a is None and sched.pack_b is None and sched.stage_d is None, sched
        plan = sched.core
        ka, kb = (b, am) if plan.part.swapped else (am, b)
        d = cupy.empty((m, 5120), dtype=cupy.float16, order="F")
        heur = kernel_spec(plan, False)
        tag = "#12" if m == 5136 else "M 5120"
        print(f"{tag}: M {plan.M} N {plan.N} A k-major {heur.a.kmajor} B k-major {heur.b.kmajor}; {heur.tile}",
              flush=True)
        kinds = {f.name: f.type for f in dataclasses.fields(heur.tile)}
        entries = []  # (label, spec, launch): the heuristic's tile with each argv's fields, then each patch
        for label in ["H"] + args:
            fields = dict(kv.split("=") for kv in label.split("+")) if label != "H" else {}
            tile = dataclasses.replace(heur.tile, **{k: bool(int(v)) if kinds[k] in (bool, "bool") else int(v)
                                                     for k, v in fields.items()})
            entries.append((label, *tile_run(plan, tile, ka, kb, d)))
        entries += [(f"H {name}", *patched(name, heur, ka, kb, d)) for name in patches]
        for label, spec, run in entries:  # (each checked against float64, D poisoned first)
            d.fill(cupy.nan)
            run()
            err = float(cupy.abs(d.astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
            print(f"  {label}: grid {spec.grid} A box {spec.tma_geometries[0].box} err {err:.1e}", flush=True)
            assert err < 1e-2, (label, err)
            runs.append((f"{tag} {label}", run, [], m))
        ta, tb = torch.as_tensor(am, device="cuda"), torch.as_tensor(b, device="cuda")
        out = torch.empty((m, 5120), dtype=torch.float16, device="cuda")
        torch.matmul(ta, tb, out=out)
        terr = float(cupy.abs(cupy.asarray(out).astype(cupy.float64) - ref).max() / cupy.abs(ref).max())
        print(f"  torch.matmul (row-major result): err {terr:.1e}", flush=True)
        assert terr < 1e-2
        runs.append((f"{tag} torch", lambda ta=ta, tb=tb, out=out: torch.matmul(ta, tb, out=out), [], m))
    round_robin([(run, times) for _, run, times, _ in runs], 5)
    torch_ms = {m: statistics.median(t) for label, _, t, m in runs if label.endswith("torch")}
    for label, _, times, m in runs:
        ms = statistics.median(times)
        print(f"{label:36s} {ms:8.4f} ms  {2 * m * 5120 * K / ms / 1e9:6.1f} TFLOP/s  {ms / torch_ms[m]:6.3f}x torch",
              flush=True)
    if sustain:
        from clock_probe import sampled

        print(f"sustained, {sustain:.0f} s each, forward then reversed:")
        for label, run, _, m in runs + runs[::-1]:
            ms, clk, pw, ns = sampled(run, sustain)
            print(f"{label:36s} {ms:8.4f} ms  {2 * m * 5120 * K / ms / 1e9:6.1f} TFLOP/s  SM {clk:5.0f} MHz  "
                  f"{pw:4.0f} W  {pw * ms:6.1f} mJ a call ({ns})", flush=True)


# (bfirst: the loader's A box after B's, on the unshared cluster path)
A_THEN_B = """                    LA::template tma<TR, AS, AR>(stA(s), tmA, &bars[s], m0, k0, bz);
                    if constexpr (CLUSTER > 1)  // (B: this CTA's half, into both; the other half comes from the peer)
                      LB::template tma_half<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, crank, tmBh);
                    else
                      LB::template tma<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, tmBh);
"""
B_THEN_A = """                    if constexpr (CLUSTER > 1)
                      LB::template tma_half<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, crank, tmBh);
                    else
                      LB::template tma<TR, BS, BR, HALF_ATOM>(stB(s), tmB, &bars[s], n0, k0, bz, tmBh);
                    LA::template tma<TR, AS, AR>(stA(s), tmA, &bars[s], m0, k0, bz);
"""

# (stagN, v30: the odd clusters spin N x 1,355 cycles, N k-tiles, before their first tile, so that their tile boundaries
#  and D's write bursts fall N k-tiles after the even clusters'; v23's `oddlate` spun half a tile and lost the L2's
#  sharing of A and B between the CTAs out of step)
RUN_START = "    const int tid = threadIdx.x;\n    if constexpr (WG) smem +="


def _stagger(n: int) -> list[tuple[str, str]]:
    spin = (f"    if ((blockIdx.x >> 1) & 1) {{ const long long t0 = clock64(); while (clock64() - t0 < {1355 * n}LL) {{}} }}\n")
    return [(RUN_START, RUN_START.replace("    if constexpr (WG)", spin + "    if constexpr (WG)"))]


PATCHES = {
    "stag2": _stagger(2),
    "stag4": _stagger(4),
    "stag8": _stagger(8),
    "bfirst": [(A_THEN_B, B_THEN_A)],
    "wgrel": [
        ("mbar_init(&bars[STAGES + s], unsigned(CONSUMER_WARPS * CLUSTER));",
         "mbar_init(&bars[STAGES + s], unsigned(CONSUMER_WARPS / 4 * CLUSTER));"),
        ("  __device__ __forceinline__ static void release_stage(unsigned long long* empty) {\n"
         "    if ((threadIdx.x & 31) == 0) {",
         "  __device__ __forceinline__ static void release_stage(unsigned long long* empty) {\n"
         "    if ((threadIdx.x & 127) == 0) {"),
        ("    if constexpr (TMA_STORE) __syncwarp();  // (lane 0's wait: the TMA unit has read the region)\n"
         "    release_stage(empty);",
         "    if constexpr (TMA_STORE) __syncwarp();  // (lane 0's wait: the TMA unit has read the region)\n"
         "    named_sync(6 + compute_wg(), 128);\n"
         "    release_stage(empty);"),
    ],
}


def patched(name: str, heur, ka, kb, d):
    """(spec, launch) of the heuristic's kernel with gett.cuh patched as `name` says, loaded under a spec object of its
    own with the kernel caches cleared before and after (gettpy.backends.gpu.launch keeps each spec object's kernel)."""
    import cupy

    import gettpy.kernels.render as render_mod
    from gettpy.backends.gpu import launch
    from gettpy.kernels import build

    original = render_mod.header_text
    text = original()
    for old, new in PATCHES[name]:
        assert text.count(old) == 1, (name, old)
        text = text.replace(old, new)
    spec = dataclasses.replace(heur)
    ptrs = (ka.data.ptr, kb.data.ptr, 0, d.data.ptr)
    build._FUNCS.clear()
    render_mod.header_text = lambda: text
    try:
        launch(spec, *ptrs, 1.0, 0.0)
        cupy.cuda.Device().synchronize()
    finally:
        render_mod.header_text = original
        build._FUNCS.clear()
    return spec, lambda: launch(spec, *ptrs, 1.0, 0.0)


if __name__ == "__main__":
    main(sys.argv[1:])
