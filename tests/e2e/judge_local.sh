#!/usr/bin/env bash
# kbv judge against a fake server on loopback (fake_llm_server.py), then kbv
# report --judge: which samples are judged (verified-correct with speedup > 1,
# their source here and the bytes evaluated), the paper's judge prompt, the
# answers (a flag after prose, a legitimate one, a 429 then an answer, an
# answer without its JSON object), resume, both APIs, and the judge table and
# drill-down of the report. Nothing leaves 127.0.0.1.
#
# usage: tests/e2e/judge_local.sh BUILD_DIR
set -u

build=${1:?usage: judge_local.sh BUILD_DIR}
kbv=$(cd "$build" && pwd)/kbv
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy='*' NO_PROXY='*'

work=$(mktemp -d "${TMPDIR:-/tmp}/kbv_judge_XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

. "$here/lib/check.sh"

"$python" "$here/fake_llm_server.py" --port-file "$work/port" >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
    [ -s "$work/port" ] && break
    sleep 0.1
done
if [ ! -s "$work/port" ]; then
    not_ok "the fake server starts" "$(cat "$work/server.log")"
    echo "$passed passed, $failed failed"
    exit 1
fi
url="http://127.0.0.1:$(cat "$work/port")"

# Results by hand: (problem, verified correct, speedup, strict correct, source here)
#   L1/19 2x, strict correct    -> judged: SPEED_HACK (both disagree: judge only)
#   L1/23 1.5x, strict fails    -> judged: LEGITIMATE (strict only)
#   L1/21 3x, strict correct    -> judged after a 429: LEGITIMATE (neither)
#   L1/27 2x, strict correct    -> judged, no JSON in the answer: NO_ANSWER
#   L1/1  0.5x                  -> not judged (not faster)
#   L1/31 2x, its file missing  -> not judged, said
mkdir -p "$work/runs/m"
"$python" - "$work" "$here/../../examples/runs/demo-a/level_1_problem_19_sample_0.c" <<'EOF'
import hashlib, json, os, sys
work, src = sys.argv[1], sys.argv[2]
code = open(src).read()
def rec(pid, speed, strict_ok, have_file=True):
    name = "runs/m/level_1_problem_%d_sample_0.c" % pid
    body = code.replace("ReLU", "candidate %d" % pid)
    if have_file:
        open(os.path.join(work, name), "w").write(body)
    def proto(ok, sp):
        return {"correct": ok, "reason": "" if ok else "D6: over budget", "draws_passed": 5,
                "draws_total": 5, "draws_skipped": 0, "t_kernel_ms": 1.0, "t_kernel_sd_ms": 0.01,
                "t_baseline_ms": sp, "speedup": sp, "mem_kernel_bytes": 100,
                "mem_baseline_bytes": 100, "sol_fraction": 0.1, "flags": []}
    return {"schema": 1, "model": "m", "problem": "L1/%d" % pid, "level": 1, "problem_id": pid,
            "sample": 0, "file": name,
            "source_sha256": hashlib.sha256(body.encode()).hexdigest(), "device": "cpu",
            "size": "small", "seed": 1, "gate": "text",
            "compile": {"ok": True, "cached": False, "seconds": 0.1, "log": ""},
            "protocols": {"standard": proto(True, speed), "verified": proto(True, speed),
                          "strict": proto(strict_ok, speed)},
            "draws": [], "fault": None, "output": None, "sandbox": "none"}
recs = [rec(19, 2.0, True), rec(23, 1.5, False), rec(21, 3.0, True), rec(27, 2.0, True),
        rec(1, 0.5, True), rec(31, 2.0, True, have_file=False)]
with open(os.path.join(work, "results.jsonl"), "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
EOF

"$kbv" judge "$work/results.jsonl" --model judge-x --endpoint "$url" --retries 2 \
    >"$work/judge.out" 2>"$work/judge.err"
rc=$?
check "kbv judge: exit 1, one sample without an answer (rc $rc)" test "$rc" -eq 1
check "the judgements go beside the results" test -s "$work/results.judge.jsonl"
check "four samples judged, the slow one and the missing one not" "$python" - \
    "$work/results.judge.jsonl" <<'EOF'
import json, sys
got = {json.loads(l)["problem"]: json.loads(l) for l in open(sys.argv[1])}
assert sorted(got) == ["L1/19", "L1/21", "L1/23", "L1/27"], sorted(got)
assert got["L1/19"]["label"] == "SPEED_HACK", got["L1/19"]
assert got["L1/19"]["pattern"] == "identity for positive inputs"
assert got["L1/23"]["label"] == "LEGITIMATE" and got["L1/21"]["label"] == "LEGITIMATE"
assert got["L1/27"]["label"] == "NO_ANSWER" and "no JSON object" in got["L1/27"]["error"]
assert all(r["judge"] == "judge-x" and r["kind"] == "judge" for r in got.values())
EOF
check "the sample without its file is said" grep -q "L1/31 sample 0: not judged: its source is not here" "$work/judge.err"
check "the server was sent the paper's judge prompt" "$python" -c "
import json, urllib.request
s = json.load(urllib.request.urlopen('$url/stats'))
assert s['last']['system'].startswith('You are a code correctness judge'), s['last']
assert s['last']['temperature'] == 0, s['last']
assert s['statuses'].get('429') == 1, s['statuses']
"

"$kbv" judge "$work/results.jsonl" --model judge-x --endpoint "$url" --retries 0 \
    >"$work/again.out" 2>"$work/again.err"
check "a rerun asks only the unanswered one again" grep -q "1 asked (0 answered, 1 without an answer), 3 already judged" "$work/again.out"

"$kbv" judge "$work/results.jsonl" --model judge-y --endpoint "$url/v1/messages" --api anthropic \
    --out "$work/anthropic.jsonl" >"$work/anth.out" 2>"$work/anth.err"
check "Anthropic's API: the same labels" "$python" -c "
import json
got = {json.loads(l)['problem']: json.loads(l)['label'] for l in open('$work/anthropic.jsonl')}
assert got['L1/19'] == 'SPEED_HACK' and got['L1/21'] == 'LEGITIMATE', got
"

"$kbv" report "$work/results.jsonl" --judge "$work/results.judge.jsonl" --denominator sampled \
    --out "$work/report" >"$work/report.out" 2>&1
check "kbv report --judge: exit 0" test $? -eq 0
# judged 3 answered: L1/19 flagged (strict passes: judge only), L1/23 (strict fails: strict
# only), L1/21 (neither): agreement 1 of 3
check "the judge table" grep -q "^| m | L1 | judge-x | 3 | 1 | 0 | 1 | 0 | 1 | 1 | 1 | 33.3 |" \
    "$work/report/tables.md"
check "the drill-down shows the judge's label" grep -q "judge <code>judge-x</code>: <span class=\"bad\">SPEED_HACK</span> &mdash; identity for positive inputs" "$work/report/index.html"
"$kbv" report "$work/results.jsonl" --judge "$work/nope.jsonl" >/dev/null 2>"$work/nope.err"
check "a missing judge file: exit 2" test $? -eq 2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
