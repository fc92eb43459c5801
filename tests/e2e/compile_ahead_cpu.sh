#!/usr/bin/env bash
# End-to-end: compile-ahead (--compile-jobs) on the CPU backend at small size.
#   - verdicts with --compile-jobs 2 (in one process, and with --workers 2) equal
#     --compile-jobs 0's, a compile error included
#   - each distinct source is compiled exactly once, by the pool or the evaluator
#   - the evaluator finds the pool's builds: records say cached, with the build's
#     seconds; --compile-jobs 0 never finds one on a cold cache
#   - a run killed while the pool compiles leaves no pool, builder or compiler
#     process and no temporary build directory but the evaluator's own (a SIGKILL
#     stops it mid-build); the rerun records each sample once and sweeps that one
# The compiler is a wrapper around cc that says in its output that it built
# (and can be slowed). Compilers run sandboxed: nothing they write outlives
# them but the cache entry, so builds are counted from the entries' logs and
# running compilers found by their sleep's argument.
# usage: tests/e2e/compile_ahead_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: compile_ahead_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
TMP=$(mktemp -d /tmp/kbv_e2e_ahead.XXXXXX)
export KBV_RUNNER="$BUILD/kbv-runner"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
unset SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
bg_pid=

cleanup() {
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -9 "$bg_pid"; fi
    if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

# ---- the compiler: cc, each build saying so in its log; cc-slow also sleeps 8 s ----
# (long enough that a loaded machine still finds one asleep after listing the pool)
export CC="$TMP/cc-logged"
for name in cc-logged cc-slow; do
    nap=; [ "$name" = cc-slow ] && nap="sleep 8.0017"
    cat > "$TMP/$name" <<SH
#!/bin/sh
if [ "\$1" != --version ]; then
    echo kbv-e2e-built >&2
    $nap
fi
exec cc "\$@"
SH
    chmod +x "$TMP/$name"
done

# ---- candidates: slow correct ReLUs (distinct sources) and one that does not compile ----
RUN="$TMP/runs/e2e-ahead"
mkdir -p "$RUN"
N=8
for i in $(seq 0 $((N - 1))); do
cat > "$RUN/level_1_problem_19_sample_$i.c" <<C
#include <kbv/candidate.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    float *x = inputs[0].data; float *y = outputs[0].data;
    for (volatile long k = 0; k < 1000000; k++) {} /* sample $i */
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
    return 0;
}
C
done
printf '#include <kbv/candidate.h>\nint kbv_forward(void) { return nope; }\n' \
    > "$RUN/level_1_problem_19_sample_$N.c"
N=$((N + 1))
COMMON=(--device cpu --size small --seed 11)

# run NAME ARGS...: a run on a cold cache of its own, cache-NAME
run() {
    local name=$1; shift
    KBV_CACHE_DIR="$TMP/cache-$name" \
        "$KBV" eval "$RUN" --out "$TMP/$name.jsonl" "${COMMON[@]}" "$@" \
        >"$TMP/$name.out" 2>"$TMP/$name.err"
}
# builds NAME: compiler runs that built an entry of cache-NAME (a second
# build of one source could only be one that found the entry missing, and
# would show in the records as not cached)
builds() { grep -rl kbv-e2e-built "$TMP/cache-$1/build" --include=compile.log 2>/dev/null | wc -l; }
# compilers of cc-slow still running (their own PID namespaces hide their pids)
sleeping() { grep -lax 'sleep.8.0017.' /proc/[0-9]*/cmdline 2>/dev/null | wc -l; }

# same_verdicts REF FILE: the same samples, compile outcomes and verdicts
same_verdicts() {
python3 - "$@" <<'PY'
import json, sys
def load(path):
    recs = {}
    for l in open(path):
        if l.strip():
            r = json.loads(l)
            k = (r["model"], r["problem"], r["sample"], r["source_sha256"])
            assert k not in recs, ("recorded twice", k)
            recs[k] = (r["compile"]["ok"],) + tuple(
                r["protocols"][p]["correct"] for p in ("standard", "verified", "strict"))
    return recs
a, b = load(sys.argv[1]), load(sys.argv[2])
assert set(a) == set(b), ("samples differ", sorted(set(a) ^ set(b)))
bad = [k for k in a if a[k] != b[k]]
assert not bad, ("verdicts differ", [(k, a[k], b[k]) for k in bad])
assert sum(1 for v in a.values() if not v[0]) == 1, "expected one compile error"
assert sum(1 for v in a.values() if all(v)) == len(a) - 1, "expected the others correct"
PY
}
# misses FILE MAX: at most MAX records were built by their evaluator, every
# record's compile seconds is the build's (> 0, also when found cached)
misses() {
python3 - "$@" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
built_here = [r["sample"] for r in recs if not r["compile"]["cached"]]
assert len(built_here) <= int(sys.argv[2]), ("built by the evaluator", built_here)
assert all(r["compile"]["seconds"] > 0 for r in recs), [r["compile"] for r in recs]
PY
}
# only_the_evaluators_build CACHE RECORDS N: what a run killed with SIGKILL
# may leave in its cache. The pool's builders stop on their own and clean up;
# the evaluator cannot: if it was compiling, its build's directory (holding the
# source of the first sample without a record) and that entry's lock stay,
# for the rerun's build in that shard to sweep.
only_the_evaluators_build() {
python3 - "$@" <<'PY'
import glob, json, os, sys
cache, records, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
done = set()
for l in open(records) if os.path.exists(records) else []:
    try:
        done.add(json.loads(l)["sample"])
    except ValueError:   # a line the kill cut short: that sample was not recorded
        pass
current = min(set(range(n)) - done, default=None)
tmps = glob.glob(f"{cache}/build/*/.tmp-*")
locks = glob.glob(f"{cache}/build/*/*.lock")
left = tmps + locks
assert len(tmps) <= 1 and len(locks) <= len(tmps), ("left in the cache", left)
for t in tmps:
    src = open(os.path.join(t, "candidate.c")).read()
    assert f"/* sample {current} */" in src, ("not the evaluator's build", t, current)
    prefix = os.path.basename(t)[len(".tmp-"):][:16]
    assert all(os.path.basename(l).startswith(prefix) for l in locks), ("another lock", left)
PY
}
# clean_cache DIR: no temporary build directory or lock file left
clean_cache() {
    local left
    left=$(find "$1" -name '.tmp-*' -o -name '*.lock' 2>/dev/null)
    [ -z "$left" ] || { echo "left in the cache: $left"; return 1; }
}

# ---- the reference: no compile-ahead ------------------------------------------------------
run ref --compile-jobs 0
rc=$?
check "--compile-jobs 0 exits 0" test "$rc" -eq 0
check "--compile-jobs 0: $N records" test "$(grep -c . "$TMP/ref.jsonl")" -eq "$N"
check "--compile-jobs 0: every candidate built once, by its evaluator, never found cached" \
    bash -c "test $(builds ref) -eq $N && ! grep -q '\"cached\":true' '$TMP/ref.jsonl'"
check "--compile-jobs 0 starts no pool" bash -c "! grep -q 'compile-ahead:' '$TMP/ref.err'"

# ---- compile-ahead in one process ------------------------------------------------------------
run ahead --compile-jobs 2
rc=$?
check "--compile-jobs 2 exits 0" test "$rc" -eq 0
check "--compile-jobs 2: the same verdicts as --compile-jobs 0 (a compile error included)" \
    same_verdicts "$TMP/ref.jsonl" "$TMP/ahead.jsonl"
check "--compile-jobs 2: each source compiled exactly once ($(builds ahead) of $N)" \
    test "$(builds ahead)" -eq "$N"
check "--compile-jobs 2: the evaluator found the pool's builds (at most the first built by itself)" \
    misses "$TMP/ahead.jsonl" 1
check "--compile-jobs 2 reports what the pool did" python3 - "$TMP/ahead.err" "$N" <<'PY'
import re, sys
err = open(sys.argv[1]).read()
m = re.search(r"compile-ahead: (\d+) built, (\d+) did not compile, (\d+) already cached, "
              r"(\d+) reached by an evaluator first, (\d+) left", err)
assert m, err
built, bad = int(m.group(1)), int(m.group(2))
assert bad == 1 and built + bad >= int(sys.argv[2]) - 1, m.group(0)
PY
check "--compile-jobs 2: no temporary directory or lock left in the cache" \
    clean_cache "$TMP/cache-ahead"

# ---- compile-ahead with workers ---------------------------------------------------------------
run workers --compile-jobs 2 --workers 2
rc=$?
check "--workers 2 --compile-jobs 2 exits 0" test "$rc" -eq 0
check "--workers 2 --compile-jobs 2: the same verdicts" \
    same_verdicts "$TMP/ref.jsonl" "$TMP/workers.jsonl"
check "--workers 2 --compile-jobs 2: each source compiled exactly once" \
    test "$(builds workers)" -eq "$N"
check "--workers 2 --compile-jobs 2: the workers found the pool's builds (at most 2 built by them)" \
    misses "$TMP/workers.jsonl" 2

# ---- a run killed while the pool compiles --------------------------------------------------------
alive() { # alive PID: a process that has not ended (zombies have ended)
    local line
    line=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    line=${line##*) }
    [ "${line%% *}" != Z ]
}
pool_processes() { # processes named kbv-compile whose run directory is ours
    local s pid
    for s in /proc/[0-9]*/comm; do
        pid=${s#/proc/}; pid=${pid%/comm}
        [ "$(cat "$s" 2>/dev/null)" = kbv-compile ] || continue
        tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$RUN" && echo "$pid"
    done
}
KBV_CACHE_DIR="$TMP/cache-kill" CC="$TMP/cc-slow" \
    "$KBV" eval "$RUN" --out "$TMP/kill.jsonl" "${COMMON[@]}" --compile-jobs 2 \
    >/dev/null 2>"$TMP/kill.err" &
bg_pid=$!
# the pool's third build has started: the first two are done, the next ones sleep
in_flight=0
for _ in $(seq 1 600); do
    in_flight=$(sleeping)
    [ "$(builds kill)" -ge 2 ] && [ "$in_flight" -ge 1 ] && break
    kill -0 "$bg_pid" 2>/dev/null || break
    sleep 0.05
done
pool=$(pool_processes | tr '\n' ' ')
[ "$in_flight" -ge 1 ] && in_flight=$(sleeping)  # still asleep once the pool is listed
kill -9 "$bg_pid" 2>/dev/null
wait "$bg_pid" 2>/dev/null
bg_pid=
check "killed with the pool compiling (pool:$pool; compilers running: $in_flight)" \
    bash -c "test -n '$pool' && test '$in_flight' -ge 1"
left=
for _ in $(seq 1 100); do
    left=
    # builders the pool started after it was listed count too: they remove
    # their build directory and lock only after their compiler has ended
    for p in $pool $(pool_processes); do alive "$p" && left="$left $p"; done
    [ "$(sleeping)" -gt 0 ] && left="$left compilers"
    [ -z "$left" ] && break
    sleep 0.05
done
check "the pool, its builders and their compilers ended with the run" test -z "$left"
check "the stopped builds left no temporary directory or lock (but the evaluator's own, killed mid-build)" \
    only_the_evaluators_build "$TMP/cache-kill" "$TMP/kill.jsonl" "$N"
# and one more, as a build killed in an earlier run would leave it: nobody holds it
mkdir -p "$TMP/cache-kill/build/00/.tmp-0000000000000000-KILLED"
KBV_CACHE_DIR="$TMP/cache-kill" \
    "$KBV" eval "$RUN" --out "$TMP/kill.jsonl" "${COMMON[@]}" --compile-jobs 2 \
    >/dev/null 2>"$TMP/rerun.err"
rc=$?
check "the rerun exits 0" test "$rc" -eq 0
check "after the rerun: every sample exactly once, verdicts as without compile-ahead" \
    same_verdicts "$TMP/ref.jsonl" "$TMP/kill.jsonl"
check "after the rerun: no temporary directory or lock in the cache, the killed run's swept" \
    clean_cache "$TMP/cache-kill"

# ---- usage ------------------------------------------------------------------------------------
"$KBV" eval "$RUN" --out "$TMP/never.jsonl" "${COMMON[@]}" --compile-jobs -1 >/dev/null 2>"$TMP/usage.err"
rc=$?
check "--compile-jobs -1 is a usage error" \
    bash -c "test $rc -eq 2 && grep -q -- '--compile-jobs needs a number' '$TMP/usage.err' && ! test -e '$TMP/never.jsonl'"
"$KBV" eval --help >"$TMP/help.txt"
check "eval --help documents --compile-jobs" grep -q -- '--compile-jobs N' "$TMP/help.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
