#!/usr/bin/env bash
# Builds kbv with CUDA here and bundles the build with the few shared
# libraries a bare GPU machine may lack (jansson, cmocka, seccomp, libelf), so
# the build can be carried to a machine without Debian's -dev packages.
#   scripts/gpu_bundle.sh [BUILD_DIR]     (default build-gpu)
# It also assembles DIR/carry: just the programs, their files (share/kbv) and
# those libraries, small enough to travel. Then, there: tests/gpu/run.sh DIR/carry
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build-gpu}
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DKBV_WITH_CUDA=ON -DKBV_WITH_CURL=OFF \
    -DKBV_WITH_MPI=OFF -DKBV_WITH_PYTHON=OFF >/dev/null   # the GPU machine may lack libmpi and libpython3.11
cmake --build "$dir" -j"$(nproc)"
mkdir -p "$dir/lib"
for bin in "$dir/kbv" "$dir/kbv-runner" "$dir/libkbv.so" "$dir"/gpu_test_*; do
    ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | grep -E 'libjansson|libcmocka|libseccomp|libelf' | xargs -r cp -L -t "$dir/lib"
rm -rf "$dir/carry" && mkdir -p "$dir/carry"
cp -r "$dir/lib" "$dir/kbv" "$dir/kbv-runner" "$dir/libkbv.so" "$dir"/gpu_test_* "$dir/carry/"
cp -rL "$dir/share" "$dir/carry/"   # kbv's files (share/kbv), links followed: kbv finds them beside itself
strip --strip-unneeded "$dir"/carry/kbv "$dir"/carry/kbv-runner "$dir"/carry/gpu_test_* 2>/dev/null || true
du -sh "$dir/carry"
