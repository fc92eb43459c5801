/* One JSON POST over HTTP(S), through libcurl, with a deadline.
 *
 * Thread-safe once kbv_http_global_init has run (before any thread starts):
 * each call uses its own easy handle and never raises signals. The API key
 * goes into its one header only; it is never part of an error message, and
 * the header buffers that held it are wiped after the request. */
#ifndef KBV_GEN_HTTP_H
#define KBV_GEN_HTTP_H

#include <stddef.h>

#include "core/status.h"

/* Bodies larger than this are refused: no chat answer comes near it. */
#define KBV_HTTP_MAX_BODY ((size_t)64 << 20)

typedef struct kbv_http_response {
    long status;            /* HTTP status code */
    char *body;             /* NUL-terminated, malloc'd */
    size_t body_len;
    double retry_after_s;   /* the Retry-After header in seconds; -1 when absent */
} kbv_http_response;

kbv_status kbv_http_global_init(void);
void kbv_http_global_cleanup(void);

typedef struct kbv_http_request {
    const char *url;
    const char *body;               /* JSON */
    const char *const *headers;     /* more "Name: value" lines, NULL-terminated; NULL: none */
    const char *key_header;         /* the key's header up to the key: "Authorization: Bearer " */
    const char *key;                /* NULL or "": no key header */
    double timeout_s;               /* connect to last byte */
} kbv_http_request;

/* POSTs req->body. KBV_OK when a response arrived, whatever its status;
 * KBV_ERR_TIMEOUT when the timeout passed first; KBV_ERR_IO for a transport
 * failure (refused, reset, DNS, TLS, oversized body). */
kbv_status kbv_http_post_json(const kbv_http_request *req, kbv_http_response *resp);
void kbv_http_response_free(kbv_http_response *resp);

#endif
