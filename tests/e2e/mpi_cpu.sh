#!/usr/bin/env bash
# End-to-end: kbv eval under mpirun on the CPU backend at small size (built
# only with MPI). Three ranks on this machine (--oversubscribe):
#   - --mpi: every sample recorded exactly once, in the plain results file,
#     verdicts equal to a single-process run's; a rerun records nothing new
#   - mpirun killed mid-run: every rank ends; the rerun gives every sample once
#   - an evaluating rank killed mid-run: the run ends non-zero (it does not
#     hang), the job is reported and not recorded; the rerun completes it
#   - an evaluating rank stopped (SIGSTOP): rank 0 gives up on it after
#     KBV_MPI_SILENCE_S, finishes on the other rank and exits non-zero
#   - without --mpi the Open MPI variables shard the run, one file per rank
# usage: tests/e2e/mpi_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: mpi_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_mpi.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_RUNNER="$BUILD/kbv-runner"
unset SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
# CI runs as root; containers often forbid the shared-memory single copy
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN=(mpirun --oversubscribe -np 3)
# When a rank dies, mpirun sends the others SIGTERM and, after this many
# seconds, SIGKILL: rank 0 needs the time to report its jobs in flight on a
# loaded machine (Open MPI's default is 1 s).
GRACE=(--mca odls_base_sigkill_timeout 10)
# A rank stopped inside a shared-memory transfer can stall its peers' MPI
# progress on one host; across nodes (what the silence limit is for) messages
# travel by TCP, which the silent-rank case therefore uses.
AS_NODES=(--mca btl tcp,self)
bg_pid=

cleanup() {
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -9 "$bg_pid"; fi
    for p in $(ranks_of "$TMP"); do kill -9 "$p" 2>/dev/null; done
    if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

# ranks_of TEXT: kbv processes (not their compile-ahead pools) whose command line has TEXT
ranks_of() {
    local s pid
    for s in /proc/[0-9]*/comm; do
        pid=${s#/proc/}; pid=${pid%/comm}
        [ "$(cat "$s" 2>/dev/null)" = kbv ] || continue
        tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -q -- "$1" && echo "$pid"
    done
}
# rank_pid N TEXT: the pid of rank N among ranks_of TEXT
rank_pid() {
    local p
    for p in $(ranks_of "$2"); do
        tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$1" &&
            echo "$p"
    done
}
wait_records() { # wait_records FILE N PID: until FILE has N records or PID ends
    for _ in $(seq 1 1200); do
        [ -f "$1" ] && [ "$(grep -c . "$1")" -ge "$2" ] && return 0
        kill -0 "$3" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
gone() { # gone TEXT: no kbv process with TEXT left, after a moment
    for _ in $(seq 1 100); do
        [ -z "$(ranks_of "$1")" ] && return 0
        sleep 0.1
    done
    echo "still running: $(ranks_of "$1")"
    return 1
}

# same_samples REFERENCE FILE...: the files' records together hold exactly the
# reference's samples, each once, with the same verdicts (times may differ).
. "$(dirname "$0")/lib/records.sh"

# ---- run directories: the examples' C candidates, several sample numbers each ----
for dir in "$SRC"/examples/runs/*/; do
    [ -d "$dir" ] || continue
    ls "$dir"*.c >/dev/null 2>&1 || continue   # (demo-kernelbench: Python files alone)
    model=$(basename "$dir")
    mkdir -p "$TMP/runs/$model"
    for f in "$dir"*.c; do
        [ -f "$f" ] || continue
        base=$(basename "$f" .c)
        for s in 0 1 2; do
            cp "$f" "$TMP/runs/$model/${base%_sample_*}_sample_$s.c"
        done
    done
done
PROBLEMS=L1/19,L1/31
n_jobs=$(ls "$TMP"/runs/*/level_1_problem_19_sample_*.c "$TMP"/runs/*/level_1_problem_31_sample_*.c 2>/dev/null | wc -l)
echo "# $n_jobs candidates in $PROBLEMS"
COMMON=(--device cpu --size small --seed 7 --problems "$PROBLEMS")

"$KBV" eval "$TMP"/runs/* --out "$TMP/ref.jsonl" "${COMMON[@]}" >/dev/null 2>"$TMP/ref.err"
check "the single-process reference exits 0 with $n_jobs records" \
    bash -c "test $? -eq 0 && test \$(grep -c . '$TMP/ref.jsonl') -eq $n_jobs"

# ---- --mpi: rank 0 hands out, ranks 1 and 2 evaluate ----------------------------------
timeout 600 "${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/mpi.jsonl" "${COMMON[@]}" \
    --mpi >"$TMP/mpi.out" 2>"$TMP/mpi.err"
rc=$?
check "mpirun -np 3 kbv eval --mpi exits 0" test "$rc" -eq 0
check "--mpi: every sample recorded exactly once, verdicts equal to the single process's" \
    same_samples "$TMP/ref.jsonl" "$TMP/mpi.jsonl"
check "--mpi: the plain results file, not shards (the Open MPI variables do not apply)" \
    bash -c "! ls '$TMP'/mpi.shard-* >/dev/null 2>&1 && grep -q '2 ranks evaluating (MPI)' '$TMP/mpi.err'"
check "--mpi: one progress line per sample, the table on stdout" \
    bash -c "test \$(grep -c '^\[' '$TMP/mpi.err') -eq $n_jobs && grep -q 'strict (vs tf32)' '$TMP/mpi.out'"
timeout 600 "${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/mpi.jsonl" "${COMMON[@]}" \
    --mpi >/dev/null 2>"$TMP/mpi-again.err"
rc=$?
check "--mpi rerun: exits 0 and records nothing new" \
    bash -c "test $rc -eq 0 && grep -q '0 evaluated, 0 could not' '$TMP/mpi-again.err' &&
             test \$(grep -c . '$TMP/mpi.jsonl') -eq $n_jobs"

# ---- mpirun killed mid-run -------------------------------------------------------------------
"${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/kill.jsonl" "${COMMON[@]}" --mpi \
    >/dev/null 2>"$TMP/kill.err" &
bg_pid=$!
killed=
wait_records "$TMP/kill.jsonl" 1 "$bg_pid" && kill -9 "$bg_pid" && killed=1
wait "$bg_pid" 2>/dev/null
bg_pid=
check "mpirun was killed with SIGKILL after the first record" test -n "$killed"
check "every rank ended with mpirun" gone "$TMP/kill.jsonl"
before=$(grep -c . "$TMP/kill.jsonl")
cp "$TMP/kill.jsonl" "$TMP/kill-before.jsonl"
timeout 600 "${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/kill.jsonl" "${COMMON[@]}" \
    --mpi >/dev/null 2>"$TMP/kill-rerun.err"
rc=$?
check "the rerun exits 0" test "$rc" -eq 0
check "after the rerun: the records written before the kill ($before) are intact" python3 - \
    "$TMP/kill.jsonl" "$TMP/kill-before.jsonl" <<'PY'
import sys
assert open(sys.argv[1]).read().startswith(open(sys.argv[2]).read())
PY
check "after the rerun: every sample exactly once, verdicts as the reference's" \
    same_samples "$TMP/ref.jsonl" "$TMP/kill.jsonl"

# ---- an evaluating rank killed mid-run -------------------------------------------------------
"${MPIRUN[@]}" "${GRACE[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/rank.jsonl" "${COMMON[@]}" --mpi \
    >/dev/null 2>"$TMP/rank.err" &
bg_pid=$!
victim=
wait_records "$TMP/rank.jsonl" 1 "$bg_pid" && victim=$(rank_pid 2 "$TMP/rank.jsonl")
[ -n "$victim" ] && kill -9 "$victim"
rc=0
for _ in $(seq 1 600); do kill -0 "$bg_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$bg_pid" 2>/dev/null; then rc=hang; kill -9 "$bg_pid"; fi
wait "$bg_pid" 2>/dev/null
[ "$rc" = hang ] || rc=$?
bg_pid=
check "rank 2 was killed with SIGKILL mid-run" test -n "$victim"
check "the run ended by itself, non-zero (rc $rc)" bash -c "test '$rc' != hang && test '$rc' -ne 0"
check "rank 0 reported the jobs in flight as not recorded" \
    bash -c "grep -q 'not recorded: the run was stopped' '$TMP/rank.err' || { cat '$TMP/rank.err'; false; }"
check "every rank ended" gone "$TMP/rank.jsonl"
timeout 600 "${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/rank.jsonl" "${COMMON[@]}" \
    --mpi >/dev/null 2>&1
check "after the rerun: every sample exactly once, verdicts as the reference's" \
    same_samples "$TMP/ref.jsonl" "$TMP/rank.jsonl"

# ---- an evaluating rank stopped (silent, not dead) ---------------------------------------------
KBV_MPI_SILENCE_S=10 "${MPIRUN[@]}" "${GRACE[@]}" "${AS_NODES[@]}" "$KBV" eval "$TMP"/runs/* \
    --out "$TMP/silent.jsonl" \
    "${COMMON[@]}" --mpi >/dev/null 2>"$TMP/silent.err" &
bg_pid=$!
victim=
wait_records "$TMP/silent.jsonl" 1 "$bg_pid" && victim=$(rank_pid 2 "$TMP/silent.jsonl")
[ -n "$victim" ] && kill -STOP "$victim"
rc=0
for _ in $(seq 1 1200); do kill -0 "$bg_pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$bg_pid" 2>/dev/null; then rc=hang; kill -9 "$bg_pid"; fi
wait "$bg_pid" 2>/dev/null
[ "$rc" = hang ] || rc=$?
bg_pid=
check "rank 2 was stopped with SIGSTOP mid-run" test -n "$victim"
check "the run finished on rank 1 and exited non-zero (rc $rc)" \
    bash -c "test '$rc' != hang && test '$rc' -ne 0 &&
             grep -q 'rank 2 .*has sent nothing for' '$TMP/silent.err' &&
             grep -q '1 rank lost; its job was not recorded' '$TMP/silent.err'"
check "the stopped rank's job alone is missing; no sample twice" python3 - \
    "$TMP/silent.jsonl" "$n_jobs" "$TMP/silent.err" <<'PY'
import json, sys, collections
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
c = collections.Counter((r["model"], r["problem"], r["sample"]) for r in recs)
assert max(c.values()) == 1, c
err = open(sys.argv[3]).read()
assert len(recs) == int(sys.argv[2]) - err.count("could not evaluate"), (len(recs), err)
assert err.count("could not evaluate") == 1, err
PY
check "every rank ended" gone "$TMP/silent.jsonl"
timeout 600 "${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/silent.jsonl" "${COMMON[@]}" \
    --mpi >/dev/null 2>&1
check "after the rerun: every sample exactly once, verdicts as the reference's" \
    same_samples "$TMP/ref.jsonl" "$TMP/silent.jsonl"

# ---- without --mpi: the Open MPI variables make each rank a shard -----------------------------
timeout 600 "${MPIRUN[@]}" "$KBV" eval "$TMP"/runs/* --out "$TMP/sh.jsonl" "${COMMON[@]}" \
    >/dev/null 2>"$TMP/sh.err"
rc=$?
check "mpirun -np 3 kbv eval (no --mpi) exits 0" test "$rc" -eq 0
check "each rank wrote its shard, from OMPI_COMM_WORLD_RANK/SIZE" \
    bash -c "test -f '$TMP/sh.shard-0-of-3.jsonl' && test -f '$TMP/sh.shard-2-of-3.jsonl' &&
             grep -q 'from OMPI_COMM_WORLD_RANK/OMPI_COMM_WORLD_SIZE' '$TMP/sh.err'"
check "the three shards together equal the reference" \
    same_samples "$TMP/ref.jsonl" "$TMP"/sh.shard-{0,1,2}-of-3.jsonl

# ---- usage ----------------------------------------------------------------------------------
"$KBV" eval "$TMP"/runs/* --out "$TMP/never.jsonl" --device cpu --mpi --shard 0/2 \
    >/dev/null 2>"$TMP/usage.err"
check "--mpi with --shard is a usage error" \
    bash -c "test $? -eq 2 && grep -q 'not with --shard' '$TMP/usage.err' && ! test -e '$TMP/never.jsonl'"
"$KBV" eval "$TMP"/runs/* --out "$TMP/never.jsonl" --device cpu --mpi --workers 2 \
    >/dev/null 2>"$TMP/usage.err"
check "--mpi with --workers is a usage error" \
    bash -c "test $? -eq 2 && grep -q 'not with --workers' '$TMP/usage.err'"
timeout 120 mpirun --oversubscribe -np 1 "$KBV" eval "$TMP"/runs/* --out "$TMP/one.jsonl" \
    "${COMMON[@]}" --mpi >/dev/null 2>"$TMP/one.err"
rc=$?
check "--mpi with one rank fails and says why (rc $rc)" \
    bash -c "test $rc -ne 0 && grep -q 'needs 2 ranks or more' '$TMP/one.err'"
"$KBV" eval --help >"$TMP/help.txt"
check "eval --help documents --mpi" grep -q -- '--mpi ' "$TMP/help.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
