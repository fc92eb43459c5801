#!/usr/bin/env bash
# How repeatable are kbv's speedups? The same run directories evaluated three
# times, each with a baseline cache of its own (so every baseline is measured
# again, inside a kbv eval with compile-ahead on, as users run it), the
# compile cache shared. Prints every sample's speedup per protocol in each run
# and its spread, (max - min) / median, and a summary line per protocol: the
# share of samples whose kernel takes over 50 us with a spread of at most 2%.
#   bench/repeatability.sh [BUILD_DIR] [--device cpu|cuda] [--runs N] [--out DIR] [RUN_DIR...]
# Default run directories: examples/runs/demo-a, demo-b, demo-c.
set -uo pipefail
cd "$(dirname "$0")/.."
build=build
device=
runs=3
out=${OUT:-out}/repeatability
dirs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --device) device=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "repeatability.sh: unknown option $1" >&2; exit 2 ;;
    *) if [ ${#dirs[@]} -eq 0 ] && [ -x "$1/kbv" ]; then build=$1; else dirs+=("$1"); fi; shift ;;
    esac
done
[ ${#dirs[@]} -eq 0 ] && dirs=(examples/runs/demo-a examples/runs/demo-b examples/runs/demo-c)
[ -z "$device" ] && { nvidia-smi -L >/dev/null 2>&1 && device=cuda || device=cpu; }
mkdir -p "$out"
rm -rf "$out"/run-*
export KBV_CACHE_DIR
for r in $(seq 1 "$runs"); do
    # a cache of its own per run, the compiled candidates copied in: baselines measured anew
    KBV_CACHE_DIR="$out/run-$r/cache"
    mkdir -p "$KBV_CACHE_DIR"
    [ -d "$out/build-cache" ] && cp -r "$out/build-cache" "$KBV_CACHE_DIR/build"
    "$build/kbv" eval "${dirs[@]}" --device "$device" --seed 11 --out "$out/run-$r/results.jsonl" \
        >/dev/null 2>"$out/run-$r/eval.err" || { echo "run $r failed:"; tail -5 "$out/run-$r/eval.err"; exit 1; }
    [ -d "$out/build-cache" ] || cp -r "$KBV_CACHE_DIR/build" "$out/build-cache"
done
python3 - "$out" "$runs" <<'PY'
import json, statistics, sys
out, runs = sys.argv[1], int(sys.argv[2])
protos = ("standard", "verified", "strict")
per = {}
for r in range(1, runs + 1):
    for line in open(f"{out}/run-{r}/results.jsonl"):
        rec = json.loads(line)
        key = (rec["model"], rec["problem"], rec["sample"])
        for p in protos:
            P = rec["protocols"][p]
            if P.get("correct") and P.get("speedup"):
                per.setdefault((key, p), []).append((P["speedup"], P["t_kernel_ms"]))
print(f"Speedup repeatability over {runs} runs (spread = (max - min) / median)")
print(f"{'model':<10} {'problem':<7} {'protocol':<9} {'t_kernel ms':>11}  speedups  spread")
summary = {p: [0, 0] for p in protos}
for (key, p), vals in sorted(per.items()):
    if len(vals) < runs:
        continue
    s = [v[0] for v in vals]
    t = statistics.median(v[1] for v in vals)
    spread = (max(s) - min(s)) / statistics.median(s)
    print(f"{key[0]:<10} {key[1]:<7} {p:<9} {t:>11.4f}  " + " ".join(f"{x:.3f}" for x in s)
          + f"  {spread * 100:.1f}%")
    if t > 0.05:
        summary[p][1] += 1
        summary[p][0] += spread <= 0.02
for p in protos:
    ok, n = summary[p]
    print(f"repeatability: {p}: {ok}/{n} samples over 50 us within 2% across {runs} runs")
PY
