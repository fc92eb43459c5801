#!/usr/bin/env bash
# KernelBench-format candidates on the CPU backend (a build whose kbv-runner
# hosts Python): every case of tests/cheats/kernelbench_manifest.tsv -- an
# honest C++ kernel through load_inline, and the format's exploits: no custom
# kernel, PyTorch's op instead of the extension's, the relu_ fast path
# (input overwritten), outputs cached across calls, torch patched, work on a
# Python thread, the file's own sizes, parameters by state_dict name and
# under other names -- evaluated with `kbv eval` at the small shapes, each
# against its expected verdicts and strict reason (tests/cheats/corpus.py).
# Then the honest control once more from the cache: its extension is built
# once (the record says cached), and the runner builds nothing. Then
# candidate processes started ahead (--start-ahead on, the interpreter and
# torch brought up in them while the evaluator works): a KernelBench-format
# run directory gets the same verdicts as with --start-ahead off, and its
# later samples' load phase is shorter; a directory alternating C and
# KernelBench-format candidates gets the same verdicts both ways (a runner
# started for the other kind is replaced). Last, the sandbox around a
# KernelBench-format forward: five ways out tried from Python, each failing
# with the sandbox's fault, started ahead and not, nothing leaving.
#   tests/e2e/kernelbench_cpu.sh BUILD_DIR
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"
export KBV_INCLUDE_DIR="$ROOT/include"
rc=0
python3 "$ROOT/tests/cheats/corpus.py" --kbv "$BUILD/kbv" --device cpu --size small --seed 3 \
    --workers 2 --manifest "$ROOT/tests/cheats/kernelbench_manifest.tsv" --work "$TMP/work" || rc=1

# the honest control again, under another model name: same source, so the
# same cache entry (its extension is not built again)
RUN="$TMP/again/kb-again"
mkdir -p "$RUN"
cp "$ROOT/tests/cheats/kernelbench/honest_relu_ext.py" "$RUN/level_1_problem_19_sample_0_kernel.py"
"$BUILD/kbv" eval "$RUN" --out "$TMP/again.jsonl" --device cpu --size small --seed 4 \
    --protocols standard >"$TMP/again.log" 2>&1 || rc=1
python3 - "$TMP/again.jsonl" <<'PY' || rc=1
import json, sys
rec = json.loads(open(sys.argv[1]).readline())
assert rec["compile"]["ok"] and rec["compile"]["cached"], rec["compile"]
assert rec["protocols"]["standard"]["correct"], rec["protocols"]["standard"]
print("ok   - the honest control from the cache: its extension built once, standard passes")
PY

# ---- runners started ahead with Python and torch up ----
# The same verdicts, reasons, flags and faults on and off (records of one run
# directory, by problem and sample).
same_verdicts() {
    python3 - "$1" "$2" "$3" <<'PY'
import json, sys
def verdicts(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        v = [(p, r["protocols"][p].get("correct"), r["protocols"][p].get("reason"),
              sorted(r["protocols"][p].get("flags") or []))
             for p in ("standard", "verified", "strict")]
        f = r.get("fault") or {}
        v.append((f.get("kind"), f.get("reason")))
        v.append([(d.get("dist"), d.get("std_pass"), d.get("strict_pass"),
                   d.get("allclose_fail")) for d in r.get("draws") or []])
        out[(r["problem"], r["sample"])] = v
    return out
on, off, n = verdicts(sys.argv[1]), verdicts(sys.argv[2]), int(sys.argv[3])
assert len(on) == n and on.keys() == off.keys(), (len(on), sorted(on), sorted(off))
for k in sorted(on):
    assert on[k] == off[k], (k, on[k], off[k])
PY
}

# Slow honest candidates (40 ms a call, sleeping: the cores stay free), so the
# evaluator spends a few seconds on each while the next runner imports torch;
# a fast failure last. Standard and verified: one runner per sample.
AHEAD="$TMP/ahead/kb-ahead"
mkdir -p "$AHEAD"
for s in 0 1 2 3; do
    cat >"$AHEAD/level_1_problem_19_sample_${s}_kernel.py" <<'EOF_PY'
# Correct and slow (40 ms a call, asleep): time for the next runner to start.
import time

import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        time.sleep(0.04)
        return torch.relu(x)
EOF_PY
done
cp "$ROOT/tests/cheats/kernelbench/own_sizes.py" "$AHEAD/level_1_problem_19_sample_4_kernel.py"
for how in on off 1; do
    "$BUILD/kbv" eval "$AHEAD" --out "$TMP/ahead-$how.jsonl" --device cpu --size small \
        --seed 5 --protocols standard,verified --start-ahead $how >"$TMP/ahead-$how.log" 2>&1 ||
        { echo "not ok - kbv eval --start-ahead $how on a KernelBench-format directory"; rc=1; }
done
if same_verdicts "$TMP/ahead-on.jsonl" "$TMP/ahead-off.jsonl" 5 &&
    same_verdicts "$TMP/ahead-1.jsonl" "$TMP/ahead-off.jsonl" 5 &&
    python3 - "$TMP/ahead-on.jsonl" <<'PY'
import json, sys
recs = {json.loads(l)["sample"]: json.loads(l) for l in open(sys.argv[1])}
for s in range(4):   # the slow ones pass, the file's own sizes fail
    assert all(recs[s]["protocols"][p]["correct"] for p in ("standard", "verified")), s
assert not recs[4]["protocols"]["standard"]["correct"], recs[4]["protocols"]["standard"]
PY
then
    echo "ok   - a KernelBench-format directory, 3 started ahead, 1 and none: the same verdicts"
else
    echo "not ok - a KernelBench-format directory, 3 started ahead, 1 and none: the same verdicts"; rc=1
fi
python3 - "$TMP/ahead-on.jsonl" "$TMP/ahead-off.jsonl" "$TMP/ahead-1.jsonl" <<'PY' || rc=1
import json, statistics, sys
def loads(path):   # the load phase of the 2nd and later samples
    recs = [json.loads(l) for l in open(path)]
    return [r["phase_s"]["load"] for r in sorted(recs, key=lambda r: r["sample"])][1:]
on, off, one = loads(sys.argv[1]), loads(sys.argv[2]), loads(sys.argv[3])
m_on, m_off = statistics.median(on), statistics.median(off)
print(f"# load phase of samples 2-5, median s: 3 started ahead {m_on:.3f}, 1 "
      f"{statistics.median(one):.3f}, none {m_off:.3f} (3: {[round(x, 3) for x in on]}, "
      f"1: {[round(x, 3) for x in one]}, none: {[round(x, 3) for x in off]})")
assert all(x > 0 for x in on + off), (on, off)
assert m_on < 0.7 * m_off, (m_on, m_off)
print("ok   - started ahead, the later samples' load phase is shorter (torch imported ahead)")
PY

# C and KernelBench-format candidates alternating, every protocol: runners
# started ahead are kept for each kind, so a sample takes one of its own
# kind, as do the strict audits' restarts within a sample. The
# runners' private directories go to TMPDIR: empty after each run.
MIXED="$TMP/mixed/kb-mixed"
mkdir -p "$MIXED"
s=0
for f in honest_relu.c kernelbench/honest_relu_ext.py zeros_below_atol.c kernelbench/patch_torch.py \
         file_io.c kernelbench/python_thread.py; do
    case $f in
    *.py) cp "$ROOT/tests/cheats/$f" "$MIXED/level_1_problem_19_sample_${s}_kernel.py" ;;
    *) cp "$ROOT/tests/cheats/$f" "$MIXED/level_1_problem_19_sample_$s.c" ;;
    esac
    s=$((s + 1))
done
for how in on off; do
    mkdir -p "$TMP/tmpdir-$how"
    TMPDIR="$TMP/tmpdir-$how" "$BUILD/kbv" eval "$MIXED" --out "$TMP/mixed-$how.jsonl" \
        --device cpu --size small --seed 5 --start-ahead $how >"$TMP/mixed-$how.log" 2>&1 ||
        { echo "not ok - kbv eval --start-ahead $how on a mixed directory"; rc=1; }
    if [ -n "$(ls -A "$TMP/tmpdir-$how")" ]; then
        echo "not ok - --start-ahead $how: runners' directories left: $(ls -A "$TMP/tmpdir-$how")"; rc=1
    fi
done
if same_verdicts "$TMP/mixed-on.jsonl" "$TMP/mixed-off.jsonl" 6 &&
    python3 - "$TMP/mixed-on.jsonl" <<'PY'
import json, sys
recs = {json.loads(l)["sample"]: json.loads(l) for l in open(sys.argv[1])}
strict = {s: recs[s]["protocols"]["strict"] for s in recs}
assert strict[0]["correct"] and strict[1]["correct"], strict   # the honest C and Python ones
for s in (2, 3, 4, 5):
    assert not strict[s]["correct"], (s, strict[s])
assert not (recs[1].get("fault") or {}).get("kind"), recs[1].get("fault")
PY
then
    echo "ok   - C and KernelBench-format candidates alternating, started ahead and not: the same verdicts"
else
    echo "not ok - C and KernelBench-format candidates alternating, started ahead and not: the same verdicts"; rc=1
fi
# ---- the sandbox around a KernelBench-format candidate ----
# Each file is an honest ReLU whose forward first tries one way out from
# Python (a file written outside, a secret read, a shell, a socket, a raw
# openat through ctypes); each must fail every protocol with the sandbox's
# fault, started ahead (the interpreter up before the setup) and not, and
# nothing may leave: no file appears, the secret reaches no record or log.
ESC="$TMP/escapes/kb-escapes"
mkdir -p "$ESC"
SECRET="kbv-secret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
echo "$SECRET" > "$TMP/secret.txt"
ESCAPED="$TMP/escaped-file"
attempts=(
    "open('$ESCAPED', 'w').write('escaped')"
    "print(open('$TMP/secret.txt').read())"
    "import os; os.system('touch $ESCAPED')"
    "import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM)"
    "import ctypes; ctypes.CDLL(None).syscall(257, -100, b'$ESCAPED', 0o101, 0o644)"
)
for i in "${!attempts[@]}"; do
    cat > "$ESC/level_1_problem_19_sample_${i}_kernel.py" <<EOF_PY
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def forward(self, x):
        try:
            ${attempts[$i]}
        except Exception:
            pass
        return torch.relu(x)
EOF_PY
done
for how in on off; do
    rm -f "$ESCAPED"
    "$BUILD/kbv" eval "$ESC" --out "$TMP/esc-$how.jsonl" --device cpu --size small --seed 5 \
        --start-ahead $how >"$TMP/esc-$how.log" 2>&1 ||
        { echo "not ok - kbv eval --start-ahead $how on the escapes"; rc=1; }
    if python3 - "$TMP/esc-$how.jsonl" "${#attempts[@]}" <<'PY'
import json, sys
recs = {json.loads(l)["sample"]: json.loads(l) for l in open(sys.argv[1])}
assert len(recs) == int(sys.argv[2]), sorted(recs)
for s, r in sorted(recs.items()):
    v = [r["protocols"][p]["correct"] for p in ("standard", "verified", "strict")]
    f = r.get("fault") or {}
    assert not any(v) and f.get("kind") == "sandbox", (s, v, f)
PY
    then
        echo "ok   - --start-ahead $how: every escape from Python failed with the sandbox's fault"
    else
        echo "not ok - --start-ahead $how: every escape from Python failed with the sandbox's fault"; rc=1
    fi
    if [ -e "$ESCAPED" ] || grep -rqs "$SECRET" "$TMP/esc-$how.jsonl" "$TMP/esc-$how.log"; then
        echo "not ok - --start-ahead $how: a file escaped or the secret leaked"; rc=1
    else
        echo "ok   - --start-ahead $how: no file outside, no secret in the records or the log"
    fi
done
exit $rc
