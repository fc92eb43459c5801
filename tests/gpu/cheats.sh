#!/usr/bin/env bash
# The cheat corpus on the GPU: every .cu case of tests/cheats/manifest.tsv
# (honest controls and one cheat per known hack) and of
# tests/cheats/vendor_manifest.tsv (the same under kbv eval --allow-vendor-libs)
# and, where the build hosts Python, the KernelBench-format files of
# tests/cheats/kernelbench_manifest.tsv and kernelbench_gpu_manifest.tsv,
# evaluated with `kbv eval --device cuda` at the full catalog shapes, each
# compared with its expected verdicts and strict reason (tests/cheats/corpus.py
# says how). Prints
# the table "case | hack | standard | verified | strict | strict reason |
# expected?" and, last, "cheats: X/Y as expected, honest controls: A/B pass with
# no flag"; exits non-zero on any mismatch.
#   tests/gpu/cheats.sh [BUILD_DIR]        (default build; a carried build works)
# Environment: OUT (logs, default out/gpu), SEED (default 7), SIZE (full|small,
# default full), ONLY (comma-separated case names), VENDOR=0 (leave out
# vendor_manifest.tsv), KERNELBENCH=0 (leave out the KernelBench-format files), KBV_CACHE_DIR (default out/kbv-cache, shared with
# tests/gpu/run.sh so baselines are measured once).
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
out=${OUT:-out/gpu}
mkdir -p "$out"
export KBV_CACHE_DIR=${KBV_CACHE_DIR:-$PWD/out/kbv-cache} KBV_INCLUDE_DIR=$PWD/include
export LD_LIBRARY_PATH=$build/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
if [ ! -x "$build/kbv" ]; then
    echo "cheats: no kbv in $build" >&2
    echo "cheats: not run (no build)"
    exit 1
fi
work="$out/cheats"
rm -rf "$work"
args=(--kbv "$build/kbv" --device cuda --size "${SIZE:-full}" --seed "${SEED:-7}" --work "$work")
[ -n "${ONLY:-}" ] && args+=(--only "$ONLY")
args+=(--manifest tests/cheats/manifest.tsv)
[ "${VENDOR:-1}" != 0 ] && args+=(--manifest tests/cheats/vendor_manifest.tsv)
# KernelBench-format files, where this build's runner hosts Python (KERNELBENCH=0 leaves them out)
if [ "${KERNELBENCH:-1}" != 0 ]; then
    if "$build/kbv" eval --help | grep -q 'kbv-runner hosts the interpreter'; then
        args+=(--manifest tests/cheats/kernelbench_manifest.tsv
               --manifest tests/cheats/kernelbench_gpu_manifest.tsv)
    else
        echo "cheats: this build hosts no Python: KernelBench-format cases not run" >&2
    fi
fi
python3 tests/cheats/corpus.py "${args[@]}" | tee "$out/cheats.txt"
exit "${PIPESTATUS[0]}"
