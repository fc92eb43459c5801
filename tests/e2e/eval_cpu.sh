#!/usr/bin/env bash
# End-to-end: kbv eval on the CPU backend at small size.
#   - candidates with known verdicts (written here) and the examples' C candidates
#   - records and verdicts checked field by field
#   - a run killed with SIGKILL midway, plus a torn last line, then resumed:
#     every sample recorded exactly once, nothing written before the kill lost
# usage: tests/e2e/eval_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: eval_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_eval.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_RUNNER="$BUILD/kbv-runner"
bg_pid=

cleanup() {
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -9 "$bg_pid"; fi
    if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

# ---- candidates with known verdicts (L1/19, ReLU) ----------------------------
KNOWN="$TMP/runs/e2e-known"
mkdir -p "$KNOWN"
relu_body() { # relu_body EXTRA_BEFORE_LOOP LOOP_END EXTRA_AFTER_LOOP
cat <<C
#include <kbv/candidate.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    float *x = inputs[0].data; float *y = outputs[0].data;
    $1
    for (int64_t i = 0; i < $2; i++) y[i] = x[i] > 0 ? x[i] : 0;
    $3
    return 0;
}
C
}
relu_body "" "n" "" > "$KNOWN/level_1_problem_19_sample_0.c"                       # correct
relu_body "" "n" "for (int64_t i = 0; i < n; i++) y[i] = x[i];" \
    > "$KNOWN/level_1_problem_19_sample_1.c"                                     # identity
relu_body "" "n - 17" "" > "$KNOWN/level_1_problem_19_sample_2.c"                  # 17 unwritten
relu_body "if (x[0] < 0) { volatile int *p = 0; *p = 1; }" "n" "" \
    > "$KNOWN/level_1_problem_19_sample_3.c"                                     # crashes on D4
relu_body "" "n" "x[0] = 0;" > "$KNOWN/level_1_problem_19_sample_4.c"              # writes its input
printf '#include <kbv/candidate.h>\nint kbv_forward(void) { return nope; }\n' \
    > "$KNOWN/level_1_problem_19_sample_5.c"                                     # does not compile
echo "notes" > "$KNOWN/README.txt"                                               # ignored
relu_body "" "n" "" > "$KNOWN/level_1_problem_19_sample_6.cu"                      # GPU file: skipped

# ---- the examples' C candidates, one model per directory ---------------------
n_examples=0
for dir in "$SRC"/examples/runs/*/; do
    [ -d "$dir" ] || continue
    files=$(ls "$dir"*.c 2>/dev/null) || continue
    model=$(basename "$dir")
    mkdir -p "$TMP/runs/$model"
    cp $files "$TMP/runs/$model/"
    n_examples=$((n_examples + $(echo "$files" | wc -l)))
done
# ---- a problem whose hidden configs differ from D1-D4 (L1/98: no D4) ------------
CONFIGS="$TMP/runs/e2e-configs"
mkdir -p "$CONFIGS"
cat > "$CONFIGS/level_1_problem_98_sample_0.c" <<'C'
#include <kbv/candidate.h>
#include <math.h>
/* kl_div(log(p), t, reduction='batchmean'): sum of t (log t - log p) over batch_size */
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *p = inputs[0].data, *t = inputs[1].data;
    double acc = 0;
    for (int64_t i = 0; i < n; i++)
        acc += t[i] == 0 ? 0.0 : (double)t[i] * ((double)logf(t[i]) - (double)logf(p[i]));
    *(float *)outputs[0].data = (float)(acc / (double)inputs[0].shape[0]);
    return 0;
}
C
n_examples=$((n_examples + 1))
echo "# $n_examples example candidates, 7 known ones"

# ---- one full run --------------------------------------------------------------
OUT="$TMP/results.jsonl"
"$KBV" eval "$TMP"/runs/* --out "$OUT" --device cpu --size small --seed 1 \
    >"$TMP/eval1.out" 2>"$TMP/eval1.err"
rc=$?
check "kbv eval exits 0" test "$rc" -eq 0
check "every candidate has one record" python3 - "$OUT" $((n_examples + 6)) <<'PY'
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
assert len(recs) == int(sys.argv[2]), (len(recs), sys.argv[2])
keys = collections.Counter((r["model"], r["problem"], r["sample"]) for r in recs)
assert max(keys.values()) == 1, keys
for r in recs:
    assert r["schema"] == 1 and r["device"] == "cpu" and r["size"] == "small" and r["seed"] == 1
    assert len(r["source_sha256"]) == 64
    assert set(r["protocols"]) == {"standard", "verified", "strict"}
PY
check "phase_s: every phase present, non-negative, summing to at most the total" \
    python3 - "$OUT" <<'PY'
import json, sys
phases = ("compile", "load", "baselines", "correctness", "timing", "audit")
for l in open(sys.argv[1]):
    if not l.strip():
        continue
    r = json.loads(l)
    ph = r["phase_s"]
    assert set(ph) == set(phases) | {"total"}, ph
    assert all(ph[k] is not None and ph[k] >= 0 for k in ph), (r["file"], ph)
    assert sum(ph[k] for k in phases) <= ph["total"] + 1e-6, (r["file"], ph)
    assert ph["total"] > 0, (r["file"], ph)
    if r["compile"]["ok"] and r["fault"] is None:   # ran: loaded, judged, audited
        assert ph["load"] > 0 and ph["correctness"] > 0 and ph["audit"] > 0, (r["file"], ph)
PY
check "progress: one line per sample, .cu and README noted" python3 - "$TMP/eval1.err" $((n_examples + 6)) <<'PY'
import sys
err = open(sys.argv[1]).read()
lines = [l for l in err.splitlines() if l.startswith("[")]
assert len(lines) == int(sys.argv[2]), lines
assert "skipping 1 .cu file" in err and "README.txt" in err, err
PY

verdicts() { # verdicts SAMPLE PYTHON-ASSERTIONS (r: the record, p: its protocols)
python3 - "$OUT" "$1" "$2" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = [x for x in recs if x["model"] == "e2e-known" and x["sample"] == int(sys.argv[2])][0]
p = r["protocols"]; s, v, t = p["standard"], p["verified"], p["strict"]
ok = eval("(" + sys.argv[3] + ")")
if not ok:
    print(json.dumps(r, indent=1)[:3000]); sys.exit(1)
PY
}
check "correct ReLU passes all three, timed, 13 draws" verdicts 0 \
    's["correct"] and v["correct"] and t["correct"] and len(r["draws"]) == 13
     and all(d["std_pass"] and d["strict_pass"] for d in r["draws"])
     and s["t_kernel_ms"] > 0 and t["t_kernel_ms"] > 0 and t["t_kernel_iqr_ms"] is not None
     and s["speedup"] == s["t_baseline_ms"] / s["t_kernel_ms"]
     and r["fault"] is None and t["mem_kernel_bytes"] > 0 and t["mem_baseline_bytes"] > 0
     and r["compile"]["ok"]'
check "identity: standard passes, verified fails at D4" verdicts 1 \
    's["correct"] and not v["correct"] and v["reason"].startswith("D4: ")
     and "outside atol/rtol 1e-3" in v["reason"] and not t["correct"] and v["draws_passed"] == 8
     and s["t_kernel_ms"] > 0 and v["t_kernel_ms"] > 0'
check "unwritten elements fail every protocol" verdicts 2 \
    'not s["correct"] and "17 never written" in s["reason"]
     and t["reason"] == "base#0: output not fully written: 17 elements"
     and r["draws"][0]["poison_left"] == 17 and s["t_kernel_ms"] is None'
check "crash on D4: recorded, standard kept and timed after a restart" verdicts 3 \
    's["correct"] and s["t_kernel_ms"] > 0 and not v["correct"] and not t["correct"]
     and "SIGSEGV" in v["reason"] and v["reason"].endswith("during D4")
     and r["fault"]["kind"] == "crash" and len(r["draws"]) == 8'
check "writing an input fails strict only" verdicts 4 \
    's["correct"] and v["correct"] and not t["correct"]
     and t["reason"] == "base#0: input '"'"'x'"'"' modified"'
check "compile error: recorded with its log" verdicts 5 \
    'not r["compile"]["ok"] and "error" in r["compile"]["log"]
     and s["reason"].startswith("compile error:") and not t["correct"] and r["draws"] == []'

config_record() { # config_record MODEL PROBLEM PYTHON-ASSERTIONS (r: the record, v: verified)
python3 - "$OUT" "$1" "$2" "$3" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = [x for x in recs if x["model"] == sys.argv[2] and x["problem"] == sys.argv[3]][0]
v = r["protocols"]["verified"]
labels = [d["dist"] for d in r["draws"]]
if not eval("(" + sys.argv[4] + ")"):
    print(json.dumps(r, indent=1)[:3000]); sys.exit(1)
PY
}
check "L1/98: no D4 (listed as dropped, with the paper's reason), 12 draws, verified passes" \
    config_record e2e-configs L1/98 \
    'v["correct"] and r["protocols"]["standard"]["correct"] and len(r["draws"]) == 12
     and "D4" not in labels and labels[5:8] == ["D1", "D2", "D3"] and v["draws_total"] == 8
     and [d["config"] for d in r["configs_dropped"]] == ["D4"]
     and "NaN" in r["configs_dropped"][0]["reason"]'
check "L1/100: the fifth config H5 judged by verified, 14 draws" \
    config_record demo-c L1/100 \
    'v["correct"] and len(r["draws"]) == 14 and labels[5:10] == ["D1", "D2", "D3", "D4", "H5"]
     and v["draws_total"] == 10 and r["draws"][9]["std_pass"] and "configs_dropped" not in r'

SUMMARY="$OUT.summary.json"
check "summary JSON: a group per model, known model's numbers" python3 - "$SUMMARY" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
g = [x for x in s["groups"] if x["model"] == "e2e-known" and x["level"] == "all"][0]
assert g["problems"] == 1 and g["samples"] == 6, g
assert g["standard"]["correct_pct"] == 100.0 and g["strict"]["correct_pct"] == 100.0, g
assert g["standard"]["fast_pct"]["1"] in (0.0, 100.0)
assert s["device"] == "cpu" and s["size"] == "small"
PY
check "terminal table: a row per model" python3 - "$TMP/eval1.out" "$TMP/runs" <<'PY'
import os, sys
out = open(sys.argv[1]).read()
for model in os.listdir(sys.argv[2]):
    assert any(l.startswith(model[:24]) for l in out.splitlines()), (model, out)
assert "standard (vs fp32)" in out and "strict (vs tf32)" in out
PY

# ---- --protocols verified: strict's work skipped, recorded as not evaluated ---------
OUTV="$TMP/verified.jsonl"
"$KBV" eval "$KNOWN" --out "$OUTV" --device cpu --size small --seed 1 --protocols verified \
    >/dev/null 2>"$TMP/evalv.err"
check "--protocols verified exits 0" test $? -eq 0
check "--protocols verified: 9 draws, no strict or standard verdict, same verified verdicts, draws judged by allclose alone" \
    python3 - "$OUTV" "$OUT" <<'PY'
import json, sys
recs = {r["sample"]: r for r in map(json.loads, open(sys.argv[1])) if r}
full = {r["sample"]: r for r in map(json.loads, open(sys.argv[2]))
        if r["model"] == "e2e-known"}
assert sorted(recs) == sorted(full), (sorted(recs), sorted(full))
for k, r in recs.items():
    p = r["protocols"]
    assert p["strict"]["evaluated"] is False and p["standard"]["evaluated"] is False, p
    assert "evaluated" not in p["verified"], p
    assert p["strict"]["t_kernel_ms"] is None and not p["strict"]["correct"]
    assert p["verified"]["correct"] == full[k]["protocols"]["verified"]["correct"], k
    assert len(r["draws"]) <= 9 and all(d["dist"] not in ("D5", "D6", "D7", "D8")
                                        for d in r["draws"]), r["draws"]
assert len(recs[0]["draws"]) == 9 and recs[0]["protocols"]["verified"]["t_kernel_ms"] > 0
# strict's references (the float64 oracle) were not computed: no strict judgement of any
# draw, the allclose judgement of each the same as with every protocol (same seed, same draws)
for k, r in recs.items():
    fd = {d["dist"]: d for d in full[k]["draws"]}
    for d in r["draws"]:
        assert d["strict_pass"] is None and d["rel_l2"] is None and d["max_err"] is None, d
        assert d["unjudged"] == 0 and d["oracle_nonfinite"] == 0, d
        f = fd[d["dist"]]
        assert isinstance(f["strict_pass"], bool) and f["budget_rel_l2"] is not None, f
        assert d["std_pass"] == f["std_pass"], (k, d, f)
        assert d["allclose_fail"] == f["allclose_fail"], (k, d, f)
PY
"$KBV" eval "$KNOWN" --out "$OUTV" --device cpu --size small --protocols verified \
    >/dev/null 2>"$TMP/evalv2.err"
check "a verified rerun resumes every sample" \
    grep -q "^kbv eval: 6 candidates: 0 evaluated, 0 could not be evaluated, 6 resumed$" \
    "$TMP/evalv2.err"
"$KBV" eval "$KNOWN" --out "$OUTV" --device cpu --size small --protocols standard,verified \
    >/dev/null 2>"$TMP/evalv3.err"
check "adding a protocol evaluates every sample again" \
    grep -q "^kbv eval: 6 candidates: 6 evaluated, 0 could not be evaluated, 0 resumed$" \
    "$TMP/evalv3.err"
"$KBV" eval "$KNOWN" --out "$OUTV" --device cpu --protocols verified,fast >/dev/null 2>&1
check "an unknown protocol is a usage error (2)" test $? -eq 2

# ---- resume: nothing new --------------------------------------------------------
"$KBV" eval "$TMP"/runs/* --out "$OUT" --device cpu --size small \
    >"$TMP/eval2.out" 2>"$TMP/eval2.err"
check "a rerun evaluates nothing and exits 0" grep -q "0 evaluated" "$TMP/eval2.err"
check "a rerun adds no record" test "$(grep -c . "$OUT")" -eq $((n_examples + 6))

# ---- killed midway, torn line, resumed ---------------------------------------------
# Correct but deliberately slow candidates (busy work in every call), so the
# run is still going when it is killed.
SLOW="$TMP/slow/e2e-slow"
mkdir -p "$SLOW"
for i in 0 1 2 3; do
    relu_body "for (volatile long k = 0; k < 20000000; k++) {}" "n" "/* sample $i */" \
        > "$SLOW/level_1_problem_19_sample_$i.c"
done
OUT2="$TMP/killed.jsonl"
"$KBV" eval "$SLOW" --out "$OUT2" --device cpu --size small --seed 2 \
    >/dev/null 2>"$TMP/kill.err" &
bg_pid=$!
for _ in $(seq 1 1200); do
    [ -s "$OUT2" ] && break
    kill -0 "$bg_pid" 2>/dev/null || break
    sleep 0.1
done
if kill -0 "$bg_pid" 2>/dev/null; then
    kill -9 "$bg_pid"
    wait "$bg_pid" 2>/dev/null
    ok "run killed with SIGKILL midway"
else
    wait "$bg_pid"
    not_ok "run killed with SIGKILL midway" "it ended before it could be killed: $(cat "$TMP/kill.err")"
fi
bg_pid=
before=$(grep -c . "$OUT2")
cp "$OUT2" "$TMP/before_kill.jsonl"
# a record cut mid-write
printf '{"schema":1,"model":"e2e-slow","problem":"L1/19","sample":3,"fi' >> "$OUT2"
"$KBV" eval "$SLOW" --out "$OUT2" --device cpu --size small --seed 3 \
    >/dev/null 2>"$TMP/resume.err"
rc=$?
check "the resumed run exits 0" test "$rc" -eq 0
check "the torn line is reported" grep -q "torn" "$TMP/resume.err"
check "after resume: every sample exactly once and correct, earlier records intact" \
    python3 - "$OUT2" "$TMP/before_kill.jsonl" "$before" <<'PY'
import json, sys, collections
text = open(sys.argv[1]).read()
recs, bad = [], 0
for l in text.split("\n"):
    if not l.strip():
        continue
    try:
        recs.append(json.loads(l))
    except ValueError:
        bad += 1
assert bad == 1, bad                        # the torn fragment, closed by a newline
keys = collections.Counter(r["sample"] for r in recs)
assert sorted(keys) == list(range(4)) and max(keys.values()) == 1, keys
assert all(r["protocols"]["strict"]["correct"] for r in recs)
assert text.startswith(open(sys.argv[2]).read())   # nothing rewritten
before = int(sys.argv[3])
seeds = collections.Counter(r["seed"] for r in recs)
assert 1 <= before < 4 and seeds[2] == before and seeds[3] == 4 - before, (before, seeds)
PY

# ---- usage errors ------------------------------------------------------------------
"$KBV" eval "$KNOWN" >/dev/null 2>&1
check "eval without --out is a usage error (2)" test $? -eq 2
"$KBV" eval "$TMP/no-such-dir" --out "$TMP/x.jsonl" --device cpu >/dev/null 2>"$TMP/nodir.err"
rc=$?
check "an unreadable run directory is a clear error (1)" \
    bash -c "test $rc -eq 1 && grep -q 'cannot read run directory' '$TMP/nodir.err'"
"$KBV" eval --help | grep -q -- "--summary"
check "eval --help documents --summary" test $? -eq 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
