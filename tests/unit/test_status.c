/* The status relay: the trace, the message kept alone, which codes are
 * internal, and what a user is shown with and without debug mode; and where
 * kbv finds its own files (core/paths.h). */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/paths.h"
#include "core/status.h"

static int reset(void **state)
{
    (void)state;
    kbv_clear_error();
    kbv_set_debug(false);
    return 0;
}

static kbv_status open_results(void)
{
    return kbv_fail(KBV_ERR_IO, "cannot open %s: %s", "/nonexistent/r.jsonl",
                    "No such file or directory");
}

static kbv_status run_command(void)
{
    KBV_TRY(open_results());
    return KBV_OK;
}

static void test_message_kept_beside_the_trace(void **state)
{
    (void)state;
    assert_int_equal(run_command(), KBV_ERR_IO);
    assert_int_equal(kbv_last_status(), KBV_ERR_IO);
    assert_string_equal(kbv_last_message(),
                        "cannot open /nonexistent/r.jsonl: No such file or directory");
    const char *trace = kbv_last_error();
    assert_non_null(strstr(trace, "test_status.c:"));
    assert_non_null(strstr(trace, ": I/O error: cannot open /nonexistent/r.jsonl"));
    const char *relay = strstr(trace, "\n  <- ");
    assert_non_null(relay);
    assert_non_null(strstr(relay, "test_status.c:"));
    kbv_clear_error();
    assert_string_equal(kbv_last_error(), "");
    assert_string_equal(kbv_last_message(), "");
    assert_int_equal(kbv_last_status(), KBV_OK);
}

static void test_user_errors_show_the_message(void **state)
{
    (void)state;
    assert_int_equal(run_command(), KBV_ERR_IO);
    assert_string_equal(kbv_error_text(),
                        "cannot open /nonexistent/r.jsonl: No such file or directory");
    kbv_set_debug(true);
    assert_ptr_equal(kbv_error_text(), kbv_last_error());
    kbv_set_debug(false);
    assert_ptr_equal(kbv_error_text(), kbv_last_message());
}

static void test_internal_errors_show_the_trace(void **state)
{
    (void)state;
    static const kbv_status internal[] = {KBV_ERR_NOMEM, KBV_ERR_CUDA, KBV_ERR_CHILD,
                                          KBV_ERR_INTERNAL};
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++) {
        assert_true(kbv_status_is_internal(internal[i]));
        kbv_fail(internal[i], "something broke");
        assert_ptr_equal(kbv_error_text(), kbv_last_error());
        assert_non_null(strstr(kbv_error_text(), "test_status.c:"));
        kbv_clear_error();
    }
    static const kbv_status user[] = {KBV_ERR_INVALID, KBV_ERR_NOT_FOUND, KBV_ERR_IO,
                                      KBV_ERR_UNSUPPORTED, KBV_ERR_COMPILE, KBV_ERR_TIMEOUT,
                                      KBV_ERR_PARSE};
    for (size_t i = 0; i < sizeof user / sizeof user[0]; i++)
        assert_false(kbv_status_is_internal(user[i]));
    assert_true(kbv_status_is_internal(KBV_STATUS_COUNT));
    assert_string_equal(kbv_status_name(KBV_ERR_INTERNAL), "internal error");
}

static void test_relay_without_a_failure(void **state)
{
    (void)state;
    /* a code returned without kbv_fail: a bug, so the trace says where */
    assert_int_equal(kbv_relay_at("src/x.c", 7, KBV_ERR_IO), KBV_ERR_IO);
    assert_string_equal(kbv_last_message(), "");
    assert_string_equal(kbv_error_text(), "src/x.c:7: I/O error: (no message)");
}

static void test_refail_with_own_text(void **state)
{
    (void)state;
    /* re-failing with the current message as an argument keeps it intact */
    kbv_fail(KBV_ERR_PARSE, "bad value '%s'", "x");
    kbv_fail(KBV_ERR_PARSE, "--seeds: %s", kbv_last_message());
    assert_string_equal(kbv_last_message(), "--seeds: bad value 'x'");
    kbv_fail(KBV_ERR_PARSE, "%s", kbv_last_error());
    assert_non_null(strstr(kbv_last_message(), "parse error: --seeds: bad value 'x'"));
}

static void test_paths_follow_the_program(void **state)
{
    (void)state;
    /* this test runs in the build tree: its share directory and runner */
    char exe[PATH_MAX], buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    assert_true(n > 0);
    exe[n] = '\0';
    *strrchr(exe, '/') = '\0';
    assert_string_equal(kbv_program_dir(), exe);
    assert_non_null(strstr(kbv_share_dir(), "/share/kbv"));
    unsetenv("KBV_PROMPTS_DIR");
    assert_int_equal(kbv_data_path("KBV_PROMPTS_DIR", "prompts", "default.txt", buf, sizeof buf),
                     KBV_OK);
    assert_int_equal(access(buf, R_OK), 0);
    setenv("KBV_PROMPTS_DIR", "/elsewhere", 1);
    assert_int_equal(kbv_data_path("KBV_PROMPTS_DIR", "prompts", "default.txt", buf, sizeof buf),
                     KBV_OK);
    assert_string_equal(buf, "/elsewhere/default.txt");
    unsetenv("KBV_PROMPTS_DIR");
    assert_int_equal(kbv_data_path("KBV_PROMPTS_DIR", "prompts", "default.txt", buf, 8),
                     KBV_ERR_INVALID);
    kbv_clear_error();

    unsetenv("KBV_RUNNER");
    assert_int_equal(kbv_runner_locate(buf, sizeof buf), KBV_OK);
    assert_int_equal(access(buf, X_OK), 0);
    setenv("KBV_RUNNER", "/opt/r", 1);
    assert_int_equal(kbv_runner_locate(buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, "/opt/r");
    unsetenv("KBV_RUNNER");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_message_kept_beside_the_trace, reset),
        cmocka_unit_test_setup(test_user_errors_show_the_message, reset),
        cmocka_unit_test_setup(test_internal_errors_show_the_trace, reset),
        cmocka_unit_test_setup(test_relay_without_a_failure, reset),
        cmocka_unit_test_setup(test_refail_with_own_text, reset),
        cmocka_unit_test_setup(test_paths_follow_the_program, reset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
