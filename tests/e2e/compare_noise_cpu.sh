#!/usr/bin/env bash
# End-to-end: kbv report --compare judges time differences against the noise
# between runs. The same candidates (demo-a and two of demo-b) evaluated three
# times on the CPU backend, each run with a cache of its own (every baseline
# measured anew, as bench/repeatability.sh does):
#   - two of those runs compared, the three as --noise: identical code, so no
#     problem may come out faster or slower under any protocol;
#   - the same two without --noise: the noise is taken from their baselines
#     (measured anew in each), and said so;
#   - a ReLU that does its work 40 times against one that does it once, in one
#     run: B faster, beyond the noise.
# usage: tests/e2e/compare_noise_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: compare_noise_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_noise.XXXXXX)
export KBV_SECRET_FILE="$TMP/secret"
export KBV_RUNNER="$BUILD/kbv-runner"
export KBV_INCLUDE_DIR="$SRC/include"
cleanup() { if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

mkdir -p "$TMP/runs/demo"
cp "$SRC"/examples/runs/demo-a/*.c "$TMP/runs/demo/"
cp "$SRC"/examples/runs/demo-b/level_1_problem_21_sample_0.c \
   "$SRC"/examples/runs/demo-b/level_1_problem_31_sample_0.c "$TMP/runs/demo/"

relu() { # relu MODEL REPEATS: ReLU computed REPEATS times over
mkdir -p "$TMP/runs/$1"
cat > "$TMP/runs/$1/level_1_problem_19_sample_0.c" <<C
#include <kbv/candidate.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    volatile float *y = outputs[0].data;
    for (int r = 0; r < $2; r++)
        for (int64_t i = 0; i < n; i++)
            y[i] = x[i] > 0 ? x[i] : 0.0f;
    return 0;
}
C
}
relu slow 40
relu fast 1

for r in 1 2 3; do
    export KBV_CACHE_DIR="$TMP/cache-$r"
    check "run $r: kbv eval, baselines measured anew" bash -c "'$KBV' eval '$TMP/runs/demo' \
        '$TMP/runs/slow' '$TMP/runs/fast' --device cpu --size small --seed 11 \
        --out '$TMP/run-$r.jsonl' > '$TMP/eval-$r.out' 2> '$TMP/eval-$r.err'"
done

noise=(--noise "$TMP/run-1.jsonl" --noise "$TMP/run-2.jsonl" --noise "$TMP/run-3.jsonl")
for pair in "1 2" "2 3"; do
    set -- $pair
    check "identical runs $1 and $2: compared" bash -c "'$KBV' report --compare \
        '$TMP/run-$1.jsonl' '$TMP/run-$2.jsonl' --model-a demo --model-b demo ${noise[*]} \
        --out '$TMP/cmp-$1$2' > '$TMP/cmp-$1$2.out' 2>&1"
    check "identical runs $1 and $2: no problem faster or slower, under any protocol" \
        python3 - "$TMP/cmp-$1$2/compare.md" <<'PY'
import sys
md = open(sys.argv[1]).read()
rows = [l for l in md.splitlines() if l.startswith("| L")]
assert len(rows) == 3 * 5, len(rows)
bad = [r for r in rows if "faster" in r or "slower" in r or "not judged" in r]
assert not bad, "\n".join(bad)
assert md.count("from 3 repeated runs") == 3, md
PY
done

check "without --noise: compared" bash -c "'$KBV' report --compare '$TMP/run-1.jsonl' \
    '$TMP/run-2.jsonl' --model-a demo --model-b demo > '$TMP/cmp-bases.out' 2>&1"
check "... the noise from the baselines each run measured anew" \
    grep -q "from the [0-9]* baselines A and B each measured anew" "$TMP/cmp-bases.out"

check "40 passes against 1: compared" bash -c "'$KBV' report --compare '$TMP/run-1.jsonl' \
    '$TMP/run-1.jsonl' --model-a slow --model-b fast ${noise[*]} > '$TMP/cmp-speed.out' 2>&1"
check "... B faster, beyond the noise" grep -Eq "^L1/19 .*B faster [0-9.]+x$" "$TMP/cmp-speed.out"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
