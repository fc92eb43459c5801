#!/usr/bin/env bash
# End-to-end: a run's pace on the CPU backend (its "device busy" is the time
# inside backend compute). Every record has busy_s, each part within the
# sample's time; the summary's pace counts this run's samples, its wall_by
# adds up to 1, busy is within (0, 1]; the table prints it; a resumed run
# with nothing to evaluate writes no pace.
# usage: tests/e2e/pace_cpu.sh BUILD_DIR
set -u
BUILD=${1:?usage: pace_cpu.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_pace.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"
export KBV_RUNNER="$BUILD/kbv-runner"
cleanup() { if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT
. "$(dirname "$0")/lib/check.sh"

mkdir -p "$TMP/runs"
cp -r "$SRC/examples/runs/demo-a" "$TMP/runs/"
RES="$TMP/results.jsonl"
"$KBV" eval "$TMP/runs/demo-a" --device cpu --workers 2 --out "$RES" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "kbv eval on two CPU workers exits 0" [ $? -eq 0 ]

check "every record has busy_s, each part finite, within the sample's total" \
    python3 - "$RES" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
assert len(recs) == 3, len(recs)
for r in recs:
    b, ph = r["busy_s"], r["phase_s"]
    assert set(b) == {"candidate", "checks", "baselines"}, b
    assert all(v is not None and v >= 0 for v in b.values()), b
    assert b["candidate"] > 0, b                      # the calls ran and were timed
    assert b["checks"] > 0, b                         # references, oracle, comparisons
    assert sum(b.values()) <= ph["total"] + 1e-6, (b, ph)
    assert b["baselines"] <= ph["baselines"] + 1e-6, (b, ph)
PY

check "the summary's pace: this run's 3 samples on the CPU, wall_by adds up to 1" \
    python3 - "$RES.summary.json" "$RES" <<'PY'
import json, sys
pace = json.load(open(sys.argv[1]))["pace"]
recs = [json.loads(l) for l in open(sys.argv[2])]
assert pace["protocols"] == "all", pace["protocols"]
(lane,) = pace["per_device"]
assert lane["device"] == "cpu" and lane["workers"] == 2 and lane["samples"] == 3, lane
assert abs(lane["wall_s"] - 2 * pace["wall_s"]) < 1e-9, lane
assert 0 < lane["busy"] <= 1, lane["busy"]
assert abs(sum(lane["wall_by"].values()) - 1) < 1e-6, lane["wall_by"]
for k in ("candidate", "checks", "baselines"):
    s = sum(r["busy_s"][k] for r in recs)
    assert abs(lane["busy_s"][k] - s) < 1e-6, (k, lane["busy_s"][k], s)
    assert abs(lane["busy_by"][k] - s / lane["wall_s"]) < 1e-9, k
assert abs(lane["busy"] - sum(lane["busy_by"].values())) < 1e-9
want = 3 / (pace["wall_s"] / 3600)
assert abs(lane["evaluations_per_device_hour"] - want) < 1e-6 * want, lane
assert pace["total"]["samples"] == 3 and pace["total"]["device"] == "all"
PY

check "the table prints the pace" grep -q "^Pace of this run (all; .* 3 samples on 1 device)" "$TMP/out.txt"
check "... with the CPU's busy fraction and evaluations per device-hour" \
    grep -Eq "^  CPU +3 samples, busy +[0-9.]+% \(candidate .*evaluations per device-hour" "$TMP/out.txt"

"$KBV" eval "$TMP/runs/demo-a" --device cpu --out "$RES" >"$TMP/out2.txt" 2>"$TMP/err2.txt"
check "a rerun with nothing left to evaluate exits 0" [ $? -eq 0 ]
check "... and writes no pace (it evaluated nothing)" \
    python3 -c "import json,sys; assert 'pace' not in json.load(open(sys.argv[1]))" "$RES.summary.json"
check "... nor prints one" bash -c "! grep -q '^Pace of this run' '$TMP/out2.txt'"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
