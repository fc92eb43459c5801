# Sourced by the end-to-end scripts: TAP-like "ok"/"FAIL" lines and their
# counts; a script ends with: echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok   - $1"; }
not_ok() { failed=$((failed + 1)); echo "FAIL - $1"; [ -n "${2:-}" ] && echo "$2" | sed 's/^/       /'; }
check() { # check DESCRIPTION COMMAND...
    local desc=$1; shift
    local out
    if out=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc" "$out"; fi
}
