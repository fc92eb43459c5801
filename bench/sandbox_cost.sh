#!/usr/bin/env bash
# What the confinement costs per candidate: the same candidates evaluated with
# KBV_SANDBOX=off, landlock and auto (the namespace jail) on warm compile and
# baseline caches, side by side in one call. The cost is in the load phase
# (runner start, jail, CUDA init, dlopen, prepare, stop), which records time
# per sample; the verdicts must be the same in every mode.
#   bench/sandbox_cost.sh [BUILD_DIR] [--device cpu|cuda] [--out DIR] [RUN_DIR...]
# Default run directories: examples/runs/demo-a and demo-b (6 candidates).
set -uo pipefail
cd "$(dirname "$0")/.."
build=build
device=
out=${OUT:-out}/sandbox_cost
dirs=()
while [ $# -gt 0 ]; do
    case "$1" in
    --device) device=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -*) echo "sandbox_cost.sh: unknown option $1" >&2; exit 2 ;;
    *) if [ ${#dirs[@]} -eq 0 ] && [ -x "$1/kbv" ]; then build=$1; else dirs+=("$1"); fi; shift ;;
    esac
done
[ ${#dirs[@]} -eq 0 ] && dirs=(examples/runs/demo-a examples/runs/demo-b)
[ -z "$device" ] && { nvidia-smi -L >/dev/null 2>&1 && device=cuda || device=cpu; }
mkdir -p "$out"
rm -f "$out/walls.txt"
export KBV_CACHE_DIR=${KBV_CACHE_DIR:-$PWD/out/kbv-cache}
common=(--device "$device" --seed 5)
# warm the compile and baseline caches, so that every mode below pays the same
KBV_SANDBOX=auto "$build/kbv" eval "${dirs[@]}" "${common[@]}" --out "$out/warm.jsonl" \
    >/dev/null 2>"$out/warm.err" || { tail -5 "$out/warm.err"; exit 1; }
for mode in off landlock auto; do
    rm -f "$out/$mode.jsonl"*
    t0=$(date +%s.%N)
    KBV_SANDBOX=$mode "$build/kbv" eval "${dirs[@]}" "${common[@]}" --compile-jobs 0 \
        --out "$out/$mode.jsonl" >/dev/null 2>"$out/$mode.err"
    echo "$mode $? $(python3 -c "import time; print(time.time() - $t0)")" >>"$out/walls.txt"
done
python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
walls = {}
for line in open(f"{out}/walls.txt"):
    mode, rc, wall = line.split()
    walls[mode] = (int(rc), float(wall))
recs = {m: [json.loads(l) for l in open(f"{out}/{m}.jsonl")] for m in ("off", "landlock", "auto")}
def verdicts(rs):
    return {(r["model"], r["problem"], r["sample"]):
            tuple(r["protocols"][p]["correct"] for p in ("standard", "verified", "strict")) for r in rs}
base = verdicts(recs["off"])
print("Sandbox cost per candidate (load phase: runner start, confinement, CUDA init, load, stop)")
print(f"{'mode':<10} {'samples':>7} {'load s/sample':>14} {'sd':>7} {'wall s':>8}  sandbox  same verdicts as off")
for m, rs in recs.items():
    loads = [r["phase_s"]["load"] for r in rs if r.get("phase_s") and r["phase_s"].get("load") is not None]
    mean = statistics.mean(loads) if loads else float("nan")
    sd = statistics.stdev(loads) if len(loads) > 1 else 0.0
    sb = rs[0].get("sandbox") if rs else "-"
    print(f"{m:<10} {len(rs):>7} {mean:>14.3f} {sd:>7.3f} {walls[m][1]:>8.1f}  {sb}  "
          f"{'yes' if verdicts(rs) == base else 'NO'}")
offm = statistics.mean([r["phase_s"]["load"] for r in recs["off"]])
for m in ("landlock", "auto"):
    d = statistics.mean([r["phase_s"]["load"] for r in recs[m]]) - offm
    print(f"sandbox: {m} costs {d * 1e3:+.0f} ms of load time per sample over off "
          f"({len(recs[m])} samples, exit {walls[m][0]})")
PY
