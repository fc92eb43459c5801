#!/usr/bin/env bash
# End-to-end: the verified protocol's two gates (kbv eval --gate) on the CPU
# backend at small size, on ReLU candidates (L1/19) built to tell them apart:
#   exact          right everywhere: verified passes under both
#   near           +5e-4 on every output (fails allclose 1e-4, passes 1e-3),
#                  the identity on negative inputs (wrong on D4): the text's
#                  gate fails it on D4; the leaderboard's promotes it without
#                  judging D1-D4 (flag leaderboard-promoted)
#   near_crash     +5e-4, and crashes on negative inputs (D4): promoted too --
#                  the paper's harness never ran the hidden configs of a sample
#                  that failed its standard draws
#   d4_wrong       exact on [0, 1), the identity on negative inputs: passes
#                  the standard draws at 1e-4, so D4 is judged and fails it
#   off            +2e-3: fails the standard protocol, so verified under both
#   near_nan       +5e-4, and a NaN in the first output of one base draw: the
#                  standard protocol fails it, and verified needs its pass
# Then: every record names its gate; a rerun with the other gate evaluates
# again, one with the same gate resumes; the summary counts one gate.
# usage: tests/e2e/verified_gate_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: verified_gate_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_gate.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_RUNNER="$BUILD/kbv-runner"
export KBV_INCLUDE_DIR="$SRC/include"
cleanup() { if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

relu() { # relu MODEL POSITIVE NEGATIVE [EXTRA]: y = POSITIVE for x >= 0, else NEGATIVE
mkdir -p "$TMP/runs/$1"
cat > "$TMP/runs/$1/level_1_problem_19_sample_0.c" <<C
#include <kbv/candidate.h>
#include <math.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = inputs[0].data; float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) {
        float v = x[i];
        y[i] = v >= 0 ? $2 : $3;
    }
    ${4:-}
    return 0;
}
C
}
relu exact "v" "0.0f"
relu near "v + 5e-4f" "v"
relu near_crash "v + 5e-4f" "(*(volatile int *)0 = 1, v)"
relu d4_wrong "v" "v"
relu off "v + 2e-3f" "0.0f"
# NaN once: on the first draw whose first input is below 0.5 (a base draw, D1-D3)
relu near_nan "v + 5e-4f" "0.0f" "static int done; if (!done && x[0] >= 0 && x[0] < 0.5f) { done = 1; y[0] = NAN; }"

OUT="$TMP/results.jsonl"
run() { "$KBV" eval "$TMP"/runs/* --out "$OUT" --device cpu --size small --seed 5 "$@" \
        > "$TMP/eval.out" 2> "$TMP/eval.err"; }

# expect GATE MODEL STANDARD VERIFIED [FLAG]: the record of MODEL under GATE
expect() {
python3 - "$OUT" "$@" <<'PY'
import json, sys
path, gate, model, std, ver = sys.argv[1:6]
flag = sys.argv[6] if len(sys.argv) > 6 else None
recs = [json.loads(l) for l in open(path) if l.strip()]
mine = [r for r in recs if r["model"] == model and r.get("gate") == gate]
assert len(mine) == 1, f"{len(mine)} records of {model} under {gate}"
p = mine[0]["protocols"]
got = ("PASS" if p["standard"]["correct"] else "FAIL", "PASS" if p["verified"]["correct"] else "FAIL")
assert got == (std, ver), f"{model} under {gate}: standard/verified {got}, expected {(std, ver)}: " \
    f"{p['verified'].get('reason')}"
flags = p["verified"].get("flags") or []
if flag:
    assert flag in flags, f"no {flag} flag: {flags}"
    assert "hidden configs not judged" in p["verified"].get("advisory", ""), \
        p["verified"].get("advisory")
else:
    assert not flags, f"unexpected flags {flags}"
PY
}

check "kbv eval (gate text, the default)" run
check "exact passes verified under text" expect text exact PASS PASS
check "near fails verified under text (D4)" expect text near PASS FAIL
check "near_crash fails verified under text" expect text near_crash PASS FAIL
check "d4_wrong fails verified under text" expect text d4_wrong PASS FAIL
check "off fails both under text" expect text off FAIL FAIL
check "near_nan fails both under text" expect text near_nan FAIL FAIL
check "the text gate's reasons name D4" \
    python3 -c "import json,sys; r=[json.loads(l) for l in open('$OUT')]; \
assert all('D4' in x['protocols']['verified']['reason'] for x in r if x['model']=='near')"

check "kbv eval --gate leaderboard evaluates again" run --gate leaderboard
check "a rerun evaluated every sample again" grep -q "6 to evaluate, 0 already recorded" "$TMP/eval.err"
check "exact passes verified under leaderboard" expect leaderboard exact PASS PASS
check "near is promoted under leaderboard" expect leaderboard near PASS PASS leaderboard-promoted
check "near_crash is promoted under leaderboard" \
    expect leaderboard near_crash PASS PASS leaderboard-promoted
check "d4_wrong fails verified under leaderboard (D4 judged at 1e-4)" \
    expect leaderboard d4_wrong PASS FAIL
check "off fails both under leaderboard" expect leaderboard off FAIL FAIL
check "near_nan fails both under leaderboard" expect leaderboard near_nan FAIL FAIL
check "d4_wrong's reason is its D4 draw at 1e-4" \
    python3 -c "import json; r=[json.loads(l) for l in open('$OUT')]; \
x=[x for x in r if x['model']=='d4_wrong' and x['gate']=='leaderboard'][0]; \
why=x['protocols']['verified']['reason']; assert why.startswith('D4: ') and '1e-4' in why, why"
check "the summary counts the leaderboard gate's records" \
    python3 -c "import json; s=json.load(open('$OUT.summary.json')); \
assert s['verified_gate']=='leaderboard' and s['records']==6, (s['verified_gate'], s['records'])"
check "the table names the gate" grep -q "verified gate leaderboard" "$TMP/eval.out"
# the report's tolerance table from these records (the later, leaderboard
# record of each sample wins): 1e-3 as the leaderboard counts, 1e-4 without
# the promotions
check "kbv report: the tolerance table from leaderboard records" bash -c "'$KBV' report '$OUT' \
    --denominator sampled --out '$TMP/report' > '$TMP/report.out' 2>&1"
check "... 1e-3 counts the promotions, 1e-4 does not" python3 - "$TMP/report/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
want = {"exact": (100, 100), "near": (100, 0), "near_crash": (100, 0), "d4_wrong": (0, 0),
        "off": (0, 0), "near_nan": (0, 0)}
for g in s["groups"]:
    if g["level"] != "all":
        continue
    c = g["conditions"]
    got = (c["tf32+hidden"]["correct_pct"], c["tf32+hidden@1e-4"]["correct_pct"])
    assert got == want[g["model"]], (g["model"], got)
PY
check "kbv eval --gate leaderboard again resumes" run --gate leaderboard
check "... every sample already recorded" grep -q "0 to evaluate, 6 already recorded" "$TMP/eval.err"
check "kbv eval --gate bogus is refused" bash -c "! '$KBV' eval '$TMP/runs/exact' --out '$TMP/x.jsonl' \
    --gate bogus 2> '$TMP/bogus.err' && grep -q 'takes text or leaderboard' '$TMP/bogus.err'"
check "kbv check --gate leaderboard promotes near" bash -c "'$KBV' check L1/19 \
    '$TMP/runs/near/level_1_problem_19_sample_0.c' --device cpu --seed 5 --gate leaderboard \
    | grep -q 'verified  PASS.*promoted by the leaderboard gate'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
