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
# once (the record says cached), and the runner builds nothing.
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
exit $rc
