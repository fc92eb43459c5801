#!/usr/bin/env bash
# Evaluation throughput on one GPU: seconds per verified evaluation, by phase, for kbv on
# its own ABI (.cu) and on the same kernels as KernelBench-format files, against
# KernelBench's evaluator at its best (every load_inline built first by a pool of CPU
# workers, then a fresh process per sample), with cold and warm compile caches; then
# verified evaluations per GPU-hour and their ratios. Everything stays within a time
# budget (default 240 s; the KernelBench-format rows cover the candidates an estimate says
# fit, as printed). bench/throughput/throughput.py --help says what is measured.
#
#   bench/throughput/run.sh [BUILD_DIR] [--device cuda|cpu] [--budget S] [--out DIR]
#                           [--candidates FILE...] [--kb-count N] [--kb-workers P]
#                           [--part all|kbv|kernelbench] [--skip-kernelbench] ...
#   bench/throughput/run.sh --merge DIR... --out DIR     (one table of --part runs)
#
# BUILD_DIR: kbv, kbv-runner and libkbv.so, with lib/ for bundled libraries as
# scripts/gpu_bundle.sh makes it (default: build). --device cpu is a dry run on the CPU
# backend: kbv's rows on .c candidates at small sizes, kbv's KernelBench-format rows and
# KernelBench's batch build on examples/runs/demo-kernelbench's honest files (C++ through
# load_inline), their evaluation by kernelbench_eval.py's CPU dry run (KernelBench itself
# evaluates on CUDA alone). Results: OUT/throughput.tsv
# (default out/throughput), logs OUT/kbv.log and OUT/kernelbench.log; the last lines
# printed, "throughput: ...", are the summary. PYTHON picks the interpreter (it needs torch).
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
