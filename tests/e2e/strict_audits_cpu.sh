#!/usr/bin/env bash
# The cheat corpus on the CPU backend: every .c case of tests/cheats/manifest.tsv
# (honest controls and cheats: file I/O, extra and timer exports, a late write,
# replay, stale memory, input mutation, out-of-bounds writes, memory scanning,
# fork/exec, sockets, weak imports, hang, crash, precision, range and
# distribution tricks) evaluated with `kbv eval` at the small shapes, each
# compared with its expected verdicts and strict reason. Honest controls must
# pass every protocol with no flag; each cheat must pass what it fools and fail
# strict for the reason that names the check. The honest controls (among them
# kernels more accurate than fp32: double accumulation, compensated sums,
# other association orders) run again under two more seeds, every draw of
# base and D1-D8 fresh each time.
#   tests/e2e/strict_audits_cpu.sh BUILD_DIR
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_INCLUDE_DIR="$ROOT/include"
rc=0
python3 "$ROOT/tests/cheats/corpus.py" --kbv "$BUILD/kbv" --device cpu --size small --seed 3 \
    --workers 2 --work "$TMP/work" || rc=1
for seed in 11 29; do
    python3 "$ROOT/tests/cheats/corpus.py" --kbv "$BUILD/kbv" --device cpu --size small \
        --seed "$seed" --workers 2 --honest --work "$TMP/work-$seed" || rc=1
done
exit $rc
