/* Built only without libcurl: kbv generate says so instead of posting. */
#include "gen/http.h"

kbv_status kbv_http_global_init(void)
{
    return kbv_fail(KBV_ERR_UNSUPPORTED,
                    "this kbv was built without libcurl: kbv generate is unavailable "
                    "(install libcurl4-openssl-dev and rebuild)");
}

void kbv_http_global_cleanup(void) {}

kbv_status kbv_http_post_json(const char *url, const char *bearer_token, const char *body,
                              double timeout_s, kbv_http_response *resp)
{
    (void)url;
    (void)bearer_token;
    (void)body;
    (void)timeout_s;
    (void)resp;
    return kbv_fail(KBV_ERR_UNSUPPORTED, "this kbv was built without libcurl");
}

void kbv_http_response_free(kbv_http_response *resp) { (void)resp; }
