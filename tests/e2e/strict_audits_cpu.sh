#!/usr/bin/env bash
# Strict audits on the CPU backend, one candidate per check, with `kbv check`:
# honest controls must pass every protocol with no flag; each cheat must pass
# what it fools and fail strict with the flag that names the check.
#   tests/e2e/strict_audits_cpu.sh BUILD_DIR
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
KBV="$BUILD/kbv"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export KBV_CACHE_DIR="$TMP/cache"
pass=0 fail=0

relu() { # relu PRELUDE BODY_EXTRA
cat <<C
#include <kbv/candidate.h>
$1
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = inputs[0].data; float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
    $2
    return 0;
}
C
}

# check NAME FILE PYTHON-ASSERTION   (s, v, t: the protocols of the record r)
check() {
    local out
    out=$("$KBV" check L1/19 "$2" --device cpu --size small --seed 3 --json 2>"$TMP/err")
    if python3 -c '
import json, sys
r = json.loads(sys.argv[1]); p = r["protocols"]; s, v, t = p["standard"], p["verified"], p["strict"]
sys.exit(0 if eval("(" + sys.argv[2] + ")") else 1)' "$out" "$3"; then
        pass=$((pass + 1)); echo "ok   $1"
    else
        fail=$((fail + 1)); echo "FAIL $1"; echo "$out" | head -c 2000; cat "$TMP/err"
    fi
}

relu "" "" > "$TMP/honest.c"
check "honest control: all three pass, no flag" "$TMP/honest.c" \
    's["correct"] and v["correct"] and t["correct"] and not t["flags"]'

relu "#include <stdio.h>" 'FILE *f = fopen("/dev/null", "r"); if (f) fclose(f);' > "$TMP/fileio.c"
check "file I/O in the binary: standard and verified pass, strict fails (binary-allowlist)" \
    "$TMP/fileio.c" \
    's["correct"] and v["correct"] and not t["correct"] and "binary-allowlist" in t["flags"]
     and t["reason"].startswith("binary allowlist: imports")'

relu '__attribute__((visibility("default"))) int kbv_cached_answer(void) { return 1; }' "" \
    > "$TMP/export.c"
check "an extra exported symbol fails strict (binary-allowlist)" "$TMP/export.c" \
    'not t["correct"] and "binary-allowlist" in t["flags"] and "kbv_cached_answer" in t["reason"]'

# A thread left behind writes the output 2 ms after the call returned.
relu '#include <pthread.h>
#include <time.h>
static float *late_target;
static void *late(void *arg) {
    (void)arg;
    struct timespec t = {0, 2000000};
    nanosleep(&t, 0);
    late_target[0] = 42.0f;
    return 0;
}' 'late_target = y; pthread_t th; pthread_create(&th, 0, late, 0); pthread_detach(th);' \
    > "$TMP/late.c"
check "a late write after the call returns fails strict" "$TMP/late.c" \
    'not t["correct"] and ("late write" in t["reason"] or "outside" in t["reason"])
     and "binary-allowlist" in t["flags"]'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
