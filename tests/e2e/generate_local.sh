#!/usr/bin/env bash
# kbv generate against a fake server on loopback (fake_llm_server.py) that
# speaks both OpenAI's chat completions and Anthropic's Messages API: good
# answers, answers without code, 429 then success, a response slower than
# --timeout then success, malformed JSON then success, drafts, truncated
# answers, a server that keeps failing, an error not worth retrying, a
# rejected key, resume without new requests, C candidates with --cpu, and
# the paper's defaults (5 samples, temperature 0.8, 32k tokens, its system
# prompt). Nothing leaves 127.0.0.1.
#
# usage: tests/e2e/generate_local.sh BUILD_DIR
set -u

build=${1:?usage: generate_local.sh BUILD_DIR}
kbv=$(cd "$build" && pwd)/kbv
here=$(cd "$(dirname "$0")" && pwd)
python=/usr/bin/python3

# Loopback only, whatever the environment says about proxies.
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY
export no_proxy='*' NO_PROXY='*'

work=$(mktemp -d "${TMPDIR:-/tmp}/kbv_generate_XXXXXX")
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null
        wait "$server_pid" 2>/dev/null
    fi
    rm -rf "$work"
}
trap cleanup EXIT

passed=0
failed=0
check() {  # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAIL: $what" >&2
    fi
}

secret="kbv-test-key-$$-$RANDOM"
export KBV_TEST_API_KEY=$secret
"$python" "$here/fake_llm_server.py" --port-file "$work/port" --key "$secret" --slow 5 \
    >"$work/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do
    [ -s "$work/port" ] && break
    sleep 0.1
done
if [ ! -s "$work/port" ]; then
    echo "the fake server did not start:" >&2
    cat "$work/server.log" >&2
    echo "0 passed, 1 failed"
    exit 1
fi
port=$(cat "$work/port")

# stat EXPR: a value from the server's counters, e.g. stat 'requests'
stat() {
    "$python" - "$port" "$1" <<'EOF'
import json, sys, urllib.request
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
s = json.load(opener.open("http://127.0.0.1:%s/stats" % sys.argv[1], timeout=10))
print(eval(sys.argv[2], {}, s))
EOF
}

# json_field FILE EXPR: a value from a JSON file, e.g. json_field f.json 'd["reason"]'
json_field() {
    "$python" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

run=$work/runs/test-model
base=(--model test-model --api-key-env KBV_TEST_API_KEY --temperature 0.8 --max-tokens 1000
      --timeout 2 --retries 3 --backoff 0.2)

# --- first run: every scenario, 2 samples each, 3 requests in flight --------
"$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port" --problems L1/19-25 \
    --samples 2 --concurrency 3 --out "$run" >"$work/run1.out" 2>"$work/run1.err"
rc=$?
check "first run exits 0 (rc $rc)" test "$rc" -eq 0
check "a progress line per sample" test "$(grep -c '^\[[0-9]*/14\] L1/' "$work/run1.err")" -eq 14
check "summary of the first run" grep -q '^generate: 10 ok, 4 failed, 0 skipped, 0 errors' "$work/run1.err"

for s in 0 1; do
    f=$run/level_1_problem_19_sample_$s
    check "L1/19 s$s candidate" grep -q '// kbv test answer for L1/19 (good)' "$f.cu"
    check "L1/19 s$s candidate starts with the code" test "$(head -1 "$f.cu")" = '#include <kbv/candidate.h>'
    check "L1/19 s$s no fence in the candidate" bash -c "! grep -q '\`\`\`' '$f.cu'"
    check "L1/19 s$s no failure record" test ! -e "$f.failed.json"
    check "L1/19 s$s raw answer kept" test "$(json_field "$f.response.json" '"Here is the kernel" in d["content"]')" = True
    check "L1/19 s$s token usage kept" test "$(json_field "$f.response.json" 'd["usage"]["completion_tokens"] > 0 and d["usage"]["prompt_tokens"] > 1000')" = True
    check "L1/19 s$s record fields" test "$(json_field "$f.response.json" '(d["problem"], d["sample"], d["model"], d["attempts"], d["finish_reason"], d["temperature"], d["url"])')" = "('L1/19', $s, 'test-model', 1, 'stop', 0.8, 'http://127.0.0.1:$port/v1/chat/completions')"

    f=$run/level_1_problem_20_sample_$s
    check "L1/20 s$s no candidate" test ! -e "$f.cu"
    check "L1/20 s$s failure recorded" test "$(json_field "$f.failed.json" 'd["reason"]')" = 'no code block in the answer'
    check "L1/20 s$s raw answer kept" test "$(json_field "$f.response.json" '"only describe it in words" in d["content"]')" = True

    for p in 21 22 23; do
        check "L1/$p s$s candidate after a retry" grep -q "// kbv test answer for L1/$p (good)" "$run/level_1_problem_${p}_sample_$s.cu"
    done

    f=$run/level_1_problem_24_sample_$s
    check "L1/24 s$s the final block, not the draft" grep -q '(final)' "$f.cu"
    check "L1/24 s$s draft left out" bash -c "! grep -q '(draft)' '$f.cu'"

    f=$run/level_1_problem_25_sample_$s
    check "L1/25 s$s truncated answer is a failure" test ! -e "$f.cu"
    check "L1/25 s$s reason names the token limit" test "$(json_field "$f.failed.json" 'd["reason"]')" = 'the answer was cut at the token limit inside its code block'
done

check "the 429 was seen and retried" test "$(stat 'statuses.get("429", 0)')" -eq 1
check "the 429's sample took 2 attempts" test "$(cat "$run"/level_1_problem_21_sample_*.response.json | grep -c '"attempts": 2')" -eq 1
check "the slow answer was retried" test "$(cat "$run"/level_1_problem_22_sample_*.response.json | grep -c '"attempts": 2')" -eq 1
check "the malformed answer was retried" test "$(cat "$run"/level_1_problem_23_sample_*.response.json | grep -c '"attempts": 2')" -eq 1
check "the slow sample's progress line" grep -q 'L1/22 sample .: ok (2 attempts' "$work/run1.err"
check "17 requests in all" test "$(stat 'requests')" -eq 17
check "model, temperature and max_tokens sent" test "$(stat '(last["model"], last["temperature"], last["max_tokens"], last["content_type"])')" = "('test-model', 0.8, 1000, 'application/json')"
check "the paper's system prompt, then the user's" test "$(stat '(last["api"], last["system"], last["roles"], last["authorization"], last["x_api_key"])')" = "('openai', 'You are a helpful assistant', ['system', 'user'], True, False)"
check "records name the API and the template" test "$(json_field "$run/level_1_problem_19_sample_0.response.json" '(d["api"], d["template"], d["input_blind"], d["system"])')" = "('openai', 'default', False, 'You are a helpful assistant')"
check "no temporary files left" test -z "$(find "$run" -name '*.tmp.*')"
check "the key is in no file" bash -c "! grep -rqF '$secret' '$run' '$work/run1.out' '$work/run1.err'"

# --- resume: the same run again, endpoint given with /v1/ -------------------
before=$(stat 'requests')
"$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port/v1/" --problems L1/19-25 \
    --samples 2 --concurrency 3 --out "$run" >"$work/run2.out" 2>"$work/run2.err"
rc=$?
check "resume exits 0 (rc $rc)" test "$rc" -eq 0
check "resume sends no request" test "$(stat 'requests')" -eq "$before"
check "resume skips all 14" grep -q '^generate: 0 ok, 0 failed, 14 skipped, 0 errors' "$work/run2.err"

# --- a third sample for one problem: only it is requested -------------------
"$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port/v1" --problems L1/19 \
    --samples 3 --out "$run" >"$work/run3.out" 2>"$work/run3.err"
rc=$?
check "extra sample exits 0 (rc $rc)" test "$rc" -eq 0
check "extra sample: one request" test "$(stat 'requests')" -eq $((before + 1))
check "extra sample written" test -s "$run/level_1_problem_19_sample_2.cu"

# --- a server that keeps failing: errors, nothing recorded -------------------
before=$(stat 'requests')
"$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port" --problems L1/26 \
    --samples 1 --retries 2 --out "$run" >"$work/run4.out" 2>"$work/run4.err"
rc=$?
check "persistent 503 exits 1 (rc $rc)" test "$rc" -eq 1
check "persistent 503: 1 + 2 retries" test "$(stat 'requests')" -eq $((before + 3))
check "persistent 503: reported" grep -q 'L1/26 sample 0: error: HTTP 503: model overloaded (3 attempts' "$work/run4.err"
check "persistent 503: nothing recorded" test -z "$(find "$run" -name 'level_1_problem_26_*')"
check "persistent 503: summary" grep -q '^generate: 0 ok, 0 failed, 0 skipped, 1 errors' "$work/run4.err"

# --- a rejected key stops the run at the first answer -----------------------
before=$(stat 'requests')
KBV_TEST_API_KEY=wrong "$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port" \
    --problems L1/27-28 --samples 2 --concurrency 1 --out "$run" >"$work/run5.out" 2>"$work/run5.err"
rc=$?
check "rejected key exits 1 (rc $rc)" test "$rc" -eq 1
check "rejected key: one request only" test "$(stat 'requests')" -eq $((before + 1))
check "rejected key: reported" grep -q 'HTTP 401: invalid api key' "$work/run5.err"
check "rejected key: the rest counted as errors" grep -q '^generate: 0 ok, 0 failed, 0 skipped, 4 errors' "$work/run5.err"
check "rejected key: nothing recorded" test -z "$(find "$run" -name 'level_1_problem_27_*' -o -name 'level_1_problem_28_*')"

# --- C candidates for the CPU backend ----------------------------------------
"$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port" --problems L1/30 --cpu \
    --samples 1 --out "$work/runs/cpu" >"$work/run6.out" 2>"$work/run6.err"
rc=$?
check "--cpu exits 0 (rc $rc)" test "$rc" -eq 0
check "--cpu writes a .c file" grep -q '// kbv test answer for L1/30 (good)' "$work/runs/cpu/level_1_problem_30_sample_0.c"
check "--cpu writes no .cu" test ! -e "$work/runs/cpu/level_1_problem_30_sample_0.cu"
check "--cpu target recorded" test "$(json_field "$work/runs/cpu/level_1_problem_30_sample_0.response.json" 'd["target"]')" = cpu

# --- the paper's defaults: 5 samples, temperature 0.8, 32k tokens ------------
before=$(stat 'requests')
"$kbv" generate --model test-model --api-key-env KBV_TEST_API_KEY --endpoint "http://127.0.0.1:$port" \
    --problems L1/31 --out "$work/runs/defaults" >"$work/run8.out" 2>"$work/run8.err"
rc=$?
check "defaults exit 0 (rc $rc)" test "$rc" -eq 0
check "defaults: 5 samples" test "$(stat 'requests')" -eq $((before + 5))
check "defaults: 5 candidates" test "$(ls "$work/runs/defaults"/level_1_problem_31_sample_[0-4].cu | wc -l)" -eq 5
check "defaults: temperature 0.8, 32000 tokens, the paper's system prompt" test "$(stat '(last["temperature"], last["max_tokens"], last["system"])')" = "(0.8, 32000, 'You are a helpful assistant')"
check "defaults recorded" test "$(json_field "$work/runs/defaults/level_1_problem_31_sample_4.response.json" '(d["temperature"], d["max_tokens"], d["template"])')" = "(0.8, 32000, 'default')"

# --- every default can be turned off or changed ------------------------------
"$kbv" generate "${base[@]}" --endpoint "http://127.0.0.1:$port" --problems L1/32 --samples 1 \
    --temperature none --max-tokens 0 --system '' --template informed --out "$work/runs/overrides" \
    >"$work/run9.out" 2>"$work/run9.err"
rc=$?
check "overrides exit 0 (rc $rc)" test "$rc" -eq 0
check "overrides: nothing sent but the user's message" test "$(stat '(last["temperature"], last["max_tokens"], last["system"], last["roles"])')" = "(None, None, None, ['user'])"
check "overrides: the informed template recorded" test "$(json_field "$work/runs/overrides/level_1_problem_32_sample_0.response.json" '(d["template"], d["system"], d["temperature"])')" = "('informed', None, None)"

# --- Anthropic's Messages API --------------------------------------------------
arun=$work/runs/claude
abase=(--model claude-test --api-key-env KBV_TEST_API_KEY --temperature 0.5 --max-tokens 2000
       --timeout 2 --retries 3 --backoff 0.2)
before=$(stat 'requests')
"$kbv" generate "${abase[@]}" --endpoint "http://127.0.0.1:$port/v1/messages" \
    --problems L1/19-25 --samples 1 --concurrency 3 --out "$arun" >"$work/a1.out" 2>"$work/a1.err"
rc=$?
check "anthropic: exits 0 (rc $rc)" test "$rc" -eq 0
check "anthropic: the API said at the start" grep -q "(anthropic API, model claude-test" "$work/a1.err"
check "anthropic: summary" grep -q '^generate: 5 ok, 2 failed, 0 skipped, 0 errors; 10 requests' "$work/a1.err"
f=$arun/level_1_problem_19_sample_0
check "anthropic: L1/19 candidate" grep -q '// kbv test answer for L1/19 (good)' "$f.cu"
check "anthropic: L1/19 record" test "$(json_field "$f.response.json" '(d["api"], d["url"], d["finish_reason"], d["usage"]["input_tokens"] > 1000, d["attempts"], d["response"]["type"])')" = "('anthropic', 'http://127.0.0.1:$port/v1/messages', 'end_turn', True, 1, 'message')"
check "anthropic: no code is a failure" test "$(json_field "$arun/level_1_problem_20_sample_0.failed.json" 'd["reason"]')" = 'no code block in the answer'
for p in 21 22 23; do
    check "anthropic: L1/$p good after a retry" grep -q "// kbv test answer for L1/$p (good)" "$arun/level_1_problem_${p}_sample_0.cu"
    check "anthropic: L1/$p took 2 attempts" test "$(json_field "$arun/level_1_problem_${p}_sample_0.response.json" 'd["attempts"]')" -eq 2
done
check "anthropic: the final text block, not the thinking or the draft" bash -c "grep -q '(final)' '$arun/level_1_problem_24_sample_0.cu' && ! grep -q '(thinking)\|(draft)' '$arun/level_1_problem_24_sample_0.cu'"
check "anthropic: stop_reason max_tokens inside the code is a cut" test "$(json_field "$arun/level_1_problem_25_sample_0.failed.json" '(d["reason"], d["finish_reason"])')" = "('the answer was cut at the token limit inside its code block', 'max_tokens')"
check "anthropic: the request as the Messages API wants it" test "$(stat '(last["api"], last["model"], last["temperature"], last["max_tokens"], last["system"], last["roles"], last["anthropic_version"])')" = "('anthropic', 'claude-test', 0.5, 2000, 'You are a helpful assistant', ['user'], '2023-06-01')"
check "anthropic: the key in x-api-key, no Authorization header" test "$(stat '(last["x_api_key"], last["authorization"])')" = "(True, False)"
check "anthropic: the key is in no file" bash -c "! grep -rqF '$secret' '$arun' '$work/a1.out' '$work/a1.err'"

# an overloaded server (529) is retried, then an error; a 400 is not retried
before=$(stat 'requests')
"$kbv" generate "${abase[@]}" --endpoint "http://127.0.0.1:$port/v1/messages" \
    --problems L1/26,L1/29 --samples 1 --retries 2 --concurrency 1 --out "$arun" \
    >"$work/a2.out" 2>"$work/a2.err"
rc=$?
check "anthropic errors: exit 1 (rc $rc)" test "$rc" -eq 1
check "anthropic errors: 529 retried, 400 not: 3 + 1 requests" test "$(stat 'requests')" -eq $((before + 4))
check "anthropic errors: the 529 reported" grep -q 'L1/26 sample 0: error: HTTP 529: Overloaded (3 attempts' "$work/a2.err"
check "anthropic errors: the 400 reported" grep -q 'L1/29 sample 0: error: HTTP 400: prompt is too long (1 attempt,' "$work/a2.err"
check "anthropic errors: nothing recorded" test -z "$(find "$arun" -name 'level_1_problem_26_*' -o -name 'level_1_problem_29_*')"

# --api anthropic on a bare host gets /v1/messages; a rejected key stops the run
before=$(stat 'requests')
KBV_TEST_API_KEY=wrong "$kbv" generate "${abase[@]}" --api anthropic --endpoint "http://127.0.0.1:$port" \
    --problems L1/27-28 --samples 2 --concurrency 1 --out "$arun" >"$work/a3.out" 2>"$work/a3.err"
rc=$?
check "anthropic rejected key: exit 1 (rc $rc)" test "$rc" -eq 1
check "anthropic rejected key: one request, to /v1/messages" test "$(stat 'requests')" -eq $((before + 1))
check "anthropic rejected key: reported" grep -q 'HTTP 401: invalid api key' "$work/a3.err"
check "anthropic rejected key: the rest counted as errors" grep -q '^generate: 0 ok, 0 failed, 0 skipped, 4 errors' "$work/a3.err"
"$kbv" generate "${abase[@]}" --max-tokens 0 --endpoint "http://127.0.0.1:$port/v1/messages" \
    --problems L1/19 --out "$work/runs/x" >/dev/null 2>"$work/a4.err"
check "anthropic without a token limit is a usage error" test $? -eq 2
"$kbv" generate --model m --api claude --endpoint "http://127.0.0.1:$port" --problems L1/19 \
    --out "$work/runs/x" >/dev/null 2>&1
check "an unknown --api is a usage error" test $? -eq 2

# --- usage errors --------------------------------------------------------------
"$kbv" generate --model m --endpoint "http://127.0.0.1:$port" --problems L1/19 \
    --api-key-env KBV_TEST_UNSET_VARIABLE --out "$work/runs/x" >/dev/null 2>"$work/run7.err"
check "unset key variable is a usage error" test $? -eq 2
"$kbv" generate --model m --endpoint "ftp://127.0.0.1:$port" --problems L1/19 --out "$work/runs/x" \
    >/dev/null 2>&1
check "non-HTTP endpoint is a usage error" test $? -eq 2
"$kbv" generate --model m --endpoint "http://127.0.0.1:$port" --problems L9/1 --out "$work/runs/x" \
    >/dev/null 2>&1
check "unknown problems are a usage error" test $? -eq 2

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
