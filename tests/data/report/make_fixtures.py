#!/usr/bin/env python3
"""Writes the results fixtures of the report tests (schema 1 records, as
`kbv eval` writes them; see src/record/results.c):

  small.jsonl      two models, hand-checked in tests/unit/test_report.c:
                   best-of-k, a compile error, a crash, a timeout, wrong output
                   on D2/D3 and on a timed trial, audit flags, a degenerate
                   problem, and a model name that needs escaping
  compare_a.jsonl  one model, two runs, for --compare: no change within the
  compare_b.jsonl  noise, faster, slower, fixed, broken, noise unknown, IQR
  example.jsonl    three models on 36 problems of levels 1-3 with k = 2, drawn
                   from a fixed seed: the page the e2e test screenshots
  compare_b_rebased.jsonl, compare_noise_N.jsonl
                   B with its baselines measured anew; three repeats of A's code
  legacy.jsonl     two records as the first kbv wrote them (no gate, no
                   sandbox) and two of schema 2, as a newer kbv would

Run from anywhere: python3 tests/data/report/make_fixtures.py
The outputs are committed; rerunning gives the same bytes."""
import json
import math
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
DISTS = ["base#%d" % i for i in range(5)] + ["D%d" % i for i in range(1, 9)]
PROTOS = ("standard", "verified", "strict")


def draw(dist, std=True, strict=True, fail=0, first=None, poison=0):
    return {"dist": dist, "std_pass": std, "strict_pass": strict, "allclose_fail": fail,
            "max_abs_diff": 0.5 if fail else 1e-6, "rel_l2": 0.1 if not strict else 2e-7,
            "budget_rel_l2": 8e-6, "max_err": 0.4 if not strict else 3e-6,
            "budget_max_err": 5e-5, "unjudged": 0, "poison_left": poison, "first_bad": first}


def proto(correct=True, reason=None, passed=5, total=5, tk=None, spread=None, tb=None,
          mk=None, mb=None, sol=None, flags=(), strict=False):
    p = {"correct": correct, "reason": reason, "draws_passed": passed, "draws_total": total,
         "draws_skipped": 0, "t_kernel_ms": tk,
         ("t_kernel_iqr_ms" if strict else "t_kernel_sd_ms"): spread, "t_baseline_ms": tb,
         "speedup": (tb / tk) if (tk and tb) else None, "mem_kernel_bytes": mk,
         "mem_baseline_bytes": mb, "sol_fraction": sol, "flags": list(flags)}
    if strict:
        p["t_fp32_strict_ms"] = tb * 1.4 if tb else None
    return p


def record(model, level, pid, sample, protos, draws=(), compile_ok=True, log="", fault=None,
           seed=20240611, device="NVIDIA H200", size="full"):
    return {"schema": 1, "model": model, "problem": "L%d/%d" % (level, pid), "level": level,
            "problem_id": pid, "sample": sample,
            "file": "runs/%s/level_%d_problem_%d_sample_%d.cu" % (model, level, pid, sample),
            "source_sha256": "%064d" % (level * 100000 + pid * 10 + sample),
            "device": device, "size": size, "seed": seed,
            "compile": {"ok": compile_ok, "cached": False, "seconds": 2.5, "log": log},
            "gate": "text",
            "protocols": dict(zip(PROTOS, protos)), "draws": list(draws), "fault": fault,
            "output": None, "sandbox": "user+mount+pid+net+ipc namespaces, seccomp"}


def first_format(rec):
    """A record as the first kbv wrote it (commit 72b3239, src/report/results.c): no
    verified gate, no sandbox or output, no phases; draws without oracle_nonfinite."""
    rec = json.loads(json.dumps(rec))
    for key in ("gate", "output", "sandbox", "phase_s", "configs_dropped"):
        rec.pop(key, None)
    for p in rec["protocols"].values():
        for key in ("advisory", "evaluated", "sm_mhz", "throttled"):
            p.pop(key, None)
    for d in rec["draws"]:
        d.pop("oracle_nonfinite", None)
    return rec


def legacy():
    """Records of the first kbv, and two a newer kbv wrote (schema 2)."""
    M = "old-kbv"
    old = [first_format(record(M, 1, 1, 0, correct3(0.5, 1.0), all_pass())),
           first_format(record(M, 1, 2, 0, failed3("compile error: x.cu(1): error"),
                               compile_ok=False, log="x.cu(1): error"))]
    newer = []
    for pid in (3, 4):
        r = record(M, 1, pid, 0, correct3(0.5, 1.0), all_pass())
        r["schema"] = 2
        r["bf16"] = {"baseline_ms": 0.4}   # a field this kbv does not know
        newer.append(r)
    return old, newer


def all_pass(n=13):
    return [draw(d) for d in DISTS[:n]]


def correct3(tk, tb, spread=0.01, mk=100, mb=200, sol=0.1, strict_tk=None, strict_tb=None,
             iqr=0.02, ver_tb=None, flags=()):
    """One sample correct under all three protocols."""
    return [proto(True, None, 5, 5, tk, spread, tb, mk, mb, sol),
            proto(True, None, 9, 9, tk, spread, ver_tb if ver_tb else tb, mk, mb, sol),
            proto(True, None, 13, 13, strict_tk if strict_tk else tk, iqr,
                  strict_tb if strict_tb else tb, mk, mb, sol, flags, strict=True)]


def failed3(reason, passed=(0, 0, 0)):
    return [proto(False, reason, passed[0], 5), proto(False, reason, passed[1], 9),
            proto(False, reason, passed[2], 13, strict=True)]


def small():
    A, B = "alpha", "beta<b>"
    recs = []
    # alpha L1/1: two correct samples; sample 1 is faster (best of k), heavier in memory
    recs.append(record(A, 1, 1, 0, correct3(0.5, 1.0, ver_tb=0.5, strict_tk=0.6, strict_tb=0.6,
                                            mk=100, mb=200, sol=0.1), all_pass()))
    recs.append(record(A, 1, 1, 1, correct3(0.25, 1.0, ver_tb=0.5, strict_tk=0.3, strict_tb=0.6,
                                            mk=400, mb=200, sol=0.2), all_pass()))
    # alpha L1/2: does not compile; the log has markup that must be escaped
    log = 'kernel.cu(3): error: expected a ";" near <script>alert(1)</script> & more\n'
    recs.append(record(A, 1, 2, 0, failed3('compile error: kernel.cu(3): error: expected a ";"'),
                       compile_ok=False, log=log))
    # alpha L1/3: passes standard (0.5x), wrong on D3 under verified and strict
    d = all_pass(7) + [draw("D3", False, False, 10, [1, 2])]
    recs.append(record(A, 1, 3, 0, [
        proto(True, None, 5, 5, 2.0, 0.1, 1.0, 100, 100, 0.05),
        proto(False, "D3: 10 of 100 elements outside atol/rtol 1e-3 (max |diff| 0.5, first at "
              "[1,2])", 7, 9, 2.0, 0.1, 0.8, 100, 100, 0.05),
        proto(False, "D3: rel L2 error 1.0e-1 > budget 8.0e-6", 7, 13, strict=True)], d))
    # alpha L2/23: degenerate (excluded from every aggregate), 10x
    recs.append(record(A, 2, 23, 0, correct3(0.1, 1.0), all_pass()))
    # alpha L2/5: sample 0 crashes; sample 1 passes standard and verified, and is wrong
    # on a strict timed trial
    crash = "crash: killed by SIGSEGV during base#0"
    recs.append(record(A, 2, 5, 0, failed3(crash), [],
                       fault={"kind": "crash", "reason": "killed by SIGSEGV during base#0"}))
    recs.append(record(A, 2, 5, 1, [
        proto(True, None, 5, 5, 1.0, 0.02, 2.0, 50, 100, 0.3),
        proto(True, None, 9, 9, 1.0, 0.02, 1.5, 50, 100, 0.3),
        proto(False, "timed trial 4: rel L2 error 2.0e-2 > budget 8.0e-6", 13, 13,
              strict=True)], all_pass()))
    # beta L1/1: correct, 1x standard, 0.5x verified and strict, half the memory
    recs.append(record(B, 1, 1, 0, correct3(1.0, 1.0, spread=0.05, ver_tb=0.5, strict_tk=1.2,
                                            strict_tb=0.6, iqr=0.1, mk=100, mb=200),
                       all_pass()))
    # beta L1/2: sample 0 times out during D1; sample 1 passes standard only (wrong on D2)
    recs.append(record(B, 1, 2, 0, failed3("timeout: no reply in 60 s during D1", (5, 5, 5)),
                       all_pass(5), fault={"kind": "timeout", "reason": "no reply in 60 s during D1"}))
    d = all_pass(6) + [draw("D2", False, False, 3, [0, 7])]
    recs.append(record(B, 1, 2, 1, [
        proto(True, None, 5, 5, 0.8, 0.02, 1.0, 100, 100, 0.2),
        proto(False, "D2: 3 of 100 elements outside atol/rtol 1e-3 (max |diff| 0.01, first at "
              "[0,7])", 6, 9),
        proto(False, "D2: max |error| 1.0e-2 > budget 5.0e-5", 6, 13, flags=["shape-specialised"],
              strict=True)], d))
    # beta L1/3: correct and very fast: review-speedup (advisory) under strict
    recs.append(record(B, 1, 3, 0, correct3(0.05, 1.0, spread=0.001, ver_tb=0.8, strict_tk=0.08,
                                            strict_tb=1.0, iqr=0.002, mk=100, mb=100,
                                            flags=["review-speedup"]), all_pass()))
    return recs


def compare_runs():
    M = "gamma"
    a, b = [], []

    def both(pid, ta, sa, tb_, sb, ia=0.02, ib=0.02, strict_a=None, strict_b=None):
        a.append(record(M, 1, pid, 0, correct3(ta, 1.0, spread=sa, strict_tk=strict_a, iqr=ia),
                        all_pass(), seed=1))
        b.append(record(M, 1, pid, 0, correct3(tb_, 1.0, spread=sb, strict_tk=strict_b, iqr=ib),
                        all_pass(), seed=2))

    both(1, 1.00, 0.01, 0.99, 0.01)            # within the noise: no change
    both(2, 1.00, 0.01, 0.80, 0.01)            # B faster
    a.append(record(M, 1, 3, 0, correct3(1.0, 1.0), all_pass(), seed=1))
    b.append(record(M, 1, 3, 0, failed3("D1: 5 of 100 elements outside atol/rtol 1e-3",
                                        (5, 5, 5)), all_pass(5), seed=2))   # broken
    a.append(record(M, 1, 4, 0, failed3("compile error: x.cu(1): error"), compile_ok=False,
                    log="x.cu(1): error", seed=1))
    b.append(record(M, 1, 4, 0, correct3(0.5, 1.0), all_pass(), seed=2))   # fixed
    both(5, 1.00, None, 0.50, 0.01)            # faster, noise unknown (A has no sd)
    a.append(record(M, 1, 6, 0, correct3(1.0, 1.0), all_pass(), seed=1))   # only in A
    # strict: IQR 0.2 each -> sigma 0.148, noise 0.42 > |1.0 - 0.7|: no change;
    # standard and verified: sd 0.01 -> B faster
    both(7, 1.00, 0.01, 0.70, 0.01, ia=0.2, ib=0.2, strict_a=1.0, strict_b=0.7)
    both(8, 1.00, 0.05, 1.30, 0.05)            # B slower
    return a, b


def compare_noise(runs=3):
    """Repeats of A's code (bench/repeatability.sh's run-N/results.jsonl): each time
    within 1% of A's from run to run, L1/8's within 30%."""
    out = []
    for r in range(runs):
        e = (-0.01, 0.0, 0.01)[r % 3]
        recs = []
        for pid in (1, 2, 3, 5, 6, 7, 8):
            f = 1 + (30 * e if pid == 8 else e)
            recs.append(record("gamma", 1, pid, 0, correct3(1.0 * f, 1.0, spread=0.01,
                                                            strict_tk=1.0 * f, iqr=0.02),
                               all_pass(), seed=10 + r))
        out.append(recs)
    return out


def rebased(recs, factors):
    """The same records with each problem's baselines measured anew: scaled by its factor."""
    out = []
    for r in recs:
        r = json.loads(json.dumps(r))
        f = factors.get(r["problem_id"], 1.0)
        for p in r["protocols"].values():
            if p.get("t_baseline_ms"):
                p["t_baseline_ms"] *= f
                if p.get("t_kernel_ms"):
                    p["speedup"] = p["t_baseline_ms"] / p["t_kernel_ms"]
        out.append(r)
    return out


def example():
    rng = random.Random(20240611)
    models = ["frontier-model-x", "open-coder-32b", "baseline-agent"]
    skill = {"frontier-model-x": 0.9, "open-coder-32b": 0.6, "baseline-agent": 0.3}
    problems = [(1, i) for i in (1, 2, 3, 4, 8, 9, 12, 13, 19, 21, 23, 24, 31, 36, 40, 47)] + \
               [(2, i) for i in (1, 5, 12, 23, 30, 40, 55, 66, 76, 80, 99)] + \
               [(3, i) for i in (1, 4, 11, 20, 28, 33, 43, 50, 9)]
    recs = []
    for m in models:
        for (level, pid) in problems:
            for s in range(2):
                u = rng.random()
                sk = skill[m] * (1.0 if level == 1 else 0.8 if level == 2 else 0.6)
                tb = math.exp(rng.uniform(-3, 2))
                speed = math.exp(rng.gauss(0.1 * level, 0.7))
                tk = tb / speed
                mb = int(2 ** rng.uniform(20, 32))
                mk = int(mb * math.exp(rng.gauss(0.0, 0.4)))
                sol = min(0.95, 0.02 * speed * rng.uniform(0.2, 3))
                if u > sk + 0.25:
                    kind = rng.choice(["compile", "compile", "crash", "timeout", "load"])
                    if kind == "compile":
                        recs.append(record(m, level, pid, s, failed3(
                            "compile error: kernel.cu(%d): error: identifier \"x\" is undefined"
                            % rng.randint(5, 90)), compile_ok=False,
                            log="kernel.cu(12): error: identifier \"x\" is undefined\n"
                                "1 error detected in the compilation of \"kernel.cu\".\n"))
                    else:
                        why = {"crash": "killed by SIGSEGV", "timeout": "no reply in 60 s",
                               "load": "undefined symbol: kbv_forward"}[kind]
                        when = "base#0" if kind != "load" else "load"
                        recs.append(record(m, level, pid, s, failed3("%s: %s during %s" %
                                                                     (kind, why, when)), [],
                                           fault={"kind": kind, "reason": "%s during %s" %
                                                  (why, when)}))
                    continue
                if u > sk:
                    # passes the paper's standard check, fails a harder distribution
                    bad = rng.choice(["D1", "D2", "D3", "D4", "D6", "D7", "D8", "D8"])
                    k = DISTS.index(bad)
                    std_fail = bad in ("D1", "D2", "D3", "D4") or rng.random() < 0.5
                    d = all_pass(k) + [draw(bad, not std_fail, False, 17 if std_fail else 0,
                                            [0, rng.randint(0, 63)])]
                    ver_ok = bad not in ("D1", "D2", "D3", "D4")
                    reason = "%s: rel L2 error 3.1e-2 > budget 8.0e-6" % bad
                    std_reason = "%s: 17 of 4096 elements outside atol/rtol 1e-3" % bad
                    recs.append(record(m, level, pid, s, [
                        proto(True, None, 5, 5, tk, tk * 0.02, tb, mk, mb, sol),
                        proto(ver_ok, None if ver_ok else std_reason, min(k, 9), 9, tk,
                              tk * 0.02, tb * 0.8, mk, mb, sol),
                        proto(False, reason, k, 13, strict=True)], d))
                    continue
                flags = ["review-speedup"] if speed * 0.8 > 10 else []
                recs.append(record(m, level, pid, s, [
                    proto(True, None, 5, 5, tk, tk * 0.02, tb, mk, mb, sol),
                    proto(True, None, 9, 9, tk, tk * 0.02, tb * 0.8, mk, mb, sol),
                    proto(True, None, 13, 13, tk * 1.1, tk * 0.05, tb * 0.9, mk, mb, sol,
                          flags, strict=True)], all_pass()))
    return recs


def write(name, recs):
    with open(os.path.join(HERE, name), "w") as f:
        for r in recs:
            f.write(json.dumps(r, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    write("small.jsonl", small())
    a, b = compare_runs()
    write("compare_a.jsonl", a)
    write("compare_b.jsonl", b)
    # B again, its baselines measured anew (L1/8's the same measurement, from a cache)
    write("compare_b_rebased.jsonl", rebased(b, {1: 1.02, 2: 0.98, 3: 1.01, 4: 0.99, 5: 1.03,
                                                 7: 0.97}))
    for i, recs in enumerate(compare_noise(), 1):
        write("compare_noise_%d.jsonl" % i, recs)
    write("example.jsonl", example())
    old, newer = legacy()
    write("legacy.jsonl", old + newer)
