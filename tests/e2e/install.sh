#!/usr/bin/env bash
# End-to-end: kbv installed with cmake --install, then moved elsewhere, runs
# from its own files alone: prompt, list, help, and check of a C candidate
# (compiled against the installed header, run in the installed runner), in
# an environment of nothing but PATH and HOME. A build tree moved with its
# checkout (share/kbv holds relative links) still finds its files too, and
# neither program holds the path of the checkout or of the build.
# usage: tests/e2e/install.sh BUILD_DIR
set -u
BUILD=${1:?usage: install.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_install.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

. "$(dirname "$0")/lib/check.sh"

mkdir -p "$TMP/home"
# kbv as a user runs it: no KBV_* variable, nothing of this shell's environment
bare() { env -i PATH=/usr/local/bin:/usr/bin:/bin HOME="$TMP/home" "$@"; }

# ---- install, then move the installation -----------------------------------
if ! cmake --install "$BUILD" --prefix "$TMP/prefix" >"$TMP/install.log" 2>&1; then
    not_ok "cmake --install" "$(tail -20 "$TMP/install.log")"
    echo "$passed passed, $failed failed"
    exit 1
fi
ok "cmake --install to a new prefix"
for f in bin/kbv libexec/kbv/kbv-runner share/kbv/include/kbv/candidate.h \
         share/kbv/prompts/default.txt share/kbv/docs/ABI.md share/kbv/docs/METHODOLOGY.md \
         share/kbv/examples/runs/demo-a/level_1_problem_19_sample_0.c; do
    check "installed: $f" test -e "$TMP/prefix/$f"
done
mkdir -p "$TMP/elsewhere"
mv "$TMP/prefix" "$TMP/elsewhere/kbv"
P="$TMP/elsewhere/kbv"
KBV="$P/bin/kbv"

for prog in "$KBV" "$P/libexec/kbv/kbv-runner"; do
    check "$(basename "$prog") names neither the checkout nor the build" \
        bash -c "! strings '$prog' | grep -F -e '$SRC' -e '$BUILD'"
done

# Marks on the installed copies, so the checks below see that they are read.
echo "INSTALLED-TEMPLATE-MARK" >>"$P/share/kbv/prompts/default.txt"
sed -i '1a\
INSTALLED-ABI-MARK' "$P/share/kbv/docs/ABI.md"
printf '\n#define KBV_INSTALLED_HEADER_MARK 1\n' >>"$P/share/kbv/include/kbv/candidate.h"

bare "$KBV" prompt L1/19 >"$TMP/prompt.txt" 2>"$TMP/prompt.err"
check "prompt: runs from the installed copy" test -s "$TMP/prompt.txt"
check "prompt: the installed template" grep -q INSTALLED-TEMPLATE-MARK "$TMP/prompt.txt"
check "prompt: the installed docs/ABI.md" grep -q INSTALLED-ABI-MARK "$TMP/prompt.txt"
check "prompt: a worked example from the installed examples" \
    grep -q "kbv_forward" "$TMP/prompt.txt"

check "list: runs" bash -c "'$KBV' list | grep -q '^L1/19 '"
check "help eval: runs" bash -c "env -i PATH=/usr/bin:/bin '$KBV' help eval | grep -q '^usage: kbv eval'"
check "help: names the installed docs" \
    bash -c "env -i PATH=/usr/bin:/bin '$KBV' help | grep -qF '$P/share/kbv/docs'"

# A C candidate that builds only against the installed header.
cand="$TMP/relu.c"
{
    echo '#include <kbv/candidate.h>'
    echo '#ifndef KBV_INSTALLED_HEADER_MARK'
    echo '#error not the installed kbv/candidate.h'
    echo '#endif'
    cat "$P/share/kbv/examples/runs/demo-a/level_1_problem_19_sample_0.c"
} >"$cand"
bare "$KBV" check L1/19 "$cand" --seed 7 >"$TMP/check.out" 2>"$TMP/check.err"
rc=$?
check "check: a C candidate evaluated (exit 0)" \
    bash -c "test $rc -eq 0 || { cat '$TMP/check.out' '$TMP/check.err'; false; }"
check "check: compiled against the installed header" grep -q "^compile: ok" "$TMP/check.out"
check "check: ran in the installed runner and passed" \
    bash -c "grep -Eq '^  standard +PASS' '$TMP/check.out' && grep -Eq '^  strict +PASS' '$TMP/check.out'"

# The runner missing from the installation: said so, with its path.
mv "$P/libexec/kbv/kbv-runner" "$TMP/kbv-runner.away"
bare "$KBV" check L1/19 "$cand" --seed 7 >/dev/null 2>"$TMP/norunner.err"
check "check: a missing runner is named" grep -qF "$P/libexec/kbv/kbv-runner" "$TMP/norunner.err"
mv "$TMP/kbv-runner.away" "$P/libexec/kbv/kbv-runner"

# ---- a build tree moved with its checkout ------------------------------------
co="$TMP/moved-checkout"
mkdir -p "$co/build"
cp "$BUILD/kbv" "$BUILD/kbv-runner" "$co/build/"
cp -a "$BUILD/share" "$co/build/"
for d in include prompts docs examples; do cp -a "$SRC/$d" "$co/"; done
check "moved build tree: share/kbv links resolve" test -f "$co/build/share/kbv/docs/ABI.md"
echo "MOVED-CHECKOUT-MARK" >>"$co/prompts/default.txt"
check "moved build tree: prompt reads the moved checkout" \
    bash -c "env -i PATH=/usr/bin:/bin '$co/build/kbv' prompt L1/19 | grep -q MOVED-CHECKOUT-MARK"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
