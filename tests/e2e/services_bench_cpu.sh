#!/usr/bin/env bash
# End-to-end: bench/services/services.py on the CPU backend at small size.
#   - every pass of the checks is timed and printed beside the copy: ten rows,
#     each with a positive median, its noise, the bytes it moves and a rate
#   - the TSV holds the same rows; the summary names the slowest pass
#   - a problem that is not elementwise (a product with parameters or two
#     inputs) is refused with a clear error; bad counts are usage errors
# usage: tests/e2e/services_bench_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: services_bench_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_services.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
. "$(dirname "$0")/lib/check.sh"
BENCH=(python3 "$ROOT/bench/services/services.py" --lib "$BUILD/libkbv.so" --device cpu --small)

"${BENCH[@]}" --reps 3 --warmup 1 --out "$TMP/s.tsv" >"$TMP/out.txt" 2>"$TMP/err.txt"
rc=$?
check "L1/19 on the CPU exits 0" test "$rc" -eq 0
check "every pass is printed with a positive time, bytes and rate" python3 - "$TMP/out.txt" <<'PY'
import sys
lines = open(sys.argv[1]).read().splitlines()
rows = [l.split() for l in lines if l and not l.startswith(("#", "pass", "summary"))]
names = [r[0] for r in rows]
want = ["copy", "fill", "fill-hidden", "poison", "hash", "convert-f64", "compare",
        "compare-strict", "compare-budget", "reference", "oracle"]
assert names == want, names
for r in rows:
    ms, noise, gb, gbps, ratio = float(r[1]), r[2], float(r[3]), float(r[4]), r[5]
    assert ms > 0 and gb > 0 and gbps > 0 and noise.endswith("%") and ratio.endswith("x"), r
assert rows[0][5] == "1.00x", rows[0]   # the copy against itself
PY
check "the TSV holds the same eleven rows" python3 - "$TMP/s.tsv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
assert len(rows) == 11 and all(r["problem"] == "L1/19" and r["device"] == "cpu" for r in rows), rows
assert all(float(r["median_ms"]) > 0 and float(r["bytes"]) > 0 for r in rows), rows
copy = next(r for r in rows if r["pass"] == "copy")
# the copy moves the input twice: read and written once (float32)
fill = next(r for r in rows if r["pass"] == "fill")
assert float(copy["bytes"]) == 2 * float(fill["bytes"]), (copy, fill)
strict = next(r for r in rows if r["pass"] == "compare-strict")
assert float(strict["bytes"]) == 5 * float(fill["bytes"]), strict   # 3 x float32 + float64
budget = next(r for r in rows if r["pass"] == "compare-budget")
assert budget["bytes"] == strict["bytes"], budget   # the budget is fp32-strict's buffer, read once
PY
check "the summary names the slowest pass against the copy" \
    grep -qE '^summary: 10 passes, copy [0-9.]+ GB/s; slowest [a-z0-9-]+ at [0-9.]+x' "$TMP/out.txt"

"${BENCH[@]}" --problem L1/1 --reps 1 --out "$TMP/mm.tsv" >"$TMP/mm.out" 2>"$TMP/mm.err"
rc=$?
check "a product (L1/1) is refused with a clear error" \
    bash -c "test $rc -ne 0 && grep -q 'takes a problem with one float input' '$TMP/mm.err'"
"${BENCH[@]}" --problem L9/9 --reps 1 --out "$TMP/no.tsv" >/dev/null 2>"$TMP/no.err"
rc=$?
check "an unknown problem is refused" bash -c "test $rc -ne 0 && grep -q 'no problem' '$TMP/no.err'"
"${BENCH[@]}" --reps 0 >/dev/null 2>"$TMP/usage.err"
rc=$?
check "--reps 0 is a usage error" bash -c "test $rc -eq 2 && grep -q -- '--reps must be' '$TMP/usage.err'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
