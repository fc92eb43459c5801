#!/usr/bin/env bash
# End-to-end: scaling out on the CPU backend at small size.
#   - 3 shards by --shard I/N and by the Slurm variables, merged with kbv merge:
#     the union equals one unsharded run's samples and verdicts
#   - --workers 2: the same samples and verdicts
#   - a worker killed mid-run (its job retried), the parent killed mid-run
#     (workers gone, rerun resumes): every sample recorded exactly once
#   - kbv merge: duplicates, conflicts, torn lines, missing inputs
# usage: tests/e2e/shards_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: shards_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_shards.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_RUNNER="$BUILD/kbv-runner"
unset SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
bg_pid=

cleanup() {
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -9 "$bg_pid"; fi
    if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

# same_samples REFERENCE FILE...: the files' records together hold exactly the
# reference's samples, each once, with the same verdicts (times may differ).
. "$(dirname "$0")/lib/records.sh"

# ---- a run directory: the examples' C candidates, several sample numbers each ----
n_files=0
for dir in "$SRC"/examples/runs/*/; do
    [ -d "$dir" ] || continue
    model=$(basename "$dir")
    mkdir -p "$TMP/runs/$model"
    for f in "$dir"*.c; do
        [ -f "$f" ] || continue
        base=$(basename "$f" .c)            # level_1_problem_19_sample_0
        for s in 0 1 2; do
            cp "$f" "$TMP/runs/$model/${base%_sample_*}_sample_$s.c"
            n_files=$((n_files + 1))
        done
    done
done
PROBLEMS=L1/19,L1/31
n_jobs=$(ls "$TMP"/runs/*/level_1_problem_19_sample_*.c "$TMP"/runs/*/level_1_problem_31_sample_*.c 2>/dev/null | wc -l)
echo "# $n_files candidate files, $n_jobs of them in $PROBLEMS"
COMMON=(--device cpu --size small --seed 7 --problems "$PROBLEMS")

# ---- the reference: one unsharded run ------------------------------------------------
"$KBV" eval "$TMP"/runs/* --out "$TMP/ref.jsonl" "${COMMON[@]}" >"$TMP/ref.out" 2>"$TMP/ref.err"
rc=$?
check "the unsharded run exits 0" test "$rc" -eq 0
check "the unsharded run recorded $n_jobs samples (--problems limits it)" \
    test "$(grep -c . "$TMP/ref.jsonl")" -eq "$n_jobs"

# ---- three shards by --shard I/3 --------------------------------------------------------
for i in 0 1 2; do
    "$KBV" eval "$TMP"/runs/* --out "$TMP/sh.jsonl" "${COMMON[@]}" --shard "$i/3" \
        >"$TMP/sh$i.out" 2>"$TMP/sh$i.err"
    rc=$?
    check "--shard $i/3 exits 0" test "$rc" -eq 0
done
check "each shard wrote results.shard-I-of-3.jsonl, not the plain name" \
    bash -c "test -f '$TMP/sh.shard-0-of-3.jsonl' && test -f '$TMP/sh.shard-1-of-3.jsonl' &&
             test -f '$TMP/sh.shard-2-of-3.jsonl' && ! test -e '$TMP/sh.jsonl'"
check "the shards say which shard they are" grep -q "shard 1 of 3 (--shard" "$TMP/sh1.err"
check "the three shards together hold the unsharded run's samples, verdicts equal" \
    same_samples "$TMP/ref.jsonl" "$TMP"/sh.shard-{0,1,2}-of-3.jsonl
check "every record is in the shard the documented hash gives it" python3 - "$TMP" <<'PY'
import json, sys
M = (1 << 64) - 1
def shard(model, problem, sample, n):
    h = 0xcbf29ce484222325
    for b in ("%s\n%s\n%d" % (model, problem, sample)).encode():
        h = ((h ^ b) * 0x100000001b3) & M
    h = ((h ^ (h >> 30)) * 0xbf58476d1ce4e5b9) & M
    h = ((h ^ (h >> 27)) * 0x94d049bb133111eb) & M
    return (h ^ (h >> 31)) % n
sizes = []
for i in range(3):
    recs = [json.loads(l) for l in open("%s/sh.shard-%d-of-3.jsonl" % (sys.argv[1], i)) if l.strip()]
    sizes.append(len(recs))
    for r in recs:
        assert shard(r["model"], r["problem"], r["sample"], 3) == i, (i, r["model"], r["problem"], r["sample"])
assert sum(sizes) > 0, sizes
PY
"$KBV" merge "$TMP"/sh.shard-{0,1,2}-of-3.jsonl --out "$TMP/merged.jsonl" \
    >"$TMP/merge.out" 2>"$TMP/merge.err"
rc=$?
check "kbv merge exits 0" test "$rc" -eq 0
check "the merged file equals the unsharded run" same_samples "$TMP/ref.jsonl" "$TMP/merged.jsonl"
check "kbv merge prints the metrics table and writes the summary" \
    bash -c "grep -q 'strict (vs tf32)' '$TMP/merge.out' && grep -q demo-b '$TMP/merge.out' &&
             python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); assert s[\"device\"]==\"cpu\"' '$TMP/merged.jsonl.summary.json'"
check "the merged summary's numbers equal the unsharded run's (verdict columns)" \
    python3 - "$TMP/ref.jsonl.summary.json" "$TMP/merged.jsonl.summary.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
def pct(s):
    return sorted((g["model"], str(g["level"]), p, g[p]["correct_pct"]) for g in s["groups"]
                  for p in ("standard", "verified", "strict"))
assert pct(a) == pct(b), (pct(a), pct(b))
PY

# ---- three shards from the Slurm variables ----------------------------------------------
for i in 0 1 2; do
    SLURM_PROCID=$i SLURM_NTASKS=3 "$KBV" eval "$TMP"/runs/* --out "$TMP/slurm.jsonl" \
        "${COMMON[@]}" >/dev/null 2>"$TMP/slurm$i.err"
    rc=$?
    check "SLURM_PROCID=$i SLURM_NTASKS=3 exits 0" test "$rc" -eq 0
done
check "the Slurm shards name their source" grep -q "from SLURM_PROCID/SLURM_NTASKS" "$TMP/slurm2.err"
check "the Slurm shards hold the same samples as --shard's, shard by shard" python3 - "$TMP" <<'PY'
import json, sys
for i in range(3):
    ids = []
    for name in ("sh", "slurm"):
        path = "%s/%s.shard-%d-of-3.jsonl" % (sys.argv[1], name, i)
        ids.append(sorted((r["model"], r["problem"], r["sample"])
                          for r in map(json.loads, filter(str.strip, open(path)))))
    assert ids[0] == ids[1], (i, ids)
PY
"$KBV" merge "$TMP"/slurm.shard-*-of-3.jsonl --out "$TMP/slurm-merged.jsonl" >/dev/null 2>&1
check "the merged Slurm shards equal the unsharded run" \
    same_samples "$TMP/ref.jsonl" "$TMP/slurm-merged.jsonl"
SLURM_PROCID=1 SLURM_NTASKS=3 "$KBV" eval "$TMP"/runs/* --out "$TMP/slurm.jsonl" \
    "${COMMON[@]}" >/dev/null 2>"$TMP/slurm-again.err"
check "a shard's rerun resumes its own file: nothing evaluated" \
    grep -q "0 evaluated, 0 could not" "$TMP/slurm-again.err"
SLURM_PROCID=1 SLURM_NTASKS=3 "$KBV" eval "$TMP"/runs/* --out "$TMP/unsharded.jsonl" \
    "${COMMON[@]}" --shard 0/1 >/dev/null 2>&1
check "--shard 0/1 overrides the environment: everything, in the plain file" \
    same_samples "$TMP/ref.jsonl" "$TMP/unsharded.jsonl"

# ---- --workers 2 ---------------------------------------------------------------------------
"$KBV" eval "$TMP"/runs/* --out "$TMP/workers.jsonl" "${COMMON[@]}" --workers 2 \
    >/dev/null 2>"$TMP/workers.err"
rc=$?
check "--workers 2 exits 0" test "$rc" -eq 0
check "--workers 2 reports its workers" grep -q ", 2 workers" "$TMP/workers.err"
check "--workers 2 equals the unsharded run" same_samples "$TMP/ref.jsonl" "$TMP/workers.jsonl"
check "--workers 2: no worker died or broke down undisturbed" \
    bash -c "! grep -E -q 'worker [0-9]+ .*(killed|exited|is gone|could not start)|Sanitizer|runtime error' '$TMP/workers.err'"
check "--workers 2: one progress line per sample" \
    test "$(grep -c '^\[' "$TMP/workers.err")" -eq "$n_jobs"
"$KBV" eval "$TMP"/runs/* --out "$TMP/sw.jsonl" "${COMMON[@]}" --workers 2 --shard 2/3 \
    >/dev/null 2>&1
check "--workers with --shard: that shard's samples" \
    same_samples "$TMP/sh.shard-2-of-3.jsonl" "$TMP/sw.shard-2-of-3.jsonl"

# ---- kbv merge: duplicates, conflicts, torn lines --------------------------------------------
"$KBV" merge "$TMP/merged.jsonl" "$TMP"/sh.shard-*-of-3.jsonl "$TMP/merged.jsonl" \
    --out "$TMP/merged.jsonl" >/dev/null 2>"$TMP/dup.err"
check "merging a file with its own parts keeps each sample once (in place)" \
    bash -c "grep -q 'dropped: $((2 * n_jobs)) duplicates, 0 conflicting' '$TMP/dup.err' &&
             test \$(grep -c . '$TMP/merged.jsonl') -eq $n_jobs"
python3 - "$TMP/sh.shard-0-of-3.jsonl" "$TMP/flipped.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
r = recs[0]
r["protocols"]["strict"]["correct"] = not r["protocols"]["strict"]["correct"]
with open(sys.argv[2], "w") as f:
    f.write(json.dumps(r) + "\n")
    f.write('{"schema":1,"model":"torn","problem":"L1/1","sam')   # cut mid-record
PY
"$KBV" merge "$TMP/merged.jsonl" "$TMP/flipped.jsonl" --out "$TMP/conflict.jsonl" \
    >/dev/null 2>"$TMP/conflict.err"
rc=$?
check "a conflicting verdict is reported, the first record kept, exit 0" python3 - \
    "$rc" "$TMP/conflict.err" "$TMP/conflict.jsonl" "$TMP/merged.jsonl" <<'PY'
import sys
rc, err, out, first = sys.argv[1:]
err = open(err).read()
assert rc == "0", rc
assert "conflict:" in err and "the first is kept" in err and "1 conflicting" in err, err
assert "1 line left out (not a results record)" in err and "line 2 is not a results record" in err, err
assert open(out).read() == open(first).read()
PY
"$KBV" merge "$TMP/merged.jsonl" "$TMP/no-such.jsonl" --out "$TMP/never.jsonl" \
    >/dev/null 2>"$TMP/missing.err"
rc=$?
check "a missing input is an error (1) and nothing is written" \
    bash -c "test $rc -eq 1 && grep -q 'cannot read' '$TMP/missing.err' && ! test -e '$TMP/never.jsonl'"

# ---- interruption ------------------------------------------------------------------------------
# Correct but slow ReLU candidates (busy work in every call), so the runs are
# still going when they are killed.
SLOW="$TMP/slow/e2e-slow"
mkdir -p "$SLOW"
for i in 0 1 2 3 4 5; do
cat > "$SLOW/level_1_problem_19_sample_$i.c" <<C
#include <kbv/candidate.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    float *x = inputs[0].data; float *y = outputs[0].data;
    for (volatile long k = 0; k < 3000000; k++) {} /* sample $i */
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
    return 0;
}
C
done

wait_first_record() { # wait_first_record FILE PID: until FILE has a record or PID ends
    for _ in $(seq 1 1200); do
        [ -s "$1" ] && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
# /proc/PID/stat: "PID (COMM) STATE PPID ..."; COMM may hold spaces.
stat_fields() { # stat_fields PID: STATE PPID
    local line
    line=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    line=${line##*) }
    echo "${line%% *} $(echo "$line" | cut -d' ' -f2)"
}
alive() { # alive PID: a process that has not ended (zombies have ended)
    local f
    f=$(stat_fields "$1") || return 1
    [ -n "$f" ] && [ "${f%% *}" != Z ]
}
children_of() { # children_of PID: its child processes
    local s pid f
    for s in /proc/[0-9]*/stat; do
        pid=${s#/proc/}; pid=${pid%/stat}
        f=$(stat_fields "$pid") || continue
        [ "${f#* }" = "$1" ] && echo "$pid"
    done
}
workers_of() { # workers_of PID: its worker processes (not its compile-ahead pool)
    local pid
    for pid in $(children_of "$1"); do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != kbv-compile ] && echo "$pid"
    done
}

# A worker killed mid-run: its job is retried, the run completes.
"$KBV" eval "$SLOW" --out "$TMP/wkill.jsonl" --device cpu --size small --seed 3 --workers 2 \
    >/dev/null 2>"$TMP/wkill.err" &
bg_pid=$!
victim=
if wait_first_record "$TMP/wkill.jsonl" "$bg_pid"; then
    victim=$(workers_of "$bg_pid" | head -1)
    [ -n "$victim" ] && kill -9 "$victim"
fi
wait "$bg_pid"
rc=$?
bg_pid=
check "a worker was killed with SIGKILL mid-run" test -n "$victim"
check "the run with a killed worker still exits 0" test "$rc" -eq 0
check "the killed worker's job went to another worker" \
    bash -c "grep -q 'killed by signal 9' '$TMP/wkill.err' && grep -q 'retried on another worker' '$TMP/wkill.err'"
check "with a killed worker: every sample exactly once" python3 - "$TMP/wkill.jsonl" <<'PY'
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
c = collections.Counter(r["sample"] for r in recs)
assert sorted(c) == list(range(6)) and max(c.values()) == 1, c
assert all(r["protocols"]["strict"]["correct"] for r in recs)
PY

# The parent killed mid-run: its workers die with it; the rerun resumes.
"$KBV" eval "$SLOW" --out "$TMP/pkill.jsonl" --device cpu --size small --seed 4 --workers 2 \
    >/dev/null 2>"$TMP/pkill.err" &
bg_pid=$!
workers=
if wait_first_record "$TMP/pkill.jsonl" "$bg_pid"; then
    workers=$(children_of "$bg_pid" | tr '\n' ' ')   # the workers and the compile-ahead pool
    kill -9 "$bg_pid"
fi
wait "$bg_pid" 2>/dev/null
bg_pid=
check "the parent was killed with SIGKILL mid-run, workers running" test -n "$workers"
left=
for _ in $(seq 1 50); do
    left=
    for w in $workers; do alive "$w" && left="$left $w"; done
    [ -z "$left" ] && break
    sleep 0.1
done
check "the workers died with their parent" test -z "$left"
before=$(grep -c . "$TMP/pkill.jsonl")
cp "$TMP/pkill.jsonl" "$TMP/pkill-before.jsonl"
"$KBV" eval "$SLOW" --out "$TMP/pkill.jsonl" --device cpu --size small --seed 5 --workers 2 \
    >/dev/null 2>"$TMP/resume.err"
rc=$?
check "the resumed run exits 0" test "$rc" -eq 0
check "after the resume: every sample exactly once, earlier records intact" python3 - \
    "$TMP/pkill.jsonl" "$TMP/pkill-before.jsonl" "$before" <<'PY'
import json, sys, collections
text = open(sys.argv[1]).read()
recs = [json.loads(l) for l in text.split("\n") if l.strip()]
c = collections.Counter(r["sample"] for r in recs)
assert sorted(c) == list(range(6)) and max(c.values()) == 1, c
assert text.startswith(open(sys.argv[2]).read())
before = int(sys.argv[3])
seeds = collections.Counter(r["seed"] for r in recs)
assert 1 <= before < 6 and seeds[4] == before and seeds[5] == 6 - before, (before, seeds)
PY

# ---- usage errors -------------------------------------------------------------------------------
usage_error() { # usage_error GREP_PATTERN ENV... -- ARGS...
    local pattern=$1; shift
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    env "${envs[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/never.jsonl" --device cpu "$@" \
        >/dev/null 2>"$TMP/usage.err"
    local rc=$?
    [ "$rc" -eq 2 ] && grep -q -- "$pattern" "$TMP/usage.err" && ! [ -e "$TMP/never.jsonl" ]
}
check "--shard 3/3 is a usage error" usage_error "shard index must be in 0..N-1" -- --shard 3/3
check "--shard x is a usage error" usage_error "expected I/N" -- --shard x
check "SLURM_PROCID beyond SLURM_NTASKS is a usage error" \
    usage_error "SLURM_PROCID=5 is not below SLURM_NTASKS=3" SLURM_PROCID=5 SLURM_NTASKS=3 --
check "a bad OMPI_COMM_WORLD_SIZE is a usage error" \
    usage_error "OMPI_COMM_WORLD_SIZE='many'" OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=many --
check "--workers 0 is a usage error" usage_error "--workers needs a number" -- --workers 0
check "--gpus on the CPU is a usage error" usage_error "--gpus is for GPU runs" -- --gpus 0
"$KBV" eval --help >"$TMP/help.txt"
check "eval --help documents --shard, its file name, --workers and --gpus" \
    bash -c "grep -q -- '--shard I/N' '$TMP/help.txt' && grep -q 'shard-I-of-N.jsonl' '$TMP/help.txt' &&
             grep -q -- '--workers K' '$TMP/help.txt' && grep -q -- '--gpus LIST' '$TMP/help.txt' &&
             grep -q SLURM_PROCID '$TMP/help.txt'"
"$KBV" merge >/dev/null 2>&1
check "merge without inputs is a usage error (2)" test $? -eq 2
"$KBV" --help | grep -q "^  merge"
check "kbv --help lists merge" test $? -eq 0

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
