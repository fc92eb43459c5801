#!/usr/bin/env bash
# Sets up, builds, and evaluates the bundled example runs (examples/runs/*):
# on the GPU when one is present, on the CPU backend at small shapes otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
mkdir -p out
log=out/demo-build.log
echo "demo: building kbv into build/ (log: $log)" >&2
if ! scripts/build.sh >"$log" 2>&1; then
    echo "demo: the build failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
fi

# The backend, and why: a GPU the driver shows, and a kbv built with CUDA.
device=cpu
cpu="running on the CPU backend at small shapes"
if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "demo: no GPU found (nvidia-smi not found): $cpu" >&2
elif ! gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1) ||
     [ -z "$gpu" ]; then
    echo "demo: no GPU found (nvidia-smi sees no device): $cpu" >&2
elif ! ldd build/kbv | grep -q libcudart; then
    echo "demo: a GPU ($gpu), but kbv was built without CUDA (no nvcc under" \
         "/usr/local/cuda): $cpu" >&2
else
    device=cuda
    echo "demo: running on the GPU ($gpu)" >&2
fi
exec build/kbv eval examples/runs/demo-a examples/runs/demo-b --device "$device" \
    --out out/demo-$device.jsonl "$@"
