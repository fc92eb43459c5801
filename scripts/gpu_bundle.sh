#!/usr/bin/env bash
# Builds kbv with CUDA here and bundles the build with the few shared
# libraries a bare GPU machine may lack (jansson, cmocka, seccomp, libelf), so
# the build can be carried to a machine without Debian's -dev packages.
#   scripts/gpu_bundle.sh [BUILD_DIR]     (default build-gpu)
# It also assembles DIR/carry: just the programs, their files (share/kbv) and
# those libraries, small enough to travel. Then, there: tests/gpu/run.sh DIR/carry
#
# KernelBench-format candidates there need a kbv-runner built against that
# machine's Python: BUNDLE_PYTHON=an interpreter here of the same version (its
# headers and libpython), BUNDLE_PYTHON_TARGET=the interpreter's path there,
# e.g. BUNDLE_PYTHON=~/.pyenv/versions/3.12.1/bin/python3
#      BUNDLE_PYTHON_TARGET=/opt/torch/.venv/bin/python3 scripts/gpu_bundle.sh
# The libpython built against goes in carry/lib-python, for a machine without
# one (tests/gpu/run.sh uses it only then). Without them, no Python.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-gpu}
python=(-DKBV_WITH_PYTHON=OFF)   # the GPU machine's Python is not this machine's
if [ -n "${BUNDLE_PYTHON:-}" ]; then
    python=(-DKBV_WITH_PYTHON=ON -DKBV_PYTHON="$BUNDLE_PYTHON"
            -DKBV_PYTHON_TARGET="${BUNDLE_PYTHON_TARGET:?BUNDLE_PYTHON needs BUNDLE_PYTHON_TARGET}")
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DKBV_WITH_CUDA=ON -DKBV_WITH_CURL=OFF \
    -DKBV_WITH_MPI=OFF "${python[@]}" >/dev/null   # the GPU machine may lack libmpi
cmake --build "$dir" -j"$(nproc)"
mkdir -p "$dir/lib"
for bin in "$dir/kbv" "$dir/kbv-runner" "$dir/libkbv.so" "$dir"/gpu_test_*; do
    ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | grep -E 'libjansson|libcmocka|libseccomp|libelf' | xargs -r cp -L -t "$dir/lib"
rm -rf "$dir/carry" && mkdir -p "$dir/carry"
cp -r "$dir/lib" "$dir/kbv" "$dir/kbv-runner" "$dir/libkbv.so" "$dir"/gpu_test_* "$dir/carry/"
cp -rL "$dir/share" "$dir/carry/"   # kbv's files (share/kbv), links followed: kbv finds them beside itself
strip --strip-unneeded "$dir"/carry/kbv "$dir"/carry/kbv-runner "$dir"/carry/gpu_test_* 2>/dev/null || true
if [ -n "${BUNDLE_PYTHON:-}" ]; then
    mkdir -p "$dir/carry/lib-python"
    ldd "$dir/kbv-runner" | awk '/libpython/ && /=> \// {print $3}' | xargs -r cp -L -t "$dir/carry/lib-python"
    strip --strip-unneeded "$dir"/carry/lib-python/* 2>/dev/null || true
fi
du -sh "$dir/carry"
