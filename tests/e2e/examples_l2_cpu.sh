#!/usr/bin/env bash
# The level-2 example candidates' CPU twins (examples/runs/demo-l2/*.c: a GEMM
# or a convolution with its problem's whole chain fused) evaluated with
# `kbv eval` at the small shapes, each compared with its expected verdicts in
# examples/runs/demo-l2/EXPECTED.tsv (tests/cheats/corpus.py says how): every
# one must pass every protocol with no flag. The .cu candidates and
# examples/runs/demo-l2-vendor need a GPU (tests/gpu/run.sh).
#   tests/e2e/examples_l2_cpu.sh BUILD_DIR
set -uo pipefail
BUILD=$(cd "${1:?usage: $0 BUILD_DIR}" && pwd)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
export KBV_INCLUDE_DIR="$ROOT/include"
python3 "$ROOT/tests/cheats/corpus.py" --kbv "$BUILD/kbv" --device cpu --size small --seed 5 \
    --workers 2 --work "$TMP/work" --manifest "$ROOT/examples/runs/demo-l2/EXPECTED.tsv"
