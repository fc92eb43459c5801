#!/usr/bin/env bash
# kbv's CUDA bf16 baselines against PyTorch's CUDA bf16 (the paper's BF16
# appendix), small shapes: every problem's base draw and D6, dumped in fp32 and
# in bf16 on the GPU, checked by bf16_torch_cuda.py.
#   tests/gpu/bf16_torch_cuda.sh [BUILD_DIR] [KEY...]   (default: every problem of kbv list)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
shift $(( $# > 0 ? 1 : 0 ))
kbv=$build/kbv
seed=${SEED:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One draw of one problem in both precisions (each kbv dump opens a CUDA
# context: the draws are dumped JOBS at a time).
dump_one() {
    local key=$1 c=$2 dir=$3 prec
    for prec in fp32 bf16; do
        mkdir -p "$dir/$prec"
        if ! "$kbv" dump "$key" --small --device cuda --dist "$c" --seed "$seed" \
            --precision "$prec" --out "$dir/$prec" >"$dir/dump.log" 2>&1; then
            echo "kbv dump $key --dist $c --precision $prec failed: $(tail -n 1 "$dir/dump.log")" \
                >"$dir/FAILED"
            return
        fi
        "$kbv" show "$key" --torch --small >"$dir/$prec/model.py" 2>/dev/null
    done
}
export -f dump_one
export kbv seed
dirs=()
jobs=()
while read -r key; do
    for c in base D6; do
        dir=$work/${key//\//_}_$c
        dirs+=("$dir")
        jobs+=("$key $c $dir")
    done
done < <(if [ $# -gt 0 ]; then printf '%s\n' "$@"; else "$kbv" list --json | python3 -c 'import json, sys
for r in json.load(sys.stdin): print(r["key"])'; fi)
printf '%s\n' "${jobs[@]}" | xargs -P "${JOBS:-8}" -L 1 bash -c 'dump_one "$@"' _
echo "bf16_torch_cuda: seed $seed, small shapes, ${#dirs[@]} draws"
python3 "$here/bf16_torch_cuda.py" "${dirs[@]}"
