#!/usr/bin/env python3
"""The evaluator's checks, pass by pass, against a copy timed beside them.

An all-protocol evaluation of an elementwise problem spends most of its device
time in the checks (docs/SCALING.md): the input fills, the poison, the hashes,
the float64 copy, the comparisons, the references and the oracle. This times
each of those passes alone on one problem's tensors (libkbv.so,
kbv_bench_services: the backend's own services, the calls the evaluator
makes), one call at a time on the backend's clock, and prints each pass's
bandwidth (the bytes it must move, over its median time) beside that of a
device-to-device copy of the input measured in the same process. A pass at
about 1.0x of the copy runs at the hardware's pace; one well below it is
where an evaluation's time goes.

    bench/services/services.py [--lib build/libkbv.so] [--problem L1/19]
                               [--device 0|cpu] [--small] [--reps 10] [--warmup 2]
                               [--out services.tsv]

Prints one line per pass (median ms, IQR / median as the noise, GB/s, the
ratio to the copy's GB/s) and writes them as TSV (--out). The bytes are what a
pass must read and write at least (a copy: the input read and written once; a
fill: written once; the strict comparison: three float32 tensors and the
float64 oracle read once, with the budget baseline in its pass too, which is
fp32-strict's buffer here, as a strict draw of an elementwise problem shares
them); the references' are the problem's own minimum, and the oracle reads a
float32 input in 4 bytes where the float64 backend widens it as it reads.
"""
import argparse
import ctypes
import statistics
import sys


def quartiles(xs):
    xs = sorted(xs)
    if len(xs) < 2:
        return xs[0], xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], statistics.median(xs), q[2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib", default="build/libkbv.so", help="libkbv.so (ctypes)")
    ap.add_argument("--problem", default="L1/19",
                    help="an elementwise problem: one float input, no parameters, one output "
                         "of the input's size (default L1/19, ReLU)")
    ap.add_argument("--device", default="0", help="a CUDA ordinal, or cpu")
    ap.add_argument("--small", action="store_true", help="CI shapes instead of the catalog's")
    ap.add_argument("--reps", type=int, default=10, help="timed calls per pass")
    ap.add_argument("--warmup", type=int, default=2, help="untimed calls before them")
    ap.add_argument("--out", default="bench_services.tsv")
    a = ap.parse_args()
    if a.reps < 1 or a.warmup < 0:
        ap.error("--reps must be >= 1 and --warmup >= 0")
    device = -1 if a.device == "cpu" else int(a.device)

    lib = ctypes.CDLL(a.lib)
    lib.kbv_bench_service_count.restype = ctypes.c_int
    lib.kbv_bench_service_name.restype = ctypes.c_char_p
    lib.kbv_bench_service_name.argtypes = [ctypes.c_int]
    lib.kbv_bench_services.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_int, ctypes.POINTER(ctypes.c_double),
                                       ctypes.POINTER(ctypes.c_double),
                                       ctypes.POINTER(ctypes.c_longlong)]
    n = lib.kbv_bench_service_count()
    names = [lib.kbv_bench_service_name(i).decode() for i in range(n)]
    ms = (ctypes.c_double * (n * a.reps))()
    nbytes = (ctypes.c_double * n)()
    elements = ctypes.c_longlong(0)
    if lib.kbv_bench_services(a.problem.encode(), int(a.small), device, a.warmup, a.reps, ms,
                              nbytes, ctypes.byref(elements)) != 0:
        sys.exit(f"services bench: {a.problem} failed (the error is above)")

    rows = []
    for i, name in enumerate(names):
        q1, med, q3 = quartiles(ms[i * a.reps:(i + 1) * a.reps])
        gbps = nbytes[i] / (med * 1e-3) / 1e9 if med > 0 else float("nan")
        rows.append((name, med, (q3 - q1) / med if med > 0 else float("nan"), nbytes[i], gbps))
    copy_gbps = rows[names.index("copy")][4]

    where = "cpu" if device < 0 else f"cuda:{device}"
    print(f"# {a.problem} ({'small' if a.small else 'full'}), {elements.value} elements, "
          f"{where}, {a.reps} timed calls per pass after {a.warmup} warm-ups")
    print(f"{'pass':<16}{'median ms':>12}{'noise':>8}{'GB moved':>10}{'GB/s':>10}{'vs copy':>9}")
    with open(a.out, "w") as out:
        out.write("problem\tsize\tdevice\tpass\tmedian_ms\tiqr_over_median\tbytes\tgbps\tvs_copy\n")
        for name, med, noise, b, gbps in rows:
            ratio = gbps / copy_gbps if copy_gbps > 0 else float("nan")
            print(f"{name:<16}{med:>12.4g}{noise:>7.1%} {b / 1e9:>9.4g}{gbps:>10.1f}{ratio:>8.2f}x")
            out.write(f"{a.problem}\t{'small' if a.small else 'full'}\t{where}\t{name}\t{med:.6g}"
                      f"\t{noise:.4g}\t{b:.6g}\t{gbps:.6g}\t{ratio:.4g}\n")
    checks = [r for r in rows if r[0] != "copy"]
    slowest = min(checks, key=lambda r: r[4])
    print(f"summary: {len(checks)} passes, copy {copy_gbps:.1f} GB/s; slowest {slowest[0]} at "
          f"{slowest[4] / copy_gbps:.2f}x of the copy's rate")


if __name__ == "__main__":
    main()
