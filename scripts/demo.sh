#!/usr/bin/env bash
# Sets up, builds, and evaluates the bundled example runs (examples/runs/*):
# on the GPU when one is present, on the CPU backend at small shapes otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
mkdir -p out
device=cpu
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then device=cuda; fi
exec build/kbv eval examples/runs/demo-a examples/runs/demo-b --device "$device" \
    --out out/demo-$device.jsonl "$@"
