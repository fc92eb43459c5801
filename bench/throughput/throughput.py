#!/usr/bin/env python3
"""Evaluation throughput: seconds per verified evaluation, by phase, for kbv and for
KernelBench's evaluator at its best (a stand-in following its code, kernelbench_eval.py),
on the same kernels and one GPU.

The kernels are kbv candidates (.cu); each is also written as a KernelBench-format file
(`kernelbench_eval.py sources`: the reference module and a ModelNew whose load_inline
builds the kernel), OUT/kb-runs/<model>/level_L_problem_P_sample_S_kernel.py, and both
evaluators take those very files.

Configurations (kbv: the verified protocol; KernelBench: its own protocol):
  kbv cold                       `kbv eval --protocols verified` on the .cu files, empty
                                 compile cache (kbv's own ABI)
  kbv warm                       the same again, every build cached
  kbv, KernelBench format, cold  the same on the KernelBench-format files, empty compile
                                 cache: kbv's compile-ahead pool (--compile-jobs) builds
                                 their load_inline extensions on the CPU cores while the GPU
                                 evaluates (only where kbv-runner hosts Python)
  kbv, KernelBench format, warm  the same again, the extensions cached
  KernelBench, batch build (P workers)
                                 scripts/eval_from_generations.py with build_cache: every
                                 sample's load_inline first built by P parallel CPU worker
                                 processes (src/kernelbench/compile.py batch_compile), the
                                 wall time of that step shared equally over the samples (the
                                 compile column), then each sample evaluated in a fresh
                                 process with its extension built
  KernelBench, one at a time     (--kb-one-at-a-time N) a fresh process per sample that
                                 builds its own extension, empty build directory
  kbv warm, all protocols        all three protocols (strict included) on the .cu files,
                                 builds cached, in the time left

Baselines: kbv measures each problem's baselines once per GPU model and caches them,
as KernelBench measures its reference times once (scripts/generate_baseline_time.py);
both are per problem, not per candidate, so they are measured first (`kbv baseline`)
and reported on a line of their own. kbv's rows then find them cached.

kbv's per-candidate cost is its record's total (phase_s.total) plus an equal share of
what the `kbv eval` process spent outside the samples (start, CUDA and backends, the
wait for builds not yet done, results): the "other" column. KernelBench's is the wall
time of the sample's process, start to exit, plus its share of the batch build; its
"load" column is everything but compile, correctness and timing (interpreter start,
import torch, CUDA init, building the models, cleanup, exit).

Evaluations per GPU-hour = 3600 / mean seconds per candidate, the GPU held throughout;
"excl. compile" is the same without the compile column, as when builds run on other
machines' CPU cores. Ratios are over the kernels both configurations finished; a cold kbv
row is set against the batch build's whole cost, a warm one against KernelBench with its
builds kept (the batch row less its share of the build).

The whole run stays within --budget seconds. The KernelBench-format rows cost most
(two batches of load_inline builds, about 50 s each alone, and a fresh Python process
per KernelBench sample), so, unless --kb-count says, they cover the candidates an
estimate says fit in what the budget leaves after kbv's .cu rows, smallest inputs
first; the plan is printed.
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
NAME_RE = re.compile(r"level_(\d+)_problem_(\d+)_sample_(\d+)(_kernel)?\.(cu|c|py)$")
# run directories of examples/runs/ that the default list leaves out, and why
NOT_DEFAULT = {
    "demo-bf16": "bfloat16 kernels, for --precision bf16 runs",
    "demo-l2-vendor": "cuBLAS/cuDNN kernels: kbv eval --allow-vendor-libs, and load_inline would "
                      "need the libraries linked",
    "demo-kernelbench": "KernelBench-format files (the CPU run's --kb-format-candidates)",
}
# what one KernelBench-format sample costs, for the plan (H200 host, 16 cores: one
# load_inline build alone, its CPU time over its compiler processes, a KernelBench sample's
# fresh process with its extension built, plus its CPU draws: six sets of inputs, about
# 2.5 ns an element each; a kbv evaluation of the file)
EST_BUILD_S, EST_BUILD_CPU_S, EST_KB_EVAL_S, EST_KB_DRAW_S, EST_KBV_PY_S = 50.0, 70.0, 6.0, 2.5e-9, 3.0


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
            raise ValueError(f"{path}: not a level_L_problem_P_sample_S .cu, .c or _kernel.py file")
        self.src = os.path.abspath(path)
        self.model = os.path.basename(os.path.dirname(self.src))
        self.level, self.problem_id, self.sample = int(m.group(1)), int(m.group(2)), int(m.group(3))
        self.key = f"L{self.level}/{self.problem_id}"
        self.name = f"{self.model}/{os.path.basename(path)}"
        # the kernel, whatever its file: a .cu and the KernelBench-format file made of it
        self.kernel = f"{self.model}/level_{self.level}_problem_{self.problem_id}_sample_{self.sample}"
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
    r = {"config": config, "candidate": cand.name, "kernel": cand.kernel, "problem": cand.key,
         "status": status,
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


def kb_rows_of(config, cand, result_path, rc, wall, share=0.0):
    """A KernelBench sample's row: its process's wall time, plus `share` of a batch build
    (in the compile column)."""
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
    phases["compile"] += share
    reused = res.get("extensions_reused")
    cached = "" if reused is None else "reused" if reused and all(r for _, r in reused) else "rebuilt"
    r = row(config, cand, "ok", verdict, other=0.0, total=wall + share, compile_cached=cached, **phases)
    r["build_share"] = share
    return r


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


def kb_sources(a, cands, refs, budget, env, runs):
    """KernelBench-format files made from .cu candidates (`kernelbench_eval.py sources`,
    one process): runs/<model>/level_L_problem_P_sample_S_kernel.py."""
    jobs, kb = [], []
    for c in cands:
        cu = os.path.splitext(c.src)[0] + ".cu"   # a .c candidate's GPU twin
        if c.key not in refs or not os.path.exists(cu):
            continue
        k = Candidate(os.path.join(runs, c.model, os.path.basename(c.kernel) + "_kernel.py"))
        k.staged = k.src
        jobs.append({"ref": refs[c.key], "describe": refs[c.key] + ".json", "candidate": cu,
                     "out": k.src})
        kb.append(k)
    path = runs + ".json"
    with open(path, "w") as f:
        json.dump(jobs, f, indent=1)
    log = os.path.join(a.out, "kernelbench.log")
    run([a.python, os.path.join(HERE, "kernelbench_eval.py"), "sources", path, "--include", a.include],
        log, min(budget.left(), 300), env)
    written = [k for k in kb if os.path.exists(k.src)]
    if len(written) < len(kb):
        say(f"== KernelBench-format: {len(kb) - len(written)} sources not written: {tail(log)}")
    return written


def kb_format_files(a, cands, refs, budget, env):
    """The KernelBench-format files both evaluators take, in OUT/kb-runs/<model>/: on a GPU
    made from the .cu candidates, on the CPU the --kb-format-candidates as they are (the .cu
    twins' files are written aside, OUT/kb-sources-gpu/, and only parsed: a check of the
    wrapping). Smallest inputs first."""
    runs = os.path.join(a.out, "kb-runs")
    shutil.rmtree(runs, ignore_errors=True)
    if a.kb_format_candidates:
        kb = [Candidate(p) for p in a.kb_format_candidates]
        stage(kb, runs)
        if a.device == "cpu":
            aside = os.path.join(a.out, "kb-sources-gpu")
            shutil.rmtree(aside, ignore_errors=True)
            twins = kb_sources(a, cands, refs, budget, env, aside)
            for t in twins:
                with open(t.src) as f:
                    compile(f.read(), t.src, "exec")   # a SyntaxError stops the run: the wrapping broke
            say(f"== KernelBench-format: {len(twins)}/{len(cands)} sources of the .cu twins written "
                f"to {aside} and parsed (no GPU: not built)")
    else:
        kb = kb_sources(a, cands, refs, budget, env, runs)
    return sorted(kb, key=lambda k: input_elements(refs[k.key]) if k.key in refs else float("inf"))


def plan_kb_count(a, kb, refs, left, cores, kbv_rows, kb_rows=True):
    """How many of the KernelBench-format candidates kb (smallest inputs first) the budget
    left holds: a batch of builds per evaluator (the longer of one build alone and the
    batch's CPU time over the cores), a fresh process per KernelBench sample with its CPU
    draws, two kbv evaluations per file; a tenth kept aside."""
    def cost(k):
        build = max(EST_BUILD_S, k * EST_BUILD_CPU_S / max(1, cores)) if k else 0.0
        draws = sum(6 * EST_KB_DRAW_S * input_elements(refs[c.key]) for c in kb[:k] if c.key in refs)
        kb_side = build + k * EST_KB_EVAL_S + draws if kb_rows else 0.0
        return kb_side + (build + 2 * k * EST_KBV_PY_S if kbv_rows else 0.0)
    if a.kb_count is not None:
        return min(len(kb), a.kb_count), cost(min(len(kb), a.kb_count))
    k = len(kb)
    while k > 0 and cost(k) > 0.9 * left:
        k -= 1
    return k, cost(k)


def kb_batch(a, kb, refs, budget, env, workers):
    """KernelBench with build_cache: batch_compile over `workers` processes, then each
    sample in a fresh process, its extension built; the build's wall time shared over the
    batch. On the CPU the evaluation is kernelbench_eval.py's dry run (--cpu): KernelBench
    itself evaluates on CUDA alone."""
    config = f"KernelBench, batch build ({workers} workers)"
    cache = os.path.join(a.out, "kb-cache")   # kernel_eval_build_dir/<run>/<problem>/<sample>
    shutil.rmtree(cache, ignore_errors=True)
    jobs = []
    for k in kb:
        k.build_dir = os.path.join(cache, k.model, str(k.problem_id), str(k.sample))
        jobs.append({"kernel": k.staged, "build_dir": k.build_dir})
    path = os.path.join(a.out, "kb-build.json")
    with open(path, "w") as f:
        json.dump(jobs, f, indent=1)
    result = os.path.join(a.out, "kb-build.result.json")
    log = os.path.join(a.out, "kernelbench.log")
    rc, wall = run([a.python, os.path.join(HERE, "kernelbench_eval.py"), "build", path,
                    "--workers", str(workers), "--out", result], log, min(budget.left(), a.kb_timeout), env)
    try:
        with open(result) as f:
            built = {r["kernel"]: r for r in json.load(f)["results"]}
    except (OSError, ValueError, KeyError):
        built = {}
    n_ok = sum(r["compiled"] for r in built.values())
    say(f"== {config}: {n_ok}/{len(kb)} built in {wall:.1f} s"
        + ("" if rc == 0 else f" ({'timed out' if rc is None else f'exit {rc}'}: {tail(log)})"))
    for r in built.values():
        if not r["compiled"]:
            say(f"   build failed: {r['kernel']}: {r['error'].strip().splitlines()[-1:]}")
    a.kb_build = (wall, len(kb), n_ok, rc)
    share = wall / len(kb) if kb and rc is not None else None
    rows = []
    for k in kb:
        b = built.get(k.staged)
        if b is None:
            rows.append(row(config, k, "not built (the batch did not finish)"))
            continue
        if not b["compiled"]:
            rows.append(row(config, k, "compile failed in the batch build"))
            continue
        if k.key not in refs or budget.left() < a.kb_min_left:
            rows.append(row(config, k, "no reference" if k.key not in refs else "not run (budget spent)"))
            continue
        out = os.path.join(a.out, "kernelbench", f"batch-{k.model}-{os.path.basename(k.src)}.json")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [a.python, os.path.join(HERE, "kernelbench_eval.py"), "eval", "--ref", refs[k.key],
               "--kernel", k.staged, "--build-dir", k.build_dir, "--reuse-build", "--out", out,
               "--perf-trials", str(a.kb_perf_trials)] + (["--cpu"] if a.device == "cpu" else [])
        rc1, w = run(cmd, log, min(budget.left(), a.kb_timeout), env)
        r = kb_rows_of(config, k, out, rc1, w, share)
        rows.append(r)
        say(f"== {config} {k.name}: {r['status']}" + (f", {w:.1f} s + {share:.1f} s of the build"
                                                      if r["status"] == "ok" else f": {tail(log, 2)}"))
    return rows


def kb_one_at_a_time(a, kb, refs, budget, env, n):
    """The first n samples as KernelBench evaluates them without build_cache: a fresh
    process that builds its own extension in an empty build directory."""
    config = "KernelBench, one at a time"
    rows = []
    log = os.path.join(a.out, "kernelbench.log")
    for i, k in enumerate(kb):
        if i >= n or k.key not in refs or budget.left() < a.kb_min_left:
            if i < n:
                rows.append(row(config, k, "no reference" if k.key not in refs else "not run (budget spent)"))
            continue
        build = os.path.join(a.out, "torch-ext", k.model, str(k.problem_id), str(k.sample))
        shutil.rmtree(build, ignore_errors=True)
        os.makedirs(build)
        out = os.path.join(a.out, "kernelbench", f"single-{k.model}-{os.path.basename(k.src)}.json")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        cmd = [a.python, os.path.join(HERE, "kernelbench_eval.py"), "eval", "--ref", refs[k.key],
               "--kernel", k.staged, "--build-dir", build, "--out", out,
               "--perf-trials", str(a.kb_perf_trials)]
        rc, w = run(cmd, log, min(budget.left(), a.kb_timeout), env)
        r = kb_rows_of(config, k, out, rc, w)
        rows.append(r)
        say(f"== {config} {k.name}: {r['status']}" + (f", {w:.1f} s" if r["status"] == "ok" else ""))
    return rows


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
    print(f"{'configuration':38s} {'n':>3s} {'compile':>8s} {'load':>8s} {'baseln':>8s} {'correct':>8s} "
          f"{'timing':>8s} {'audit':>8s} {'other':>8s} {'total':>8s} {'evals/GPU-h':>12s} {'excl.compile':>12s}")
    for cfg in configs:
        m = means[cfg]
        print(f"{cfg:38s} {len(ok[cfg]):3d} " + " ".join(fmt(m[k]) for k in numbers) +
              f" {fmt(per_hour(m['total']), 12, 0)} {fmt(per_hour(m['total'] - m['compile']), 12, 0)}")
    if baselines:
        secs, n, status = baselines
        print(f"kbv baselines ({status}): {secs:.1f} s for {n} problems, once per problem and GPU model "
              f"(cached; not in the rows)")
    ahead = a.compile_ahead and a.kbv_compile_jobs != 0
    print("kbv: one `kbv eval` per row for all its candidates" +
          (", builds compiled ahead on the CPU cores while the GPU evaluates (its compile column "
           "is the wait for a build)" if ahead else ", each build just before its evaluation") +
          "; KernelBench, batch build: every load_inline built first by its worker pool (the "
          "compile column is that step's wall time over the samples), then a fresh process per "
          "sample.")
    for r in all_rows:
        if r["status"] != "ok":
            print(f"  {r['config']}: {r['candidate']}: {r['status']}")

    summary = []
    batch = next((cfg for cfg in configs if cfg.startswith("KernelBench, batch build")), None)
    for k in ("kbv, KernelBench format, cold", "kbv, KernelBench format, warm", "kbv cold", "kbv warm"):
        if k not in ok or not ok[k] or batch is None or not ok[batch]:
            continue
        common = sorted({r["kernel"] for r in ok[k]} & {r["kernel"] for r in ok[batch]})
        if not common:
            summary.append(f"throughput: {k}: no kernel finished under both it and {batch}")
            continue
        # cold against the batch build's whole cost; warm against KernelBench with its
        # builds kept (its evaluation alone: what it costs to evaluate the samples again)
        warm = k.endswith("warm")
        tk = mean([r["total"] for r in ok[k] if r["kernel"] in common])
        tb = mean([r["total"] - (r.get("build_share") or 0.0 if warm else 0.0)
                   for r in ok[batch] if r["kernel"] in common])
        ck = mean([r["total"] - r["compile"] for r in ok[k] if r["kernel"] in common])
        cb = mean([r["total"] - r["compile"] for r in ok[batch] if r["kernel"] in common])
        what = "the same KernelBench-format files" if "KernelBench format" in k else "the same kernels, kbv's own ABI (.cu)"
        against = f"{batch}, its builds kept," if warm else batch
        summary.append(f"throughput: {k}: {tk:.2f} s per verified evaluation ({per_hour(tk):.0f}/GPU-h) "
                       f"against {against} {tb:.2f} s ({per_hour(tb):.0f}/GPU-h): {tb / tk:.1f}x; "
                       f"excluding compile {ck:.2f} s against {cb:.2f} s: {cb / ck:.1f}x "
                       f"(n={len(common)}, {what})")
    if batch is None or not ok.get(batch):
        summary.append("throughput: no comparison with KernelBench's batch build: it did not run "
                       "or no sample finished (see above)")
        for k in ("kbv, KernelBench format, cold", "kbv, KernelBench format, warm"):
            if ok.get(k):
                t = means[k]["total"]
                summary.append(f"throughput: {k}: {t:.2f} s per verified evaluation "
                               f"({per_hour(t):.0f}/GPU-h, n={len(ok[k])})")
    if getattr(a, "kb_build", None):
        wall, n, n_ok, rc = a.kb_build
        summary.append(f"throughput: KernelBench's batch build: {n_ok}/{n} load_inline builds over "
                       f"{a.kb_workers} workers in {wall:.1f} s ({wall / max(1, n):.2f} s per sample)"
                       + ("" if rc == 0 else " (did not finish)"))
    single = "KernelBench, one at a time"
    if ok.get(single) and batch and ok.get(batch):
        common = {r["kernel"] for r in ok[single]} & {r["kernel"] for r in ok[batch]}
        if common:
            ts = mean([r["total"] for r in ok[single] if r["kernel"] in common])
            tb = mean([r["total"] for r in ok[batch] if r["kernel"] in common])
            summary.append(f"throughput: for comparison, KernelBench one sample at a time {ts:.2f} s "
                           f"against its batch build {tb:.2f} s (n={len(common)})")
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

def default_candidates(ext):
    paths = []
    for d in sorted(glob.glob(os.path.join(REPO, "examples", "runs", "*"))):
        if os.path.basename(d) not in NOT_DEFAULT:
            paths += sorted(glob.glob(os.path.join(d, "*" + ext)))
    return paths


def slice_arg(text):
    """I/N for --kb-slice, 1 <= I <= N."""
    try:
        i, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected I/N, e.g. 1/2")
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"{text!r}: I must be between 1 and N")
    return i, n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build", help="directory with kbv, kbv-runner (and lib/)")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda",
                    help="cpu: a dry run on the CPU backend (.c candidates, small sizes; the "
                         "KernelBench-format rows on --kb-format-candidates, KernelBench's "
                         "evaluation as kernelbench_eval.py's CPU dry run)")
    ap.add_argument("--candidates", nargs="*", help="kbv candidate files (default: examples/runs/*/*.cu, "
                    "or *.c with --device cpu, less " + ", ".join(NOT_DEFAULT) + ")")
    ap.add_argument("--kb-format-candidates", nargs="*",
                    help="KernelBench-format files to use as they are instead of those made from "
                         "the .cu candidates (default with --device cpu: the honest files of "
                         "examples/runs/demo-kernelbench, whose load_inline builds C++ alone)")
    ap.add_argument("--out", default=os.path.join(REPO, "out", "throughput"))
    ap.add_argument("--budget", type=float, default=float(os.environ.get("THROUGHPUT_BUDGET", 240)),
                    help="seconds for everything (default 240, or $THROUGHPUT_BUDGET)")
    ap.add_argument("--python", default=sys.executable, help="python with torch, for KernelBench")
    ap.add_argument("--include", default=os.environ.get("KBV_INCLUDE_DIR", os.path.join(REPO, "include")))
    ap.add_argument("--kbv-timeout", type=float, default=300, help="each kbv command, seconds")
    ap.add_argument("--kb-timeout", type=float, default=300,
                    help="KernelBench's batch build and each of its samples, seconds")
    ap.add_argument("--kb-min-left", type=float, default=15,
                    help="start a KernelBench sample only with this many seconds left")
    ap.add_argument("--kb-perf-trials", type=int, default=100)
    ap.add_argument("--kb-workers", type=int,
                    help="KernelBench's num_cpu_workers for its batch build (default: the "
                         "machine's cores); at most that many")
    ap.add_argument("--kb-count", type=int,
                    help="KernelBench-format candidates for their rows (default: as many as the "
                         "budget's estimate holds)")
    ap.add_argument("--kb-slice", type=slice_arg, metavar="I/N",
                    help="only every N-th KernelBench-format candidate from the I-th (of the "
                         "--kb-count chosen, smallest inputs first): a run too long for one time "
                         "limit split into N, joined by --merge")
    ap.add_argument("--kb-one-at-a-time", type=int, default=0, metavar="N",
                    help="also evaluate the first N KernelBench-format samples one at a time, each "
                         "building its own extension (about 60 s each; default 0)")
    ap.add_argument("--kbv-compile-jobs", type=int,
                    help="kbv eval --compile-jobs (default kbv's: compile ahead on every CPU; 0: "
                         "each build just before its evaluation)")
    ap.add_argument("--skip-kernelbench", action="store_true",
                    help="no KernelBench-format rows (neither kbv's nor KernelBench's)")
    ap.add_argument("--skip-all-protocols", action="store_true", help="no 'kbv warm, all protocols' row")
    ap.add_argument("--part", choices=("all", "kbv", "kernelbench"), default="all",
                    help="kbv: kbv's rows alone; kernelbench: KernelBench's alone (two runs, each "
                         "within a time limit, joined by --merge)")
    ap.add_argument("--merge", nargs="+", metavar="DIR",
                    help="no evaluation: the table and summary of the runs in these --out "
                         "directories (their rows.json), written to --out")
    a = ap.parse_args()
    if a.merge:
        return merge(a)
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
    paths = a.candidates or default_candidates(ext)
    cands = [Candidate(p) for p in paths if p.endswith(ext)]
    if not cands:
        say(f"throughput: no {ext} candidates")
        return 1
    if a.kb_format_candidates is None and a.device == "cpu":
        a.kb_format_candidates = sorted(glob.glob(os.path.join(REPO, "examples", "runs", "demo-kernelbench",
                                                               "level_*_sample_0_kernel.py")))
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    a.kb_workers = max(1, min(cores, a.kb_workers or cores))

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
    hosts_python = "kbv-runner hosts the interpreter" in help_text
    if not protocols:
        say("== kbv: this kbv has no --protocols: its rows evaluate all three protocols")
    rows = []

    kbv_part, kb_part = a.part in ("all", "kbv"), a.part in ("all", "kernelbench")
    baselines = None
    if kbv_part:
        keys = sorted({c.key for c in cands} | {Candidate(p).key for p in a.kb_format_candidates or []})
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
        refs = kb_prepare(a, cands + [Candidate(p) for p in a.kb_format_candidates or []], budget, env)
        kb = kb_format_files(a, cands, refs, budget, env)
        if not hosts_python and kbv_part:
            say("== kbv, KernelBench format: skipped: this kbv's runner hosts no Python "
                "(built without libpython3 and PyTorch; kbv eval --help says so)")
        n, est = plan_kb_count(a, kb, refs, budget.left(), cores, hosts_python and kbv_part, kb_part)
        say(f"== KernelBench-format rows: {n} of {len(kb)} candidates (estimated {est:.0f} s of "
            f"{budget.left():.0f} s left" + (", --kb-count" if a.kb_count is not None else "") + ")")
        kb = kb[:n]
        if a.kb_slice:   # every N-th from the I-th: each slice mixes small inputs and large
            i, N = a.kb_slice
            kb = kb[i - 1::N]
            say(f"== KernelBench-format rows: slice {i}/{N}: {len(kb)} candidates")
        if kb:
            if hosts_python and kbv_part:
                # the .cu rows' builds kept aside while the cache is cold for these, then back
                builds = os.path.join(env["KBV_CACHE_DIR"], "build")
                if os.path.isdir(builds):
                    shutil.rmtree(builds + ".cu", ignore_errors=True)
                    os.rename(builds, builds + ".cu")
                kb_dirs = sorted({os.path.dirname(k.staged) for k in kb})
                # only the chosen files: a directory of its own each
                kept = {k.staged for k in kb}
                for d in kb_dirs:
                    for f in os.listdir(d):
                        if os.path.join(d, f) not in kept:
                            os.remove(os.path.join(d, f))
                rows += kbv_eval(a, "kbv, KernelBench format, cold", kb, kb_dirs, protocols, budget,
                                 env, cold=True)
                rows += kbv_eval(a, "kbv, KernelBench format, warm", kb, kb_dirs, protocols, budget,
                                 env, cold=False)
                if os.path.isdir(builds + ".cu"):
                    shutil.rmtree(builds, ignore_errors=True)
                    os.rename(builds + ".cu", builds)
            if kb_part:
                rows += kb_batch(a, kb, refs, budget, env, a.kb_workers)
            if kb_part and a.kb_one_at_a_time and a.device == "cuda":
                rows += kb_one_at_a_time(a, kb, refs, budget, env, a.kb_one_at_a_time)
    # what strict adds, in the time left
    if kbv_part and not a.skip_all_protocols and protocols and budget.left() > 10:
        rows += kbv_eval(a, "kbv warm, all protocols", cands, run_dirs, None, budget, env, cold=False)
    state = {k: getattr(a, k, None) for k in MERGED_STATE}
    with open(os.path.join(a.out, "rows.json"), "w") as f:
        json.dump({"rows": rows, "baselines": baselines, "state": state}, f, indent=1)
    report(rows, baselines, a)
    return 0


MERGED_STATE = ("gpu_name", "device", "compile_ahead", "kbv_compile_jobs", "kb_workers", "kb_build")


def merge(a):
    """One table of several runs (--part kbv and --part kernelbench, say), from their
    rows.json; a run's state (the GPU's name, the batch build) is taken from the first
    that has it."""
    rows, baselines, state = [], None, {}
    for d in a.merge:
        with open(os.path.join(d, "rows.json")) as f:
            part = json.load(f)
        rows += part["rows"]
        baselines = baselines or part["baselines"]
        for k, v in part["state"].items():
            if k != "kb_build" and v is not None and (k not in state or (k == "gpu_name" and state[k] in ("cuda", "cpu"))):
                state[k] = v
        build = part["state"].get("kb_build")
        if build:   # several slices' batch builds add up; the workers are those of the runs that built
            if state.get("kb_build"):
                w, n, n_ok, rc = state["kb_build"]
                build = (w + build[0], n + build[1], n_ok + build[2], rc if rc != 0 else build[3])
            state["kb_build"], state["kb_workers"] = build, part["state"]["kb_workers"]
    for k in MERGED_STATE:
        setattr(a, k, state.get(k))
    a.gpu_name = a.gpu_name or a.device
    a.out = os.path.abspath(a.out)
    os.makedirs(a.out, exist_ok=True)
    report(rows, baselines, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
