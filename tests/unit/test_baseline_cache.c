/* The baseline cache trusts only entries kbv wrote: a forged, edited or
 * unauthenticated line, one written under another key, or one with
 * impossible values is set aside, counted once, and measured again. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "cpu/cpu_backend.h"
#include "eval/baseline.h"

static char root[256];
static kbv_graph relu;          /* L1/19 at small size: what the entries are of */

static int setup(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/kbv_test_baseline_cache_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char path[300];
    snprintf(path, sizeof path, "%s/cache", root);
    setenv("KBV_CACHE_DIR", path, 1);   /* before the first kbv_cache_dir() */
    snprintf(path, sizeof path, "%s/config/secret", root);
    setenv("KBV_SECRET_FILE", path, 1);
    return kbv_graph_build(kbv_problem_find("L1/19"), KBV_SIZE_SMALL, &relu) == KBV_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

static void use_key(const char *name)
{
    char path[300];
    snprintf(path, sizeof path, "%s/config/%s", root, name);
    setenv("KBV_SECRET_FILE", path, 1);
}

static kbv_baseline entry(const char *device, kbv_mode mode, double ms, long long at)
{
    kbv_baseline b;
    memset(&b, 0, sizeof b);
    snprintf(b.problem, sizeof b.problem, "L1/19");
    snprintf(b.size, sizeof b.size, "small");
    snprintf(b.device, sizeof b.device, "%s", device);
    b.mode = mode;
    b.flops = kbv_graph_flops(&relu);
    b.min_bytes = kbv_graph_min_bytes(&relu);
    b.std_mean_ms = ms;
    b.std_sd_ms = ms / 10;
    b.std_n = KBV_BASELINE_STD_RUNS;
    b.strict_median_ms = 2 * ms;
    b.strict_iqr_ms = ms / 5;
    b.strict_n = KBV_BASELINE_STRICT_TRIALS;
    b.peak_bytes = 17408;
    b.measured_at = at;
    return b;
}

static void open_cache(const char *device, kbv_baseline_cache *c)
{
    assert_int_equal(kbv_baseline_cache_open(device, c), KBV_OK);
}

static const kbv_baseline *find(const kbv_baseline_cache *c, kbv_mode mode)
{
    return kbv_baseline_cache_find(c, "L1/19", "small", mode, &relu, true);
}

/* A fresh cache of device holding the given entries, written by kbv. */
static void fill(const char *device, const kbv_baseline *b, int n, kbv_baseline_cache *c)
{
    open_cache(device, c);
    assert_int_equal(c->n, 0);
    for (int i = 0; i < n; i++)
        assert_int_equal(kbv_baseline_cache_put(c, &b[i]), KBV_OK);
    kbv_baseline_cache_close(c);
}

static void append_line(const char *path, const char *line)
{
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fprintf(f, "%s\n", line);
    assert_int_equal(fclose(f), 0);
}

/* Line `lineno` (1-based) of the file, parsed. */
static json_t *line_of(const char *path, int lineno)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char buf[4096];
    json_t *o = NULL;
    for (int i = 1; fgets(buf, sizeof buf, f); i++)
        if (i == lineno)
            o = json_loads(buf, 0, NULL);
    fclose(f);
    assert_non_null(o);
    return o;
}

static void append_json(const char *path, json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT);
    assert_non_null(text);
    append_line(path, text);
    free(text);
}

static void assert_rejections(const kbv_baseline_cache *c, int unverified, int invalid)
{
    char why[1400];
    assert_int_equal(c->unverified, unverified);
    assert_int_equal(c->invalid, invalid);
    bool any = kbv_baseline_cache_rejections(c, why, sizeof why);
    assert_int_equal(any, unverified + invalid > 0);
    if (!any)
        return;
    char count[32];
    snprintf(count, sizeof count, "%d entr", unverified + invalid);
    assert_non_null(strstr(why, count));
    assert_non_null(strstr(why, c->path));
    assert_null(strchr(why, '\n'));
}

static void test_entries_verify_and_reload(void **state)
{
    (void)state;
    kbv_baseline_cache c;
    kbv_baseline b[2] = {entry("dev-reload", KBV_MODE_FP32, 1.5, 1000),
                         entry("dev-reload", KBV_MODE_TF32, 0.5, 1000)};
    fill("dev-reload", b, 2, &c);
    open_cache("dev-reload", &c);
    assert_int_equal(c.n, 2);
    assert_rejections(&c, 0, 0);
    const kbv_baseline *hit = find(&c, KBV_MODE_FP32);
    assert_non_null(hit);
    assert_true(hit->std_mean_ms == 1.5 && hit->strict_iqr_ms == 0.3);   /* exact */
    assert_null(find(&c, KBV_MODE_FP32_STRICT));
    json_t *o = line_of(c.path, 1);
    assert_int_equal(strlen(json_string_value(json_object_get(o, "mac"))), KBV_MAC_HEX_LEN);
    json_decref(o);
    kbv_baseline_cache_close(&c);
}

/* What the attacker did: append a line claiming a slow baseline. */
static void test_forged_line_is_not_used(void **state)
{
    (void)state;
    kbv_baseline_cache c;
    kbv_baseline b = entry("dev-forged", KBV_MODE_FP32, 1.0, 1000);
    fill("dev-forged", &b, 1, &c);
    open_cache("dev-forged", &c);
    char path[1024];
    snprintf(path, sizeof path, "%s", c.path);
    kbv_baseline_cache_close(&c);

    json_t *forged = line_of(path, 1);
    json_object_set_new(forged, "std_mean_ms", json_real(3460.0));
    json_object_set_new(forged, "strict_median_ms", json_real(3460.0));
    json_object_set_new(forged, "measured_at", json_integer(2000));
    json_object_del(forged, "mac");                       /* no MAC at all */
    append_json(path, forged);
    json_object_set_new(forged, "mac", json_string(        /* a MAC made up */
        "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff"));
    append_json(path, forged);
    json_decref(forged);

    open_cache("dev-forged", &c);
    assert_int_equal(c.n, 1);
    assert_rejections(&c, 2, 0);
    /* the key was tampered with after its last good entry: measured again */
    assert_null(find(&c, KBV_MODE_FP32));
    kbv_baseline again = entry("dev-forged", KBV_MODE_FP32, 1.1, 1500);
    assert_int_equal(kbv_baseline_cache_put(&c, &again), KBV_OK);
    assert_true(find(&c, KBV_MODE_FP32)->std_mean_ms == 1.1);
    kbv_baseline_cache_close(&c);
    /* measured again: the forgeries are passed over quietly from now on */
    open_cache("dev-forged", &c);
    assert_rejections(&c, 0, 0);
    assert_true(find(&c, KBV_MODE_FP32)->std_mean_ms == 1.1);
    kbv_baseline_cache_close(&c);
}

static void test_edited_number_is_not_used(void **state)
{
    (void)state;
    kbv_baseline_cache c;
    kbv_baseline b = entry("dev-edited", KBV_MODE_TF32, 0.25, 1000);
    fill("dev-edited", &b, 1, &c);
    open_cache("dev-edited", &c);
    char path[1024];
    snprintf(path, sizeof path, "%s", c.path);
    kbv_baseline_cache_close(&c);
    /* the one line, with a number changed in place and its MAC kept */
    json_t *o = line_of(path, 1);
    json_object_set_new(o, "strict_median_ms", json_real(0.5000001));
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    append_json(path, o);
    json_decref(o);
    open_cache("dev-edited", &c);
    assert_int_equal(c.n, 0);
    assert_rejections(&c, 1, 0);
    assert_null(find(&c, KBV_MODE_TF32));
    kbv_baseline_cache_close(&c);
}

static void test_entries_of_another_key_or_older_kbv_are_not_used(void **state)
{
    (void)state;
    kbv_baseline_cache c;
    kbv_baseline b[3] = {entry("dev-key", KBV_MODE_FP32_STRICT, 2.0, 1000),
                         entry("dev-key", KBV_MODE_FP32, 1.0, 1000),
                         entry("dev-key", KBV_MODE_TF32, 0.5, 1000)};
    use_key("key-a");
    fill("dev-key", b, 3, &c);
    use_key("key-b");
    open_cache("dev-key", &c);
    assert_int_equal(c.n, 0);
    assert_rejections(&c, 3, 0);
    char path[1024];
    snprintf(path, sizeof path, "%s", c.path);
    kbv_baseline_cache_close(&c);
    use_key("key-a");
    open_cache("dev-key", &c);
    assert_int_equal(c.n, 3);
    kbv_baseline_cache_close(&c);
    /* the format before MACs: the same line without one */
    json_t *o = line_of(path, 1);
    json_object_del(o, "mac");
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    append_json(path, o);
    json_decref(o);
    open_cache("dev-key", &c);
    assert_int_equal(c.n, 0);
    assert_rejections(&c, 1, 0);
    kbv_baseline_cache_close(&c);
    use_key("secret");
}

static void test_impossible_values_are_not_used(void **state)
{
    (void)state;
    long long now = (long long)time(NULL);
    kbv_baseline bad[6];
    for (int i = 0; i < 6; i++)
        bad[i] = entry("dev-values", KBV_MODE_FP32, 1.0, 1000);
    bad[0].std_mean_ms = 0;                       /* no time */
    bad[1].strict_median_ms = -1;
    bad[2].std_n = 0;                             /* no runs */
    bad[3].strict_iqr_ms = -0.5;
    bad[4].measured_at = now + 7 * 86400;          /* measured next week */
    bad[5].peak_bytes = -1;
    kbv_baseline_cache c;
    fill("dev-values", bad, 6, &c);               /* with good MACs */
    open_cache("dev-values", &c);
    assert_int_equal(c.n, 0);
    assert_rejections(&c, 0, 6);
    assert_null(find(&c, KBV_MODE_FP32));
    kbv_baseline_cache_close(&c);
    assert_true(kbv_baseline_plausible(&(kbv_baseline){0}) == false);
    kbv_baseline good = entry("dev-values", KBV_MODE_FP32, 1.0, now);
    assert_true(kbv_baseline_plausible(&good));
    good.std_sd_ms = NAN;
    assert_false(kbv_baseline_plausible(&good));
}

/* An attacker who can append can copy an older genuine line; the newest
 * measurement still wins. */
static void test_replayed_older_entry_does_not_win(void **state)
{
    (void)state;
    kbv_baseline_cache c;
    kbv_baseline b[2] = {entry("dev-replay", KBV_MODE_FP32, 9.0, 1000),
                         entry("dev-replay", KBV_MODE_FP32, 1.0, 2000)};
    fill("dev-replay", b, 2, &c);
    open_cache("dev-replay", &c);
    char path[1024];
    snprintf(path, sizeof path, "%s", c.path);
    kbv_baseline_cache_close(&c);
    json_t *old = line_of(path, 1);
    append_json(path, old);
    json_decref(old);
    open_cache("dev-replay", &c);
    assert_int_equal(c.n, 3);
    assert_rejections(&c, 0, 0);
    assert_true(find(&c, KBV_MODE_FP32)->std_mean_ms == 1.0);
    kbv_baseline_cache_close(&c);
}

#define FP32_TIMED ((1u << KBV_MODE_FP32_STRICT) | (1u << KBV_MODE_FP32) | (1u << KBV_MODE_TF32))

/* A CPU backend of every mode, as an evaluator holds them. */
static void cpu_backends(kbv_backend *be[KBV_MODE_COUNT])
{
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        assert_int_equal(kbv_cpu_backend_create((kbv_mode)m, &be[m]), KBV_OK);
}

static void cpu_backends_destroy(kbv_backend *be[KBV_MODE_COUNT])
{
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        kbv_backend_destroy(be[m]);
}

/* Through kbv_baselines_get, on the CPU backend: the forged mode alone is
 * measured again, and the forged time is never returned. */
static void test_forged_baseline_is_measured_again(void **state)
{
    (void)state;
    kbv_backend *be[KBV_MODE_COUNT];
    cpu_backends(be);
    kbv_baseline_cache c;
    kbv_baseline base[KBV_MODE_COUNT];
    unsigned fresh = 0;
    open_cache("dev-measure", &c);
    assert_int_equal(kbv_baselines_get(&c, be, FP32_TIMED, true, &relu, "L1/19", KBV_SIZE_SMALL, 7,
                                       false, base, &fresh), KBV_OK);
    assert_int_equal(fresh, (1u << KBV_MODE_FP32_STRICT) | (1u << KBV_MODE_FP32) |
                            (1u << KBV_MODE_TF32));
    /* on the CPU the three float32 modes are one measurement: fp32-strict's */
    double honest = base[KBV_MODE_FP32_STRICT].std_mean_ms;
    assert_true(base[KBV_MODE_FP32].std_mean_ms == honest);
    char path[1024];
    snprintf(path, sizeof path, "%s", c.path);
    kbv_baseline_cache_close(&c);

    json_t *forged = line_of(path, 1);   /* the one entry: fp32-strict */
    assert_string_equal(json_string_value(json_object_get(forged, "mode")), "fp32-strict");
    json_object_set_new(forged, "std_mean_ms", json_real(3460 * honest));
    append_json(path, forged);
    json_decref(forged);

    open_cache("dev-measure", &c);
    assert_rejections(&c, 1, 0);
    assert_int_equal(kbv_baselines_get(&c, be, FP32_TIMED, true, &relu, "L1/19", KBV_SIZE_SMALL, 7,
                                       false, base, &fresh), KBV_OK);
    assert_int_equal(fresh, (1u << KBV_MODE_FP32_STRICT) | (1u << KBV_MODE_FP32) |
                            (1u << KBV_MODE_TF32));
    assert_true(base[KBV_MODE_FP32].std_mean_ms < 100 * honest);
    kbv_baseline_cache_close(&c);
    open_cache("dev-measure", &c);
    assert_rejections(&c, 0, 0);
    assert_int_equal(kbv_baselines_get(&c, be, FP32_TIMED, true, &relu, "L1/19", KBV_SIZE_SMALL, 7,
                                       false, base, &fresh), KBV_OK);
    assert_int_equal(fresh, 0);
    kbv_baseline_cache_close(&c);
    cpu_backends_destroy(be);
}

/* A subset of the modes: what is asked for and nothing else, and a mode
 * asked for whose code is an earlier mode's (tf32 on the CPU is fp32-strict's)
 * gets that mode measured with it rather than an empty slot. */
static void test_modes_asked_for_alone_are_measured(void **state)
{
    (void)state;
    kbv_backend *be[KBV_MODE_COUNT];
    cpu_backends(be);
    kbv_baseline_cache c;
    kbv_baseline base[KBV_MODE_COUNT];
    unsigned fresh = 0;
    open_cache("dev-subset", &c);
    assert_int_equal(kbv_baselines_get(&c, be, 1u << KBV_MODE_TF32, true, &relu, "L1/19",
                                       KBV_SIZE_SMALL, 7, false, base, &fresh), KBV_OK);
    assert_int_equal(fresh, (1u << KBV_MODE_FP32_STRICT) | (1u << KBV_MODE_TF32));
    assert_true(isfinite(base[KBV_MODE_TF32].std_mean_ms) && base[KBV_MODE_TF32].std_mean_ms > 0);
    assert_true(isfinite(base[KBV_MODE_TF32].peak_bytes));
    assert_int_equal(base[KBV_MODE_TF32].mode, KBV_MODE_TF32);
    assert_true(base[KBV_MODE_TF32].std_mean_ms == base[KBV_MODE_FP32_STRICT].std_mean_ms);
    assert_true(isnan(base[KBV_MODE_FP32].std_mean_ms));   /* not asked for: not measured */
    assert_int_equal(c.n, 1);
    /* asking for fp32 afterwards finds fp32-strict's entry: no second measurement */
    assert_int_equal(kbv_baselines_get(&c, be, 1u << KBV_MODE_FP32, true, &relu, "L1/19",
                                       KBV_SIZE_SMALL, 7, false, base, &fresh), KBV_OK);
    assert_int_equal(fresh, 0);
    assert_true(isfinite(base[KBV_MODE_FP32].std_mean_ms));
    assert_true(isnan(base[KBV_MODE_TF32].std_mean_ms));
    assert_int_equal(c.n, 1);
    kbv_baseline_cache_close(&c);
    cpu_backends_destroy(be);
}

/* L1/19's tf32 baseline through kbv_baselines_get, strict's timing or not. */
static kbv_status get_tf32(kbv_baseline_cache *c, kbv_backend *be[KBV_MODE_COUNT],
                           bool with_strict, kbv_baseline base[KBV_MODE_COUNT], unsigned *fresh)
{
    return kbv_baselines_get(c, be, 1u << KBV_MODE_TF32, with_strict, &relu, "L1/19",
                             KBV_SIZE_SMALL, 7, false, base, fresh);
}

/* A run without strict times its baselines without strict's trials: the
 * entry says so (strict_n 0, stored as zeros, its MAC over that), verifies
 * when the cache is read again, and serves later runs without strict; a run
 * with strict does not take it, measures the baseline whole, and from then
 * on every run finds that one. */
static void test_baselines_without_strict_timing(void **state)
{
    (void)state;
    kbv_backend *be[KBV_MODE_COUNT];
    cpu_backends(be);
    kbv_baseline_cache c;
    kbv_baseline base[KBV_MODE_COUNT];
    unsigned fresh = 0;
    open_cache("dev-nostrict", &c);
    assert_int_equal(get_tf32(&c, be, false, base, &fresh), KBV_OK);
    assert_true(fresh >> KBV_MODE_TF32 & 1u);
    assert_true(isfinite(base[KBV_MODE_TF32].std_mean_ms) && base[KBV_MODE_TF32].std_mean_ms > 0);
    assert_int_equal(base[KBV_MODE_TF32].strict_n, 0);
    assert_true(isnan(base[KBV_MODE_TF32].strict_median_ms));
    assert_true(isnan(base[KBV_MODE_TF32].strict_iqr_ms));
    char path[1024];
    snprintf(path, sizeof path, "%s", c.path);
    kbv_baseline_cache_close(&c);
    json_t *line = line_of(path, 1);   /* JSON has no NaN: zeros, and a count of none */
    assert_int_equal(json_integer_value(json_object_get(line, "strict_n")), 0);
    assert_true(json_real_value(json_object_get(line, "strict_median_ms")) == 0.0);
    json_decref(line);

    open_cache("dev-nostrict", &c);
    assert_rejections(&c, 0, 0);   /* its MAC verifies, its values are possible */
    assert_non_null(kbv_baseline_cache_find(&c, "L1/19", "small", KBV_MODE_FP32_STRICT, &relu,
                                            false));
    assert_null(kbv_baseline_cache_find(&c, "L1/19", "small", KBV_MODE_FP32_STRICT, &relu, true));
    assert_int_equal(get_tf32(&c, be, false, base, &fresh), KBV_OK);
    assert_int_equal(fresh, 0);
    assert_true(isnan(base[KBV_MODE_TF32].strict_median_ms));
    /* strict wanted: measured again, whole */
    assert_int_equal(get_tf32(&c, be, true, base, &fresh), KBV_OK);
    assert_true(fresh >> KBV_MODE_TF32 & 1u);
    assert_int_equal(base[KBV_MODE_TF32].strict_n, KBV_BASELINE_STRICT_TRIALS);
    assert_true(isfinite(base[KBV_MODE_TF32].strict_median_ms) &&
                base[KBV_MODE_TF32].strict_median_ms > 0);
    kbv_baseline_cache_close(&c);
    /* the whole one is the latest: found by runs with strict and without */
    open_cache("dev-nostrict", &c);
    for (int with_strict = 0; with_strict < 2; with_strict++) {
        assert_int_equal(get_tf32(&c, be, with_strict, base, &fresh), KBV_OK);
        assert_int_equal(fresh, 0);
        assert_int_equal(base[KBV_MODE_TF32].strict_n, KBV_BASELINE_STRICT_TRIALS);
    }
    kbv_baseline_cache_close(&c);
    cpu_backends_destroy(be);

    /* no strict timing is zeros and a count of none, nothing else */
    kbv_baseline b = entry("dev-nostrict", KBV_MODE_FP32, 1.0, (long long)time(NULL));
    b.strict_n = 0;
    assert_false(kbv_baseline_plausible(&b));   /* a count of none beside a median */
    b.strict_median_ms = b.strict_iqr_ms = 0;
    assert_true(kbv_baseline_plausible(&b));
    b.strict_iqr_ms = 0.5;
    assert_false(kbv_baseline_plausible(&b));
}

static void test_key_file_is_checked_when_the_cache_opens(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/config/fresh/secret", root);
    setenv("KBV_SECRET_FILE", path, 1);
    kbv_baseline_cache c;
    open_cache("dev-keyfile", &c);                 /* no key file: one is made */
    assert_string_equal(c.key.path, path);
    kbv_baseline_cache_close(&c);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0600);
    assert_int_equal(chmod(path, 0644), 0);        /* readable by all: refused */
    assert_int_equal(kbv_baseline_cache_open("dev-keyfile", &c), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "chmod 600"));
    kbv_clear_error();
    /* a key inside the cache directory: refused */
    snprintf(path, sizeof path, "%s/cache/secret", root);
    setenv("KBV_SECRET_FILE", path, 1);
    assert_int_equal(kbv_baseline_cache_open("dev-keyfile", &c), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "inside"));
    kbv_clear_error();
    use_key("secret");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_entries_verify_and_reload),
        cmocka_unit_test(test_forged_line_is_not_used),
        cmocka_unit_test(test_edited_number_is_not_used),
        cmocka_unit_test(test_entries_of_another_key_or_older_kbv_are_not_used),
        cmocka_unit_test(test_impossible_values_are_not_used),
        cmocka_unit_test(test_replayed_older_entry_does_not_win),
        cmocka_unit_test(test_forged_baseline_is_measured_again),
        cmocka_unit_test(test_modes_asked_for_alone_are_measured),
        cmocka_unit_test(test_baselines_without_strict_timing),
        cmocka_unit_test(test_key_file_is_checked_when_the_cache_opens),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
