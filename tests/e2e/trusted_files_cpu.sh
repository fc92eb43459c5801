#!/usr/bin/env bash
# End-to-end: the files the trusted kbv process writes, on the CPU backend at
# small size (L1/19 ReLU, the standard protocol only, to stay fast).
#   - a forged baseline cache line (the 3460x attack) is not used: measured
#     again, said once on stderr, the speedup not inflated
#   - two kbv eval on one --out: the second is refused with one clear line
#     while the first completes
#   - --out on a file that is not a kbv results file: refused, the file
#     unchanged byte for byte (kbv merge too)
#   - the key file: made on first use (0600), refused when others may read it
# usage: tests/e2e/trusted_files_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: trusted_files_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
TMP=$(mktemp -d /tmp/kbv_e2e_trust.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/config/secret"
export KBV_RUNNER="$BUILD/kbv-runner"
CACHE="$KBV_CACHE_DIR/baselines/cpu.jsonl"
COMMON=(--device cpu --size small --seed 5 --protocols standard --compile-jobs 0)
bg_pid=

cleanup() {
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -9 "$bg_pid"; fi
    if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

relu() { # relu DIR SAMPLE BUSY_ITERATIONS: an honest ReLU, slowed down by busy work per call
mkdir -p "$1"
cat > "$1/level_1_problem_19_sample_$2.c" <<C
#include <kbv/candidate.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    for (volatile long k = 0; k < $3; k++) {}
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = inputs[0].data; float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
    return 0;
}
C
}
relu "$TMP/runs/honest" 0 0
relu "$TMP/runs/slow" 0 60000000

# field OUT PYTHON-EXPRESSION: of the first record (r; s its standard protocol)
field() {
python3 - "$1" "$2" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline()); s = r["protocols"]["standard"]
print(eval(sys.argv[2]))
PY
}

# ---- the key file ----------------------------------------------------------------------
"$KBV" eval "$TMP/runs/honest" --out "$TMP/first.jsonl" "${COMMON[@]}" \
    >/dev/null 2>"$TMP/first.err"
check "the first eval exits 0" test $? -eq 0
check "the key file is made on first use: 32 bytes, mode 600, outside the cache" \
    bash -c "test \$(stat -c %a '$KBV_SECRET_FILE') = 600 && test \$(stat -c %s '$KBV_SECRET_FILE') = 32 &&
             test \$(stat -c %a '$TMP/config') = 700"
check "every cache entry carries a MAC" python3 - "$CACHE" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
# on the CPU the three float32 modes are one measurement (fp32-strict's)
assert len(lines) == 1 and all(len(e["mac"]) == 64 for e in lines), lines
PY
check "nothing is said about the cache when every entry verifies" \
    bash -c "! grep -q 'baseline cache' '$TMP/first.err'"

chmod 644 "$KBV_SECRET_FILE"
"$KBV" eval "$TMP/runs/honest" --out "$TMP/keyopen.jsonl" "${COMMON[@]}" \
    >/dev/null 2>"$TMP/keyopen.err"
rc=$?
chmod 600 "$KBV_SECRET_FILE"
check "a key file others may read is refused, with what to do (exit 1)" \
    bash -c "test $rc -eq 1 && grep -q 'is open to group or others (mode 0644).*chmod 600' '$TMP/keyopen.err'"

# ---- (a) a forged baseline line ----------------------------------------------------------
honest_base=$(field "$TMP/first.jsonl" 's["t_baseline_ms"]')
honest_speedup=$(field "$TMP/first.jsonl" 's["speedup"]')
python3 - "$CACHE" <<'PY'
import json, sys
path = sys.argv[1]
fp32 = [json.loads(l) for l in open(path) if json.loads(l)["mode"] == "fp32-strict"][0]
forged = dict(fp32, std_mean_ms=fp32["std_mean_ms"] * 3460, measured_at=fp32["measured_at"] + 60)
with open(path, "a") as f:
    f.write(json.dumps(forged) + "\n")                  # the MAC of the honest line, kept
    del forged["mac"]
    f.write(json.dumps(forged, separators=(",", ":")) + "\n")   # no MAC at all
PY
"$KBV" eval "$TMP/runs/honest" --out "$TMP/forged.jsonl" "${COMMON[@]}" \
    >/dev/null 2>"$TMP/forged.err"
check "the eval after the forgery exits 0" test $? -eq 0
check "the forgery is said once, in one line, with the count" \
    bash -c "test \$(grep -c 'baseline cache' '$TMP/forged.err') -eq 1 &&
             grep -q '^kbv eval: 2 entries of the baseline cache .* did not verify' '$TMP/forged.err'"
check "the forged baseline is not used: measured again, the speedup not inflated" \
    python3 - "$TMP/forged.jsonl" "$honest_base" "$honest_speedup" "$CACHE" <<'PY'
import json, sys
r = json.loads(open(sys.argv[1]).readline()); s = r["protocols"]["standard"]
base, speedup = float(sys.argv[2]), float(sys.argv[3])
assert s["correct"] and s["t_baseline_ms"] < 20 * base, (s["t_baseline_ms"], base)
assert s["speedup"] < 20 * speedup, (s["speedup"], speedup)
assert r["phase_s"]["baselines"] > 0
entries = [json.loads(l) for l in open(sys.argv[4])]
# the honest one, the two forged ones, and the measurement made again
assert len(entries) == 4 and entries[-1]["mode"] == "fp32-strict" and "mac" in entries[-1], entries
assert entries[-1]["std_mean_ms"] < 20 * base
PY
"$KBV" eval "$TMP/runs/honest" --out "$TMP/after.jsonl" "${COMMON[@]}" \
    >/dev/null 2>"$TMP/after.err"
check "measured again, the forged lines are passed over quietly" \
    bash -c "! grep -q 'baseline cache' '$TMP/after.err' &&
             test \$(grep -c . '$CACHE') -eq 4"

# ---- (b) two kbv eval on one --out ------------------------------------------------------------
OUT="$TMP/shared.jsonl"
"$KBV" eval "$TMP/runs/slow" --out "$OUT" "${COMMON[@]}" >/dev/null 2>"$TMP/one.err" &
bg_pid=$!
holder=$bg_pid
for _ in $(seq 1 600); do   # the announcement comes after the results file is held
    grep -q '^kbv eval: 1 candidate' "$TMP/one.err" 2>/dev/null && break
    kill -0 "$bg_pid" 2>/dev/null || break
    sleep 0.1
done
"$KBV" eval "$TMP/runs/honest" --out "$OUT" "${COMMON[@]}" >/dev/null 2>"$TMP/two.err"
rc_two=$?
"$KBV" merge "$TMP/first.jsonl" --out "$OUT" >/dev/null 2>"$TMP/merge-held.err"
rc_merge=$?
running=no
kill -0 "$bg_pid" 2>/dev/null && running=yes
wait "$bg_pid"
rc_one=$?
bg_pid=
check "the first eval was still running when the others tried" test "$running" = yes
check "the second eval is refused: one clear line naming the holder, exit 1" \
    bash -c "test $rc_two -eq 1 && test \$(grep -c . '$TMP/two.err') -eq 1 &&
             grep -qx 'kbv eval: $OUT is in use by another kbv process (pid $holder); wait for it or choose another --out' '$TMP/two.err'"
check "kbv merge into the held file is refused alike" \
    bash -c "test $rc_merge -eq 1 && grep -q 'is in use by another kbv process' '$TMP/merge-held.err'"
check "the first eval completes: exit 0, its one record, nothing of the others" \
    bash -c "test $rc_one -eq 0 && test \$(grep -c . '$OUT') -eq 1 &&
             grep -q '\"model\":\"slow\"' '$OUT'"
"$KBV" eval "$TMP/runs/slow" --out "$OUT" "${COMMON[@]}" >/dev/null 2>"$TMP/three.err"
check "once it is done the file is free: a rerun resumes" \
    bash -c "test $? -eq 0 && grep -q '^kbv eval: 1 candidate: 0 evaluated, .* 1 resumed' '$TMP/three.err'"

# ---- (c) --out on a file that is not a kbv results file -------------------------------------------
printf 'model,problem,speedup\nhonest,L1/19,1.02\n' > "$TMP/notes.txt"
printf 'my notes, no newline at the end' > "$TMP/notes2.txt"
cp "$TMP/notes.txt" "$TMP/notes.orig"
cp "$TMP/notes2.txt" "$TMP/notes2.orig"
"$KBV" eval "$TMP/runs/honest" --out "$TMP/notes.txt" "${COMMON[@]}" >/dev/null 2>"$TMP/notes.err"
rc=$?
check "--out notes.txt (a CSV) is refused in one line, exit 1" \
    bash -c "test $rc -eq 1 && test \$(grep -c . '$TMP/notes.err') -eq 1 &&
             grep -q 'notes.txt is not a kbv results file (line 1 is not a results record)' '$TMP/notes.err'"
"$KBV" eval "$TMP/runs/honest" --out "$TMP/notes2.txt" "${COMMON[@]}" >/dev/null 2>&1
rc2=$?
"$KBV" merge "$TMP/first.jsonl" --out "$TMP/notes.txt" >/dev/null 2>"$TMP/notes-merge.err"
rc3=$?
check "kbv eval and kbv merge leave them byte for byte as they were" \
    bash -c "test $rc2 -eq 1 && test $rc3 -eq 1 && cmp '$TMP/notes.txt' '$TMP/notes.orig' &&
             cmp '$TMP/notes2.txt' '$TMP/notes2.orig' && ! ls '$TMP'/notes.txt.* 2>/dev/null &&
             grep -q 'not a kbv results file' '$TMP/notes-merge.err'"
check "--help says so" bash -c "'$KBV' eval --help | tr -s ' \n' ' ' | grep -q 'not a kbv results file' &&
                               '$KBV' merge --help | tr -s ' \n' ' ' | grep -q 'not a kbv results file'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
