#!/usr/bin/env bash
# Sets up, builds and runs every test that needs no GPU: the unit tests, the
# end-to-end tests on the CPU backend (incl. the PyTorch parity test), then the
# same again under AddressSanitizer + UBSan (CPU backend build).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh -DKBV_WITH_MPI=ON   # CI covers kbv eval --mpi (tests/e2e/mpi_cpu.sh)
ctest --test-dir build --output-on-failure -j"$(nproc)"

echo "== sanitizer build (ASan + UBSan, CPU backend) ==" >&2
cmake -S . -B build-asan -DKBV_SANITIZE=ON -DKBV_WITH_CUDA=OFF -DCMAKE_BUILD_TYPE=Debug >/dev/null
cmake --build build-asan -j"$(nproc)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-asan --output-on-failure -j"$(nproc)" -L unit

# Where nvcc is installed but no GPU is (CI), the CUDA sources are compiled
# all the same -- kbv, its runner, the GPU tests -- so a change that breaks
# them is caught here; they run on a GPU through tests/gpu/run.sh.
nvcc=$(command -v nvcc || true)
[ -z "$nvcc" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc=/usr/local/cuda/bin/nvcc
if [ -n "$nvcc" ]; then
    echo "== CUDA build (compile check: $nvcc) ==" >&2
    cmake -S . -B build-cuda -DKBV_WITH_CUDA=ON -DKBV_WITH_MPI=OFF \
        -DCMAKE_CUDA_COMPILER="$nvcc" -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build-cuda -j"$(nproc)"
else
    echo "== no nvcc: the CUDA sources were not compiled ==" >&2
fi
