#!/usr/bin/env bash
# End-to-end: what kbv says when the user gets something wrong. Each mistake
# (a missing or unwritable path, a full disk, an unreadable or malformed
# file, an unknown option, command or problem) is one line on stderr that
# names the path or value and the cause, and no file:line of kbv's source;
# kbv --debug and KBV_DEBUG=1 add the trace. kbv help CMD is CMD --help.
# usage: tests/e2e/messages.sh BUILD_DIR
set -u
BUILD=${1:?usage: messages.sh BUILD_DIR}
BUILD=$(cd "$BUILD" && pwd)
KBV="$BUILD/kbv"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
TMP=$(mktemp -d /tmp/kbv_e2e_messages.XXXXXX)
export KBV_CACHE_DIR="$TMP/cache"
export KBV_SECRET_FILE="$TMP/secret"   # the baseline cache's key: not the user's
unset KBV_DEBUG
trap 'rm -rf "$TMP"' EXIT

. "$(dirname "$0")/lib/check.sh"

# one_line RC PATTERN CMD...: CMD exits RC and says, on stderr, one line
# matching PATTERN (grep -E) and nothing else; no "file.c:LINE" anywhere.
one_line() {
    local want=$1 pattern=$2 rc
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then echo "exit $rc, not $want:"; cat "$TMP/err"; return 1; fi
    if [ "$(wc -l <"$TMP/err")" -ne 1 ]; then echo "not one line:"; cat "$TMP/err"; return 1; fi
    if grep -Eq '[a-z_]+\.c:[0-9]+' "$TMP/err"; then echo "a source location:"; cat "$TMP/err"; return 1; fi
    grep -Eq -- "$pattern" "$TMP/err" || { echo "no '$pattern' in:"; cat "$TMP/err"; return 1; }
}

# last_line RC PATTERN CMD...: as one_line for the last line of stderr, the
# error after a command's progress lines.
last_line() {
    local want=$1 pattern=$2 rc
    shift 2
    "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ "$rc" -ne "$want" ]; then echo "exit $rc, not $want:"; cat "$TMP/err"; return 1; fi
    if grep -Eq '[a-z_]+\.c:[0-9]+' "$TMP/err"; then echo "a source location:"; cat "$TMP/err"; return 1; fi
    grep -Eq -- "$pattern" "$TMP/err" || { echo "no '$pattern' in:"; cat "$TMP/err"; return 1; }
}

missing="$TMP/no-such-dir"
run="$SRC/examples/runs/demo-a"

# ---- paths that do not exist, cannot be written, cannot be read -------------
check "eval: a results file in a missing directory" \
    last_line 1 "^kbv eval: .*results file.*$missing/r.jsonl.*No such file or directory$" \
    "$KBV" eval "$run" --out "$missing/r.jsonl" --device cpu
check "eval: a missing run directory" \
    one_line 1 "^kbv eval: .*$missing/run.*No such file or directory$" \
    "$KBV" eval "$missing/run" --out "$TMP/r.jsonl" --device cpu
check "report: a missing results file" \
    one_line 2 "^kbv report: .*$missing/r.jsonl: No such file or directory$" \
    "$KBV" report "$missing/r.jsonl"
check "report: a directory for a results file" \
    one_line 2 "^kbv report: .*$TMP: Is a directory$" "$KBV" report "$TMP"
printf 'not json\n{"schema": 99}\n' >"$TMP/garbled.jsonl"
check "report: a file of no records" \
    one_line 2 "^kbv report: $TMP/garbled.jsonl: no results records, 2 malformed lines" \
    "$KBV" report "$TMP/garbled.jsonl"
check "merge: a missing input" \
    one_line 1 "^kbv merge: cannot read $missing/a.jsonl: No such file or directory$" \
    "$KBV" merge "$missing/a.jsonl" --out "$TMP/m.jsonl"
: >"$TMP/empty.jsonl"
check "merge: an output in a missing directory" \
    one_line 1 "^kbv merge: cannot write $missing/m.jsonl: No such file or directory$" \
    "$KBV" merge "$TMP/empty.jsonl" --out "$missing/m.jsonl"
check "dump: an output directory under a file" \
    one_line 2 "^kbv dump: .*$TMP/empty.jsonl/d: Not a directory$" \
    "$KBV" dump L1/19 --out "$TMP/empty.jsonl/d"
check "check: a missing candidate" \
    one_line 2 "^kbv check: .*$missing/c.c: No such file or directory$" \
    "$KBV" check L1/19 "$missing/c.c"
check "prompt: a missing template" \
    one_line 1 "^kbv prompt: .*$missing/t.txt: No such file or directory$" \
    "$KBV" prompt L1/19 --template "$missing/t.txt"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
chmod 755 "$TMP"
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null && as_nobody "$KBV" --version >/dev/null 2>&1; then
    echo '{}' >"$TMP/private.jsonl"
    chmod 600 "$TMP/private.jsonl"
    check "report: a file this user may not read" \
        one_line 2 "^kbv report: .*$TMP/private.jsonl: Permission denied$" \
        as_nobody "$KBV" report "$TMP/private.jsonl"
else
    echo "# skipped the unreadable-file check (needs root, setpriv and a kbv others may run)"
fi

# ---- a full disk -------------------------------------------------------------
check "prompt: standard output on a full disk" \
    one_line 1 "^kbv prompt: cannot write to standard output: No space left on device$" \
    bash -c "'$KBV' prompt L1/19 >/dev/full"
check "list: standard output on a full disk" \
    one_line 2 "^kbv list: cannot write to standard output: No space left on device$" \
    bash -c "'$KBV' list >/dev/full"
check "help: standard output on a full disk" \
    one_line 1 "^kbv: cannot write to standard output: " bash -c "'$KBV' help >/dev/full"
# on_full_disk CMD...: CMD in a mount namespace of its own, with a full 16 KiB
# tmpfs at $TMP/tiny (nothing is mounted outside it)
on_full_disk() {
    unshare --mount --propagation private bash -c \
        'mount -t tmpfs -o size=16k tmpfs "$0" &&
         { head -c 16384 /dev/zero >"$0/filler" 2>/dev/null; exec "$@" >/dev/null; }' \
        "$TMP/tiny" "$@"
}
mkdir -p "$TMP/tiny"
if [ "$(id -u)" -eq 0 ] && unshare --mount --propagation private \
        mount -t tmpfs -o size=16k tmpfs "$TMP/tiny" 2>/dev/null; then
    check "dump: a full disk" \
        one_line 2 "^kbv dump: .*$TMP/tiny/d/.*No space left on device$" \
        on_full_disk "$KBV" dump L1/1 --out "$TMP/tiny/d"
    check "report: a full disk" \
        one_line 2 "^kbv report: cannot write $TMP/tiny/rep/.*: No space left on device$" \
        on_full_disk "$KBV" report "$SRC"/tests/data/report/small.jsonl --out "$TMP/tiny/rep"
    check "merge: a full disk" \
        one_line 1 "^kbv merge: cannot write $TMP/tiny/m.jsonl: No space left on device$" \
        on_full_disk "$KBV" merge "$SRC"/tests/data/report/small.jsonl --out "$TMP/tiny/m.jsonl"
else
    echo "# skipped the full-disk checks on a tmpfs (need root and unshare)"
fi

# ---- options, values, problems, commands ---------------------------------------
for cmd in eval check report merge baseline audit dump show list prompt generate; do
    check "$cmd: an unknown option" \
        one_line 2 "^kbv $cmd: .*'--no-such-option'" "$KBV" "$cmd" --no-such-option
done
check "eval: a bad problem selection" \
    one_line 2 "^kbv eval: problem selection 'L1/x'" "$KBV" eval "$run" --out "$TMP/r.jsonl" --problems L1/x
check "baseline: a bad problem selection" \
    one_line 2 "^kbv baseline: problem selection 'L1/x'" "$KBV" baseline --problems L1/x
check "audit: a bad problem selection" \
    one_line 2 "^kbv audit: problem selection 'L1/x'" "$KBV" audit --problems L1/x
check "eval: a bad seed" \
    one_line 2 "^kbv eval: seed 'abc'" "$KBV" eval "$run" --out "$TMP/r.jsonl" --seed abc
check "eval: a missing --out" \
    one_line 2 "^kbv eval: --out RESULTS.jsonl is required" "$KBV" eval "$run"
check "check: an unknown problem" \
    one_line 2 "^kbv check: unknown problem 'L9/1'" "$KBV" check L9/1 x.c
check "show: an unknown problem" \
    one_line 2 "^kbv show: unknown problem 'L9/1'" "$KBV" show L9/1
check "prompt: an unknown problem" one_line 2 "^kbv prompt: no problem 'L9/1'" "$KBV" prompt L9/1
check "prompt: an unknown template name" \
    one_line 1 "^kbv prompt: no template 'nosuch' .the bundled ones are default, informed and kernelbench" \
    "$KBV" prompt L1/19 --template nosuch
check "an unknown command" one_line 2 "^kbv: unknown command 'frobnicate'" "$KBV" frobnicate
check "help for an unknown command" \
    one_line 2 "^kbv: unknown command 'frobnicate'" "$KBV" help frobnicate
check "an unknown global option" one_line 2 "^kbv: unknown option '--frob'" "$KBV" --frob list

# ---- kbv help ------------------------------------------------------------------
check "kbv help prints the overview" bash -c "'$KBV' help | grep -q '^commands:'"
for cmd in eval check report merge baseline audit dump show list prompt generate; do
    check "kbv help $cmd is kbv $cmd --help" \
        bash -c "cmp <('$KBV' help $cmd) <('$KBV' $cmd --help) && '$KBV' help $cmd | grep -q '^usage: kbv $cmd'"
done

# ---- --debug and KBV_DEBUG show the trace ----------------------------------------
check "--debug: the trace names the source" \
    bash -c "'$KBV' --debug report '$missing/r.jsonl' 2>&1 | grep -Eq 'src/[a-z_/]+\.c:[0-9]+: [a-z ]+: .*$missing/r.jsonl'"
check "KBV_DEBUG=1: the same" \
    bash -c "KBV_DEBUG=1 '$KBV' report '$missing/r.jsonl' 2>&1 | grep -Eq 'src/[a-z_/]+\.c:[0-9]+: '"
check "KBV_DEBUG=0: one line" \
    bash -c "test \$(KBV_DEBUG=0 '$KBV' report '$missing/r.jsonl' 2>&1 | wc -l) -eq 1"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
