/* The clock guard (exec/clock_guard.h): a measurement timed on a throttled SM
 * clock is taken again, the clock seen is recorded, warm-ups last long enough.
 * A CPU backend given a scripted clock stands in for a GPU's NVML readings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "eval/baseline.h"
#include "exec/clock_guard.h"
#include "graph/problem.h"

/* The scripted clock: `low_reads` readings at 900 MHz, then 1980, of 1980. */
static int low_reads, reads;

static kbv_status scripted_clock(kbv_backend *be, unsigned *mhz, unsigned *max_mhz)
{
    (void)be;
    *mhz = reads++ < low_reads ? 900 : 1980;
    *max_mhz = 1980;
    return KBV_OK;
}

static void test_guard_threshold(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    kbv_clock_guard g;
    kbv_clock_guard_begin(&g);
    kbv_clock_guard_sample(&g, be);      /* the CPU: no clock, never low */
    assert_int_equal(g.samples, 0);
    assert_false(kbv_clock_guard_low(&g));
    be->sm_clock = scripted_clock;
    low_reads = 1, reads = 0;
    kbv_clock_guard_sample(&g, be);
    kbv_clock_guard_sample(&g, be);
    assert_int_equal(g.samples, 2);
    assert_int_equal(g.min_mhz, 900);    /* 900 < 0.75 x 1980 */
    assert_true(kbv_clock_guard_low(&g));
    kbv_clock_guard_begin(&g);
    kbv_clock_guard_sample(&g, be);
    assert_int_equal(g.min_mhz, 1980);
    assert_false(kbv_clock_guard_low(&g));
    kbv_backend_destroy(be);
}

static void test_warmup_by_time(void **state)
{
    (void)state;
    assert_false(kbv_warmup_enough(3, 3, 10.0));     /* three runs, but 10 ms */
    assert_false(kbv_warmup_enough(2, 3, 500.0));    /* long, but under the count */
    assert_true(kbv_warmup_enough(3, 3, KBV_WARMUP_MIN_MS));
    assert_true(kbv_warmup_enough(KBV_WARMUP_MAX_RUNS, 3, 1.0));   /* the cap */
}

/* A baseline whose first timing ran throttled is measured again and records
 * the clock of the accepted attempt; one throttled throughout says so. */
static void test_baseline_remeasured(void **state)
{
    (void)state;
    const kbv_problem *def = kbv_problem_find("L1/19");
    kbv_graph *g = calloc(1, sizeof *g);
    assert_non_null(g);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, g), KBV_OK);
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    be->sm_clock = scripted_clock;
    kbv_baseline b;

    low_reads = 3, reads = 0;            /* the first attempt's first samples */
    assert_int_equal(kbv_baseline_measure(be, g, 1, true, &b), KBV_OK);
    assert_int_equal(b.std_sm_mhz, 1980);
    assert_false(b.std_throttled);
    assert_false(b.strict_throttled);
    /* 11 samples per standard attempt: the first was rejected, a second taken */
    assert_true(reads >= 2 * 11);

    low_reads = 1 << 30, reads = 0;      /* throttled throughout */
    assert_int_equal(kbv_baseline_measure(be, g, 1, true, &b), KBV_OK);
    assert_int_equal(b.std_sm_mhz, 900);
    assert_true(b.std_throttled);
    assert_true(b.strict_throttled);
    kbv_backend_destroy(be);
    kbv_graph_free(g);
    free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_guard_threshold),
        cmocka_unit_test(test_warmup_by_time),
        cmocka_unit_test(test_baseline_remeasured),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
