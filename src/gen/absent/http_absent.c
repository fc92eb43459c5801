/* Built only without libcurl: kbv generate says so instead of posting. */
#include "gen/http.h"

kbv_status kbv_http_global_init(void)
{
    return kbv_fail(KBV_ERR_UNSUPPORTED,
                    "this kbv was built without libcurl: kbv generate is unavailable "
                    "(install libcurl4-openssl-dev and rebuild)");
}

void kbv_http_global_cleanup(void) {}

kbv_status kbv_http_post_json(const kbv_http_request *req, kbv_http_response *resp)
{
    (void)req;
    (void)resp;
    return kbv_fail(KBV_ERR_UNSUPPORTED, "this kbv was built without libcurl");
}

void kbv_http_response_free(kbv_http_response *resp) { (void)resp; }
