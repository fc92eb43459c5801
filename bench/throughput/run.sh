#!/usr/bin/env bash
# Evaluation throughput on one GPU: seconds per candidate, by phase, for kbv's verified
# protocol and for a minimal KernelBench-style evaluator on the same kernels, with cold
# and warm compile caches; then verified evaluations per GPU-hour and their ratio.
# Everything stays within a time budget (default 420 s; KernelBench rows cover the
# candidates that fit). bench/throughput/throughput.py --help says what is measured.
#
#   bench/throughput/run.sh [BUILD_DIR] [--device cuda|cpu] [--budget S] [--out DIR]
#                           [--candidates FILE...] [--skip-kernelbench] ...
#
# BUILD_DIR: kbv, kbv-runner and libkbv.so, with lib/ for bundled libraries as
# scripts/gpu_bundle.sh makes it (default: build). --device cpu is a dry run of the kbv
# half on the CPU backend (.c candidates, small sizes) that also writes, without
# compiling, the KernelBench sources. Results: OUT/throughput.tsv (default
# out/throughput), logs OUT/kbv.log and OUT/kernelbench.log; the last lines printed,
# "throughput: ...", are the summary. PYTHON picks the interpreter (it needs torch).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build
args=()
if [ $# -gt 0 ] && [ -d "$1" ]; then
    build=$1
    shift
fi
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
export KBV_INCLUDE_DIR=${KBV_INCLUDE_DIR:-$PWD/include}
export LD_LIBRARY_PATH=$build/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
exec "${PYTHON:-python3}" bench/throughput/throughput.py --build "$build" "$@"
