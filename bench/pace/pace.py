#!/usr/bin/env python3
"""The pace of a large evaluation: how much of the wall time the device is busy, where
the rest goes, and evaluations per device-hour, for each protocol set.

It writes a corpus of honest level-1 candidates (bench/pace/corpus.py: >= 100 over
>= 20 problems, several samples each), then for each protocol set (standard only,
verified, all three) runs `kbv eval --protocols SET` on it with cold caches (an empty
KBV_CACHE_DIR of its own: every build compiled, every baseline measured, as a first
evaluation of these problems pays) unless --warm, and prints the summary's pace
(docs/REPORTS.md, "How long the device was busy"): per protocol set, the device busy
(candidate, checks, baselines), the wall time by phase plus other and idle, and
evaluations per device-hour. The verdicts of every sample are kept in OUT/SET/verdicts.tsv.

  bench/pace/run.sh [BUILD_DIR] [--device cuda|cpu] [--samples N] [--sets standard,verified,all]
                    [--out DIR] [--warm] [-- EXTRA kbv eval ARGS...]

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
    wall_by = {p: v / w for p, v in phases.items()}
    wall_by["other"] = max(0.0, total - sum(phases.values())) / w
    wall_by["idle"] = max(0.0, wall - total) / w
    return {"samples": len(recs), "wall_s": wall, "busy": sum(busy.values()) / w,
            "busy_by": {b: v / w for b, v in busy.items()}, "wall_by": wall_by,
            "evaluations_per_device_hour": 3600.0 * len(recs) / w, "partial": True}


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
    ap.add_argument("extra", nargs="*", help="more kbv eval arguments (after --)")
    a = ap.parse_args()
    sets = [s for s in a.sets.split(",") if s]
    for s in sets:
        if s not in SETS:
            ap.error("--sets: '%s' is not one of %s" % (s, ", ".join(SETS)))
    kind = "cu" if a.device == "cuda" else "c"
    kbv = os.path.join(a.build, "kbv")
    runs = os.path.join(a.out, "runs", "pace-honest")
    shutil.rmtree(runs, ignore_errors=True)
    subprocess.run([sys.executable, os.path.join(HERE, "corpus.py"), runs, "--kind", kind,
                    "--samples", str(a.samples)], check=True)
    env = dict(os.environ)
    env.setdefault("KBV_RUNNER", os.path.join(a.build, "kbv-runner"))
    env.setdefault("KBV_INCLUDE_DIR", os.path.join(REPO, "include"))
    rows = []
    for s in sets:
        d = os.path.join(a.out, s)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        env["KBV_CACHE_DIR"] = os.path.join(a.out, "cache" if a.warm else "cache-" + s)
        if not a.warm:
            shutil.rmtree(env["KBV_CACHE_DIR"], ignore_errors=True)
        env.setdefault("KBV_SECRET_FILE", os.path.join(a.out, "secret"))
        results = os.path.join(d, "results.jsonl")
        cmd = [kbv, "eval", runs, "--device", a.device, "--protocols", SETS[s], "--out", results] + a.extra
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
            return 1
        else:
            pace = json.load(open(summary))["pace"]
        with open(os.path.join(d, "verdicts.tsv"), "w") as f:
            for key, v in sorted(verdicts(results).items()):
                f.write("%s\t%s\n" % (key, "\t".join(v)))
        t = pace["total"]
        rows.append((s, t))
    head = ["set", "samples", "wall_s", "busy%"] + ["busy:%s%%" % b for b in BUSY] + \
           ["wall:%s%%" % p for p in PHASES] + ["evals/device-h"]
    lines = ["\t".join(head)]
    for s, t in rows:
        lines.append("\t".join([s, str(t["samples"]), "%.1f" % t["wall_s"], "%.1f" % (100 * t["busy"])] +
                               ["%.1f" % (100 * t["busy_by"][b]) for b in BUSY] +
                               ["%.1f" % (100 * t["wall_by"][p]) for p in PHASES] +
                               ["%.0f" % t["evaluations_per_device_hour"]]))
    with open(os.path.join(a.out, "pace.tsv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    for s, t in rows:
        print("pace: %s: %d samples, device busy %.1f%% of %.1f s, %.0f evaluations per device-hour%s"
              % (s, t["samples"], 100 * t["busy"], t["wall_s"], t["evaluations_per_device_hour"],
                 " (partial: stopped by --timeout)" if t.get("partial") else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
