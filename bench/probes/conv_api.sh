#!/usr/bin/env bash
# kbv's convolution baselines beside PyTorch eager through each cuDNN API:
# bench/baselines_vs_torch.py run once with KBV_CUDNN_API=legacy and once
# with =graph (the graph API alone: a shape it cannot run shows as FAILED
# rather than falling back), then one table of both ratios. Each run times
# PyTorch afresh in the same process, so each ratio is against its own
# PyTorch figure.
#   bench/probes/conv_api.sh [BUILD_DIR]      (default: build; a carried build works)
# Environment: PROBLEMS (default the eight below), MODES (default fp32),
# PLANS (KBV_CUDNN_GRAPH_PLANS for the graph run; library default 8),
# HEUR=1 (a third run: graph with one untimed plan, as PyTorch's
# benchmark=False), OUT (default out/conv_api). The graph run's plan
# choices (engines timed, the one kept) go to OUT/graph.err.
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${OUT:-out/conv_api}
mkdir -p "$out"
problems=${PROBLEMS:-L1/50,L1/56,L1/62,L1/71,L1/79,L1/80,L1/54,L1/63}
modes=${MODES:-fp32}
export KBV_CACHE_DIR=${KBV_CACHE_DIR:-$PWD/out/kbv-cache} KBV_INCLUDE_DIR=$PWD/include
export LD_LIBRARY_PATH=$PWD/$build/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}

# name, then the environment of the run
bench() {
    local name=$1
    shift
    local t0=$(date +%s)
    env "$@" python3 bench/baselines_vs_torch.py --kbv "$build/kbv" --lib "$build/libkbv.so" \
        --problems "$problems" --modes "$modes" --out "$out/$name.tsv" \
        >"$out/$name.txt" 2>"$out/$name.err"
    local rc=$?
    echo "$name: exit $rc ($(( $(date +%s) - t0 )) s)" >&2
}

bench legacy KBV_CUDNN_API=legacy
bench graph KBV_CUDNN_API=graph KBV_CUDNN_GRAPH_VERBOSE=1 ${PLANS:+KBV_CUDNN_GRAPH_PLANS=$PLANS}
runs="legacy graph"
if [ "${HEUR:-0}" = 1 ]; then
    bench heur KBV_CUDNN_API=graph KBV_CUDNN_GRAPH_VERBOSE=1 KBV_CUDNN_GRAPH_PLANS=1
    runs="$runs heur"
fi

# The graph runs must have reached the graph path (their choices are logged).
for r in $runs; do
    n=$(grep -c '^cudnn graph:' "$out/$r.err" 2>/dev/null || true)
    n=${n:-0}
    case $r in
    legacy) [ "$n" = 0 ] || echo "warning: the legacy run logged $n graph choices" >&2 ;;
    *) [ "$n" -gt 0 ] || echo "warning: the $r run never reached the graph path" >&2 ;;
    esac
    grep -h 'FAILED' "$out/$r.err" 2>/dev/null | sed "s/^/$r: /" >&2
done

python3 - "$out" $runs <<'EOF'
import csv, sys
out, runs = sys.argv[1], sys.argv[2:]
data, order = {}, []
for r in runs:
    try:
        rows = list(csv.DictReader(open(f"{out}/{r}.tsv"), delimiter="\t"))
    except OSError:
        rows = []
    for row in rows:
        k = (row["problem"], row["mode"])
        if k not in order:
            order.append(k)
        data.setdefault(k, {})[r] = row
print(f"\nkbv / PyTorch eager, median time ratio per cuDNN API (<= 1.05 is the goal)")
head = f"{'problem':8s} {'mode':11s}" + "".join(f"{r + ' ms':>12s}{r + ' ratio':>13s}" for r in runs)
print(head + f"{'torch ms':>11s}")
for k in order:
    d = data[k]
    cells = ""
    for r in runs:
        if r in d:
            ratio = float(d[r]["ratio"])
            cells += f"{float(d[r]['kbv_ms']):12.4f}{ratio:12.3f}{' ' if ratio <= 1.05 else '!'}"
        else:
            cells += f"{'FAILED':>12s}{'-':>13s}"
    torch_ms = next(iter(d.values()))["torch_ms"]
    print(f"{k[0]:8s} {k[1]:11s}{cells}{float(torch_ms):11.4f}")
EOF
