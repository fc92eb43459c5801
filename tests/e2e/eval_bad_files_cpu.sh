#!/usr/bin/env bash
# End-to-end: every candidate accounted for, whatever its file is (CPU
# backend, small size). A run directory holds a good candidate beside an
# empty one, a binary, an unreadable one (chmod 000: root still reads it, so
# links to unreadable targets and a directory stand in as root), links out of
# the directory (one at a secret file, one dangling), a fifo, a file too
# large, one that vanishes mid-run, a generation failure, and files kbv does
# not evaluate (a .cu, KernelBench Python files, a README, a subdirectory).
#   - every file named like a candidate has exactly one record, failed with
#     the right reason and not compiled; the secret is nowhere
#   - the counts at the start and at the end add up, in this process, with
#     --workers and with --mpi (when built with MPI); the run exits 0
#   - a rerun resumes everything and exits 0; a link replaced by a readable
#     file, and the unreadable file made readable, are evaluated again
#   - a directory of KernelBench Python files alone, or of .cu files alone on
#     the CPU, exits 1 and says why
# usage: tests/e2e/eval_bad_files_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: eval_bad_files_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
TMP=$(mktemp -d /tmp/kbv_e2e_bad_files.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_RUNNER="$BUILD/kbv-runner"
unset SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE
bg_pid=

cleanup() {
    if [ -n "$bg_pid" ] && kill -0 "$bg_pid" 2>/dev/null; then kill -9 "$bg_pid"; fi
    chmod -R u+rwx "$TMP" 2>/dev/null
    if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi
}
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

# ---- the run directory ---------------------------------------------------------
RUN="$TMP/runs/e2e-bad"
mkdir -p "$RUN"
relu() { # relu SPIN: a correct ReLU that spins SPIN iterations per call
cat <<C
#include <kbv/candidate.h>
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    for (volatile long k = 0; k < $1; k++) {}
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    float *x = inputs[0].data; float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++) y[i] = x[i] > 0 ? x[i] : 0;
    return 0;
}
C
}
SECRET="kbv-e2e-secret-$$-root:x:0:0"
echo "$SECRET" > "$TMP/secret.txt"                         # readable: only the rule protects it
echo "$SECRET" > "$TMP/locked.txt"; chmod 000 "$TMP/locked.txt"
S="$RUN/level_1_problem_19_sample"
relu 3000000 > "${S}_0.c"                                   # good (slow enough to delete 9 meanwhile)
: > "${S}_1.c"                                              # empty
cp /bin/true "${S}_2.c"                                     # binary
relu 0 > "${S}_3.c"; chmod 000 "${S}_3.c"                   # unreadable (but not to root)
ln -s "$TMP/secret.txt" "${S}_4.c"                          # link out of the directory
ln -s "$TMP/no-such-file.c" "${S}_5.c"                      # dangling link
ln -s "$TMP/locked.txt" "${S}_6.c"                          # link to an unreadable file
mkdir "${S}_7.c"                                            # a directory
mkfifo "${S}_8.c"                                           # a fifo: opening it would block
relu 0 > "${S}_9.c"                                         # vanishes after planning
truncate -s 5M "${S}_10.c"                                  # too large
echo '{"reason": "no code block in the answer"}' > "${S}_11.failed.json"
relu 0 > "${S}_12.cu"                                       # for the GPU
# KernelBench's format: counted aside by a build whose runner hosts no Python
# (a build that hosts it evaluates them: tests/e2e/kernelbench_cpu.sh)
if "$KBV" eval --help | grep -q 'this build does not evaluate them'; then PYTHON=no; else PYTHON=yes; fi
echo "# KernelBench-format candidates evaluated by this build: $PYTHON"
if [ "$PYTHON" = no ]; then
    echo 'class ModelNew: pass' > "${S}_13_kernel.py"
    echo 'class ModelNew: pass' > "$RUN/level_1_problem_20_sample_0.py"
fi
relu 0 > "$RUN/level_9_problem_1_sample_0.c"                # no such problem
echo '{}' > "${S}_0.response.json"
echo notes > "$RUN/README.md"
echo x > "$RUN/.hidden"
mkdir "$RUN/logs"
mkfifo "$RUN/pipe"
if [ "$(id -u)" -eq 0 ]; then UNREADABLE_3=no; else UNREADABLE_3=yes; fi
echo "# run as uid $(id -u): sample 3 (chmod 000) unreadable: $UNREADABLE_3"
COMMON=(--device cpu --size small --seed 5 --timeout 60)

# expect_records FILE SAMPLES...: exactly one record per sample, each with its reason
# (sample 5 a dangling link unless FIVE=file)
expect_records() {
python3 - "$UNREADABLE_3" "$SECRET" "${FIVE:-link}" "$@" <<'PY'
import json, sys, collections
unreadable3, secret, five, path = sys.argv[1] == "yes", sys.argv[2], sys.argv[3], sys.argv[4]
want = sorted(int(s) for s in sys.argv[5:])
text = open(path).read()
assert secret not in text, "the secret is in the results"
recs = [json.loads(l) for l in text.splitlines() if l.strip()]
got = collections.Counter(r["sample"] for r in recs)
assert sorted(got) == want and max(got.values()) == 1, (sorted(got.items()), want)
kinds = {1: "empty", 2: "binary", 4: "symlink", 5: "symlink", 6: "symlink", 7: "not-regular",
         8: "not-regular", 9: "missing", 10: "too-large"}
if unreadable3:
    kinds[3] = "unreadable"
if five == "file":
    del kinds[5]
for r in recs:
    assert r["model"] == "e2e-bad" and r["problem"] == "L1/19", r
    s, p = r["sample"], r["protocols"]
    if s in kinds:
        reason = "unusable candidate file (%s): " % kinds[s]
        assert not r["compile"]["ok"] and r["compile"]["log"].startswith(reason), (s, r["compile"])
        for name, v in p.items():
            assert not v["correct"] and v["reason"].startswith(reason), (s, name, v["reason"])
        assert r["draws"] == [] and r["fault"] is None, s
        unread = kinds[s] not in ("empty", "binary")
        assert (r["source_sha256"] == "unread:" + kinds[s]) == unread, (s, r["source_sha256"])
        assert unread or len(r["source_sha256"]) == 64, (s, r["source_sha256"])
    elif s == 11:
        assert not r["compile"]["ok"] and all(v["reason"].startswith("generation failed: no code")
                                              for v in p.values()), r
    else:   # 0 and 3 (as root), 5 once it is a file
        assert r["compile"]["ok"] and all(v["correct"] for v in p.values()), (s, p)
detail = {4: "symbolic link", 7: "a directory", 8: "a fifo", 10: "5242880 bytes"}
for r in recs:
    if r["sample"] in detail:
        assert detail[r["sample"]] in r["protocols"]["strict"]["reason"], r["protocols"]["strict"]
PY
}

# counts_add_up ERRFILE TOTAL EVALUATED UNUSABLE RESUMED: the start and end lines
counts_add_up() {
python3 - "$PYTHON" "$@" <<'PY'
import re, sys
python = sys.argv.pop(1) == "yes"
err = open(sys.argv[1]).read()
total, evaluated, unusable, resumed = map(int, sys.argv[2:6])
start = re.search(r"^kbv eval: (\d+) candidates? in 1 run directory: (\d+) to evaluate, "
                  r"(\d+) already recorded; (\d+) other entries not evaluated \((.*)\)$", err, re.M)
assert start, err
n, plan, done_before, others, parts = int(start[1]), int(start[2]), int(start[3]), int(start[4]), start[5]
assert n == total and plan + done_before == n, start[0]
assert done_before == resumed, start[0]
py_part = "" if python else "2 KernelBench Python candidates, "
assert parts == ("1 .cu for the GPU, " + py_part + "3 not candidates, "
                 "1 .response.json, 1 of a problem kbv does not have, 1 hidden"), parts
assert others == (7 if python else 9), start[0]
end = re.search(r"^kbv eval: (\d+) candidates?: (\d+) evaluated(?: \((\d+) unusable files?: "
                r"([^)]*)\))?, (\d+) could not be evaluated, (\d+) resumed$", err, re.M)
assert end, err
e_total, e_eval, e_unusable, breakdown, e_failed, e_resumed = end.groups()
assert int(e_total) == total == int(e_eval) + int(e_failed) + int(e_resumed), end[0]
assert (int(e_eval), int(e_failed), int(e_resumed)) == (evaluated, 0, resumed), end[0]
assert int(e_unusable or 0) == unusable, end[0]
if breakdown:
    assert sum(int(x.split()[0]) for x in breakdown.split(", ")) == unusable, breakdown
words = ["skipping 1 .cu file", "README.md", "logs (a directory)", "pipe (a fifo)",
         "level_9_problem_1_sample_0.c"]
if not python:
    words += ["KernelBench Python candidates not evaluated", "does not evaluate KernelBench"]
for word in words:
    assert word in err, (word, err)
assert err.count("\n[") == evaluated, err
PY
}
no_secret() { # no_secret: the secret file's content in no output, log or cache file
    ! grep -r -l -D skip --exclude=secret.txt --exclude=locked.txt -F "$SECRET" "$TMP" 2>/dev/null
}
if [ "$UNREADABLE_3" = yes ]; then N_UNUSABLE=9; else N_UNUSABLE=8; fi

# ---- in this process; sample 9 deleted while sample 0 is being evaluated -----------
OUT="$TMP/results.jsonl"
timeout 600 "$KBV" eval "$RUN" --out "$OUT" "${COMMON[@]}" >"$TMP/eval1.out" 2>"$TMP/eval1.err" &
bg_pid=$!
for _ in $(seq 1 1200); do
    grep -q "^kbv eval: device" "$TMP/eval1.err" 2>/dev/null && break
    kill -0 "$bg_pid" 2>/dev/null || break
    sleep 0.05
done
rm -f "${S}_9.c"
wait "$bg_pid"
rc=$?
bg_pid=
check "kbv eval exits 0 with unusable candidates (their failure, not kbv's)" test "$rc" -eq 0
check "one record per candidate file, each with its reason, 9 gone mid-run" \
    expect_records "$OUT" 0 1 2 3 4 5 6 7 8 9 10 11
check "the counts at the start and at the end add up" \
    counts_add_up "$TMP/eval1.err" 12 12 $((N_UNUSABLE + 1)) 0
check "the metrics count every sample: 1 problem, 12 samples" python3 - "$OUT.summary.json" <<'PY'
import json, sys
g = [x for x in json.load(open(sys.argv[1]))["groups"] if x["level"] == "all"][0]
assert g["problems"] == 1 and g["samples"] == 12, g
PY
check "the secret is in no results, log or cache file" no_secret

# ---- a rerun resumes; a link turned into a readable file is evaluated again ---------
timeout 600 "$KBV" eval "$RUN" --out "$OUT" "${COMMON[@]}" >/dev/null 2>"$TMP/eval2.err"
rc=$?
check "a rerun exits 0, evaluates nothing and adds no record" \
    bash -c "test $rc -eq 0 && grep -q '^kbv eval: 11 candidates: 0 evaluated, 0 could not be evaluated, 11 resumed$' '$TMP/eval2.err' && test \$(grep -c . '$OUT') -eq 12"
check "the rerun's counts add up" counts_add_up "$TMP/eval2.err" 11 0 0 11
rm "${S}_5.c"
relu 0 > "${S}_5.c"
again=1
if [ "$UNREADABLE_3" = yes ]; then chmod 644 "${S}_3.c"; again=2; fi
timeout 600 "$KBV" eval "$RUN" --out "$OUT" "${COMMON[@]}" >/dev/null 2>"$TMP/eval3.err"
rc=$?
check "files made readable are evaluated again (a link replaced by a file; 3 when it was unreadable)" \
    bash -c "test $rc -eq 0 && grep -q '^kbv eval: 11 candidates: $again evaluated, 0 could not be evaluated, $((11 - again)) resumed$' '$TMP/eval3.err'"
UNREADABLE_3=no
check "its new record passes, under the file's own hash" python3 - "$OUT" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
five = [r for r in recs if r["sample"] == 5]
assert len(five) == 2 and five[0]["source_sha256"] == "unread:symlink", five
assert len(five[1]["source_sha256"]) == 64 and five[1]["protocols"]["strict"]["correct"], five[1]
PY

# ---- --workers and --mpi: the same records and the same accounting -----------------
FIVE=file   # samples 3 and 5 are readable candidates now; 9 is gone
N_UNUSABLE=7
OUTW="$TMP/workers.jsonl"
timeout 600 "$KBV" eval "$RUN" --out "$OUTW" "${COMMON[@]}" --workers 2 \
    >/dev/null 2>"$TMP/workers.err"
rc=$?
check "--workers 2 exits 0" test "$rc" -eq 0
check "--workers 2: one record per candidate file, each with its reason" \
    expect_records "$OUTW" 0 1 2 3 4 5 6 7 8 10 11
check "--workers 2: the counts add up" counts_add_up "$TMP/workers.err" 11 11 $N_UNUSABLE 0
if command -v mpirun >/dev/null && ! "$KBV" eval --help | grep -q "built without MPI"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_MCA_btl_vader_single_copy_mechanism=none
    OUTM="$TMP/mpi.jsonl"
    timeout 600 mpirun --oversubscribe -np 3 "$KBV" eval "$RUN" --out "$OUTM" "${COMMON[@]}" \
        --mpi >/dev/null 2>"$TMP/mpi.err"
    rc=$?
    check "--mpi exits 0" test "$rc" -eq 0
    check "--mpi: one record per candidate file, each with its reason" \
        expect_records "$OUTM" 0 1 2 3 4 5 6 7 8 10 11
    check "--mpi: the counts add up" counts_add_up "$TMP/mpi.err" 11 11 $N_UNUSABLE 0
else
    echo "# kbv without MPI or no mpirun: --mpi not checked"
fi
check "the secret is in no results, log or cache file, after every mode" no_secret

# ---- directories with nothing kbv can evaluate --------------------------------------
PY_RUN="$TMP/only-py/kernelbench-model"
mkdir -p "$PY_RUN"
echo 'class ModelNew: pass' > "$PY_RUN/level_1_problem_19_sample_0_kernel.py"
echo 'class ModelNew: pass' > "$PY_RUN/level_1_problem_19_sample_1.py"
timeout 120 "$KBV" eval "$PY_RUN" --out "$TMP/py.jsonl" "${COMMON[@]}" >/dev/null 2>"$TMP/py.err"
rc=$?
if [ "$PYTHON" = no ]; then
    check "only KernelBench Python files: exit 1, saying this build does not evaluate them" \
        bash -c "test $rc -eq 1 && grep -q 'nothing to evaluate' '$TMP/py.err' &&
                 grep -q 'does not evaluate KernelBench Python candidates' '$TMP/py.err' &&
                 ! test -s '$TMP/py.jsonl'"
else
    check "only KernelBench Python files: both evaluated, failing to load (no nn.Module)" \
        bash -c "test $rc -eq 0 && test \$(grep -c 'ModelNew is not a torch.nn.Module' \
                 '$TMP/py.jsonl') -eq 2"
fi
CU_RUN="$TMP/only-cu/gpu-model"
mkdir -p "$CU_RUN"
relu 0 > "$CU_RUN/level_1_problem_19_sample_0.cu"
timeout 120 "$KBV" eval "$CU_RUN" --out "$TMP/cu.jsonl" "${COMMON[@]}" >/dev/null 2>"$TMP/cu.err"
rc=$?
check "only .cu files on the CPU: exit 1, saying they are for a GPU run" \
    bash -c "test $rc -eq 1 && grep -q 'for a GPU run' '$TMP/cu.err'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
