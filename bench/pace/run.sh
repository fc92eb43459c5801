#!/usr/bin/env bash
# The pace of a large evaluation (>= 100 honest candidates over >= 20 problems): the
# device busy fraction, the wall time by phase and evaluations per device-hour for
# each protocol set. bench/pace/pace.py --help says what is measured.
#
#   bench/pace/run.sh [BUILD_DIR] [--device cuda|cpu] [--samples N] [--sets LIST]
#                     [--out DIR] [--warm] [--before BUILD] [-- EXTRA kbv eval ARGS...]
#
# BUILD_DIR: kbv and kbv-runner, with lib/ for bundled libraries as
# scripts/gpu_bundle.sh makes it (default: build).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=build
if [ $# -gt 0 ] && [ -d "$1" ]; then
    build=$1
    shift
fi
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
export KBV_INCLUDE_DIR=${KBV_INCLUDE_DIR:-$PWD/include}
export LD_LIBRARY_PATH=$build/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
exec "${PYTHON:-python3}" bench/pace/pace.py --build "$build" "$@"
