/* The two wire formats kbv generate speaks: OpenAI-compatible chat
 * completions (POST .../chat/completions, a bearer token) and Anthropic's
 * Messages API (POST .../v1/messages, x-api-key and anthropic-version).
 * Each gives the endpoint URL, the request body, the headers and the parts
 * of an answer kbv uses. */
#ifndef KBV_GEN_CHAT_H
#define KBV_GEN_CHAT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef enum kbv_api { KBV_API_OPENAI = 0, KBV_API_ANTHROPIC = 1 } kbv_api;

/* The version of the Messages API kbv speaks (the anthropic-version header). */
#define KBV_ANTHROPIC_VERSION "2023-06-01"

const char *kbv_api_name(kbv_api api);               /* "openai", "anthropic" */
kbv_status kbv_api_parse(const char *name, kbv_api *out);

/* The API an endpoint implies when --api is not given: Anthropic's for the
 * host api.anthropic.com or a path ending in /messages, OpenAI's otherwise. */
kbv_api kbv_api_for_endpoint(const char *endpoint);

/* The URL requests go to, from what the user gave (docs/GENERATE.md), with
 * S the API's suffix (/chat/completions or /messages):
 *   ends in S                        used as it is
 *   no path (http://host:port)       + /v1 + S
 *   any other path (.../v1, .../api) + S
 * Trailing slashes are dropped first; only http:// and https:// pass. */
kbv_status kbv_chat_url(kbv_api api, const char *endpoint, char *buf, size_t cap);

/* The header the key goes in, up to the key ("Authorization: Bearer " or
 * "x-api-key: "), and the API's other headers (NULL-terminated). */
const char *kbv_chat_key_header(kbv_api api);
const char *const *kbv_chat_headers(kbv_api api);

typedef struct kbv_chat_request {
    kbv_api api;
    const char *model;
    const char *system;             /* NULL or "": none */
    const char *prompt;             /* the one user message */
    double temperature;             /* < 0: not sent (the server's default) */
    long max_tokens;                /* 0: not sent (OpenAI only: Anthropic's API requires it) */
    const char *max_tokens_field;   /* OpenAI: "max_tokens" (or "max_completion_tokens") */
} kbv_chat_request;

/* The request body as compact JSON (malloc'd). */
kbv_status kbv_chat_request_json(const kbv_chat_request *req, char **out);

typedef struct kbv_chat_answer {
    json_t *response;               /* the whole response object (owned) */
    char *content;                  /* the answer's text (malloc'd); NULL when it has none */
    char finish_reason[32];         /* finish_reason or stop_reason as sent; "" when absent */
    bool truncated;                 /* stopped at the token limit ("length", "max_tokens") */
    json_t *usage;                  /* borrowed from response; NULL when absent */
    long long prompt_tokens, completion_tokens;   /* 0 when absent */
} kbv_chat_answer;

/* Parses a 2xx body. KBV_ERR_PARSE when it is not an answer of the API
 * (malformed JSON, an error object, no choices or content): the message
 * says which. OpenAI: choices[0].message.content, a string or text parts.
 * Anthropic: the "text" blocks of content[], joined (thinking is not the
 * answer). */
kbv_status kbv_chat_parse_answer(kbv_api api, const char *body, size_t len,
                                 kbv_chat_answer *out);
void kbv_chat_answer_free(kbv_chat_answer *a);

/* A one-line description of an error body ({"error": {"message": ...}},
 * either API's, or the first bytes of the text), for progress lines. */
void kbv_chat_error_summary(const char *body, char *buf, size_t cap);

#endif
