#!/usr/bin/env python3
"""The pace of a large evaluation: how much of the wall time the device is busy, where
the rest goes, and evaluations per device-hour, for each protocol set.

It writes a corpus of honest level-1 candidates (bench/pace/corpus.py: >= 100 over
>= 20 problems, several samples each), then for each protocol set (standard only,
verified, all three) runs `kbv eval --protocols SET` on it with cold caches (an empty
KBV_CACHE_DIR of its own: every build compiled, every baseline measured, as a first
evaluation of these problems pays) unless --warm, and prints the summary's pace
(docs/REPORTS.md, "How long the device was busy"): per protocol set, the device busy
(candidate, checks, baselines), the wall time by phase plus other and idle,
evaluations per device-hour, and the checks by kind of work (fills, poison, hashes,
references, oracle, comparisons; columns checks:KIND%, of the wall). The verdicts of every sample are kept in OUT/SET/verdicts.tsv.

  bench/pace/run.sh [BUILD_DIR] [--device cuda|cpu] [--samples N] [--sets standard,verified,all]
                    [--out DIR] [--warm] [--before BUILD] [-- EXTRA kbv eval ARGS...]

--before BUILD runs each set with an earlier build first (the same corpus, as cold), for a
before-and-after on the same run; the verdicts of both must be the same.

--device cpu is a dry run on the CPU backend (.c candidates, small sizes). Results:
OUT/pace.tsv (default out/pace) and OUT/SET/results.jsonl with its summary; the last
lines printed, "pace: ...", are the summary.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PHASES = ("compile", "load", "baselines", "correctness", "timing", "audit", "other", "idle")
BUSY = ("candidate", "checks", "baselines")
CHECKS = ("fills", "poison", "hashes", "references", "oracle", "comparisons")   # the checks' kinds
SETS = {"standard": "standard", "verified": "verified", "all": "standard,verified,strict"}


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def verdicts(results):
    """sample -> (standard, verified, strict) verdicts, PASS/FAIL/- (not evaluated)."""
    out = {}
    with open(results) as f:
        for line in f:
            r = json.loads(line)
            key = "%s/%s" % (r["problem"], r["sample"])
            v = []
            for p in ("standard", "verified", "strict"):
                pr = r["protocols"][p] if "protocols" in r else r[p]
                v.append("-" if pr.get("evaluated") is False else "PASS" if pr.get("correct") else "FAIL")
            out[key] = tuple(v)
    return out


def partial_pace(results, wall):
    """The summary's pace figures from the records of a stopped run: its wall time
    so far, the device seconds and phases its recorded samples report (the sample
    in flight when it stopped is lost: its time counts as other)."""
    recs = []
    if os.path.exists(results):
        with open(results) as f:
            for line in f:
                try:
                    recs.append(json.loads(line))
                except ValueError:
                    pass   # the line being written when the run stopped
    busy = {b: sum((r.get("busy_s") or {}).get(b) or 0 for r in recs) for b in BUSY}
    phases = {p: sum((r.get("phase_s") or {}).get(p) or 0 for r in recs)
              for p in PHASES if p not in ("other", "idle")}
    total = sum((r.get("phase_s") or {}).get("total") or 0 for r in recs)
    w = wall if wall > 0 else float("nan")
    checks = {c: sum((r.get("checks_s") or {}).get(c) or 0 for r in recs) for c in CHECKS}
    if recs and not any("busy_s" in r for r in recs):   # a kbv from before busy_s: unknown
        busy = {b: float("nan") for b in BUSY}
    if recs and not any("checks_s" in r for r in recs):   # ... or before checks_s
        checks = {c: float("nan") for c in CHECKS}
    wall_by = {p: v / w for p, v in phases.items()}
    wall_by["other"] = max(0.0, total - sum(phases.values())) / w
    wall_by["idle"] = max(0.0, wall - total) / w
    return {"samples": len(recs), "wall_s": wall, "busy": sum(busy.values()) / w,
            "busy_by": {b: v / w for b, v in busy.items()},
            "checks_by": {c: v / w for c, v in checks.items()}, "wall_by": wall_by,
            "evaluations_per_device_hour": 3600.0 * len(recs) / w, "partial": True}


def run_set(a, s, label, build, runs):
    """One cold (unless --warm) `kbv eval --protocols SET` of `build` on the corpus: its pace
    (the summary's, or from its records for a kbv that writes none) and its verdicts, kept in
    OUT/SET[-LABEL]/. (None, None) when kbv failed."""
    d = os.path.join(a.out, s + ("-" + label if label else ""))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    env = dict(os.environ)
    env["KBV_RUNNER"] = os.path.join(build, "kbv-runner")
    env["LD_LIBRARY_PATH"] = os.path.join(build, "lib") + ":" + env.get("LD_LIBRARY_PATH", "")
    env.setdefault("KBV_INCLUDE_DIR", os.path.join(REPO, "include"))
    cache = "cache" if a.warm else "cache-" + s + ("-" + label if label else "")
    env["KBV_CACHE_DIR"] = os.path.join(a.out, cache)
    if not a.warm:
        shutil.rmtree(env["KBV_CACHE_DIR"], ignore_errors=True)
    env.setdefault("KBV_SECRET_FILE", os.path.join(a.out, "secret"))
    results = os.path.join(d, "results.jsonl")
    cmd = [os.path.join(build, "kbv"), "eval", runs, "--device", a.device, "--protocols", SETS[s],
           "--out", results] + a.extra
    say("pace: " + " ".join(cmd))
    t0 = time.monotonic()
    with open(os.path.join(d, "kbv.log"), "w") as log:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env)
        try:
            rc = proc.wait(timeout=a.timeout or None)
            stopped = False
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
            stopped = True
    wall = time.monotonic() - t0
    summary = results + ".summary.json"
    if stopped:
        say("pace: kbv eval --protocols %s stopped after %.0f s (--timeout): the samples it "
            "recorded, partial" % (SETS[s], wall))
        pace = {"total": partial_pace(results, wall)}
    elif rc != 0 or not os.path.exists(summary):
        say("pace: kbv eval --protocols %s exited %d after %.0f s; see %s/kbv.log" % (SETS[s], rc, wall, d))
        return None, None
    else:
        pace = json.load(open(summary)).get("pace")
        if pace is None:   # a kbv from before the pace summary (a "before" build)
            say("pace: this kbv writes no pace: the figures come from its records and the "
                "wall time (no device-busy figures)")
            pace = {"total": dict(partial_pace(results, wall), partial=False)}
    v = verdicts(results)
    with open(os.path.join(d, "verdicts.tsv"), "w") as f:
        for key, row in sorted(v.items()):
            f.write("%s\t%s\n" % (key, "\t".join(row)))
    return pace["total"], v


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.path.join(REPO, "build"), help="the build directory (kbv, kbv-runner)")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--samples", type=int, default=5, help="samples per problem (default 5: 105 candidates)")
    ap.add_argument("--sets", default="standard,verified,all",
                    help="protocol sets, in order: standard, verified, all (default all three)")
    ap.add_argument("--out", default=os.path.join(REPO, "out", "pace"))
    ap.add_argument("--warm", action="store_true",
                    help="one cache for every set (builds and baselines found after the first)")
    ap.add_argument("--timeout", type=float, default=0,
                    help="stop each set's kbv eval after this many seconds and report the "
                         "samples it recorded (marked partial); 0: no limit")
    ap.add_argument("--before", metavar="BUILD",
                    help="also run every set with this earlier build (kbv, kbv-runner) first, on "
                         "the same corpus and cold alike: rows 'SET before' and 'SET after', and "
                         "the verdicts compared (exit 1 when they differ)")
    ap.add_argument("extra", nargs="*", help="more kbv eval arguments (after --)")
    a = ap.parse_args()
    if a.before:
        a.before = os.path.abspath(a.before)
    sets = [s for s in a.sets.split(",") if s]
    for s in sets:
        if s not in SETS:
            ap.error("--sets: '%s' is not one of %s" % (s, ", ".join(SETS)))
    kind = "cu" if a.device == "cuda" else "c"
    runs = os.path.join(a.out, "runs", "pace-honest")
    shutil.rmtree(runs, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), runs, "--kind", kind,
                    "--samples", str(a.samples)], check=True)
    builds = [("before", a.before), ("after", a.build)] if a.before else [("", a.build)]
    rows, same = [], True
    for s in sets:
        seen = {}
        for label, build in builds:
            t, v = run_set(a, s, label, build, runs)
            if t is None:
                return 1
            rows.append((s + (" " + label if label else ""), t))
            seen[label] = v
        if a.before:
            differ = sorted(k for k in set(seen["before"]) | set(seen["after"])
                            if seen["before"].get(k) != seen["after"].get(k))
            same = same and not differ
            say("pace: %s: verdicts before and after %s" % (
                s, "the same (%d samples)" % len(seen["after"]) if not differ else
                "differ on %d samples: %s" % (len(differ), ", ".join(differ[:10]))))
    head = ["set", "samples", "wall_s", "busy%"] + ["busy:%s%%" % b for b in BUSY] + \
           ["wall:%s%%" % p for p in PHASES] + ["evals/device-h"] + \
           ["checks:%s%%" % c for c in CHECKS]
    lines = ["\t".join(head)]
    for s, t in rows:
        lines.append("\t".join([s, str(t["samples"]), "%.1f" % t["wall_s"], "%.1f" % (100 * t["busy"])] +
                               ["%.1f" % (100 * t["busy_by"][b]) for b in BUSY] +
                               ["%.1f" % (100 * t["wall_by"][p]) for p in PHASES] +
                               ["%.0f" % t["evaluations_per_device_hour"]] +
                               ["%.1f" % (100 * (t.get("checks_by") or {}).get(c, float("nan")))
                                for c in CHECKS]))
    with open(os.path.join(a.out, "pace.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    for s, t in rows:
        print("pace: %s: %d samples, device busy %.1f%% of %.1f s, %.0f evaluations per device-hour%s"
              % (s, t["samples"], 100 * t["busy"], t["wall_s"], t["evaluations_per_device_hour"],
                 " (partial: stopped by --timeout)" if t.get("partial") else ""))
    if a.before:
        by = dict(rows)
        for s in sets:
            b, f = by[s + " before"], by[s + " after"]
            print("pace: %s: before -> after: %.1f -> %.1f s, %.0f -> %.0f evaluations per "
                  "device-hour (%.2fx)" % (s, b["wall_s"], f["wall_s"], b["evaluations_per_device_hour"],
                                          f["evaluations_per_device_hour"],
                                          f["evaluations_per_device_hour"] / b["evaluations_per_device_hour"]
                                          if b["evaluations_per_device_hour"] else float("nan")))
        print("pace: verdicts before and after: " + ("the same" if same else "DIFFERENT (see above)"))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
