#!/usr/bin/env python3
"""kbv's baselines beside PyTorch eager, same GPU, same inputs, same precision mode.

For each problem: the PyTorch module comes from `kbv show KEY --torch` (the same
rendering models are shown); the inputs are drawn once by kbv on the GPU
(libkbv.so, kbv_bench_fill_inputs) into torch tensors that both sides use; the
kbv baseline runs through kbv_bench_time_baseline; PyTorch runs with
allow_tf32 set as the mode says. Mode bf16 (the paper's BF16 appendix) runs
PyTorch on bfloat16 copies of the float inputs and of the module
(`.to(torch.bfloat16)`; integers and Python numbers as they are), and kbv's
bf16 baseline on its own bfloat16 copies of the same float32 draw (PyTorch's
peak there also holds the float32 buffers, so its mem ratio reads low). Each side is timed per call with CUDA events
(3 warm-ups), in alternating rounds, so drift hits both. The ratio is of
medians; the noise beside each figure is the interquartile range / median.

Writes a TSV (--out) and prints a table; the last lines are a summary.

--gpu-time also measures each side's GPU time: the device time of every kernel,
copy and fill it runs per call (torch.profiler's CUPTI trace, which sees libkbv's
launches too), beside the wall time of a call that the events measure. Where
PyTorch eager is launch-bound (small batches, level 3's many small layers), its
GPU idles between kernels while the CPU dispatches the next: its wall time then
exceeds its GPU time, and the wall ratio is what a candidate is compared with.

Level 2 (--problems L2/1-100): the module stays in training mode, as kbv's
semantics are; where a problem's dropout is active (L2/66, p = 0.2) PyTorch
runs its dropout kernel and kbv the identity (docs/METHODOLOGY.md), so that
problem's time and memory ratios compare different work. --profile lists
each side's kernels: linear layers should show the same cuBLASLt kernel
(the bias epilogue) on both sides.
"""
import argparse
import copy
import ctypes
import math
import re
import statistics
import subprocess
import sys
import time

import torch

MODES = {
    # mode: (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    "fp32-strict": (False, False),
    "fp32": (False, True),
    "tf32": (True, True),
    "bf16": (False, True),   # PyTorch's defaults; the tensors and the module in bfloat16
}


LEVEL_SIZES = {1: 100, 2: 100, 3: 50}


def parse_problems(spec):
    keys = []
    for part in spec.split(","):
        whole = re.fullmatch(r"L(\d+)", part.strip())   # a whole level, as kbv's selectors
        if whole and int(whole.group(1)) in LEVEL_SIZES:
            part = f"L{whole.group(1)}/1-{LEVEL_SIZES[int(whole.group(1))]}"
        m = re.fullmatch(r"L(\d+)/(\d+)(?:-(\d+))?", part.strip())
        if not m:
            sys.exit(f"bad problem spec '{part}': use L1, L1/1-32 or L1/19,L1/23")
        lvl, lo, hi = int(m.group(1)), int(m.group(2)), int(m.group(3) or m.group(2))
        keys += [f"L{lvl}/{i}" for i in range(lo, hi + 1)]
    return keys


def quartiles(xs):
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def time_torch(model, args, warmup, reps):
    for _ in range(warmup):
        model(*args)
    torch.cuda.synchronize()
    times = []
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(reps):
        start.record()
        model(*args)
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbv", default="build/kbv", help="the kbv executable")
    ap.add_argument("--lib", default="build/libkbv.so", help="libkbv.so (ctypes)")
    ap.add_argument("--problems", default="L1/1-32")
    ap.add_argument("--modes", default="fp32,tf32")
    ap.add_argument("--reps", type=int, default=20, help="timed calls per round and side")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--small", action="store_true", help="CI shapes instead of the catalog's")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--out", default="bench_baselines.tsv")
    ap.add_argument("--profile", action="store_true",
                    help="also list the GPU kernels each side runs per call (torch.profiler)")
    ap.add_argument("--gpu-time", action="store_true",
                    help="also measure each side's GPU time per call (kernels, copies, fills), "
                         "beside the wall time")
    a = ap.parse_args()

    lib = ctypes.CDLL(a.lib)
    lib.kbv_bench_fill_inputs.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                          ctypes.c_ulonglong, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
    lib.kbv_bench_time_baseline.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                            ctypes.POINTER(ctypes.c_void_p), ctypes.c_int, ctypes.c_int,
                                            ctypes.c_int, ctypes.POINTER(ctypes.c_double),
                                            ctypes.POINTER(ctypes.c_double)]
    modes = a.modes.split(",")
    rows = []
    out = open(a.out, "w")
    out.write("problem\tmode\tkbv_ms\tkbv_iqr_pct\ttorch_ms\ttorch_iqr_pct\tratio\tkbv_peak_mb\ttorch_peak_mb\tmem_ratio"
              + ("\tkbv_gpu_ms\ttorch_gpu_ms\tgpu_ratio" if a.gpu_time else "") + "\n")
    failed = []
    for key in parse_problems(a.problems):
        try:
            rows += bench_problem(a, lib, key, modes, out)
        except Exception as e:  # one problem's failure must not cost the others' rows
            print(f"{key}: FAILED: {e}", file=sys.stderr, flush=True)
            failed.append(key)
            torch.cuda.empty_cache()
    out.close()
    summarise(rows, modes, failed)


def bench_problem(a, lib, key, modes, out):
    """Times one problem's baseline beside PyTorch in every mode; returns its rows."""
    rows = []
    show = [a.kbv, "show", key, "--torch"] + (["--small"] if a.small else [])
    src = subprocess.run(show, check=True, capture_output=True, text=True).stdout
    ns = {}
    exec(compile(src, f"<{key}>", "exec"), ns)
    with torch.device("meta"):
        meta_inputs = ns["get_inputs"]()
    # Device buffers kbv fills; Python numbers stay numbers for PyTorch
    # (kbv draws them as their fixed value into a 1-element buffer).
    bufs, torch_args = [], []
    for x in meta_inputs:
        if isinstance(x, torch.Tensor):
            t = torch.empty(x.shape, dtype=x.dtype, device="cuda")
            bufs.append(t)
            torch_args.append(t)
        else:
            bufs.append(torch.empty((), dtype=torch.float32, device="cuda"))
            torch_args.append(x)
    ptrs = (ctypes.c_void_p * len(bufs))(*[b.data_ptr() for b in bufs])
    if lib.kbv_bench_fill_inputs(key.encode(), int(a.small), 0, a.seed, ptrs, len(bufs)) != 0:
        raise RuntimeError("kbv_bench_fill_inputs failed")
    torch.cuda.synchronize()
    model32 = ns["Model"](*ns["get_init_inputs"]()).cuda()
    args32 = torch_args
    for mode in modes:
        mm, cd = MODES[mode]
        torch.backends.cuda.matmul.allow_tf32 = mm
        torch.backends.cudnn.allow_tf32 = cd
        if mode == "bf16":
            model = copy.deepcopy(model32).to(torch.bfloat16)
            torch_args = [x.to(torch.bfloat16) if isinstance(x, torch.Tensor) and x.is_floating_point()
                          else x for x in args32]
        else:
            model, torch_args = model32, args32
        kbv_t, torch_t = [], []
        kbv_peak = ctypes.c_double(0)
        ms = (ctypes.c_double * a.reps)()
        with torch.no_grad():
            for _ in range(a.rounds):
                if lib.kbv_bench_time_baseline(key.encode(), int(a.small), mode.encode(), ptrs, len(bufs),
                                               3, a.reps, ms, ctypes.byref(kbv_peak)) != 0:
                    raise RuntimeError(f"{mode}: kbv_bench_time_baseline failed")
                kbv_t += list(ms)
                torch_t += time_torch(model, torch_args, 3, a.reps)
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
            y = model(*torch_args)
            torch.cuda.synchronize()
            torch_peak = torch.cuda.max_memory_allocated()
            del y
        if a.profile:
            profile_kernels(lib, key, mode, a, ptrs, bufs, model, torch_args)
        kq1, kmed, kq3 = quartiles(kbv_t)
        tq1, tmed, tq3 = quartiles(torch_t)
        ratio = kmed / tmed
        row = (key, mode, kmed, 100 * (kq3 - kq1) / kmed, tmed, 100 * (tq3 - tq1) / tmed, ratio,
               kbv_peak.value / 2**20, torch_peak / 2**20, kbv_peak.value / max(torch_peak, 1))
        gpu = ""
        if a.gpu_time:
            kg, tg = gpu_times(lib, key, mode, a, ptrs, bufs, model, torch_args)
            row += (kg, tg, kg / tg if tg > 0 else math.nan)
            gpu = f"  gpu kbv {kg:9.4f} torch {tg:9.4f} ratio {row[12]:5.3f}"
        rows.append(row)
        out.write("\t".join(str(round(v, 5)) if isinstance(v, float) else v for v in row) + "\n")
        out.flush()
        print(f"{key:7s} {mode:11s} kbv {kmed:9.4f} ms ±{row[3]:4.1f}%  torch {tmed:9.4f} ms ±{row[5]:4.1f}%  "
              f"ratio {ratio:5.3f}  mem {row[9]:5.3f}{gpu}", flush=True)
    del model, model32, bufs, torch_args, args32
    torch.cuda.empty_cache()
    return rows


def gpu_times(lib, key, mode, a, ptrs, bufs, model, torch_args, calls=5):
    """Each side's GPU time per call (ms): the summed device time of the
    kernels, copies and fills the profiler's trace holds. kbv's bench call
    also draws the parameters and runs once untimed before its timed calls,
    so its side is traced at `calls` and at 2 * `calls` timed calls and the
    difference is taken: what is left is `calls` calls."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    def traced_us(run):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            run()
            torch.cuda.synchronize()
        return sum(e.time_range.elapsed_us() for e in prof.events() if e.device_type == DeviceType.CUDA)

    def kbv_run(n):
        ms = (ctypes.c_double * n)()
        peak = ctypes.c_double(0)
        if lib.kbv_bench_time_baseline(key.encode(), int(a.small), mode.encode(), ptrs, len(bufs),
                                       0, n, ms, ctypes.byref(peak)) != 0:
            raise RuntimeError(f"{mode}: kbv_bench_time_baseline failed")

    def torch_run():
        for _ in range(calls):
            model(*torch_args)

    with torch.no_grad():
        model(*torch_args)
        torch.cuda.synchronize()
        kbv_us = traced_us(lambda: kbv_run(2 * calls)) - traced_us(lambda: kbv_run(calls))
        torch_us = traced_us(torch_run)
    as_ms = lambda us: us / calls / 1000 if us > 0 else math.nan  # noqa: E731
    return as_ms(kbv_us), as_ms(torch_us)


def profile_kernels(lib, key, mode, a, ptrs, bufs, model, torch_args, calls=3):
    """Prints the kernels each side runs, with their mean device time per call:
    the profiler's CUPTI trace sees libkbv's launches too (same process)."""
    from torch.profiler import ProfilerActivity, profile
    ms = (ctypes.c_double * calls)()
    peak = ctypes.c_double(0)
    sides = {}
    with torch.no_grad():
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            if lib.kbv_bench_time_baseline(key.encode(), int(a.small), mode.encode(), ptrs, len(bufs),
                                           0, calls, ms, ctypes.byref(peak)) != 0:
                raise RuntimeError(f"{mode}: kbv_bench_time_baseline failed")
            torch.cuda.synchronize()
        sides["kbv"] = prof
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(calls):
                model(*torch_args)
            torch.cuda.synchronize()
        sides["torch"] = prof
    for side, prof in sides.items():
        for ev in prof.key_averages():
            dev_us = getattr(ev, "device_time_total", None) or getattr(ev, "cuda_time_total", 0)
            if dev_us <= 0 or ev.key.startswith("cuda") or ev.key.startswith("Memcpy"):
                continue
            print(f"  {key} {mode} {side:5s} {dev_us / calls / 1000:9.4f} ms/call x{ev.count / calls:g}  "
                  f"{ev.key[:150]}", flush=True)


def summarise(rows, modes, failed):
    print("\nkbv baseline / PyTorch eager (median time ratio; <= 1.05 is the goal)")
    print(f"{'problem':8s}" + "".join(f"{m:>14s}" for m in modes) + f"{'mem':>8s}")
    by = {}
    for r in rows:
        by.setdefault(r[0], {})[r[1]] = r
    for key, d in by.items():
        cells = "".join(f"{d[m][6]:>10.3f}{'  ' if d[m][6] <= 1.05 else ' !'}  " for m in modes if m in d)
        print(f"{key:8s}{cells}{next(iter(d.values()))[9]:>8.3f}")
    for m in modes:
        rs = [r[6] for r in rows if r[1] == m]
        if rs:
            gm = math.exp(sum(math.log(x) for x in rs) / len(rs))
            print(f"{m}: {sum(x <= 1.05 for x in rs)}/{len(rs)} ratios <= 1.05, geomean {gm:.3f}, "
                  f"worst {max(rs):.3f} ({[r[0] for r in rows if r[1] == m and r[6] == max(rs)][0]})")
        gs = [r[12] for r in rows if r[1] == m and len(r) > 12 and r[12] == r[12]]
        if gs:
            gm = math.exp(sum(math.log(x) for x in gs) / len(gs))
            print(f"{m} GPU time: {sum(x <= 1.05 for x in gs)}/{len(gs)} ratios <= 1.05, geomean {gm:.3f}, "
                  f"worst {max(gs):.3f}")
    if failed:
        print(f"failed: {len(failed)} problem(s): {' '.join(failed)}")


if __name__ == "__main__":
    main()
