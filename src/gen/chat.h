/* The OpenAI-compatible chat-completions wire format: the endpoint URL, the
 * request body, and the parts of a response kbv uses. */
#ifndef KBV_GEN_CHAT_H
#define KBV_GEN_CHAT_H

#include <jansson.h>
#include <stddef.h>

#include "core/status.h"

/* The URL requests go to, from what the user gave (docs/GENERATE.md):
 *   ends in /chat/completions        used as it is
 *   no path (http://host:port)       + /v1/chat/completions
 *   any other path (.../v1, .../api) + /chat/completions
 * Trailing slashes are dropped first; only http:// and https:// pass. */
kbv_status kbv_chat_url(const char *endpoint, char *buf, size_t cap);

typedef struct kbv_chat_request {
    const char *model;
    const char *prompt;             /* the one user message */
    double temperature;             /* < 0: not sent (the server's default) */
    long max_tokens;                /* 0: not sent */
    const char *max_tokens_field;   /* "max_tokens" (or "max_completion_tokens") */
} kbv_chat_request;

/* The request body as compact JSON (malloc'd). */
kbv_status kbv_chat_request_json(const kbv_chat_request *req, char **out);

typedef struct kbv_chat_answer {
    json_t *response;               /* the whole response object (owned) */
    char *content;                  /* choices[0].message.content (malloc'd); NULL when null */
    char finish_reason[32];         /* "" when absent */
    json_t *usage;                  /* borrowed from response; NULL when absent */
    long long prompt_tokens, completion_tokens;   /* 0 when absent */
} kbv_chat_answer;

/* Parses a 2xx body. KBV_ERR_PARSE when it is not a chat completion
 * (malformed JSON, an "error" object, no choices): the message says which. */
kbv_status kbv_chat_parse_answer(const char *body, size_t len, kbv_chat_answer *out);
void kbv_chat_answer_free(kbv_chat_answer *a);

/* A one-line description of an error body ({"error": {"message": ...}} or
 * the first bytes of the text), for progress lines. */
void kbv_chat_error_summary(const char *body, char *buf, size_t cap);

#endif
