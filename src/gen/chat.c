/* Chat-completions requests and answers (see chat.h). */
#include "gen/chat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char chat_suffix[] = "/chat/completions";

kbv_status kbv_chat_url(const char *endpoint, char *buf, size_t cap)
{
    if (!endpoint || !*endpoint)
        return kbv_fail(KBV_ERR_INVALID, "no endpoint URL");
    size_t scheme = !strncasecmp(endpoint, "http://", 7)    ? 7
                    : !strncasecmp(endpoint, "https://", 8) ? 8
                                                            : 0;
    if (!scheme)
        return kbv_fail(KBV_ERR_INVALID, "endpoint '%s' is not an http:// or https:// URL",
                        endpoint);
    /* A query (?api-version=...) rides along after the path. */
    const char *query = strchr(endpoint + scheme, '?');
    size_t base = query ? (size_t)(query - endpoint) : strlen(endpoint);
    while (base > scheme && endpoint[base - 1] == '/')
        base--;
    if (base == scheme)
        return kbv_fail(KBV_ERR_INVALID, "endpoint '%s' has no host", endpoint);
    const char *slash = memchr(endpoint + scheme, '/', base - scheme);
    size_t suffix_len = sizeof chat_suffix - 1;
    const char *append;
    if (base >= suffix_len && !strncmp(endpoint + base - suffix_len, chat_suffix, suffix_len))
        append = "";
    else if (!slash)
        append = "/v1/chat/completions";
    else
        append = chat_suffix;
    int n = snprintf(buf, cap, "%.*s%s%s", (int)base, endpoint, append, query ? query : "");
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "endpoint URL longer than %zu bytes", cap);
    return KBV_OK;
}

kbv_status kbv_chat_request_json(const kbv_chat_request *req, char **out)
{
    if (!req || !req->model || !req->prompt || !out)
        return kbv_fail(KBV_ERR_INVALID, "chat request: model and prompt needed");
    *out = NULL;
    kbv_status st = KBV_OK;
    json_t *msg = json_pack("{s:s, s:s}", "role", "user", "content", req->prompt);
    json_t *root = msg ? json_pack("{s:s, s:[O]}", "model", req->model, "messages", msg) : NULL;
    if (!root)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: building JSON failed");
    if (req->temperature >= 0 &&
        json_object_set_new(root, "temperature", json_real(req->temperature)) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: building JSON failed");
    if (req->max_tokens > 0) {
        const char *field = req->max_tokens_field ? req->max_tokens_field : "max_tokens";
        if (json_object_set_new(root, field, json_integer(req->max_tokens)) != 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: building JSON failed");
    }
    *out = json_dumps(root, JSON_COMPACT | JSON_REAL_PRECISION(15));
    if (!*out)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: serialising JSON failed");
done:
    json_decref(root);
    json_decref(msg);
    return st;
}

/* message.content: a string, null, or (some servers) an array of parts. */
static kbv_status copy_content(json_t *content, char **out)
{
    *out = NULL;
    if (!content || json_is_null(content))
        return KBV_OK;
    if (json_is_string(content)) {
        *out = strdup(json_string_value(content));
        return *out ? KBV_OK : kbv_fail(KBV_ERR_NOMEM, "chat answer: copying content");
    }
    if (!json_is_array(content))
        return kbv_fail(KBV_ERR_PARSE,
                        "malformed answer: message.content is neither text nor parts");
    size_t total = 1, i;
    json_t *part;
    json_array_foreach(content, i, part) {
        const char *t = json_string_value(json_object_get(part, "text"));
        total += t ? strlen(t) : 0;
    }
    char *joined = malloc(total);
    if (!joined)
        return kbv_fail(KBV_ERR_NOMEM, "chat answer: copying content");
    joined[0] = '\0';
    size_t len = 0;
    json_array_foreach(content, i, part) {
        const char *t = json_string_value(json_object_get(part, "text"));
        if (t) {
            size_t n = strlen(t);
            memcpy(joined + len, t, n + 1);
            len += n;
        }
    }
    *out = joined;
    return KBV_OK;
}

static long long usage_count(json_t *usage, const char *key)
{
    json_t *v = json_object_get(usage, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (long long)json_integer_value(v) : 0;
}

kbv_status kbv_chat_parse_answer(const char *body, size_t len, kbv_chat_answer *out)
{
    if (!body || !out)
        return kbv_fail(KBV_ERR_INVALID, "chat answer: no body");
    memset(out, 0, sizeof *out);
    kbv_status st = KBV_OK;
    json_error_t err;
    json_t *root = json_loadb(body, len, 0, &err);
    if (!root)
        return kbv_fail(KBV_ERR_PARSE, "malformed answer: not JSON (line %d: %s)", err.line,
                        err.text);
    if (!json_is_object(root))
        KBV_FAIL_GOTO(st, fail, KBV_ERR_PARSE, "malformed answer: not a JSON object");
    json_t *error = json_object_get(root, "error");
    if (error && !json_is_null(error)) {
        char msg[256];
        kbv_chat_error_summary(body, msg, sizeof msg);
        KBV_FAIL_GOTO(st, fail, KBV_ERR_PARSE, "API error in a 2xx answer: %s", msg);
    }
    json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
    json_t *message = json_object_get(choice, "message");
    if (!json_is_object(message))
        KBV_FAIL_GOTO(st, fail, KBV_ERR_PARSE, "malformed answer: no choices[0].message");
    KBV_TRY_GOTO(copy_content(json_object_get(message, "content"), &out->content), st, fail);
    const char *finish = json_string_value(json_object_get(choice, "finish_reason"));
    snprintf(out->finish_reason, sizeof out->finish_reason, "%s", finish ? finish : "");
    out->usage = json_object_get(root, "usage");
    if (!json_is_object(out->usage))
        out->usage = NULL;
    out->prompt_tokens = usage_count(out->usage, "prompt_tokens");
    out->completion_tokens = usage_count(out->usage, "completion_tokens");
    out->response = root;
    return KBV_OK;
fail:
    free(out->content);
    memset(out, 0, sizeof *out);
    json_decref(root);
    return st;
}

void kbv_chat_answer_free(kbv_chat_answer *a)
{
    if (!a)
        return;
    json_decref(a->response);
    free(a->content);
    memset(a, 0, sizeof *a);
}

static void one_line(const char *s, size_t n, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && s[i] && k + 1 < cap; i++)
        buf[k++] = (s[i] == '\n' || s[i] == '\r' || s[i] == '\t') ? ' ' : s[i];
    buf[k] = '\0';
}

void kbv_chat_error_summary(const char *body, char *buf, size_t cap)
{
    if (!cap)
        return;
    buf[0] = '\0';
    if (!body)
        return;
    json_t *root = json_loads(body, 0, NULL);
    json_t *error = json_object_get(root, "error");
    const char *msg = json_string_value(json_object_get(error, "message"));
    if (!msg)
        msg = json_string_value(error);
    if (!msg)
        msg = json_string_value(json_object_get(root, "detail"));
    if (!msg)
        msg = json_string_value(json_object_get(root, "message"));
    const char *src = msg ? msg : body;
    one_line(src, 200, buf, cap);
    json_decref(root);
}
