#!/usr/bin/env bash
# Installs what kbv needs to build and test on Debian 12 (run as root, or
# with sudo available). Idempotent: skips packages already present.
set -euo pipefail

packages=(build-essential cmake pkg-config git
          libjansson-dev libcmocka-dev libseccomp-dev libssl-dev libcurl4-openssl-dev libelf-dev
          openmpi-bin libopenmpi-dev   # kbv eval --mpi (tests/e2e/mpi_cpu.sh)
          python3 python3-numpy python3-torch
          libpython3-dev   # kbv-runner hosts KernelBench-format candidates (python3-embed)
          libtorch-dev pybind11-dev ninja-build   # their load_inline builds (C++ on the CPU)
          chromium)  # headless: the report page test (tests/e2e/report_page.sh)

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA toolkit (nvcc, cuBLAS, CUPTI) comes with the machine's image under
# /usr/local/cuda; without it kbv builds its CPU backend only.
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
    echo "setup: CUDA toolkit found: $(/usr/local/cuda/bin/nvcc --version 2>/dev/null | tail -1 || nvcc --version | tail -1)" >&2
else
    echo "setup: no CUDA toolkit found; building the CPU backend only" >&2
fi
