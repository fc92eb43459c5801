#!/usr/bin/env bash
# Sets up, builds and runs every test that needs no GPU: the unit tests, the
# end-to-end tests on the CPU backend (incl. the PyTorch parity test), then the
# same again under AddressSanitizer + UBSan (CPU backend build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"

echo "== sanitizer build (ASan + UBSan, CPU backend) ==" >&2
cmake -S . -B build-asan -DKBV_SANITIZE=ON -DKBV_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L unit
