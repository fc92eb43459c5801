#!/usr/bin/env bash
# Everything that needs a GPU, in one call: build with CUDA (or use a build
# carried from elsewhere, made by scripts/gpu_bundle.sh), the GPU tests, the
# bundled examples evaluated end to end, and every baseline beside PyTorch.
# Logs and results go to $OUT (or out/gpu); a short summary table is printed last.
#   tests/gpu/run.sh [BUILD_DIR] [--quick]   (--quick: small shapes in the benchmark)
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-out/gpu}
mkdir -p "$out"
build=build
quick=""
for a in "$@"; do
    case "$a" in
    --quick) quick="--small" ;;
    *) build=$a ;;
    esac
done
summary=()
note() { summary+=("$1"); echo "== $1" >&2; }
export KBV_CACHE_DIR=${KBV_CACHE_DIR:-$PWD/out/kbv-cache} KBV_INCLUDE_DIR=$PWD/include
# the build's own libraries, by an absolute path (a carried build may be given as one)
case "$build" in /*) build_abs=$build ;; *) build_abs=$PWD/$build ;; esac
export LD_LIBRARY_PATH=$build_abs/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
# a carried runner's libpython, only where this machine has none of its own
for lib in "$build"/lib-python/*; do
    [ -e "$lib" ] && ! ldconfig -p | grep -q "$(basename "$lib")" &&
        export LD_LIBRARY_PATH=$build_abs/lib-python:$LD_LIBRARY_PATH && break
done

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv,noheader >"$out/gpu.txt" 2>&1
note "gpu: $(head -1 "$out/gpu.txt")"

t0=$(date +%s)
if [ -x "$build/kbv" ] && [ -d "$build/lib" ]; then
    note "build: carried ($build)"
elif cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DKBV_WITH_CUDA=ON >"$out/build.log" 2>&1 &&
     cmake --build "$build" -j"$(nproc)" >>"$out/build.log" 2>&1; then
    note "build: ok ($(( $(date +%s) - t0 )) s)"
else
    tail -40 "$out/build.log"
    note "build: FAILED (see build.log)"
    printf '%s\n' "${summary[@]}"
    exit 1
fi

# GPU unit tests (cmocka binaries gpu_test_*).
for t in "$build"/${GPU_TESTS:-gpu_test_*}; do
    [ -x "$t" ] || continue
    if timeout "${GPU_TEST_TIMEOUT:-300}" "$t" >"$out/$(basename "$t").log" 2>&1; then r=ok; else r=FAILED; fi
    note "$(basename "$t"): $r ($(grep -E '^\[  PASSED  \]|^\[  FAILED  \]' "$out/$(basename "$t").log" | tr '\n' ' '))"
    # a failure's own words, in the summary where the reader looks
    [ $r = ok ] || note "  $(grep -m1 -E '^\[  ERROR   \]|Failure!|fail' "$out/$(basename "$t").log" | cut -c1-300)"
done

# The bundled example runs, end to end on the GPU (demo-c: ten problems of L1/33-100,
# full size; a rerun resumes where a timed-out one stopped).
t0=$(date +%s)
if timeout "${EVAL_TIMEOUT:-600}" "$build/kbv" eval examples/runs/demo-a examples/runs/demo-b \
        examples/runs/demo-c --device cuda \
        --out "$out/demo.jsonl" >"$out/demo.txt" 2>"$out/demo.err"; then r=ok; else r=FAILED; fi
note "examples eval: $r ($(( $(date +%s) - t0 )) s)"
cat "$out/demo.err" | tail -20 >&2
cat "$out/demo.txt"

# The level-2 examples (L2_EXAMPLES=0 skips; L2_EXAMPLES_TIMEOUT bounds it, seconds): demo-l2
# (plain CUDA, each chain fused into one kernel) and demo-l2-vendor (cuBLAS / cuDNN kept, the
# rest fused; --allow-vendor-libs), full size, each against its expected verdicts (EXPECTED.tsv
# beside the candidates).
if [ "${L2_EXAMPLES:-1}" != 0 ]; then
    t0=$(date +%s)
    timeout "${L2_EXAMPLES_TIMEOUT:-1200}" python3 tests/cheats/corpus.py --kbv "$(cd "$build" && pwd)/kbv" --device cuda \
        --size full --seed 7 --work "$out/examples-l2" \
        --manifest examples/runs/demo-l2/EXPECTED.tsv \
        --manifest examples/runs/demo-l2-vendor/EXPECTED.tsv >"$out/examples-l2.txt" 2>&1
    r=$?
    note "level-2 examples: exit $r, $(tail -1 "$out/examples-l2.txt") ($(( $(date +%s) - t0 )) s)"
    grep '^|' "$out/examples-l2.txt"
fi

# KernelBench-format files on the GPU (KB_EXAMPLES=0 skips): examples/runs/demo-kernelbench-cuda,
# CUDA kernels through load_inline and the format's exploits, each against its expected
# verdicts, where this build's runner hosts Python.
if [ "${KB_EXAMPLES:-1}" != 0 ]; then
    t0=$(date +%s)
    if "$build/kbv" eval --help | grep -q 'kbv-runner hosts the interpreter'; then
        timeout "${KB_EXAMPLES_TIMEOUT:-600}" python3 tests/cheats/corpus.py --kbv "$(cd "$build" && pwd)/kbv" \
            --device cuda --size full --seed 7 --work "$out/examples-kb" \
            --manifest examples/runs/demo-kernelbench-cuda/EXPECTED.tsv >"$out/examples-kb.txt" 2>&1
        r=$?
        note "KernelBench-format examples: exit $r, $(tail -1 "$out/examples-kb.txt") ($(( $(date +%s) - t0 )) s)"
        grep '^|' "$out/examples-kb.txt"
    else
        note "KernelBench-format examples: not run (this build's runner hosts no Python)"
    fi
fi

# BF16 (the paper's appendix; BF16=0 skips): the bf16 examples end to end on the GPU
# (every one correct under every protocol), kbv's CUDA bf16 baselines against
# PyTorch's CUDA bf16 on every problem (small shapes), and the bf16 baselines'
# times beside PyTorch's bf16 eager.
if [ "${BF16:-1}" != 0 ]; then
    t0=$(date +%s)
    timeout "${EVAL_TIMEOUT:-600}" "$build/kbv" eval examples/runs/demo-bf16 --device cuda \
        --precision bf16 --out "$out/demo-bf16.jsonl" >"$out/demo-bf16.txt" 2>"$out/demo-bf16.err"
    r=$?
    ok=$(python3 -c 'import json, sys
rs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
good = [r for r in rs if all(r["protocols"][p]["correct"] for p in ("standard", "verified", "strict"))]
print(f"{len(good)} of {len(rs)} correct under every protocol")
for r in rs:
    if r not in good:
        print("  " + r["problem"] + ": " + "; ".join(p + ": " + str(r["protocols"][p]["reason"])
              for p in ("standard", "verified", "strict") if not r["protocols"][p]["correct"]))
' "$out/demo-bf16.jsonl" 2>&1)
    note "bf16 examples eval: exit $r, $(echo "$ok" | head -1) ($(( $(date +%s) - t0 )) s)"
    echo "$ok" | tail -n +2 >&2
    cat "$out/demo-bf16.txt"
    t0=$(date +%s)
    timeout "${BF16_PARITY_TIMEOUT:-900}" tests/gpu/bf16_torch_cuda.sh "$build" >"$out/bf16_torch_cuda.log" 2>&1
    note "bf16 baselines vs PyTorch CUDA bf16: $(tail -1 "$out/bf16_torch_cuda.log") ($(( $(date +%s) - t0 )) s)"
    grep '^FAIL' "$out/bf16_torch_cuda.log" | head -20 >&2
    t0=$(date +%s)
    if timeout "${BENCH_TIMEOUT:-300}" python3 bench/baselines_vs_torch.py --kbv "$build/kbv" --lib "$build/libkbv.so" --problems "${PROBLEMS:-L1/1-32}" \
            --modes bf16 $quick --out "$out/bench_baselines_bf16.tsv" >"$out/bench_bf16.txt" 2>"$out/bench_bf16.err"; then
        r=ok; else r=FAILED; tail -20 "$out/bench_bf16.err"; fi
    note "bench bf16 baselines vs torch: $r ($(( $(date +%s) - t0 )) s)"
fi

# The cheat corpus (tests/cheats): each hack against the check that names it (CHEATS=0 skips).
if [ "${CHEATS:-1}" != 0 ]; then
    t0=$(date +%s)
    OUT="$out" timeout "${CHEATS_TIMEOUT:-1500}" tests/gpu/cheats.sh "$build" >"$out/cheats.log" 2>&1
    last=$(tail -1 "$out/cheats.log")
    case "$last" in cheats:*) ;; *) last="cheats: FAILED (see cheats.log)" ;; esac
    note "$last ($(( $(date +%s) - t0 )) s)"
    grep '^|' "$out/cheats.log"
fi

# The sandbox on the GPU: every escape through kbv eval (.cu candidates) in the
# namespace jail and under Landlock alone, and what the confinement costs per
# candidate beside KBV_SANDBOX=off (SANDBOX=0 skips both).
if [ "${SANDBOX:-1}" != 0 ]; then
    t0=$(date +%s)
    timeout "${SANDBOX_TIMEOUT:-600}" tests/e2e/sandbox_escapes.sh "$build" --device cuda \
        >"$out/sandbox_escapes.log" 2>&1
    note "sandbox escapes (GPU): $(tail -1 "$out/sandbox_escapes.log") ($(( $(date +%s) - t0 )) s)"
    grep -E '^FAIL' -A12 "$out/sandbox_escapes.log" | head -40 >&2
    t0=$(date +%s)
    timeout "${SANDBOX_TIMEOUT:-600}" bench/sandbox_cost.sh "$build" --device cuda \
        --out "$out/sandbox_cost" >"$out/sandbox_cost.txt" 2>&1
    while IFS= read -r line; do note "$line"; done < <(grep '^sandbox:' "$out/sandbox_cost.txt")
    note "sandbox cost bench: exit $? ($(( $(date +%s) - t0 )) s)"
    sed -n '/^Sandbox cost/,/^sandbox:/p' "$out/sandbox_cost.txt"
fi

# Baselines beside PyTorch eager, same inputs, same precision mode.
t0=$(date +%s)
if timeout "${BENCH_TIMEOUT:-300}" python3 bench/baselines_vs_torch.py --kbv "$build/kbv" --lib "$build/libkbv.so" --problems "${PROBLEMS:-L1/1-32}" \
        --modes fp32,tf32 $quick --out "$out/bench_baselines.tsv" >"$out/bench.txt" 2>"$out/bench.err"; then
    r=ok; else r=FAILED; tail -20 "$out/bench.err"; fi
note "bench baselines vs torch: $r ($(( $(date +%s) - t0 )) s)"

# The checks' passes (fills, poison, hashes, the float64 copy, comparisons, references,
# oracle) beside a copy timed in the same process (SERVICES=0 skips; SERVICES_PROBLEM).
if [ "${SERVICES:-1}" != 0 ]; then
    t0=$(date +%s)
    if timeout "${BENCH_TIMEOUT:-300}" python3 bench/services/services.py --lib "$build/libkbv.so" \
            --problem "${SERVICES_PROBLEM:-L1/19}" $quick --out "$out/bench_services.tsv" \
            >"$out/services.txt" 2>"$out/services.err"; then
        r=ok; cat "$out/services.txt"; else r=FAILED; tail -20 "$out/services.err"; fi
    note "checks' passes vs copy: $r, $(grep '^summary:' "$out/services.txt" | cut -d' ' -f2-) ($(( $(date +%s) - t0 )) s)"
fi

# The audit: degenerate problems, weak gates, and the tf32 baseline judged by every
# protocol's correctness gate (AUDIT=0 skips; AUDIT_PROBLEMS, AUDIT_SIZE, AUDIT_SEEDS,
# AUDIT_TIMEOUT). One JSON line per problem as it finishes, so a timeout keeps what ran.
if [ "${AUDIT:-1}" != 0 ]; then
    t0=$(date +%s)
    timeout "${AUDIT_TIMEOUT:-600}" "$build/kbv" audit --device cuda --json         --problems "${AUDIT_PROBLEMS:-L1}" --size "${AUDIT_SIZE:-full}" --seeds "${AUDIT_SEEDS:-1}"         >"$out/audit.jsonl" 2>"$out/audit.err"
    r=$?
    python3 - "$out/audit.jsonl" >"$out/audit.txt" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
bad = [r for r in rows if r["tf32_standard_failed"] or r["tf32_strict_failed"]]
for r in bad:
    print(f'audit: {r["problem"]}: tf32 fails: std {r["tf32_standard_failed"]}/{r["tf32_standard_judged"]}'
          f' strict {r["tf32_strict_failed"]}/{r["tf32_strict_judged"]}:'
          f' {r["tf32_standard_first_failure"] or r["tf32_strict_first_failure"]}')
for r in rows:
    if r["degenerate"] or r["zeros_pass"] or r["copy_pass"]:
        print(f'audit: {r["problem"]}: degenerate={r["degenerate"]} ignores={r["ignores"]}'
              f' zeros_pass={r["zeros_pass"]} copy_pass={r["copy_pass"]}')
print(f"audit: {len(rows)} problems in {sum(r['seconds'] for r in rows):.0f} s; the tf32 baseline fails"
      f" the standard gate on {sum(1 for r in rows if r['tf32_standard_failed'])},"
      f" the strict gate on {sum(1 for r in rows if r['tf32_strict_failed'])};"
      f" degenerate {sum(1 for r in rows if r['degenerate'])}")
PY
    cat "$out/audit.txt"
    note "$(tail -1 "$out/audit.txt") (exit $r, $(( $(date +%s) - t0 )) s)"
fi

# Evaluation throughput: kbv (its own ABI and KernelBench-format files) against KernelBench's
# evaluator with its batch build (THROUGHPUT=0 skips; THROUGHPUT_BUDGET bounds it, seconds,
# default 240: the KernelBench-format rows then cover the candidates that fit, as printed).
if [ "${THROUGHPUT:-1}" != 0 ]; then
    t0=$(date +%s)
    timeout "${THROUGHPUT_TIMEOUT:-330}" bench/throughput/run.sh "$build" --out "$out/throughput" \
        --budget "${THROUGHPUT_BUDGET:-240}" >"$out/throughput.txt" 2>"$out/throughput.err"
    r=$?
    grep '^throughput:' "$out/throughput.txt" | grep -v 'per-candidate rows' >"$out/throughput.sum"
    [ -s "$out/throughput.sum" ] || { echo "throughput: FAILED (exit $r, see throughput.err)" >"$out/throughput.sum"; tail -5 "$out/throughput.err"; }
    while IFS= read -r line; do note "$line"; done <"$out/throughput.sum"
    note "throughput bench: exit $r ($(( $(date +%s) - t0 )) s)"
    sed -n '/^Evaluation throughput/,$p' "$out/throughput.txt"
fi

# Scaling over the GPUs of this node (two or more; SCALING=0 skips).
if [ "${SCALING:-1}" != 0 ] && [ "$(nvidia-smi -L 2>/dev/null | wc -l)" -ge 2 ]; then
    t0=$(date +%s)
    SCALING_OUT="$out/scaling" timeout "${SCALING_TIMEOUT:-300}" bench/scaling.sh "$build" \
        >"$out/scaling.txt" 2>&1
    note "scaling: $(grep -E '^0,1|same verdicts' "$out/scaling.txt" | tr -s ' ' | tr '\n' ' ')($(( $(date +%s) - t0 )) s)"
fi

echo
echo "================ summary ================"
sed -n '/^kbv baseline/,$p' "$out/bench.txt"
[ -f "$out/bench_bf16.txt" ] && sed -n '/^kbv baseline/,$p' "$out/bench_bf16.txt"
printf '%s\n' "${summary[@]}"
