#!/usr/bin/env bash
# End-to-end: the bf16 precision (kbv eval --precision bf16, the paper's BF16
# appendix) on the CPU backend at small size:
#   - the bf16 examples (examples/runs/demo-bf16) pass all three protocols, every
#     record says bf16, every protocol's baseline is the bf16 one
#   - the tolerance is allclose 1e-2: a ReLU one bf16 step off (0.8%) passes,
#     one 3% off fails with "atol/rtol 1e-2"
#   - fp32-only candidates (demo-a, demo-b) given bf16 buffers fail cleanly:
#     every one recorded, verified and strict failed with a reason, kbv exits 0
#   - the bf16 candidates in an fp32 run fail cleanly too (they refuse float32)
#   - resume: the same precision resumes, the other evaluates again; the
#     summary counts this run's precision; kbv report tables "MODEL @bf16"
#     beside the fp32 rows; kbv check --precision bf16 says bf16
# usage: tests/e2e/bf16_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: bf16_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_bf16.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_RUNNER="$BUILD/kbv-runner"
export KBV_INCLUDE_DIR="$SRC/include"
cleanup() { if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

mkdir -p "$TMP/runs/demo-bf16" "$TMP/runs/fp32-only" "$TMP/runs/tol"
cp "$SRC"/examples/runs/demo-bf16/*.c "$TMP/runs/demo-bf16/"
cp "$SRC"/examples/runs/demo-a/*.c "$TMP/runs/fp32-only/"
cp "$SRC"/examples/runs/demo-b/level_1_problem_21_sample_0.c "$TMP/runs/fp32-only/"

# ReLU on bf16 that scales every output by FACTOR, rounded to bf16: sample 0
# one bf16 step at 1 (x 1.0078125), sample 1 3% off.
tol_relu() { # tol_relu SAMPLE FACTOR
cat > "$TMP/runs/tol/level_1_problem_19_sample_$1.c" <<C
#include <kbv/candidate.h>
#include <string.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    if (inputs[0].dtype != KBV_BF16) return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const uint16_t *x = inputs[0].data; uint16_t *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        uint32_t b = (uint32_t)x[i] << 16; float f; memcpy(&f, &b, 4);
        f = f > 0 ? f * $2f : 0.0f;
        memcpy(&b, &f, 4); b += 0x7FFFu + ((b >> 16) & 1u);
        y[i] = (uint16_t)(b >> 16);
    }
    return 0;
}
C
}
tol_relu 0 1.0078125
tol_relu 1 1.03

OUT="$TMP/bf16.jsonl"
"$KBV" eval "$TMP/runs/demo-bf16" "$TMP/runs/fp32-only" "$TMP/runs/tol" --out "$OUT" \
    --device cpu --size small --seed 11 --precision bf16 >"$TMP/eval.out" 2>"$TMP/eval.err"
rc=$?
check "kbv eval --precision bf16 exits 0" test "$rc" -eq 0
tail -n 3 "$TMP/eval.err" | sed 's/^/# /'

check "the bf16 examples pass every protocol against the bf16 baselines" python3 - "$OUT" <<'PY'
import json, math, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mine = [r for r in recs if r["model"] == "demo-bf16"]
assert len(mine) == 5, len(mine)
for r in mine:
    assert r["precision"] == "bf16", r["precision"]
    for p in ("standard", "verified", "strict"):
        x = r["protocols"][p]
        assert x["correct"], (r["problem"], p, x["reason"])
        assert x["t_baseline_ms"] and x["t_baseline_ms"] > 0, (r["problem"], p)
        assert x["mem_baseline_bytes"] and x["mem_baseline_bytes"] > 0
    assert r["protocols"]["strict"]["t_fp32_strict_ms"] is None   # no fp32-strict in bf16
    assert len(r["draws"]) == 13, (r["problem"], len(r["draws"]))
    # the three protocols' baselines are one measurement: the bf16 one
    s, v = r["protocols"]["standard"], r["protocols"]["verified"]
    assert s["t_baseline_ms"] == v["t_baseline_ms"], (s["t_baseline_ms"], v["t_baseline_ms"])
PY

check "tolerance 1e-2: one bf16 step passes, 3% fails" python3 - "$OUT" <<'PY'
import json, sys
recs = {r["sample"]: r for r in map(json.loads, open(sys.argv[1])) if r["model"] == "tol"}
near, far = recs[0]["protocols"], recs[1]["protocols"]
assert near["standard"]["correct"] and near["verified"]["correct"], near["standard"]["reason"]
assert not far["standard"]["correct"], far["standard"]
assert "outside atol/rtol 1e-2" in far["standard"]["reason"], far["standard"]["reason"]
# strict: 0.8% relative error is far over 8x the exact bf16 ReLU's floor (1e-5)
assert not near["strict"]["correct"] and "rel L2 error" in near["strict"]["reason"], near["strict"]
PY

check "fp32-only candidates on bf16 buffers fail cleanly" python3 - "$OUT" <<'PY'
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1])) if r["model"] == "fp32-only"]
assert sorted(r["problem"] for r in recs) == ["L1/1", "L1/19", "L1/21", "L1/23"], recs
for r in recs:
    assert r["compile"]["ok"], r["problem"]
    for p in ("verified", "strict"):
        assert not r["protocols"][p]["correct"] and r["protocols"][p]["reason"], (r["problem"], p)
    # ReLU's bytes pass through an fp32 ReLU unchanged where the inputs are in [0, 1):
    # standard's draws cannot tell; every other one fails standard too
    if r["problem"] != "L1/19":
        assert not r["protocols"]["standard"]["correct"], r["problem"]
PY

check "the summary and the table are the bf16 run's" python3 - "$OUT.summary.json" "$TMP/eval.out" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["precision"] == "bf16", s["precision"]
g = [x for x in s["groups"] if x["model"] == "demo-bf16 @bf16" and x["level"] == "all"]
assert g and g[0]["precision"] == "bf16" and g[0]["standard"]["baseline"] == "bf16", g
assert g[0]["strict"]["correct_pct"] == 100.0, g[0]["strict"]
out = open(sys.argv[2]).read()
assert "precision bf16" in out and "strict (vs bf16)" in out, out[:400]
PY

# the same precision resumes; fp32 is another run of the same files
"$KBV" eval "$TMP/runs/demo-bf16" --out "$OUT" --device cpu --size small --seed 11 \
    --precision bf16 >/dev/null 2>"$TMP/resume.err"
check "a bf16 rerun resumes" grep -q "5 already recorded" "$TMP/resume.err"
"$KBV" eval "$TMP/runs/demo-bf16" --out "$OUT" --device cpu --size small --seed 11 \
    >"$TMP/fp32.out" 2>"$TMP/fp32.err"
rc=$?
check "an fp32 run of the bf16 candidates exits 0 and evaluates them again" \
    bash -c "[ $rc -eq 0 ] && grep -q '5 to evaluate' '$TMP/fp32.err'"
check "bf16 candidates refuse float32 buffers: every protocol failed, returned non-zero" \
    python3 - "$OUT" <<'PY'
import json, sys
recs = [r for r in map(json.loads, open(sys.argv[1]))
        if r["model"] == "demo-bf16" and r["precision"] == "fp32"]
assert len(recs) == 5, len(recs)
for r in recs:
    for p in ("standard", "verified", "strict"):
        x = r["protocols"][p]
        assert not x["correct"] and "returned 1" in x["reason"], (r["problem"], p, x["reason"])
PY
check "the fp32 run's summary counts its own records" python3 - "$OUT.summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert s["precision"] == "fp32" and s["records"] == 5, (s["precision"], s["records"])
PY

"$KBV" report "$OUT" --out "$TMP/report" >"$TMP/report.out" 2>&1
check "kbv report tables the bf16 rows beside the fp32 ones" python3 - "$TMP/report" <<'PY'
import json, os, sys
md = open(os.path.join(sys.argv[1], "tables.md")).read()
assert "precision: mixed" in md and "demo-bf16 @bf16" in md and "| demo-bf16 |" in md, md[:600]
assert "tf32; @bf16 rows bf16" in md, md[:900]
PY

"$KBV" check L1/23 "$SRC/examples/runs/demo-bf16/level_1_problem_23_sample_0.c" --device cpu \
    --size small --seed 3 --precision bf16 --json >"$TMP/check.json" 2>"$TMP/check.err"
check "kbv check --precision bf16" python3 - "$TMP/check.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["precision"] == "bf16" and all(r["protocols"][p]["correct"] for p in r["protocols"]), r
PY
check "kbv audit refuses --precision bf16" bash -c "! '$KBV' audit --precision bf16 >/dev/null 2>&1"
check "an unknown precision is a usage error" \
    bash -c "'$KBV' eval '$TMP/runs/tol' --out '$TMP/x.jsonl' --precision fp16 2>&1 | grep -q 'fp32 or bf16'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
