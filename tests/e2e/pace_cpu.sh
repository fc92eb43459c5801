#!/usr/bin/env bash
# End-to-end: a run's pace on the CPU backend (its "device busy" is the time
# inside backend compute). Every record has busy_s, each part within the
# sample's time, and checks_s, the checks' seconds by kind adding up to them;
# the summary's pace counts this run's samples, its wall_by
# adds up to 1, busy is within (0, 1], checks_by adds up to its checks; the
# table prints both; a resumed run
# with nothing to evaluate writes no pace. Then one run directory evaluated
# with candidate processes started ahead and without (--start-ahead on, off): the same
# verdicts.
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
    c = r["checks_s"]
    assert set(c) == {"fills", "poison", "hashes", "references", "oracle", "comparisons"}, c
    assert all(v is not None and v >= 0 for v in c.values()), c
    assert abs(sum(c.values()) - b["checks"]) < 1e-6, (c, b)   # each second once
    for k in ("fills", "hashes", "references", "oracle", "comparisons"):
        assert c[k] > 0, (k, c)                       # all three protocols: every kind ran
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
for k, v in lane["checks_s"].items():
    s = sum(r["checks_s"][k] for r in recs)
    assert abs(v - s) < 1e-6, (k, v, s)
    assert abs(lane["checks_by"][k] - s / lane["wall_s"]) < 1e-9, k
assert abs(sum(lane["checks_by"].values()) - lane["busy_by"]["checks"]) < 1e-9
want = 3 / (pace["wall_s"] / 3600)
assert abs(lane["evaluations_per_device_hour"] - want) < 1e-6 * want, lane
assert pace["total"]["samples"] == 3 and pace["total"]["device"] == "all"
PY

check "the table prints the pace" grep -q "^Pace of this run (all; .* 3 samples on 1 device)" "$TMP/out.txt"
check "... with the CPU's busy fraction and evaluations per device-hour" \
    grep -Eq "^  CPU +3 samples, busy +[0-9.]+% \(candidate .*evaluations per device-hour" "$TMP/out.txt"
check "... and the checks' share by kind of work" \
    grep -Eq "^ +checks: fills [0-9.]+% poison [0-9.]+% hashes [0-9.]+% references [0-9.]+% oracle [0-9.]+% comparisons [0-9.]+%$" "$TMP/out.txt"

"$KBV" eval "$TMP/runs/demo-a" --device cpu --out "$RES" >"$TMP/out2.txt" 2>"$TMP/err2.txt"
check "a rerun with nothing left to evaluate exits 0" [ $? -eq 0 ]
check "... and writes no pace (it evaluated nothing)" \
    python3 -c "import json,sys; assert 'pace' not in json.load(open(sys.argv[1]))" "$RES.summary.json"
check "... nor prints one" bash -c "! grep -q '^Pace of this run' '$TMP/out2.txt'"

# ---- candidate processes started ahead: the same verdicts as started when needed ----
# Honest candidates and cheats that fail in every way the protocols tell apart
# (wrong values, stale outputs, input mutation, a crash, forbidden calls and
# symbols; not a late writer: which draw catches it races its own thread), with
# one seed: every verdict, reason, flag and fault must be the same both ways.
MIX="$TMP/runs/mix"
mkdir -p "$MIX"
s=0
for f in honest_relu.c zeros_below_atol.c relu_identity.c file_io.c extra_export.c; do
    cp "$SRC/tests/cheats/$f" "$MIX/level_1_problem_19_sample_$s.c"; s=$((s + 1))
done
for f in honest_gelu.c stale_output.c input_mutation.c crash.c socket.c fork_exec.c; do
    cp "$SRC/tests/cheats/$f" "$MIX/level_1_problem_88_sample_$s.c"; s=$((s + 1))
done
# the runners' private directories and jail staging directories go to TMPDIR:
# empty after a run, every runner (the one started ahead and never used too)
# was stopped and cleaned up
mkdir -p "$TMP/tmpdir-ahead" "$TMP/tmpdir-cold"
TMPDIR="$TMP/tmpdir-ahead" "$KBV" eval "$MIX" --device cpu --seed 7 --start-ahead on \
    --out "$TMP/ahead.jsonl" >"$TMP/ahead.txt" 2>&1
check "the mix, candidate processes started ahead: exits 0" [ $? -eq 0 ]
TMPDIR="$TMP/tmpdir-cold" "$KBV" eval "$MIX" --device cpu --seed 7 --start-ahead off \
    --out "$TMP/cold.jsonl" >"$TMP/cold.txt" 2>&1
check "the mix, each started when needed (--start-ahead off): exits 0" [ $? -eq 0 ]
check "no candidate process left its directory behind, started ahead or not" \
    bash -c "[ -z \"\$(ls -A '$TMP/tmpdir-ahead' '$TMP/tmpdir-cold' | grep -v ':\$' | grep .)\" ]"
check "the same verdicts, reasons, flags and faults both ways (and they differ by sample)" \
    python3 - "$TMP/ahead.jsonl" "$TMP/cold.jsonl" <<'PY'
import json, sys
def verdicts(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        v = []
        for p in ("standard", "verified", "strict"):
            pr = r["protocols"][p]
            v.append((pr["correct"], pr.get("reason"), sorted(pr.get("flags") or [])))
        f = r.get("fault") or {}
        v.append((f.get("kind"), f.get("reason")))
        v.append([(d.get("dist"), d.get("std_pass"), d.get("strict_pass"),
                   d.get("allclose_fail"), d.get("poison_left")) for d in r.get("draws") or []])
        out[(r["problem"], r["sample"])] = v
    return out
a, c = verdicts(sys.argv[1]), verdicts(sys.argv[2])
assert len(a) == 11 and a.keys() == c.keys(), (len(a), sorted(a), sorted(c))
for k in sorted(a):
    assert a[k] == c[k], (k, a[k], c[k])
passes = [k for k in a if all(p[0] for p in a[k][:3])]
fails = [k for k in a if not a[k][2][0]]
assert len(passes) == 2 and len(fails) == 9, (passes, fails)   # the honest two pass
faults = {a[k][3][0] for k in a}
assert {"crash", "sandbox"} <= faults, faults
PY
check "started ahead, the candidate processes' start is charged to load as before" \
    python3 - "$TMP/ahead.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    assert r["phase_s"]["load"] > 0, r["phase_s"]
PY
echo "# load phase, started ahead / when needed (s):" \
    "$(python3 -c "import json,sys; print(round(sum(json.loads(l)['phase_s']['load'] for l in open(sys.argv[1])), 3))" "$TMP/ahead.jsonl")" \
    "/ $(python3 -c "import json,sys; print(round(sum(json.loads(l)['phase_s']['load'] for l in open(sys.argv[1])), 3))" "$TMP/cold.jsonl")"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
