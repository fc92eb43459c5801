/* JSON POST through libcurl (see http.h). */
#include "gen/http.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "kbv_build_config.h"

typedef struct sink {
    char *data;
    size_t len, cap;
    int overflow;
} sink;

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    sink *s = userdata;
    size_t n = size * nmemb;
    if (s->len + n > KBV_HTTP_MAX_BODY) {
        s->overflow = 1;
        return 0;  /* makes curl stop with CURLE_WRITE_ERROR */
    }
    if (s->len + n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 16384;
        while (cap < s->len + n + 1)
            cap *= 2;
        char *grown = realloc(s->data, cap);
        if (!grown)
            return 0;
        s->data = grown;
        s->cap = cap;
    }
    memcpy(s->data + s->len, ptr, n);
    s->len += n;
    s->data[s->len] = '\0';
    return n;
}

/* Retry-After is either delay-seconds or an HTTP date. */
static size_t on_header(char *line, size_t size, size_t nmemb, void *userdata)
{
    double *retry_after = userdata;
    size_t n = size * nmemb;
    static const char name[] = "retry-after:";
    if (n > sizeof name - 1 && n < 256 && !strncasecmp(line, name, sizeof name - 1)) {
        char value[256];
        memcpy(value, line + sizeof name - 1, n - (sizeof name - 1));
        value[n - (sizeof name - 1)] = '\0';
        char *end;
        double secs = strtod(value, &end);
        while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
            end++;
        if (end != value && *end == '\0' && secs >= 0) {
            *retry_after = secs;
        } else {
            time_t when = curl_getdate(value, NULL);
            if (when != (time_t)-1) {
                double d = difftime(when, time(NULL));
                *retry_after = d > 0 ? d : 0;
            }
        }
    }
    return n;
}

kbv_status kbv_http_global_init(void)
{
    CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
    if (rc != CURLE_OK)
        return kbv_fail(KBV_ERR_IO, "libcurl initialisation failed: %s", curl_easy_strerror(rc));
    return KBV_OK;
}

void kbv_http_global_cleanup(void)
{
    curl_global_cleanup();
}

/* Appends one header line; out of memory is the only failure. */
static kbv_status add_header(struct curl_slist **headers, const char *line)
{
    struct curl_slist *more = curl_slist_append(*headers, line);
    if (!more)
        return kbv_fail(KBV_ERR_NOMEM, "http: out of memory for headers");
    *headers = more;
    return KBV_OK;
}

kbv_status kbv_http_post_json(const kbv_http_request *req, kbv_http_response *resp)
{
    if (!req || !req->url || !req->body || !resp || !(req->timeout_s > 0))
        return kbv_fail(KBV_ERR_INVALID, "http: url, body, response and a positive timeout needed");
    memset(resp, 0, sizeof *resp);
    resp->retry_after_s = -1;

    kbv_status st = KBV_OK;
    sink got = {0};
    struct curl_slist *headers = NULL;
    char *auth = NULL;
    CURL *curl = curl_easy_init();
    if (!curl)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "http: curl_easy_init failed");

    static const char *const fixed_headers[] = {
        "Content-Type: application/json", "Accept: application/json",
        "Expect:",  /* no 100-continue round trip on large prompts */
    };
    for (size_t i = 0; i < sizeof fixed_headers / sizeof fixed_headers[0]; i++)
        KBV_TRY_GOTO(add_header(&headers, fixed_headers[i]), st, done);
    for (size_t i = 0; req->headers && req->headers[i]; i++)
        KBV_TRY_GOTO(add_header(&headers, req->headers[i]), st, done);
    if (req->key && *req->key) {
        if (asprintf(&auth, "%s%s", req->key_header ? req->key_header : "Authorization: Bearer ",
                     req->key) < 0) {
            auth = NULL;
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "http: out of memory for headers");
        }
        KBV_TRY_GOTO(add_header(&headers, auth), st, done);
    }

    double timeout_s = req->timeout_s;
    long timeout_ms = (long)(timeout_s * 1000.0);
    long connect_ms = timeout_ms < 30000 ? timeout_ms : 30000;
    curl_easy_setopt(curl, CURLOPT_URL, req->url);
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, req->body);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(req->body));
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "kbv/" KBV_VERSION);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  /* threads: no SIGALRM for DNS timeouts */
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, connect_ms);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, &got);
    curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, CURLOPT_HEADERDATA, &resp->retry_after_s);
#if LIBCURL_VERSION_NUM >= 0x075500
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
#else
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif

    CURLcode rc = curl_easy_perform(curl);
    if (rc == CURLE_OPERATION_TIMEDOUT)
        KBV_FAIL_GOTO(st, done, KBV_ERR_TIMEOUT, "no complete response within %.0f s", timeout_s);
    if (rc == CURLE_WRITE_ERROR && got.overflow)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "response body larger than %zu bytes",
                      (size_t)KBV_HTTP_MAX_BODY);
    if (rc != CURLE_OK)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "transport error: %s", curl_easy_strerror(rc));

    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp->status);
    if (!got.data && !(got.data = calloc(1, 1)))
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "http: out of memory");
    resp->body = got.data;
    resp->body_len = got.len;
    got.data = NULL;

done:
    /* the key should not linger in freed heap memory */
    if (auth) {
        explicit_bzero(auth, strlen(auth));
        free(auth);
    }
    for (struct curl_slist *h = headers; h; h = h->next)
        explicit_bzero(h->data, strlen(h->data));
    curl_slist_free_all(headers);
    if (curl)
        curl_easy_cleanup(curl);
    free(got.data);
    return st;
}

void kbv_http_response_free(kbv_http_response *resp)
{
    if (!resp)
        return;
    free(resp->body);
    resp->body = NULL;
    resp->body_len = 0;
}
