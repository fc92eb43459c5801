/* Requests and answers of both APIs (see chat.h). */
#include "gen/chat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct api_info {
    const char *name;
    const char *suffix;       /* what the endpoint's path ends in */
    const char *key_header;
    const char *const *headers;
} apis[] = {
    [KBV_API_OPENAI] = {"openai", "/chat/completions", "Authorization: Bearer ",
                        (const char *const[]){NULL}},
    [KBV_API_ANTHROPIC] = {"anthropic", "/messages", "x-api-key: ",
                           (const char *const[]){"anthropic-version: " KBV_ANTHROPIC_VERSION,
                                                 NULL}},
};

const char *kbv_api_name(kbv_api api)
{
    return apis[api == KBV_API_ANTHROPIC].name;
}

kbv_status kbv_api_parse(const char *name, kbv_api *out)
{
    for (size_t i = 0; i < sizeof apis / sizeof apis[0]; i++)
        if (name && !strcmp(name, apis[i].name)) {
            *out = (kbv_api)i;
            return KBV_OK;
        }
    return kbv_fail(KBV_ERR_INVALID, "--api must be openai or anthropic, got '%s'",
                    name ? name : "");
}

const char *kbv_chat_key_header(kbv_api api)
{
    return apis[api == KBV_API_ANTHROPIC].key_header;
}

const char *const *kbv_chat_headers(kbv_api api)
{
    return apis[api == KBV_API_ANTHROPIC].headers;
}

/* The parts of an http(s) URL kbv looks at: where the host starts, where
 * the path starts (== end: none) and where it ends (before any query and
 * trailing slashes). 0 when the scheme is not http or https. */
static size_t url_parts(const char *url, size_t *path, size_t *end)
{
    size_t scheme = !strncasecmp(url, "http://", 7)    ? 7
                    : !strncasecmp(url, "https://", 8) ? 8
                                                       : 0;
    if (!scheme)
        return 0;
    const char *query = strchr(url + scheme, '?');
    size_t base = query ? (size_t)(query - url) : strlen(url);
    while (base > scheme && url[base - 1] == '/')
        base--;
    const char *slash = memchr(url + scheme, '/', base - scheme);
    *path = slash ? (size_t)(slash - url) : base;
    *end = base;
    return scheme;
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
    size_t n = strlen(suffix);
    return len >= n && !strncmp(s + len - n, suffix, n);
}

kbv_api kbv_api_for_endpoint(const char *endpoint)
{
    size_t path, end, host = endpoint ? url_parts(endpoint, &path, &end) : 0;
    if (!host)
        return KBV_API_OPENAI;
    static const char anthropic_host[] = "api.anthropic.com";
    size_t host_len = strcspn(endpoint + host, ":/?");
    if (host_len == sizeof anthropic_host - 1 &&
        !strncasecmp(endpoint + host, anthropic_host, host_len))
        return KBV_API_ANTHROPIC;
    return ends_with(endpoint, end, apis[KBV_API_ANTHROPIC].suffix) ? KBV_API_ANTHROPIC
                                                                   : KBV_API_OPENAI;
}

kbv_status kbv_chat_url(kbv_api api, const char *endpoint, char *buf, size_t cap)
{
    if (!endpoint || !*endpoint)
        return kbv_fail(KBV_ERR_INVALID, "no endpoint URL");
    size_t path, base, scheme = url_parts(endpoint, &path, &base);
    if (!scheme)
        return kbv_fail(KBV_ERR_INVALID, "endpoint '%s' is not an http:// or https:// URL",
                        endpoint);
    if (base == scheme)
        return kbv_fail(KBV_ERR_INVALID, "endpoint '%s' has no host", endpoint);
    /* A query (?api-version=...) rides along after the path. */
    const char *query = strchr(endpoint + scheme, '?');
    const char *suffix = apis[api == KBV_API_ANTHROPIC].suffix;
    const char *v1 = "";
    if (ends_with(endpoint, base, suffix))
        suffix = "";
    else if (path == base)
        v1 = "/v1";
    int n = snprintf(buf, cap, "%.*s%s%s%s", (int)base, endpoint, v1, suffix, query ? query : "");
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "endpoint URL longer than %zu bytes", cap);
    return KBV_OK;
}

/* Sets key to value, or fails with "building JSON" (out of memory). */
static kbv_status set_new(json_t *obj, const char *key, json_t *value)
{
    if (!value || json_object_set_new(obj, key, value) != 0)
        return kbv_fail(KBV_ERR_NOMEM, "chat request: building JSON failed");
    return KBV_OK;
}

kbv_status kbv_chat_request_json(const kbv_chat_request *req, char **out)
{
    if (!req || !req->model || !req->prompt || !out)
        return kbv_fail(KBV_ERR_INVALID, "chat request: model and prompt needed");
    *out = NULL;
    bool anthropic = req->api == KBV_API_ANTHROPIC;
    if (anthropic && req->max_tokens <= 0)
        return kbv_fail(KBV_ERR_INVALID, "Anthropic's Messages API needs max_tokens > 0");
    bool system = req->system && *req->system;
    kbv_status st = KBV_OK;
    json_t *root = json_object(), *messages = json_array();
    if (!root || !messages)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: building JSON failed");
    KBV_TRY_GOTO(set_new(root, "model", json_string(req->model)), st, done);
    /* Anthropic takes the system prompt beside the messages, OpenAI as the
     * first message */
    if (system && anthropic)
        KBV_TRY_GOTO(set_new(root, "system", json_string(req->system)), st, done);
    if (system && !anthropic &&
        json_array_append_new(messages, json_pack("{s:s, s:s}", "role", "system", "content",
                                                  req->system)) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: building JSON failed");
    if (json_array_append_new(messages, json_pack("{s:s, s:s}", "role", "user", "content",
                                                  req->prompt)) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: building JSON failed");
    KBV_TRY_GOTO(set_new(root, "messages", json_incref(messages)), st, done);
    if (req->temperature >= 0)
        KBV_TRY_GOTO(set_new(root, "temperature", json_real(req->temperature)), st, done);
    if (req->max_tokens > 0) {
        const char *field = !anthropic && req->max_tokens_field ? req->max_tokens_field
                                                                 : "max_tokens";
        KBV_TRY_GOTO(set_new(root, field, json_integer(req->max_tokens)), st, done);
    }
    *out = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    if (!*out)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "chat request: serialising JSON failed");
done:
    json_decref(root);
    json_decref(messages);
    return st;
}

/* The text of an array of parts: OpenAI's content parts, Anthropic's
 * content blocks. Parts without "text" (Anthropic's thinking blocks, images,
 * tool calls) are not the answer. NULL when no part has text. */
static kbv_status join_text_parts(json_t *parts, char **out)
{
    *out = NULL;
    size_t total = 1, i, n_text = 0;
    json_t *part;
    json_array_foreach(parts, i, part) {
        const char *t = json_string_value(json_object_get(part, "text"));
        total += t ? strlen(t) : 0;
        n_text += t != NULL;
    }
    if (!n_text)
        return KBV_OK;
    char *joined = malloc(total);
    if (!joined)
        return kbv_fail(KBV_ERR_NOMEM, "chat answer: copying content");
    size_t len = 0;
    json_array_foreach(parts, i, part) {
        const char *t = json_string_value(json_object_get(part, "text"));
        if (t) {
            size_t n = strlen(t);
            memcpy(joined + len, t, n);
            len += n;
        }
    }
    joined[len] = '\0';
    *out = joined;
    return KBV_OK;
}

/* OpenAI's message.content: a string, null, or (some servers) an array of parts. */
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
    return join_text_parts(content, out);
}

static long long usage_count(json_t *usage, const char *key)
{
    json_t *v = json_object_get(usage, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (long long)json_integer_value(v) : 0;
}

/* choices[0].message.content and finish_reason; usage in prompt_tokens and
 * completion_tokens. */
static kbv_status parse_openai(json_t *root, kbv_chat_answer *out)
{
    json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
    json_t *message = json_object_get(choice, "message");
    if (!json_is_object(message))
        return kbv_fail(KBV_ERR_PARSE, "malformed answer: no choices[0].message");
    KBV_TRY(copy_content(json_object_get(message, "content"), &out->content));
    const char *finish = json_string_value(json_object_get(choice, "finish_reason"));
    snprintf(out->finish_reason, sizeof out->finish_reason, "%s", finish ? finish : "");
    out->truncated = !strcmp(out->finish_reason, "length");
    out->prompt_tokens = usage_count(out->usage, "prompt_tokens");
    out->completion_tokens = usage_count(out->usage, "completion_tokens");
    return KBV_OK;
}

/* A Messages API message: content[] blocks and stop_reason; usage in
 * input_tokens and output_tokens. */
static kbv_status parse_anthropic(json_t *root, kbv_chat_answer *out)
{
    json_t *content = json_object_get(root, "content");
    if (!json_is_array(content))
        return kbv_fail(KBV_ERR_PARSE, "malformed answer: no content[] in the message");
    KBV_TRY(join_text_parts(content, &out->content));
    const char *stop = json_string_value(json_object_get(root, "stop_reason"));
    snprintf(out->finish_reason, sizeof out->finish_reason, "%s", stop ? stop : "");
    out->truncated = !strcmp(out->finish_reason, "max_tokens");
    out->prompt_tokens = usage_count(out->usage, "input_tokens");
    out->completion_tokens = usage_count(out->usage, "output_tokens");
    return KBV_OK;
}

kbv_status kbv_chat_parse_answer(kbv_api api, const char *body, size_t len,
                                 kbv_chat_answer *out)
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
    const char *type = json_string_value(json_object_get(root, "type"));
    if ((error && !json_is_null(error)) || (type && !strcmp(type, "error"))) {
        char msg[256];
        kbv_chat_error_summary(body, msg, sizeof msg);
        KBV_FAIL_GOTO(st, fail, KBV_ERR_PARSE, "API error in a 2xx answer: %s", msg);
    }
    out->usage = json_object_get(root, "usage");
    if (!json_is_object(out->usage))
        out->usage = NULL;
    if (api == KBV_API_ANTHROPIC)
        KBV_TRY_GOTO(parse_anthropic(root, out), st, fail);
    else
        KBV_TRY_GOTO(parse_openai(root, out), st, fail);
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
