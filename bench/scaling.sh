#!/usr/bin/env bash
# Multi-GPU scaling of `kbv eval` on one node: the same candidates evaluated
# (all three protocols) with one worker per GPU, then with one worker on GPU 0,
# baselines already cached so that only evaluation is compared. The first run
# compiles the builds (ahead, while it evaluates); the second finds them
# cached, which if anything favours one GPU. Prints wall seconds, candidates
# per hour and the speedup, and checks that both runs gave the same verdicts.
# Output: SCALING_OUT (default out/scaling).
#   bench/scaling.sh [BUILD_DIR] [--copies K]     (default build; K copies of each
#                                                 bundled GPU example, default 2)
set -uo pipefail
cd "$(dirname "$0")/.."
build=build
copies=2
while [ $# -gt 0 ]; do
    case "$1" in
    --copies) copies=$2; shift 2 ;;
    *) build=$1; shift ;;
    esac
done
case "$build" in /*) ;; *) build=$PWD/$build ;; esac
out=${SCALING_OUT:-out/scaling}
rm -rf "$out" && mkdir -p "$out/runs"
export KBV_CACHE_DIR=${KBV_CACHE_DIR:-$PWD/out/kbv-cache} KBV_INCLUDE_DIR=$PWD/include
export LD_LIBRARY_PATH=$build/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
if [ "$ngpu" -lt 2 ]; then
    echo "scaling: needs 2 GPUs, this machine has $ngpu"
    exit 1
fi
gpus=$(seq -s, 0 $((ngpu - 1)))

# K samples of every GPU example, as one model per example run
for run in examples/runs/demo-*; do
    m="$out/runs/$(basename "$run")"
    mkdir -p "$m"
    for f in "$run"/*.cu; do
        b=$(basename "$f" .cu)
        for k in $(seq 0 $((copies - 1))); do
            cp "$f" "$m/${b%_sample_0}_sample_$k.cu"
        done
    done
done
n=$(ls "$out"/runs/*/*.cu | wc -l)

# warm the baseline cache (per problem and GPU model) outside the timing
problems=$(ls "$out"/runs/*/*.cu | sed -E 's/.*level_([0-9]+)_problem_([0-9]+)_.*/L\1\/\2/' | sort -u |
           paste -sd, -)
"$build/kbv" baseline --problems "$problems" --device cuda >"$out/warm.txt" 2>&1 || true

run() {   # run NAME GPUS
    local t0 t1
    t0=$(date +%s.%N)
    "$build/kbv" eval "$out"/runs/* --device cuda --gpus "$2" --out "$out/$1.jsonl" \
        >"$out/$1.txt" 2>"$out/$1.err"
    local rc=$?
    t1=$(date +%s.%N)
    echo "$rc $(python3 -c "print($t1 - $t0)")"
}
# every GPU first: its builds are compiled ahead during the run, the single-GPU
# run after it finds them cached -- if anything, that favours one GPU
read -r rc2 s2 < <(run all "$gpus")
read -r rc1 s1 < <(run one 0)

verdicts() {
    python3 -c '
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)
    p = r["protocols"]
    print(r["model"], r["problem"], r["sample"], *(p[k]["correct"] for k in ("standard", "verified", "strict")))
' "$1" | sort
}
same=no
if [ "$(verdicts "$out/one.jsonl")" = "$(verdicts "$out/all.jsonl")" ]; then same=yes; fi
printf 'scaling: %d candidates, all protocols, caches warm\n' "$n"
printf '%-10s %6s %10s %14s %8s\n' gpus exit seconds "evals/hour" speedup
printf '%-10s %6s %10.1f %14.0f %8s\n' 0 "$rc1" "$s1" "$(python3 -c "print(3600 * $n / $s1)")" 1.00
printf '%-10s %6s %10.1f %14.0f %8.2f\n' "$gpus" "$rc2" "$s2" "$(python3 -c "print(3600 * $n / $s2)")" \
    "$(python3 -c "print($s1 / $s2)")"
echo "scaling: same verdicts on 1 and $ngpu GPUs: $same"
