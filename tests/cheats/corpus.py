#!/usr/bin/env python3
"""Runs the cheat corpus (tests/cheats/manifest.tsv) through kbv and checks
every case against its expected verdicts.

For the chosen device it takes the manifest rows whose file has that device's
extension (.c on the CPU backend, .cu on a GPU) or is a KernelBench-format .py
(either device; named level_L_problem_N_sample_0_kernel.py), assembles temporary run
directories -- one model directory per case, holding the case's file as
level_L_problem_N_sample_0.<ext> -- and evaluates them with `kbv eval`, one
invocation per group of rows with the same timeout_s and eval_args (rows with
a timeout get their own, so a hang costs seconds, not the default deadline).
Then it prints one table row per case and a final line, and exits non-zero on
any mismatch.

--manifest may be given more than once (default: manifest.tsv). A row's file
is found in its manifest's directory (the example runs keep theirs beside
their candidates: examples/runs/demo-l2/EXPECTED.tsv). A manifest may have an
eval_args column: options of kbv eval for that row, separated by spaces, or
"-" (vendor_manifest.tsv: the cases of --allow-vendor-libs), and a device
column: cpu or cuda for a KernelBench-format file that runs on one device only
(a C++ loop over host memory; a CUDA kernel), "-" for either.

Expectations (manifest columns standard, verified, strict): PASS or FAIL.
strict_reason: "-" or tokens separated by ';', all of which must hold. A token
that is a flag name (KNOWN_FLAGS) must be among the strict protocol's flags;
any other token must be a substring of the strict failure reason. A "-" on an
honest control (hack starting with "honest control") means no flag at all on
any protocol, the advisory review-speedup excepted.

  corpus.py --kbv BUILD/kbv --device cpu|cuda [--size full|small] [--seed N]
            [--workers K] [--work DIR] [--only CASE,...] [--honest]
            [--manifest FILE]...

--honest runs the honest controls alone (to repeat them under more seeds).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# Strict flags, built or being built; a token naming one is checked against
# the flags, never against the reason text ("race" is a substring of "trace").
KNOWN_FLAGS = {
    "binary-allowlist", "below-sol", "review-speedup", "trace-foreign-stream",
    "trace-outside-call", "trace-no-own-kernel", "trace-time-mismatch", "trace-incomplete",
    "l2-persisting", "race", "shape-specialised",
    "torch-patched", "no-custom-kernel", "python-thread",   # KernelBench-format candidates
}
# Advisory flags an honest control may carry.
HONEST_ADVISORY = {"review-speedup"}
PROTOCOLS = ("standard", "verified", "strict")


def read_manifest(path):
    rows = []
    with open(path) as f:
        header = None
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cols = line.split("\t")
            if header is None:
                header = cols
                continue
            if len(cols) != len(header):
                sys.exit(f"{path}: {len(cols)} columns where the header has {len(header)}: {line}")
            row = dict(zip(header, cols))
            row["_dir"] = os.path.dirname(os.path.abspath(path))
            rows.append(row)
    return rows


def run_file_name(problem, ext):
    level, num = problem[1:].split("/")
    if ext == "py":   # KernelBench's own name for its format
        return f"level_{int(level)}_problem_{int(num)}_sample_0_kernel.py"
    return f"level_{int(level)}_problem_{int(num)}_sample_0.{ext}"


def file_ext(row, device_ext):
    """A row's candidate kind: the device's, or "py" (KernelBench's format,
    run on either device)."""
    return "py" if row["file"].endswith(".py") else device_ext


def verdict(rec, proto):
    p = (rec or {}).get("protocols", {}).get(proto)
    if not p:
        return "-"
    if p.get("evaluated") is False:
        return "skipped"
    return "PASS" if p.get("correct") else "FAIL"


def judge(row, rec):
    """(ok, why) for one manifest row and its result record (None: missing)."""
    if rec is None:
        return False, "no result record"
    why = []
    for proto in PROTOCOLS:
        got = verdict(rec, proto)
        if got != row[proto]:
            why.append(f"{proto} {got}, expected {row[proto]}")
    strict = rec["protocols"].get("strict", {})
    flags = set(strict.get("flags") or [])
    reason = strict.get("reason") or ""
    if row["strict_reason"] != "-":
        for tok in row["strict_reason"].split(";"):
            if tok in KNOWN_FLAGS:
                if tok not in flags:
                    why.append(f"flag {tok} missing")
            elif tok not in reason:
                why.append(f"reason lacks '{tok}'")
    elif is_honest(row):
        for proto in PROTOCOLS:
            extra = set(rec["protocols"].get(proto, {}).get("flags") or []) - HONEST_ADVISORY
            if extra:
                why.append(f"{proto} flags {','.join(sorted(extra))}")
    return not why, "; ".join(why)


def eval_args(row):
    """The row's extra kbv eval options, as a tuple."""
    extra = row.get("eval_args", "-")
    return () if extra == "-" else tuple(extra.split())


def tag_of(timeout, extra):
    """A group's name: its timeout and extra options, fit for a file name."""
    tag = "default" if timeout == "-" else f"timeout-{timeout}"
    for a in extra:
        tag += "_" + "".join(c if c.isalnum() else "-" for c in a.lstrip("-"))
    return tag


def is_honest(row):
    return row["hack"].startswith("honest control")


def shorten(text, n):
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 3] + "..."


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kbv", required=True)
    ap.add_argument("--device", required=True, choices=("cpu", "cuda"))
    ap.add_argument("--size", choices=("full", "small"))
    ap.add_argument("--seed")
    ap.add_argument("--workers")
    ap.add_argument("--work", help="keep run directories, results and logs here")
    ap.add_argument("--only", help="comma-separated case names")
    ap.add_argument("--honest", action="store_true", help="only the honest controls")
    ap.add_argument("--manifest", action="append",
                    help="a manifest (repeatable; default: manifest.tsv)")
    args = ap.parse_args()

    ext = "c" if args.device == "cpu" else "cu"
    rows = []
    for m in args.manifest or [os.path.join(HERE, "manifest.tsv")]:
        rows += [r for r in read_manifest(m)
                 if (r["file"].endswith("." + ext) or r["file"].endswith(".py"))
                 and r.get("device", "-") in ("-", args.device)]
    names = [r["case"] for r in rows]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        sys.exit(f"case names used twice for one device: {', '.join(dup)}")
    if args.only:
        want = set(args.only.split(","))
        rows = [r for r in rows if r["case"] in want]
    if args.honest:
        rows = [r for r in rows if is_honest(r)]
    if not rows:
        sys.exit("no cases to run")
    work = args.work or tempfile.mkdtemp(prefix="kbv-cheats-")
    os.makedirs(work, exist_ok=True)

    groups = {}
    for r in rows:
        groups.setdefault((r["timeout_s"], eval_args(r)), []).append(r)
    records = {}
    t0 = time.time()
    for (timeout, extra), group in sorted(groups.items()):
        tag = tag_of(timeout, extra)
        runs = os.path.join(work, "runs-" + tag)
        shutil.rmtree(runs, ignore_errors=True)
        dirs = []
        # one case per problem first, then the rest problem by problem: with
        # several workers, no two start on a problem whose baselines are not
        # measured yet (each would measure them)
        firsts, seen = [], set()
        for r in group:
            if r["problem"] not in seen:
                seen.add(r["problem"])
                firsts.append(r)
        rest = sorted((r for r in group if r not in firsts), key=lambda r: r["problem"])
        for r in firsts + rest:
            d = os.path.join(runs, r["case"])
            os.makedirs(d, exist_ok=True)
            shutil.copyfile(os.path.join(r["_dir"], r["file"]),
                            os.path.join(d, run_file_name(r["problem"], file_ext(r, ext))))
            dirs.append(d)
        out = os.path.join(work, f"results-{tag}.jsonl")
        if os.path.exists(out):
            os.remove(out)
        cmd = [args.kbv, "eval", *dirs, "--out", out, "--device", args.device]
        if args.size:
            cmd += ["--size", args.size]
        if args.seed:
            cmd += ["--seed", args.seed]
        if args.workers:
            cmd += ["--workers", args.workers]
        if timeout != "-":
            cmd += ["--timeout", timeout]
        cmd += list(extra)
        log = os.path.join(work, f"eval-{tag}.log")
        t1 = time.time()
        with open(log, "w") as lf:
            rc = subprocess.call(cmd, stdout=lf, stderr=subprocess.STDOUT)
        print(f"kbv eval ({tag}, {len(group)} cases): exit {rc}, {time.time() - t1:.0f} s; "
              f"log {log}", file=sys.stderr)
        if rc != 0:
            with open(log) as lf:
                sys.stderr.write(lf.read()[-3000:])
        if os.path.exists(out):
            with open(out) as f:
                for line in f:
                    rec = json.loads(line)
                    records[(rec["model"], tag)] = rec

    tagof = lambda r: tag_of(r["timeout_s"], eval_args(r))
    header = ("case", "hack", "standard", "verified", "strict", "strict reason", "expected?")
    lines = []
    n_cheat = ok_cheat = n_honest = ok_honest = 0
    seeds = set()
    for r in rows:
        rec = records.get((r["case"], tagof(r)))
        if rec:
            seeds.add(rec.get("seed"))
        ok, why = judge(r, rec)
        strict = (rec or {}).get("protocols", {}).get("strict", {})
        reason = strict.get("reason") or ""
        flags = strict.get("flags") or []
        shown = shorten(reason, 90) + (f" [{', '.join(flags)}]" if flags else "")
        shown_ext = {"cu": "", "c": ".c", "py": ".py"}[file_ext(r, ext)]
        lines.append((r["case"] + shown_ext, shorten(r["hack"], 50),
                      verdict(rec, "standard"), verdict(rec, "verified"),
                      verdict(rec, "strict"), shown or "-", "yes" if ok else "NO: " + why))
        if is_honest(r):
            n_honest += 1
            ok_honest += ok
        else:
            n_cheat += 1
            ok_cheat += ok
    widths = [max(len(str(x[i])) for x in lines + [header]) for i in range(len(header))]
    widths[5] = min(widths[5], 110)
    fmt = lambda cols: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cols, widths)) + " |"
    print(fmt(header))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for cols in lines:
        print(fmt(cols))
    seed = ",".join(str(s) for s in sorted(seeds, key=str)) or "-"
    print(f"({args.device}, {time.time() - t0:.0f} s, seed {seed}, work dir {work})")
    print(f"cheats: {ok_cheat}/{n_cheat} as expected, honest controls: {ok_honest}/{n_honest} "
          f"pass with no flag")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)
    return 0 if ok_cheat == n_cheat and ok_honest == n_honest else 1


if __name__ == "__main__":
    sys.exit(main())
