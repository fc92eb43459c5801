#!/usr/bin/env bash
# End-to-end: kbv eval --allow-vendor-libs on the CPU backend, small size:
# what the option changes that a machine without a GPU can see.
#   - every record says which vendor libraries its run allowed
#     ("vendor_libs": [] without the option), and so do the summary, the
#     terminal table, kbv check, kbv report's tables and page;
#   - the set is part of the resume identity: a rerun with another set
#     evaluates every sample again, one with the same set resumes, a record
#     written before the field existed counts as "none"; kbv merge keeps the
#     records of each set and tables them apart;
#   - a bad list is refused; a C candidate gets no vendor library linked;
#   - kbv prompt --allow-vendor-libs=LIST adds the ABI's section on them,
#     naming LIST, and leaves it out without.
# (The libraries themselves, the allowlist on .cu candidates and the traced
# pass need a GPU: tests/cheats/vendor_manifest.tsv, tests/gpu/cheats.sh.)
# usage: tests/e2e/vendor_libs_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: vendor_libs_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_vendor.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"
export KBV_RUNNER="$BUILD/kbv-runner"
export KBV_INCLUDE_DIR="$SRC/include"
export KBV_DOCS_DIR="$SRC/docs" KBV_PROMPTS_DIR="$SRC/prompts" KBV_EXAMPLES_DIR="$SRC/examples"
cleanup() { if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT

. "$(dirname "$0")/lib/check.sh"

for m in a b; do
    mkdir -p "$TMP/runs/$m"
    cp "$SRC/tests/cheats/honest_relu.c" "$TMP/runs/$m/level_1_problem_19_sample_0.c"
done
# a C candidate calling cuBLAS: nothing links it, with the option or without
mkdir -p "$TMP/cblas"
cat > "$TMP/cblas/level_1_problem_19_sample_0.c" <<'C'
#include <kbv/candidate.h>
int cublasCreate_v2(void **handle);
int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)inputs; (void)n_inputs; (void)params; (void)n_params;
    (void)outputs; (void)n_outputs;
    void *h;
    return cublasCreate_v2(&h);
}
C

OUT="$TMP/results.jsonl"
run() { "$KBV" eval "$TMP/runs/a" "$TMP/runs/b" --out "$OUT" --device cpu --size small \
        --seed 5 "$@" > "$TMP/eval.out" 2> "$TMP/eval.err"; }

# libs OUT EXPECTED_COUNT LIST: that many records of OUT say vendor_libs == LIST (JSON)
libs() {
python3 - "$@" <<'PY'
import json, sys
path, count, want = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
recs = [json.loads(l) for l in open(path) if l.strip()]
assert all("vendor_libs" in r for r in recs), "a record without vendor_libs"
mine = [r for r in recs if r["vendor_libs"] == want]
assert len(mine) == count, f"{len(mine)} records with {want}, expected {count}: " \
    f"{[r['vendor_libs'] for r in recs]}"
assert all(r["protocols"][p]["correct"] for r in mine for p in ("standard", "verified", "strict")), \
    "an honest ReLU failed"
PY
}
summary() { # summary FIELD VALUE
    python3 -c "import json,sys; s=json.load(open('$OUT.summary.json')); \
assert s['$1']==$2, (s['$1'], $2)"
}

check "kbv eval without the option" run
check "... its records allow no vendor library ([])" libs "$OUT" 2 '[]'
check "... the summary says none" summary vendor_libs "'none'"
check "... and so does the table" grep -q "vendor libraries none" "$TMP/eval.out"
check "... and the start line" grep -q "vendor libraries: none" "$TMP/eval.err"

check "kbv eval --allow-vendor-libs evaluates again" run --allow-vendor-libs
check "... every sample" grep -q "2 to evaluate, 0 already recorded" "$TMP/eval.err"
check "... its records name all three" libs "$OUT" 2 '["cublas", "cublasLt", "cudnn"]'
check "... the records without stay" libs "$OUT" 2 '[]'
check "... the summary counts this run's set alone" \
    python3 -c "import json; s=json.load(open('$OUT.summary.json')); \
assert s['vendor_libs']=='cublas,cublasLt,cudnn' and s['records']==2, s"
check "... the table names them" grep -q "vendor libraries cublas,cublasLt,cudnn" "$TMP/eval.out"
check "... and says the others were left out" \
    grep -q "2 records of another device, size, gate, precision or vendor libraries left out" "$TMP/eval.err"

check "kbv eval --allow-vendor-libs again resumes" run --allow-vendor-libs
check "... every sample already recorded" grep -q "0 to evaluate, 2 already recorded" "$TMP/eval.err"
check "--allow-vendor-libs=all is the same set" run --allow-vendor-libs=all
check "... resumed" grep -q "0 to evaluate, 2 already recorded" "$TMP/eval.err"
check "--allow-vendor-libs=cudnn,cublas is another set" run --allow-vendor-libs=cudnn,cublas
check "... evaluated again" grep -q "2 to evaluate, 0 already recorded" "$TMP/eval.err"
check "... recorded in table order" libs "$OUT" 2 '["cublas", "cudnn"]'
check "--allow-vendor-libs=none is no option at all: resumed" run --allow-vendor-libs=none
check "... from the first run's records" grep -q "0 to evaluate, 2 already recorded" "$TMP/eval.err"

# records written before the field existed: the first run's, without it
python3 - "$OUT" "$TMP/old.jsonl" <<'PY'
import json, sys
with open(sys.argv[2], "w") as out:
    for line in open(sys.argv[1]):
        r = json.loads(line)
        if r["vendor_libs"] == []:
            del r["vendor_libs"]
            out.write(json.dumps(r) + "\n")
PY
check "a record without vendor_libs counts as none: resumed" bash -c "'$KBV' eval '$TMP/runs/a' \
    '$TMP/runs/b' --out '$TMP/old.jsonl' --device cpu --size small --seed 5 2> '$TMP/old.err' \
    >/dev/null && grep -q '0 to evaluate, 2 already recorded' '$TMP/old.err'"
check "... and evaluated again under the option" bash -c "'$KBV' eval '$TMP/runs/a' \
    '$TMP/runs/b' --out '$TMP/old.jsonl' --device cpu --size small --seed 5 --allow-vendor-libs \
    2> '$TMP/old.err' >/dev/null && grep -q '2 to evaluate, 0 already recorded' '$TMP/old.err'"

check "kbv merge keeps every set's records" bash -c "'$KBV' merge '$OUT' --out '$TMP/merged.jsonl' \
    > '$TMP/merge.out' 2> '$TMP/merge.err'"
check "... all six" libs "$TMP/merged.jsonl" 2 '["cublas", "cudnn"]'
check "... tabled apart" grep -q "records of 3 devices, sizes, verified gates, precisions or vendor library sets" \
    "$TMP/merge.err"

check "kbv report names the sets" bash -c "'$KBV' report '$OUT' --out '$TMP/report' \
    > '$TMP/report.out' 2> '$TMP/report.err'"
check "... in tables.md" grep -q "vendor libraries allowed: " "$TMP/report/tables.md"
check "... in tables.csv's last column" bash -c "head -1 '$TMP/report/tables.csv' | grep -q ',vendor_libs$'"
check "... on the page" grep -q "vendor libraries cublas,cudnn" "$TMP/report/index.html"
check "... in the summary" python3 -c "import json; s=json.load(open('$TMP/report/summary.json')); \
assert s['vendor_libs'] in ('cublas,cudnn', 'mixed'), s['vendor_libs']"

check "a bad list is refused" bash -c "! '$KBV' eval '$TMP/runs/a' --out '$TMP/x.jsonl' --device cpu \
    --allow-vendor-libs=cublas,mkl 2> '$TMP/bad.err' && grep -q \"vendor library 'mkl'\" '$TMP/bad.err' \
    && [ ! -e '$TMP/x.jsonl' ]"
check "kbv check --allow-vendor-libs says so" bash -c "'$KBV' check L1/19 \
    '$TMP/runs/a/level_1_problem_19_sample_0.c' --device cpu --seed 5 --allow-vendor-libs=cublasLt \
    | grep -q 'vendor libraries cublasLt'"
check "kbv check --json records it" bash -c "'$KBV' check L1/19 \
    '$TMP/runs/a/level_1_problem_19_sample_0.c' --device cpu --seed 5 --allow-vendor-libs --json \
    | python3 -c 'import json,sys; r=json.load(sys.stdin); assert r[\"vendor_libs\"]==[\"cublas\",\"cublasLt\",\"cudnn\"], r[\"vendor_libs\"]'"
check "a C candidate calling cuBLAS does not link, even allowed" bash -c "'$KBV' eval '$TMP/cblas' \
    --out '$TMP/cblas.jsonl' --device cpu --size small --seed 5 --allow-vendor-libs >/dev/null 2>&1; \
    python3 -c \"import json; r=json.loads(open('$TMP/cblas.jsonl').readline()); \
assert not r['compile']['ok'] and 'cublasCreate_v2' in r['compile']['log'], r['compile']\""

check "kbv prompt --allow-vendor-libs=cublasLt has the section, naming cuBLASLt" bash -c "'$KBV' prompt \
    L1/14 --allow-vendor-libs=cublasLt > '$TMP/p1.txt' && grep -q '^## Vendor libraries' '$TMP/p1.txt' \
    && grep -q 'This run allows cuBLASLt (\`cublasLt.h\`), and no other library' '$TMP/p1.txt'"
check "kbv prompt without it has no such section" bash -c "'$KBV' prompt L1/14 > '$TMP/p0.txt' && \
    ! grep -q 'Vendor libraries' '$TMP/p0.txt' && ! grep -q 'This run allows' '$TMP/p0.txt'"
check "... the option only adds lines" bash -c "diff '$TMP/p0.txt' '$TMP/p1.txt' > '$TMP/p.diff'; \
    [ \$? -eq 1 ] && ! grep -q '^<' '$TMP/p.diff'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
