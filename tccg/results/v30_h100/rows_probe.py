"""v30 probe (H100): #2 f16 on rows_kernel.cu (whole rows of the big input streamed by 1-d bulk copies, units swept
in A's memory order, mma.sync against a resident B) in several unit shapes and depths, each checked against float64,
then timed as `python -m tccg` times #2 (three input sets, CUDA-graph batches, median), beside gettpy's heuristic
and torch.einsum in the same process.

    PYTHONPATH=. python3 tccg/results/v30_h100/rows_probe.py
"""
import pathlib
import statistics

import cupy

from tccg import peers, timing
from tccg.suite import SUITE

SRC = (pathlib.Path(__file__).parent / "rows_kernel.cu").read_text()
VARIANTS = [  # (UA, UC, NW, S, KSPLIT)
    (8, 8, 8, 4, 2), (8, 8, 16, 4, 4), (8, 8, 12, 4, 3), (8, 8, 16, 3, 4), (8, 8, 8, 2, 2), (8, 16, 16, 2, 2),
    (8, 16, 32, 2, 4), (8, 8, 8, 5, 2),
]


def smem_of(ua, uc, nw, s, ks):
    """rows_kernel.cu's SMEM."""
    up = ua + 1
    x = uc * up
    while x % 16 not in (4, 12):
        x += 1
    return s * ua * uc * 624 + 24 * 624 + ks * 24 * x * 4 + s * 8


def main():
    case = SUITE[1]
    subs = case.einsum_subscripts()
    sa, sb, sc = case.shapes()
    sms = cupy.cuda.Device().attributes["MultiProcessorCount"]

    def rnd(shape):
        return cupy.asarray(cupy.random.uniform(-1, 1, size=shape, dtype=cupy.float32).astype(cupy.float16), order="F")

    sets = [(rnd(sa), rnd(sb)) for _ in range(3)]
    outs = [cupy.empty(sc, dtype=cupy.float16, order="F") for _ in range(3)]
    nbytes = sets[0][0].nbytes + sets[0][1].nbytes + outs[0].nbytes
    ref = cupy.einsum(subs, sets[0][0].astype(cupy.float64), sets[0][1].astype(cupy.float64))
    scale = float(cupy.abs(ref).max())

    def err_of(d):
        return float(cupy.abs(d.astype(cupy.float64) - ref).max()) / scale

    def t(name, calls, timer=timing.time_cupy):
        ms = [timer(calls)[0] for _ in range(3)]
        print(f"{name:40s} {statistics.median(ms):.5f} ms  ({' '.join(f'{x:.5f}' for x in ms)})  "
              f"{nbytes / statistics.median(ms) / 1e6:.0f} GB/s", flush=True)
        return statistics.median(ms)

    g = [peers.gettpy_call(subs, a, b, c, "f16", "none") for (a, b), c in zip(sets, outs)]
    outs[0].fill(float("nan"))
    g[0]()
    print(f"gettpy heuristic rel err {err_of(outs[0]):.2e}")
    tc = [peers.torch_call(subs, a, b, "f16", "none") for a, b in sets]
    res = {"gettpy": t("gettpy heuristic", g), "torch": t("torch.einsum", tc, timing.time_torch)}
    for ua, uc, nw, s, ks in VARIANTS:
        name = f"rows UA={ua} UC={uc} NW={nw} S={s} KS={ks}"
        try:
            mod = cupy.RawModule(code=SRC, options=("-std=c++17", f"-DUA={ua}", f"-DUC={uc}", f"-DNW={nw}", f"-DS={s}",
                                              f"-DKSPLIT={ks}"))
            f = mod.get_function("rows2")
            smem = smem_of(ua, uc, nw, s, ks)
            f.max_dynamic_shared_size_bytes = smem
            units = -(-312 // ua) * -(-296 // uc)
            per_sm = min(2048 // (32 * nw), 233472 // (smem + 1024))  # (228 KB an SM, 1 KB reserved a CTA)
            grid = min(units, per_sm * sms)
            calls = [lambda a=a, b=b, c=c: f((grid,), (32 * nw,), (a, b, c), shared_mem=smem)
                     for (a, b), c in zip(sets, outs)]
            outs[0].fill(float("nan"))
            calls[0]()
            cupy.cuda.runtime.deviceSynchronize()
            e = err_of(outs[0])
            print(f"{name}: {units} units, {per_sm}/SM, grid {grid}, smem {smem}, rel err {e:.2e}")
            if not e < 1e-2:
                print("  WRONG, not timed")
                continue
            res[name] = t(name, calls)
        except Exception as ex:  # noqa: BLE001
            print(f"{name}: failed: {type(ex).__name__}: {ex}")
    res["gettpy again"] = t("gettpy heuristic again", g)
    res["torch again"] = t("torch.einsum again", tc, timing.time_torch)
    print("\nsummary (ms, ratio to torch's first time):")
    for k, v in res.items():
        print(f"  {k:40s} {v:.5f}  {v / res['torch']:.3f}")


if __name__ == "__main__":
    main()
