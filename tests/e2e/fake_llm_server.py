#!/usr/bin/python3
"""A stand-in for an OpenAI-compatible chat-completions server and for
Anthropic's Messages API, for tests.

Listens on 127.0.0.1 only, on a port the kernel picks (written to
--port-file once listening). Answers POST /v1/chat/completions (OpenAI's
format) and POST /v1/messages (Anthropic's: x-api-key, anthropic-version,
max_tokens required, content blocks, stop_reason, errors as
{"type": "error", "error": {...}}); every other path is a 404. The problem a
request is about is the last "L<level>/<id>" in its prompt (the reference
comes last). Scenarios, by level-1 problem id, in both formats:

  19  a good answer: one ```cuda block (```c when the prompt asks for C)
  20  an answer with no code block
  21  the problem's first request gets 429 with Retry-After: 1, then good
  22  the problem's first request answers after --slow seconds, then good
  23  the problem's first request gets a 200 with malformed JSON, then good
  24  a draft block and a final block; the final one is the answer (Anthropic:
      after a thinking block that holds a code block of its own)
  25  cut at the token limit inside an unclosed code block
  26  always overloaded: 503 (Anthropic: 529 overloaded_error)
  29  always 400: the prompt is too long (not worth retrying)
  any other  a good answer

A request under kbv judge's system prompt ("You are a code correctness judge")
gets a judge's answer instead: L1/19 SPEED_HACK (a JSON object in a fence,
after prose holding another), L1/27 no JSON object, any other LEGITIMATE; the
scenarios above (21, 26, 29, ...) apply to it as to any request.

With --answer-dir DIR, a good answer's code is DIR/level_L_problem_P_sample_0.cu
(.c when the prompt asks for C) where that file exists, e.g. examples/runs/demo-a,
so that a generated run can be evaluated for real.

With --key, a request without "Authorization: Bearer KEY" (OpenAI) or
"x-api-key: KEY" (Anthropic) gets 401.
GET /stats returns the counters as JSON (requests, per status, per problem,
the last request's API, model, temperature, max_tokens, system prompt and
headers, never the key).
"""
import argparse
import json
import os
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

GOOD = """#include <kbv/candidate.h>
#include <cuda_runtime.h>

// kbv test answer for {key} ({tag})
KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{{
    (void)env; (void)state; (void)inputs; (void)n_inputs;
    (void)params; (void)n_params; (void)outputs; (void)n_outputs;
    return 0;
}}
"""


class State:
    def __init__(self, key, slow, answer_dir):
        self.key = key
        self.slow = slow
        self.answer_dir = answer_dir
        self.lock = threading.Lock()
        self.requests = 0
        self.statuses = {}
        self.problems = {}
        self.seen = {}  # (api, problem): requests so far, so each API has its first request
        self.last = {}


def good_code(answer_dir, key, lang):
    if answer_dir:
        level, problem_id = key[1:].split("/")
        path = os.path.join(answer_dir, "level_%s_problem_%s_sample_0.%s" %
                            (level, problem_id, "c" if lang == "c" else "cu"))
        if os.path.exists(path):
            with open(path) as f:
                return f.read()
    return GOOD.format(key=key, tag="good")


def answer_text(key, problem_id, lang, answer_dir=None):
    if problem_id == 20:
        return "I would write a fused kernel here, but I will only describe it in words."
    if problem_id == 24:
        return ("A first draft:\n\n```cuda\n" + GOOD.format(key=key, tag="draft") +
                "```\n\nOn reflection, the final version:\n\n```cuda\n" +
                GOOD.format(key=key, tag="final") + "```\n")
    if problem_id == 25:
        return "Here it is:\n\n```cuda\n" + GOOD.format(key=key, tag="cut")[:-60]
    return ("Here is the kernel.\n\n```" + lang + "\n" + good_code(answer_dir, key, lang) +
            "```\n\nIt reads each element once.\n")


def judge_text(problem_id):
    """A judge's answer (kbv judge): L1/19 is flagged, in prose and a fenced JSON object
    after a draft one; L1/27 answers without the JSON object; every other is legitimate."""
    if problem_id == 19:
        return ('Looking at it: {"label": "UNCERTAIN"} was my first thought, but no.\n\n```json\n'
                '{"label": "SPEED_HACK", "pattern": "identity for positive inputs", '
                '"explanation": "returns x unchanged where the test inputs are positive", '
                '"fix": "compute max(x, 0)"}\n```\n')
    if problem_id == 27:
        return "I cannot tell from this."
    return ('{"label": "LEGITIMATE", "pattern": "elementwise", "explanation": "computes the '
            'reference", "fix": ""}')


class Handler(BaseHTTPRequestHandler):
    server_version = "fake-llm/1"

    def log_message(self, fmt, *args):
        pass

    def send_json(self, status, obj, extra_headers=(), raw=None):
        body = raw if raw is not None else json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra_headers:
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): expected in the slow scenario

    def count(self, status):
        st = self.server.state
        with st.lock:
            st.statuses[str(status)] = st.statuses.get(str(status), 0) + 1

    def do_GET(self):
        st = self.server.state
        if self.path != "/stats":
            self.send_json(404, {"error": {"message": "not found"}})
            return
        with st.lock:
            snapshot = {"requests": st.requests, "statuses": dict(st.statuses),
                        "problems": dict(st.problems), "last": dict(st.last)}
        self.send_json(200, snapshot)

    def do_POST(self):
        st = self.server.state
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        with st.lock:
            st.requests += 1
        routes = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}
        api = routes.get(self.path)
        if api is None:
            self.count(404)
            self.send_json(404, {"error": {"message": "no route " + self.path}})
            return
        anthropic = api == "anthropic"

        def error(status, kind, message, headers=()):
            self.count(status)
            if anthropic:
                body = {"type": "error", "error": {"type": kind, "message": message}}
            else:
                body = {"error": {"message": message, "type": kind}}
            self.send_json(status, body, headers)

        given = (self.headers.get("x-api-key") if anthropic else
                 (self.headers.get("Authorization") or "").removeprefix("Bearer "))
        if st.key is not None and given != st.key:
            error(401, "authentication_error", "invalid api key")
            return
        try:
            req = json.loads(raw)
            prompt = req["messages"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            error(400, "invalid_request_error", "bad request body")
            return
        if anthropic and self.headers.get("anthropic-version") is None:
            error(400, "invalid_request_error", "anthropic-version header is required")
            return
        if anthropic and not isinstance(req.get("max_tokens"), int):
            error(400, "invalid_request_error", "max_tokens: Field required")
            return
        keys = re.findall(r"\bL(\d+)/(\d+)\b", prompt)
        level, problem_id = (int(keys[-1][0]), int(keys[-1][1])) if keys else (0, 0)
        key = "L%d/%d" % (level, problem_id)
        if anthropic:
            system = req.get("system")
        else:
            system = next((m.get("content") for m in req["messages"]
                           if m.get("role") == "system"), None)
        with st.lock:
            st.problems[key] = st.problems.get(key, 0) + 1
            nth = st.seen.get((api, key), 0)
            st.seen[(api, key)] = nth + 1
            st.last = {"api": api, "model": req.get("model"),
                       "temperature": req.get("temperature"),
                       "max_tokens": req.get("max_tokens"), "system": system,
                       "roles": [m.get("role") for m in req["messages"]],
                       "problem": key, "content_type": self.headers.get("Content-Type"),
                       "anthropic_version": self.headers.get("anthropic-version"),
                       "authorization": self.headers.get("Authorization") is not None,
                       "x_api_key": self.headers.get("x-api-key") is not None}
        first = nth == 0

        if level == 1 and problem_id == 26:
            if anthropic:
                error(529, "overloaded_error", "Overloaded")
            else:
                error(503, "server_error", "model overloaded")
            return
        if level == 1 and problem_id == 29:
            error(400, "invalid_request_error", "prompt is too long")
            return
        if level == 1 and problem_id == 21 and first:
            error(429, "rate_limit_error", "rate limited", [("Retry-After", "1")])
            return
        if level == 1 and problem_id == 22 and first:
            time.sleep(st.slow)
        if level == 1 and problem_id == 23 and first:
            self.count(200)
            self.send_json(200, None, raw=(b'{"type": "message", "content": [{"type": "te'
                                           if anthropic else
                                           b'{"choices": [{"message": {"content": "trunc'))
            return

        lang = "c" if "```c code block" in prompt else "cuda"
        if (system or "").startswith("You are a code correctness judge"):
            content = judge_text(problem_id if level == 1 else 0)
        else:
            content = answer_text(key, problem_id if level == 1 else 0, lang, st.answer_dir)
        cut = level == 1 and problem_id == 25
        prompt_tokens, completion_tokens = len(prompt) // 4, len(content) // 4
        self.count(200)
        if anthropic:
            blocks = [{"type": "text", "text": content}]
            if level == 1 and problem_id == 24:
                blocks.insert(0, {"type": "thinking", "signature": "sig",
                                  "thinking": "```cuda\n" + GOOD.format(key=key, tag="thinking")
                                              + "```\n"})
            self.send_json(200, {
                "id": "msg_test", "type": "message", "role": "assistant",
                "model": req.get("model"), "content": blocks,
                "stop_reason": "max_tokens" if cut else "end_turn", "stop_sequence": None,
                "usage": {"input_tokens": prompt_tokens, "output_tokens": completion_tokens},
            })
            return
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                 "total_tokens": prompt_tokens + completion_tokens}
        self.send_json(200, {
            "id": "chatcmpl-test", "object": "chat.completion", "model": req.get("model"),
            "choices": [{"index": 0, "finish_reason": "length" if cut else "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": usage,
        })


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--key", default=None)
    ap.add_argument("--slow", type=float, default=5.0)
    ap.add_argument("--answer-dir", default=None)
    args = ap.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    server.state = State(args.key, args.slow, args.answer_dir)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % server.server_address[1])
    os.replace(tmp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
