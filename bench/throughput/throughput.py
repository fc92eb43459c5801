#!/usr/bin/env python3
"""Evaluation throughput: seconds per candidate, by phase, for kbv and for a minimal
KernelBench-style evaluator (kernelbench_eval.py) on the same kernels and one GPU.

Configurations (the verified protocol; KernelBench's own protocol for KernelBench):
  kbv cold           `kbv eval --protocols verified` with an empty compile cache
  kbv warm           the same again, every build cached
  kbv warm, all      all three protocols (strict included), builds cached
  KernelBench cold   one fresh Python process per sample, empty TORCH_EXTENSIONS_DIR
  KernelBench warm   the same again, the sample's extension already built

Baselines: kbv measures each problem's baselines once per GPU model and caches them,
as KernelBench measures its reference times once (scripts/generate_baseline_time.py);
both are per problem, not per candidate, so they are measured first (`kbv baseline`)
and reported on a line of their own. kbv's rows then find them cached.

kbv's per-candidate cost is its record's total (phase_s.total) plus an equal share of
what the `kbv eval` process spent outside the samples (start, CUDA and backends,
results): the "other" column. KernelBench's is the wall time of its process, start to
exit; its "load" column is everything but compile, correctness and timing (interpreter
start, import torch, CUDA init, building the models, cleanup, exit).

Evaluations per GPU-hour = 3600 / mean seconds per candidate, the GPU held throughout;
"excl. compile" is the same without the compile phase, as when builds run on CPU cores
ahead of the GPU (kbv's compile cache, KernelBench's build_cache). Ratios are over the
candidates both evaluators finished, so a budget that stops KernelBench early still
compares like with like.

The whole run stays within --budget seconds: KernelBench is slow at full shapes (it
draws inputs on the CPU), so its rows cover the candidates that fit, in order.
"""
import argparse
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PHASES = ("compile", "load", "baselines", "correctness", "timing", "audit")
NAME_RE = re.compile(r"level_(\d+)_problem_(\d+)_sample_(\d+)\.(cu|c)$")


class Budget:
    def __init__(self, seconds):
        self.deadline = time.monotonic() + seconds

    def left(self):
        return self.deadline - time.monotonic()


def say(msg):
    print(msg, file=sys.stderr, flush=True)


def run(cmd, log, timeout, env=None):
    """Runs cmd in its own process group, output to log; returns (rc, seconds).
    rc is None when it passed its timeout (the whole group is killed)."""
    t0 = time.monotonic()
    with open(log, "ab") as f:
        f.write(("\n$ " + " ".join(cmd) + "\n").encode())
        f.flush()
        p = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            rc = p.wait(timeout=max(1.0, timeout))
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            rc = None
    return rc, time.monotonic() - t0


def tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            lines = [l.rstrip() for l in f if l.strip()]
        return " | ".join(lines[-n:])
    except OSError:
        return "(no log)"


class Candidate:
    def __init__(self, path):
        m = NAME_RE.search(os.path.basename(path))
        if not m:
            raise ValueError(f"{path}: not a level_L_problem_P_sample_S.cu/.c file")
        self.src = os.path.abspath(path)
        self.model = os.path.basename(os.path.dirname(self.src))
        self.level, self.problem_id, self.sample = int(m.group(1)), int(m.group(2)), int(m.group(3))
        self.key = f"L{self.level}/{self.problem_id}"
        self.name = f"{self.model}/{os.path.basename(path)}"
        self.staged = None


def stage(cands, runs_dir):
    """Copies the candidates into runs_dir/<model>/, the run directories kbv eval takes."""
    shutil.rmtree(runs_dir, ignore_errors=True)
    for c in cands:
        d = os.path.join(runs_dir, c.model)
        os.makedirs(d, exist_ok=True)
        c.staged = os.path.join(d, os.path.basename(c.src))
        shutil.copyfile(c.src, c.staged)
    return sorted({os.path.dirname(c.staged) for c in cands})


def row(config, cand, status, verdict="", **phases):
    r = {"config": config, "candidate": cand.name, "problem": cand.key, "status": status,
         "verdict": verdict, "compile_cached": phases.pop("compile_cached", "")}
    for k in PHASES + ("other", "total"):
        r[k] = phases.get(k)
    return r


# ---- kbv -----------------------------------------------------------------------------

def kbv_rows(config, cands, records_path, wall, note):
    """One row per candidate from a kbv results file; the process's time outside the
    samples is shared equally among them."""
    recs = {}
    if os.path.exists(records_path):
        with open(records_path) as f:
            for line in f:
                if line.strip():
                    r = json.loads(line)
                    recs[os.path.abspath(r["file"])] = r
    done = [recs[c.staged] for c in cands if c.staged in recs]
    timed = [r for r in done if r.get("phase_s") and r["phase_s"].get("total") is not None]
    share = (wall - sum(r["phase_s"]["total"] for r in timed)) / len(timed) if timed and wall else 0.0
    rows = []
    for c in cands:
        r = recs.get(c.staged)
        if r is None:
            rows.append(row(config, c, f"not recorded ({note})"))
            continue
        verdict = ",".join(f"{p}:{'pass' if v['correct'] else 'fail'}"
                           for p, v in r["protocols"].items() if v.get("evaluated", True))
        ph = r.get("phase_s")
        if not ph or ph.get("total") is None:
            rows.append(row(config, c, "no phase_s (an older kbv)", verdict))
            continue
        phases = {k: ph.get(k) or 0.0 for k in PHASES}
        total = ph["total"] + share
        rows.append(row(config, c, "ok", verdict, compile_cached=r["compile"]["cached"],
                        other=total - sum(phases.values()), total=total, **phases))
    return rows


def kbv_eval(a, config, cands, run_dirs, protocols, budget, env, cold):
    out = os.path.join(a.out, f"{config.replace(' ', '_').replace(',', '')}.jsonl")
    for p in (out, out + ".summary.json"):
        if os.path.exists(p):
            os.remove(p)
    if cold:
        shutil.rmtree(os.path.join(env["KBV_CACHE_DIR"], "build"), ignore_errors=True)
    cmd = [a.kbv, "eval", *run_dirs, "--out", out, "--device", a.device, "--seed", "1"]
    cmd += ["--size", "small"] if a.device == "cpu" else []
    cmd += ["--protocols", protocols] if protocols else []
    if a.kbv_compile_jobs is not None and a.compile_ahead:
        cmd += ["--compile-jobs", str(a.kbv_compile_jobs)]
    log = os.path.join(a.out, "kbv.log")
    rc, wall = run(cmd, log, min(budget.left(), a.kbv_timeout), env)
    note = "ok" if rc == 0 else "timed out" if rc is None else f"exit {rc}"
    # killed midway, the process's time is not all overhead: no share for the others
    rows = kbv_rows(config, cands, out, wall if rc is not None else None, note)
    n_ok = sum(r["status"] == "ok" for r in rows)
    say(f"== {config}: {n_ok}/{len(cands)} candidates in {wall:.1f} s ({note})"
        + ("" if rc == 0 else f": {tail(log)}"))
    return rows


# ---- KernelBench-style -----------------------------------------------------------------

def kb_prepare(a, cands, budget, env):
    """The references (kbv show --torch, the shapes kbv uses) and their descriptions."""
    ref_dir = os.path.join(a.out, "ref")
    shutil.rmtree(ref_dir, ignore_errors=True)
    os.makedirs(ref_dir)
    refs = {}
    for key in sorted({c.key for c in cands}):
        path = os.path.join(ref_dir, key.replace("/", "_") + ".py")
        cmd = [a.kbv, "show", key, "--torch"] + (["--small"] if a.device == "cpu" else [])
        p = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if p.returncode != 0:
            say(f"== KernelBench: kbv show {key} --torch failed: {p.stderr.strip()[:200]}")
            continue
        with open(path, "w") as f:
            f.write(p.stdout)
        refs[key] = path
    log = os.path.join(a.out, "kernelbench.log")
    rc, _ = run([a.python, os.path.join(HERE, "kernelbench_eval.py"), "describe", *refs.values()],
                log, min(budget.left(), 300), env)
    described = {k: p for k, p in refs.items() if os.path.exists(p + ".json")}
    if rc != 0 or len(described) < len(refs):
        say(f"== KernelBench: {len(described)}/{len(refs)} references described: {tail(log)}")
    return described


def kb_rows_of(config, cand, result_path, rc, wall):
    if rc is None:
        return row(config, cand, "timed out (budget)")
    try:
        with open(result_path) as f:
            res = json.load(f)
    except (OSError, ValueError):
        return row(config, cand, f"no result (exit {rc})")
    if "harness_error" in res:
        return row(config, cand, "harness error: " + res["harness_error"][:160])
    ph = res["phase_s"]
    if not res["compiled"]:
        err = res["metadata"].get("compilation_error", "?").strip().splitlines() or ["?"]
        first = next((l for l in err if "error" in l.lower()), err[-1])
        return row(config, cand, "compile failed: " + first.strip()[:160])
    verdict = "kernelbench:" + ("pass" if res["correctness"] else "fail")
    phases = {"compile": ph["compile"], "correctness": ph["correctness"], "timing": ph["timing"],
              "baselines": 0.0, "audit": 0.0}
    phases["load"] = wall - sum(phases.values())  # interpreter, import torch, CUDA, models, exit
    return row(config, cand, "ok", verdict, other=0.0, total=wall, **phases)


def input_elements(ref):
    """Elements of a problem's tensor inputs, from its description."""
    try:
        with open(ref + ".json") as f:
            desc = json.load(f)
    except (OSError, ValueError):
        return float("inf")
    total = 0
    for i in desc["inputs"]:
        n = 1
        for d in i.get("shape", []):
            n *= d
        total += n if i["tensor"] else 0
    return total


def kb_eval(a, cands, refs, budget, env):
    """Each candidate cold (empty build directory) then warm (the same directory again),
    smallest inputs first, while the budget lasts. KernelBench draws inputs on the CPU,
    so its cost grows with their size: what the budget leaves out is its slowest."""
    rows = {"KernelBench cold": [], "KernelBench warm": []}
    failures, needed = 0, a.kb_min_left
    order = sorted(cands, key=lambda c: input_elements(refs[c.key]) if c.key in refs else float("inf"))
    for c in order:
        if c.key not in refs:
            for cfg in rows:
                rows[cfg].append(row(cfg, c, "no reference"))
            continue
        if budget.left() < needed or failures >= 2:
            why = "two failures in a row" if failures >= 2 else "budget spent"
            for cfg in rows:
                rows[cfg].append(row(cfg, c, f"not run ({why})"))
            continue
        spent = 0.0
        # KernelBench's build directory: <cache>/<run>/<problem>/<sample>
        build = os.path.join(a.out, "torch-ext", c.model, str(c.problem_id), str(c.sample))
        shutil.rmtree(build, ignore_errors=True)
        os.makedirs(build)
        for cfg in rows:
            result = os.path.join(a.out, "kernelbench", f"{cfg.split()[1]}-{c.model}-{os.path.basename(c.src)}.json")
            os.makedirs(os.path.dirname(result), exist_ok=True)
            if os.path.exists(result):
                os.remove(result)
            if cfg.endswith("warm") and rows["KernelBench cold"][-1]["status"] != "ok":
                rows[cfg].append(row(cfg, c, "not run (cold run failed)"))
                continue
            cmd = [a.python, os.path.join(HERE, "kernelbench_eval.py"), "eval", "--ref", refs[c.key],
                   "--candidate", c.staged, "--include", a.include, "--build-dir", build,
                   "--out", result, "--perf-trials", str(a.kb_perf_trials)]
            log = os.path.join(a.out, "kernelbench.log")
            rc, wall = run(cmd, log, min(budget.left(), a.kb_timeout), env)
            spent += wall
            r = kb_rows_of(cfg, c, result, rc, wall)
            rows[cfg].append(r)
            say(f"== {cfg} {c.name}: {r['status']}" + (f", {wall:.1f} s" if r["status"] == "ok" else
                                                       f": {tail(log, 2)}" if r["status"].startswith("no result")
                                                       else ""))
            failures = 0 if r["status"] == "ok" else failures + 1
        # the next has inputs at least as large: it needs at least as long
        needed = max(a.kb_min_left, 1.1 * spent)
    return rows["KernelBench cold"] + rows["KernelBench warm"]


def kb_sources_only(a, cands, refs, env):
    """A run without a GPU: writes the load_inline source of every candidate, which
    checks the wrapping; nothing is compiled or timed."""
    n = 0
    for c in cands:
        cu = os.path.splitext(c.src)[0] + ".cu"   # the GPU twin of a .c candidate
        if c.key not in refs or not os.path.exists(cu):
            continue
        out = os.path.join(a.out, "kernelbench", f"source-{c.model}-{os.path.basename(cu)}.py")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as f:
            p = subprocess.run([a.python, os.path.join(HERE, "kernelbench_eval.py"), "source",
                                "--ref", refs[c.key], "--candidate", cu, "--include", a.include],
                               stdout=f, stderr=subprocess.PIPE, text=True, env=env)
        if p.returncode == 0:
            n += 1
        else:
            say(f"== KernelBench source {c.name}: FAILED: {p.stderr.strip()[-300:]}")
    say(f"== KernelBench: {n}/{len(cands)} load_inline sources written to "
        f"{os.path.join(a.out, 'kernelbench')} (no GPU: not compiled or run)")


# ---- the table -------------------------------------------------------------------------

def mean(xs):
    return sum(xs) / len(xs) if xs else float("nan")


def per_hour(seconds):
    return 3600.0 / seconds if seconds and seconds > 0 else float("nan")


def fmt(x, width=8, digits=3):
    return f"{x:{width}.{digits}f}" if isinstance(x, float) and x == x else f"{'-':>{width}}"


def report(all_rows, baselines, a):
    configs = []
    for r in all_rows:
        if r["config"] not in configs:
            configs.append(r["config"])
    ok = {cfg: [r for r in all_rows if r["config"] == cfg and r["status"] == "ok"] for cfg in configs}
    means = {}
    numbers = PHASES + ("other", "total")
    with open(os.path.join(a.out, "throughput.tsv"), "w") as f:
        text = ["config", "candidate", "problem", "status", "verdict", "compile_cached"]
        f.write("\t".join(text + [f"{k}_s" for k in numbers]) + "\n")
        for r in all_rows:
            f.write("\t".join([str(r[k]) for k in text] +
                              ["" if r[k] is None else f"{r[k]:.4f}" for k in numbers]) + "\n")
        for cfg in configs:
            m = {k: mean([r[k] for r in ok[cfg]]) for k in numbers}
            means[cfg] = m
            f.write("\t".join([cfg, "MEAN", "", f"n={len(ok[cfg])}", "", ""] +
                              [f"{m[k]:.4f}" for k in numbers]) + "\n")

    print(f"\nEvaluation throughput on {a.gpu_name}, one device: seconds per candidate, mean over "
          f"the candidates each configuration finished")
    print(f"{'configuration':26s} {'n':>3s} {'compile':>8s} {'load':>8s} {'baseln':>8s} {'correct':>8s} "
          f"{'timing':>8s} {'audit':>8s} {'other':>8s} {'total':>8s} {'evals/GPU-h':>12s} {'excl.compile':>12s}")
    for cfg in configs:
        m = means[cfg]
        print(f"{cfg:26s} {len(ok[cfg]):3d} " + " ".join(fmt(m[k]) for k in numbers) +
              f" {fmt(per_hour(m['total']), 12, 0)} {fmt(per_hour(m['total'] - m['compile']), 12, 0)}")
    if baselines:
        secs, n, status = baselines
        print(f"kbv baselines ({status}): {secs:.1f} s for {n} problems, once per problem and GPU model "
              f"(cached; not in the rows)")
    ahead = a.compile_ahead and a.kbv_compile_jobs != 0
    print("kbv: one `kbv eval` for all candidates" +
          (", builds compiled ahead on the CPU cores while the GPU evaluates (its compile column "
           "is the wait for a build)" if ahead else ", each build just before its evaluation") +
          "; KernelBench: a process per sample, each building its own extension (load_inline).")
    for r in all_rows:
        if r["status"] != "ok":
            print(f"  {r['config']}: {r['candidate']}: {r['status']}")

    summary = []
    for temp in ("cold", "warm"):
        k, b = f"kbv {temp}", f"KernelBench {temp}"
        if k not in ok or b not in ok:
            continue
        common = sorted({r["candidate"] for r in ok[k]} & {r["candidate"] for r in ok[b]})
        if not common:
            summary.append(f"throughput: {temp}: no candidate finished under both evaluators")
            continue
        tk = mean([r["total"] for r in ok[k] if r["candidate"] in common])
        tb = mean([r["total"] for r in ok[b] if r["candidate"] in common])
        ck = mean([r["total"] - r["compile"] for r in ok[k] if r["candidate"] in common])
        cb = mean([r["total"] - r["compile"] for r in ok[b] if r["candidate"] in common])
        summary.append(f"throughput: {temp}: kbv {tk:.2f} s/candidate ({per_hour(tk):.0f} verified "
                       f"evaluations/GPU-h), KernelBench {tb:.2f} s ({per_hour(tb):.0f}/GPU-h): "
                       f"{tb / tk:.1f}x; excluding compile {cb / ck:.1f}x "
                       f"(n={len(common)}; goal >= 5x)")
    if "kbv warm" in ok and "kbv warm, all protocols" in ok and ok["kbv warm"] and ok["kbv warm, all protocols"]:
        t1, t3 = means["kbv warm"]["total"], means["kbv warm, all protocols"]["total"]
        summary.append(f"throughput: kbv warm, all three protocols {t3:.2f} s/candidate "
                       f"({per_hour(t3):.0f}/GPU-h), {t3 / t1:.1f}x verified alone")
    if not summary:
        summary.append("throughput: no comparison (a side did not run; see above)")
    print()
    for line in summary:
        print(line)
    print(f"throughput: per-candidate rows in {os.path.join(a.out, 'throughput.tsv')}")


# ---- main ------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="directory with kbv, kbv-runner (and lib/)")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cpu: a dry run of the kbv half on .c candidates at small sizes")
    ap.add_argument("--candidates", nargs="*", help="candidate files (default: examples/runs/*/*.cu, "
                    "or *.c with --device cpu)")
    ap.add_argument("--out", default=os.path.join(REPO, "out", "throughput"))
    ap.add_argument("--budget", type=float, default=float(os.environ.get("THROUGHPUT_BUDGET", 420)),
                    help="seconds for everything (default 420, or $THROUGHPUT_BUDGET)")
    ap.add_argument("--python", default=sys.executable, help="python with torch, for KernelBench")
    ap.add_argument("--include", default=os.environ.get("KBV_INCLUDE_DIR", os.path.join(REPO, "include")))
    ap.add_argument("--kbv-timeout", type=float, default=300, help="each kbv command, seconds")
    ap.add_argument("--kb-timeout", type=float, default=300,
                    help="each KernelBench sample, seconds (run_and_check.py's timeout)")
    ap.add_argument("--kb-min-left", type=float, default=45,
                    help="start a KernelBench candidate only with this many seconds left")
    ap.add_argument("--kb-perf-trials", type=int, default=100)
    ap.add_argument("--kbv-compile-jobs", type=int,
                    help="kbv eval --compile-jobs (default kbv's: compile ahead on every CPU; 0: "
                         "each build just before its evaluation)")
    ap.add_argument("--skip-kernelbench", action="store_true")
    ap.add_argument("--skip-all-protocols", action="store_true", help="no 'kbv warm, all protocols' row")
    a = ap.parse_args()
    budget = Budget(a.budget)
    a.build = os.path.abspath(a.build)
    a.kbv = os.path.join(a.build, "kbv")
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    for log in ("kbv.log", "kernelbench.log"):
        open(os.path.join(a.out, log), "w").close()
    if not os.access(a.kbv, os.X_OK):
        say(f"throughput: no kbv at {a.kbv}")
        return 1
    ext = ".c" if a.device == "cpu" else ".cu"
    paths = a.candidates or sorted(glob.glob(os.path.join(REPO, "examples", "runs", "*", "*" + ext)))
    cands = [Candidate(p) for p in paths if p.endswith(ext)]
    if not cands:
        say(f"throughput: no {ext} candidates")
        return 1

    env = dict(os.environ)
    env["KBV_CACHE_DIR"] = os.path.join(a.out, "kbv-cache")   # its own: cold means cold
    env["KBV_INCLUDE_DIR"] = a.include
    env["KBV_RUNNER"] = os.path.join(a.build, "kbv-runner")
    if a.device == "cuda":   # one GPU for both evaluators: kbv runs no workers
        env["CUDA_VISIBLE_DEVICES"] = env.get("CUDA_VISIBLE_DEVICES", "0").split(",")[0]
    shutil.rmtree(env["KBV_CACHE_DIR"], ignore_errors=True)
    run_dirs = stage(cands, os.path.join(a.out, "runs"))
    say(f"== throughput: {len(cands)} candidates ({', '.join(c.name for c in cands)}), "
        f"budget {a.budget:.0f} s, logs in {a.out}")

    help_text = subprocess.run([a.kbv, "eval", "--help"], capture_output=True, text=True, env=env).stdout
    protocols = "verified" if "--protocols" in help_text else None
    a.compile_ahead = "--compile-jobs" in help_text
    if not protocols:
        say("== kbv: this kbv has no --protocols: its rows evaluate all three protocols")
    rows = []

    keys = sorted({c.key for c in cands})
    cmd = [a.kbv, "baseline", "--problems", ",".join(keys), "--device", a.device]
    cmd += ["--size", "small"] if a.device == "cpu" else []
    rc, secs = run(cmd, os.path.join(a.out, "kbv.log"), min(budget.left(), a.kbv_timeout), env)
    status = "ok" if rc == 0 else "timed out" if rc is None else f"FAILED, exit {rc}"
    say(f"== kbv baselines: {status}, {secs:.1f} s for {len(keys)} problems"
        + ("" if rc == 0 else f": {tail(os.path.join(a.out, 'kbv.log'))}"))
    baselines = (secs, len(keys), status)

    rows += kbv_eval(a, "kbv cold", cands, run_dirs, protocols, budget, env, cold=True)
    rows += kbv_eval(a, "kbv warm", cands, run_dirs, protocols, budget, env, cold=False)

    a.gpu_name = a.device
    warm = os.path.join(a.out, "kbv_warm.jsonl")
    if os.path.exists(warm) and os.path.getsize(warm):
        with open(warm) as f:
            a.gpu_name = json.loads(f.readline())["device"]

    if not a.skip_kernelbench:
        refs = kb_prepare(a, cands, budget, env)
        if a.device == "cpu":
            kb_sources_only(a, cands, refs, env)
        elif refs:
            rows += kb_eval(a, cands, refs, budget, env)
    # what strict adds, in the time left
    if not a.skip_all_protocols and protocols and budget.left() > 10:
        rows += kbv_eval(a, "kbv warm, all protocols", cands, run_dirs, None, budget, env, cold=False)
    report(rows, baselines, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
