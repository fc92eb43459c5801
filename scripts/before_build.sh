#!/usr/bin/env bash
# Builds kbv and kbv-runner as they were at an earlier commit, for a before-and-after on one
# run (bench/pace/run.sh BUILD --before DIR/carry, and the like):
#   scripts/before_build.sh REV [DIR]     (default DIR: out/before-REV)
# A git worktree at REV is configured as scripts/gpu_bundle.sh configures a build (CUDA where
# nvcc is found, no Python, curl or MPI), kbv and kbv-runner alone are built, and DIR/carry
# gets them, their files (share/) and the few shared libraries a bare GPU machine may lack:
# small enough to travel beside the current build's carry. The worktree is removed after.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/before_build.sh REV [DIR]}
sha=$(git rev-parse --verify --quiet "$rev^{commit}") || { echo "before_build: no commit '$rev'" >&2; exit 2; }
dir=${2:-out/before-$(git rev-parse --short "$sha")}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
tree=$dir/tree   # one path, so that a rerun finds the build configured for it
cleanup() { git worktree remove --force "$tree" >/dev/null 2>&1 || rm -rf "$tree"; git worktree prune; }
trap cleanup EXIT
cleanup
git worktree add --detach --force "$tree" "$sha" >/dev/null 2>&1
cuda=OFF
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=ON; fi
cmake -S "$tree" -B "$dir/build" -DCMAKE_BUILD_TYPE=Release -DKBV_WITH_CUDA=$cuda \
    -DKBV_WITH_CURL=OFF -DKBV_WITH_MPI=OFF -DKBV_WITH_PYTHON=OFF >/dev/null
cmake --build "$dir/build" -j"$(nproc)" --target kbv kbv-runner >/dev/null
rm -rf "$dir/carry" && mkdir -p "$dir/carry/lib"
for bin in "$dir/build/kbv" "$dir/build/kbv-runner"; do
    ldd "$bin" | awk '/=> \// {print $3}'
done | sort -u | grep -E 'libjansson|libcmocka|libseccomp|libelf' | xargs -r cp -L -t "$dir/carry/lib"
cp "$dir/build/kbv" "$dir/build/kbv-runner" "$dir/carry/"
if [ -e "$dir/build/libkbv.so" ]; then cp "$dir/build/libkbv.so" "$dir/carry/"; fi
if [ -d "$dir/build/share" ]; then cp -rL "$dir/build/share" "$dir/carry/"; fi
strip --strip-unneeded "$dir/carry/kbv" "$dir/carry/kbv-runner" 2>/dev/null || true
echo "before_build: $sha (CUDA $cuda) in $dir/carry ($(du -sh "$dir/carry" | cut -f1))"
