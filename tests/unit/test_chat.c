/* Both wire formats and retry timing: endpoint URLs with and without /v1
 * (chat completions and Anthropic's /v1/messages), the API an endpoint
 * implies, request bodies (system prompt, temperature, token limit),
 * answers (text, parts, content blocks with thinking, null, malformed, API
 * errors in a 2xx, truncation), error summaries, and backoff with
 * Retry-After. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/chat.h"
#include "gen/generate.h"

static void check_url_api(kbv_api api, const char *endpoint, const char *want)
{
    char buf[256];
    assert_int_equal(kbv_chat_url(api, endpoint, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, want);
}

static void check_url(const char *endpoint, const char *want)
{
    check_url_api(KBV_API_OPENAI, endpoint, want);
}

static void test_urls(void **state)
{
    (void)state;
    check_url("http://127.0.0.1:8000", "http://127.0.0.1:8000/v1/chat/completions");
    check_url("http://127.0.0.1:8000/", "http://127.0.0.1:8000/v1/chat/completions");
    check_url("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1/chat/completions");
    check_url("https://api.example.com/v1/", "https://api.example.com/v1/chat/completions");
    check_url("https://example.com/v1beta/openai",
              "https://example.com/v1beta/openai/chat/completions");
    check_url("https://example.com/v1/chat/completions", "https://example.com/v1/chat/completions");
    check_url("https://x.example.com/openai/deployments/m/chat/completions?api-version=1",
              "https://x.example.com/openai/deployments/m/chat/completions?api-version=1");
    check_url("https://example.com/api?v=2", "https://example.com/api/chat/completions?v=2");

    char buf[256];
    assert_int_equal(kbv_chat_url(KBV_API_OPENAI, "ftp://example.com", buf, sizeof buf),
                     KBV_ERR_INVALID);
    assert_int_equal(kbv_chat_url(KBV_API_OPENAI, "example.com/v1", buf, sizeof buf),
                     KBV_ERR_INVALID);
    assert_int_equal(kbv_chat_url(KBV_API_OPENAI, "http://", buf, sizeof buf), KBV_ERR_INVALID);
    assert_int_equal(kbv_chat_url(KBV_API_OPENAI, "http://example.com", buf, 10),
                     KBV_ERR_INVALID);

    /* Anthropic: the same rules with /messages */
    check_url_api(KBV_API_ANTHROPIC, "https://api.anthropic.com",
                  "https://api.anthropic.com/v1/messages");
    check_url_api(KBV_API_ANTHROPIC, "https://api.anthropic.com/v1/",
                  "https://api.anthropic.com/v1/messages");
    check_url_api(KBV_API_ANTHROPIC, "http://127.0.0.1:9/v1/messages",
                  "http://127.0.0.1:9/v1/messages");
    check_url_api(KBV_API_ANTHROPIC, "https://gw.example.com/anthropic?k=1",
                  "https://gw.example.com/anthropic/messages?k=1");
    assert_int_equal(kbv_chat_url(KBV_API_ANTHROPIC, "ftp://x", buf, sizeof buf),
                     KBV_ERR_INVALID);
}

static void test_api_for_endpoint(void **state)
{
    (void)state;
    assert_int_equal(kbv_api_for_endpoint("https://api.anthropic.com"), KBV_API_ANTHROPIC);
    assert_int_equal(kbv_api_for_endpoint("https://API.Anthropic.com:443/v1"), KBV_API_ANTHROPIC);
    assert_int_equal(kbv_api_for_endpoint("http://127.0.0.1:8000/v1/messages/"),
                     KBV_API_ANTHROPIC);
    assert_int_equal(kbv_api_for_endpoint("http://127.0.0.1:8000"), KBV_API_OPENAI);
    assert_int_equal(kbv_api_for_endpoint("https://api.openai.com/v1"), KBV_API_OPENAI);
    assert_int_equal(kbv_api_for_endpoint("https://api.anthropic.com.example.org/v1"),
                     KBV_API_OPENAI);
    assert_int_equal(kbv_api_for_endpoint("http://h/v1/chat/completions"), KBV_API_OPENAI);
    assert_int_equal(kbv_api_for_endpoint("not a url"), KBV_API_OPENAI);

    kbv_api api = KBV_API_OPENAI;
    assert_int_equal(kbv_api_parse("anthropic", &api), KBV_OK);
    assert_int_equal(api, KBV_API_ANTHROPIC);
    assert_string_equal(kbv_api_name(api), "anthropic");
    assert_int_equal(kbv_api_parse("openai", &api), KBV_OK);
    assert_string_equal(kbv_api_name(api), "openai");
    assert_int_equal(kbv_api_parse("claude", &api), KBV_ERR_INVALID);

    assert_string_equal(kbv_chat_key_header(KBV_API_OPENAI), "Authorization: Bearer ");
    assert_string_equal(kbv_chat_key_header(KBV_API_ANTHROPIC), "x-api-key: ");
    assert_null(kbv_chat_headers(KBV_API_OPENAI)[0]);
    assert_string_equal(kbv_chat_headers(KBV_API_ANTHROPIC)[0],
                        "anthropic-version: " KBV_ANTHROPIC_VERSION);
    assert_null(kbv_chat_headers(KBV_API_ANTHROPIC)[1]);
}

static void test_request_json(void **state)
{
    (void)state;
    kbv_chat_request req = {.model = "m-1", .prompt = "say \"hi\"\n", .temperature = 0.5,
                            .max_tokens = 100, .max_tokens_field = "max_completion_tokens"};
    char *body = NULL;
    assert_int_equal(kbv_chat_request_json(&req, &body), KBV_OK);
    json_t *root = json_loads(body, 0, NULL);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "model")), "m-1");
    json_t *msg = json_array_get(json_object_get(root, "messages"), 0);
    assert_string_equal(json_string_value(json_object_get(msg, "role")), "user");
    assert_string_equal(json_string_value(json_object_get(msg, "content")), "say \"hi\"\n");
    assert_int_equal(json_array_size(json_object_get(root, "messages")), 1);
    assert_true(json_real_value(json_object_get(root, "temperature")) == 0.5);
    assert_int_equal(json_integer_value(json_object_get(root, "max_completion_tokens")), 100);
    assert_null(json_object_get(root, "max_tokens"));
    json_decref(root);
    free(body);

    /* a system prompt is the first message */
    req.system = "You are a helpful assistant";
    assert_int_equal(kbv_chat_request_json(&req, &body), KBV_OK);
    root = json_loads(body, 0, NULL);
    json_t *messages = json_object_get(root, "messages");
    assert_int_equal(json_array_size(messages), 2);
    msg = json_array_get(messages, 0);
    assert_string_equal(json_string_value(json_object_get(msg, "role")), "system");
    assert_string_equal(json_string_value(json_object_get(msg, "content")),
                        "You are a helpful assistant");
    msg = json_array_get(messages, 1);
    assert_string_equal(json_string_value(json_object_get(msg, "role")), "user");
    assert_null(json_object_get(root, "system"));
    json_decref(root);
    free(body);
    req.system = "";

    /* negative temperature and zero max tokens are left to the server */
    req.temperature = -1;
    req.max_tokens = 0;
    assert_int_equal(kbv_chat_request_json(&req, &body), KBV_OK);
    root = json_loads(body, 0, NULL);
    assert_null(json_object_get(root, "temperature"));
    assert_null(json_object_get(root, "max_completion_tokens"));
    assert_int_equal(json_array_size(json_object_get(root, "messages")), 1);
    json_decref(root);
    free(body);
}

static void test_request_json_anthropic(void **state)
{
    (void)state;
    kbv_chat_request req = {.api = KBV_API_ANTHROPIC, .model = "claude-x", .prompt = "write it",
                            .system = "You are a helpful assistant", .temperature = 0.8,
                            .max_tokens = 32000, .max_tokens_field = "max_completion_tokens"};
    char *body = NULL;
    assert_int_equal(kbv_chat_request_json(&req, &body), KBV_OK);
    json_t *root = json_loads(body, 0, NULL);
    assert_non_null(root);
    assert_string_equal(json_string_value(json_object_get(root, "model")), "claude-x");
    /* the system prompt beside the messages; the field is always max_tokens */
    assert_string_equal(json_string_value(json_object_get(root, "system")),
                        "You are a helpful assistant");
    json_t *messages = json_object_get(root, "messages");
    assert_int_equal(json_array_size(messages), 1);
    json_t *msg = json_array_get(messages, 0);
    assert_string_equal(json_string_value(json_object_get(msg, "role")), "user");
    assert_string_equal(json_string_value(json_object_get(msg, "content")), "write it");
    assert_true(json_real_value(json_object_get(root, "temperature")) == 0.8);
    assert_int_equal(json_integer_value(json_object_get(root, "max_tokens")), 32000);
    assert_null(json_object_get(root, "max_completion_tokens"));
    json_decref(root);
    free(body);

    req.system = NULL;
    req.temperature = -1;
    assert_int_equal(kbv_chat_request_json(&req, &body), KBV_OK);
    root = json_loads(body, 0, NULL);
    assert_null(json_object_get(root, "system"));
    assert_null(json_object_get(root, "temperature"));
    json_decref(root);
    free(body);

    /* the Messages API requires max_tokens */
    req.max_tokens = 0;
    assert_int_equal(kbv_chat_request_json(&req, &body), KBV_ERR_INVALID);
    assert_null(body);
}

static void test_parse_anthropic(void **state)
{
    (void)state;
    const char *body =
        "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\","
        "\"content\":[{\"type\":\"thinking\",\"thinking\":\"```cuda\\nnot this\\n```\","
        "\"signature\":\"s\"},{\"type\":\"text\",\"text\":\"Here:\\n\"},"
        "{\"type\":\"redacted_thinking\",\"data\":\"x\"},{\"type\":\"text\",\"text\":\"done\"}],"
        "\"stop_reason\":\"end_turn\",\"usage\":{\"input_tokens\":12,\"output_tokens\":34}}";
    kbv_chat_answer a;
    assert_int_equal(kbv_chat_parse_answer(KBV_API_ANTHROPIC, body, strlen(body), &a), KBV_OK);
    assert_string_equal(a.content, "Here:\ndone");
    assert_string_equal(a.finish_reason, "end_turn");
    assert_false(a.truncated);
    assert_int_equal(a.prompt_tokens, 12);
    assert_int_equal(a.completion_tokens, 34);
    assert_string_equal(json_string_value(json_object_get(a.response, "id")), "msg_1");
    kbv_chat_answer_free(&a);

    const char *cut = "{\"type\":\"message\",\"content\":[{\"type\":\"text\",\"text\":\"```c\"}],"
                      "\"stop_reason\":\"max_tokens\"}";
    assert_int_equal(kbv_chat_parse_answer(KBV_API_ANTHROPIC, cut, strlen(cut), &a), KBV_OK);
    assert_true(a.truncated);
    assert_string_equal(a.finish_reason, "max_tokens");
    assert_null(a.usage);
    kbv_chat_answer_free(&a);

    /* thinking only: no text, not malformed */
    const char *no_text = "{\"type\":\"message\",\"content\":[{\"type\":\"thinking\","
                          "\"thinking\":\"hm\"}],\"stop_reason\":\"end_turn\"}";
    assert_int_equal(kbv_chat_parse_answer(KBV_API_ANTHROPIC, no_text, strlen(no_text), &a),
                     KBV_OK);
    assert_null(a.content);
    kbv_chat_answer_free(&a);

    const char *bad[] = {
        "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
        "{\"type\":\"message\",\"content\":\"text, not blocks\"}",
        "{\"choices\":[{\"message\":{\"content\":\"an OpenAI answer\"}}]}",
        "{\"content\": [",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(kbv_chat_parse_answer(KBV_API_ANTHROPIC, bad[i], strlen(bad[i]), &a),
                         KBV_ERR_PARSE);
        assert_null(a.response);
        assert_null(a.content);
    }
    assert_int_equal(kbv_chat_parse_answer(KBV_API_ANTHROPIC, bad[0], strlen(bad[0]), &a),
                     KBV_ERR_PARSE);
    assert_non_null(strstr(kbv_last_error(), "Overloaded"));
}

static void test_parse_answer(void **state)
{
    (void)state;
    const char *body =
        "{\"id\":\"x\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
        "\"content\":\"hello\"},\"finish_reason\":\"stop\"}],"
        "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":34,\"total_tokens\":46}}";
    kbv_chat_answer a;
    assert_int_equal(kbv_chat_parse_answer(KBV_API_OPENAI, body, strlen(body), &a), KBV_OK);
    assert_string_equal(a.content, "hello");
    assert_string_equal(a.finish_reason, "stop");
    assert_false(a.truncated);
    assert_int_equal(a.prompt_tokens, 12);
    assert_int_equal(a.completion_tokens, 34);
    assert_non_null(a.usage);
    assert_string_equal(json_string_value(json_object_get(a.response, "id")), "x");
    kbv_chat_answer_free(&a);
    assert_null(a.content);

    const char *parts = "{\"choices\":[{\"message\":{\"content\":["
                        "{\"type\":\"text\",\"text\":\"a\"},{\"type\":\"text\",\"text\":\"b\"}]},"
                        "\"finish_reason\":\"length\"}]}";
    assert_int_equal(kbv_chat_parse_answer(KBV_API_OPENAI, parts, strlen(parts), &a), KBV_OK);
    assert_string_equal(a.content, "ab");
    assert_string_equal(a.finish_reason, "length");
    assert_true(a.truncated);
    assert_null(a.usage);
    assert_int_equal(a.prompt_tokens, 0);
    kbv_chat_answer_free(&a);

    const char *null_content = "{\"choices\":[{\"message\":{\"content\":null},"
                               "\"finish_reason\":\"content_filter\"}]}";
    assert_int_equal(kbv_chat_parse_answer(KBV_API_OPENAI, null_content, strlen(null_content), &a), KBV_OK);
    assert_null(a.content);
    assert_string_equal(a.finish_reason, "content_filter");
    kbv_chat_answer_free(&a);
}

static void test_parse_malformed(void **state)
{
    (void)state;
    const char *bad[] = {
        "{\"choices\": [",
        "<html>502 Bad Gateway</html>",
        "[]",
        "{\"choices\": []}",
        "{\"error\": {\"message\": \"overloaded\"}}",
        "{\"choices\":[{\"message\":{\"content\":7}}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kbv_chat_answer a;
        assert_int_equal(kbv_chat_parse_answer(KBV_API_OPENAI, bad[i], strlen(bad[i]), &a), KBV_ERR_PARSE);
        assert_null(a.response);
        assert_null(a.content);
    }
    kbv_chat_answer a;
    const char *err = "{\"error\": {\"message\": \"overloaded\"}}";
    assert_int_equal(kbv_chat_parse_answer(KBV_API_OPENAI, err, strlen(err), &a), KBV_ERR_PARSE);
    assert_non_null(strstr(kbv_last_error(), "overloaded"));
}

static void test_error_summary(void **state)
{
    (void)state;
    char buf[64];
    kbv_chat_error_summary("{\"error\":{\"message\":\"Rate limit\\nreached\",\"type\":\"x\"}}", buf,
                           sizeof buf);
    assert_string_equal(buf, "Rate limit reached");
    kbv_chat_error_summary("{\"detail\":\"Not Found\"}", buf, sizeof buf);
    assert_string_equal(buf, "Not Found");
    kbv_chat_error_summary("{\"error\":\"bad key\"}", buf, sizeof buf);
    assert_string_equal(buf, "bad key");
    kbv_chat_error_summary("{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\","
                           "\"message\":\"Number of requests exceeded\"}}", buf, sizeof buf);
    assert_string_equal(buf, "Number of requests exceeded");
    kbv_chat_error_summary("upstream\r\ntimeout", buf, sizeof buf);
    assert_string_equal(buf, "upstream  timeout");
    char small[8];
    kbv_chat_error_summary("0123456789abcdef", small, sizeof small);
    assert_string_equal(small, "0123456");
}

static void test_backoff(void **state)
{
    (void)state;
    /* doubles per attempt; jitter scales by 0.5 .. 1 */
    assert_true(kbv_gen_backoff_delay(1.0, 0, -1, 1.0) == 1.0);
    assert_true(kbv_gen_backoff_delay(1.0, 0, -1, 0.0) == 0.5);
    assert_true(kbv_gen_backoff_delay(1.0, 3, -1, 1.0) == 8.0);
    assert_true(kbv_gen_backoff_delay(2.0, 2, -1, 0.5) == 6.0);
    /* capped */
    assert_true(kbv_gen_backoff_delay(1.0, 40, -1, 1.0) == KBV_GEN_MAX_BACKOFF_S);
    /* Retry-After is a floor, itself capped */
    assert_true(kbv_gen_backoff_delay(1.0, 0, 30.0, 1.0) == 30.0);
    assert_true(kbv_gen_backoff_delay(1.0, 5, 3.0, 1.0) == 32.0);
    assert_true(kbv_gen_backoff_delay(1.0, 0, 1e6, 1.0) == KBV_GEN_MAX_RETRY_AFTER_S);
    assert_true(kbv_gen_backoff_delay(0.0, 0, -1, 1.0) == 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_urls),
        cmocka_unit_test(test_api_for_endpoint),
        cmocka_unit_test(test_request_json),
        cmocka_unit_test(test_request_json_anthropic),
        cmocka_unit_test(test_parse_anthropic),
        cmocka_unit_test(test_parse_answer),
        cmocka_unit_test(test_parse_malformed),
        cmocka_unit_test(test_error_summary),
        cmocka_unit_test(test_backoff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
