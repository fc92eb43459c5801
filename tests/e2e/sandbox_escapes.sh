#!/usr/bin/env bash
# End-to-end: every known way out of the sandbox, tried through kbv eval.
# Each candidate is an honest ReLU (L1/19) that also tries one escape, with
# raw `syscall` instructions where it matters (no libc import, so the binary
# allowlist sees nothing); each must fail every protocol with the sandbox's
# reason, and nothing outside may change: no file appears, the baseline
# cache, a canary file and the results of earlier samples stay as they were,
# and no secret reaches the results, the compile logs or the report.
# The compiler is tried too: #include of a secret file, of /dev/zero, of a
# path above the build directory, and a memory bomb (a 17 GB string literal
# made by the preprocessor: the compiler's memory limit stops it).
#   tests/e2e/sandbox_escapes.sh BUILD_DIR [--device cpu|cuda] [--sandbox MODE]
# MODE is KBV_SANDBOX's value (auto, namespaces, landlock); CI runs auto and
# landlock, tests/gpu/run.sh the GPU versions (.cu, --device cuda).
set -u
BUILD=${1:?usage: sandbox_escapes.sh BUILD_DIR [--device cpu|cuda] [--sandbox MODE]}
BUILD=$(cd "$BUILD" && pwd)
shift
DEVICE=cpu
MODES="auto landlock"
while [ $# -gt 0 ]; do
    case "$1" in
    --device) DEVICE=$2; shift 2 ;;
    --sandbox) MODES=$2; shift 2 ;;
    *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
EXT=c
[ "$DEVICE" = cuda ] && EXT=cu
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_escape.XXXXXX)
chmod 755 "$TMP"
export KBV_RUNNER="$BUILD/kbv-runner" KBV_INCLUDE_DIR="$SRC/include"
cleanup() { if [ -n "${KBV_E2E_KEEP:-}" ]; then echo "# kept $TMP"; else rm -rf "$TMP"; fi; }
trap cleanup EXIT
. "$(dirname "$0")/lib/check.sh"

SECRET="kbv-secret-$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')"
echo "$SECRET" > "$TMP/secret.txt"
echo "canary $SECRET" > "$TMP/canary.txt"
ESCAPED="$TMP/escaped-file"

# ---- the escapes ---------------------------------------------------------------
RUN="$TMP/runs/escapes"
mkdir -p "$RUN"
# candidate SAMPLE DESCRIPTION ATTEMPT [TOP_LEVEL]: an honest ReLU whose kbv_forward
# first runs ATTEMPT (C statements; raw system calls through sys3/sys6)
candidate() {
    cat > "$RUN/level_1_problem_19_sample_$1.$EXT" <<C
/* escape attempt: $2 */
#include <kbv/candidate.h>
#ifdef __CUDACC__
#define KBV_HOST static __host__
__global__ void relu(const float *x, float *y, long long n)
{
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
#else
#define KBV_HOST static
#endif
KBV_HOST long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
    long ret;
    register long r10 __asm__("r10") = d;
    register long r8 __asm__("r8") = e;
    register long r9 __asm__("r9") = f;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
                     "r"(r9) : "rcx", "r11", "memory");
    return ret;
}
KBV_HOST long sys3(long nr, long a, long b, long c) { return sys6(nr, a, b, c, 0, 0, 0); }
${4:-}
KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params; (void)n_inputs; (void)n_outputs;
    { ${3:-} }
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
#ifdef __CUDACC__
    relu<<<(unsigned)((n + 255) / 256), 256, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, n);
#else
    const float *x = (const float *)inputs[0].data;
    float *y = (float *)outputs[0].data;
    for (long long i = 0; i < n; i++) y[i] = x[i] > 0.f ? x[i] : 0.f;
#endif
    return 0;
}
C
}
CACHE_FILE_PLACEHOLDER=@CACHE_FILE@
# x86-64 numbers: read 0, write 1, open 2, close 3, socket 41, connect 42, clone 56,
# fork 57, execve 59, kill 62, ptrace 101, getppid 110, unshare 272, openat 257,
# process_vm_readv 310, mount 165
candidate 0 "honest control" ""
candidate 1 "raw-syscall file write" \
    "long fd = sys6(257, -100, (long)\"$ESCAPED\", 01 | 0100, 0644, 0, 0);
     if (fd >= 0) { sys3(1, fd, (long)\"escaped\", 7); sys3(3, fd, 0, 0); }"
candidate 2 "reading the evaluator's /proc (environ, mem)" \
    "char path[64] = \"/proc/\"; long pp = sys3(110, 0, 0, 0); int k = 6; char d[12]; int m = 0;
     if (pp <= 0) pp = 1;
     do { d[m++] = (char)('0' + pp % 10); pp /= 10; } while (pp);
     while (m) path[k++] = d[--m];
     const char *tail = \"/environ\"; for (int i = 0; tail[i]; i++) path[k++] = tail[i]; path[k] = 0;
     char buf[256]; long fd = sys6(257, -100, (long)path, 0, 0, 0, 0);
     if (fd >= 0) { sys3(0, fd, (long)buf, sizeof buf); sys3(3, fd, 0, 0); }"
candidate 3 "process_vm_readv on the parent" \
    "char buf[64]; struct { void *b; unsigned long l; } lv = {buf, 64}, rv = {(void *)0x400000, 64};
     sys6(310, sys3(110, 0, 0, 0), (long)&lv, 1, (long)&rv, 1, 0);"
candidate 4 "poisoning the baseline cache" \
    "long fd = sys6(257, -100, (long)\"$CACHE_FILE_PLACEHOLDER\", 01 | 02000 | 0100, 0644, 0, 0);
     if (fd >= 0) { sys3(1, fd, (long)\"{}\\\\n\", 3); sys3(3, fd, 0, 0); }"
candidate 5 "fork (raw clone of a process)" "long pid = sys6(57, 0, 0, 0, 0, 0, 0); if (pid == 0) sys3(60, 0, 0, 0);"
candidate 6 "exec" \
    "char *argv[] = {(char *)\"/bin/sh\", (char *)\"-c\", (char *)\"touch $ESCAPED\", 0};
     sys3(59, (long)\"/bin/sh\", (long)argv, 0);"
candidate 7 "socket" "long s = sys3(41, 2, 1, 0); if (s >= 0) sys3(3, s, 0, 0);"
candidate 8 "ptrace and kill of the parent" \
    "sys6(101, 16, sys3(110, 0, 0, 0), 0, 0, 0, 0); sys3(62, sys3(110, 0, 0, 0), 19, 0);"
candidate 9 "new namespaces and mounts" "sys3(272, 0x10000000 | 0x00020000, 0, 0); sys6(165, (long)\"none\", (long)\"/tmp\", (long)\"tmpfs\", 0, 0, 0);"
candidate 10 "a secret read at load time (constructor)" "" \
    "__attribute__((constructor)) KBV_HOST void peek(void)
     { char buf[128] = {0}; long fd = sys6(257, -100, (long)\"$TMP/secret.txt\", 0, 0, 0, 0);
       if (fd >= 0) { long n = sys3(0, fd, (long)buf, 127); sys3(3, fd, 0, 0); if (n > 0) sys3(1, 2, (long)buf, n); }
       fd = sys6(257, -100, (long)\"/etc/shadow\", 0, 0, 0, 0);
       if (fd >= 0) { long n = sys3(0, fd, (long)buf, 127); sys3(3, fd, 0, 0); if (n > 0) sys3(1, 2, (long)buf, n); } }"

# ---- the compiler ----------------------------------------------------------------
COMP="$TMP/runs/compiler"
mkdir -p "$COMP"
printf '#include <kbv/candidate.h>\n#include "%s"\n' "$TMP/secret.txt" > "$COMP/level_1_problem_19_sample_0.$EXT"
printf '#include <kbv/candidate.h>\n#include "/dev/zero"\n' > "$COMP/level_1_problem_19_sample_1.$EXT"
printf '#include <kbv/candidate.h>\n#include "../../../../../../../../..%s"\n' "$TMP/secret.txt" \
    > "$COMP/level_1_problem_19_sample_2.$EXT"
{   echo '#include <kbv/candidate.h>'
    echo '#define S0 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"'
    for i in $(seq 1 14); do echo "#define S$i S$((i - 1)) S$((i - 1)) S$((i - 1)) S$((i - 1))"; done
    echo 'const char *bomb = S14;   /* 17 GB of string literal */'
} > "$COMP/level_1_problem_19_sample_3.$EXT"

for MODE in $MODES; do
    echo "# ---- KBV_SANDBOX=$MODE, device $DEVICE ----"
    export KBV_SANDBOX=$MODE KBV_CACHE_DIR="$TMP/cache-$MODE" KBV_SECRET_FILE="$TMP/key-$MODE"
    OUT="$TMP/results-$MODE.jsonl"
    # a first run fills the baseline cache the escapes then try to poison
    mkdir -p "$TMP/warm-$MODE"
    cp "$RUN/level_1_problem_19_sample_0.$EXT" "$TMP/warm-$MODE/"
    "$KBV" eval "$TMP/warm-$MODE" --device "$DEVICE" --size small --seed 3 \
        --out "$TMP/warm-$MODE.jsonl" >/dev/null 2>"$TMP/warm-$MODE.err"
    cache_file=$(ls "$KBV_CACHE_DIR"/baselines/*.jsonl 2>/dev/null | head -1)
    check "$MODE: the warm-up run filled the baseline cache" test -s "$cache_file"
    sed -i "s|$CACHE_FILE_PLACEHOLDER|$cache_file|" "$RUN/level_1_problem_19_sample_4.$EXT"
    cache_sum=$(sha256sum "$cache_file")
    canary_sum=$(sha256sum "$TMP/canary.txt")
    rm -f "$ESCAPED"

    t0=$(date +%s)
    "$KBV" eval "$RUN" "$COMP" --device "$DEVICE" --size small --seed 3 --out "$OUT" \
        >"$TMP/eval-$MODE.txt" 2>"$TMP/eval-$MODE.err"
    rc=$?
    sed -i "s|$cache_file|$CACHE_FILE_PLACEHOLDER|" "$RUN/level_1_problem_19_sample_4.$EXT"
    check "$MODE: kbv eval finished (exit $rc) in $(( $(date +%s) - t0 )) s" test "$rc" -eq 0

    python3 - "$OUT" "$MODE" "$SECRET" <<'PY' >"$TMP/verdicts-$MODE.txt" 2>&1
import json, sys
out, mode, secret = sys.argv[1:4]
want = {1: "openat", 2: "openat", 3: "process_vm_readv", 4: "openat", 5: "fork", 6: "execve",
        7: "socket", 8: "ptrace", 9: "unshare"}
recs = {(r["model"], r["sample"]): r for r in map(json.loads, open(out))}
bad = []
def verdicts(r):
    return [r["protocols"][p]["correct"] for p in ("standard", "verified", "strict")]
ctl = recs.get(("escapes", 0))
if not ctl or verdicts(ctl) != [True] * 3 or ctl.get("fault"):
    bad.append(f"honest control: {ctl and verdicts(ctl)} {ctl and ctl.get('fault')}")
for s, call in want.items():
    r = recs.get(("escapes", s))
    f = (r or {}).get("fault") or {}
    if not r or any(verdicts(r)) or f.get("kind") != "sandbox" or f"called {call}" not in f.get("reason", ""):
        bad.append(f"escape {s} ({call}): {r and verdicts(r)} {f}")
r = recs.get(("escapes", 10))
if not r or verdicts(r) != [True] * 3:
    bad.append(f"constructor read: {r and verdicts(r)} {r and r.get('fault')}")
for s, what in [(0, "secret"), (1, "/dev/zero"), (2, "secret"), (3, "memory bomb")]:
    r = recs.get(("compiler", s))
    if not r or r["compile"]["ok"] or any(verdicts(r)):
        bad.append(f"compiler {what}: compiled or passed")
if secret in open(out).read():
    bad.append("the secret is in the results")
if not r or not r.get("sandbox"):
    bad.append("records do not say which sandbox they ran in")
print("\n".join(bad) if bad else "all as expected")
sys.exit(1 if bad else 0)
PY
    check "$MODE: every escape failed with the sandbox's reason, the honest ReLU passed, nothing compiled" \
        sh -c "cat '$TMP/verdicts-$MODE.txt'; grep -qx 'all as expected' '$TMP/verdicts-$MODE.txt'"
    check "$MODE: no file was written outside ($ESCAPED)" test ! -e "$ESCAPED"
    check "$MODE: the baseline cache is unchanged" test "$(sha256sum "$cache_file")" = "$cache_sum"
    check "$MODE: the canary is unchanged" test "$(sha256sum "$TMP/canary.txt")" = "$canary_sum"
    check "$MODE: no secret on the terminal or in the compile cache" \
        sh -c "! grep -rqs '$SECRET' '$TMP/eval-$MODE.txt' '$TMP/eval-$MODE.err' '$KBV_CACHE_DIR'"
    "$KBV" report "$OUT" --out "$TMP/report-$MODE" >/dev/null 2>&1
    check "$MODE: no secret in the report" sh -c "! grep -rqs '$SECRET' '$TMP/report-$MODE'"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
