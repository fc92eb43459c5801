/* The phase clock: exclusive phases, nested steps, sums within the total. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include <cmocka.h>

#include "eval/phase.h"

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000L * 1000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void test_phases_are_exclusive(void **state)
{
    (void)state;
    kbv_record *rec = malloc(sizeof *rec);
    assert_non_null(rec);
    kbv_record_init(rec);
    assert_false(rec->has_phases);
    assert_true(isnan(rec->phase_s[KBV_PHASE_LOAD]));

    kbv_phase_clock outer, inner;
    kbv_phase_clock_start(&outer, rec, KBV_PHASE_COMPILE);
    assert_true(rec->has_phases);
    pause_ms(20);
    assert_int_equal(kbv_phase_enter(&outer, KBV_PHASE_NONE), KBV_PHASE_COMPILE);
    /* a nested clock on the same record, as kbv_protocol_run runs inside a sample */
    kbv_phase_clock_start(&inner, rec, KBV_PHASE_CORRECTNESS);
    pause_ms(10);
    kbv_phase was = kbv_phase_enter(&inner, KBV_PHASE_AUDIT);
    pause_ms(10);
    assert_int_equal(kbv_phase_enter(&inner, was), KBV_PHASE_AUDIT);
    pause_ms(10);
    double inner_total = kbv_phase_clock_stop(&inner);
    pause_ms(10);   /* charged to no phase */
    double total = kbv_phase_clock_stop(&outer);

    assert_true(rec->phase_s[KBV_PHASE_COMPILE] >= 0.019);
    assert_true(rec->phase_s[KBV_PHASE_CORRECTNESS] >= 0.019);
    assert_true(rec->phase_s[KBV_PHASE_AUDIT] >= 0.009);
    assert_true(rec->phase_s[KBV_PHASE_LOAD] == 0 && rec->phase_s[KBV_PHASE_TIMING] == 0);
    double sum = 0;
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        sum += rec->phase_s[k];
    assert_true(inner_total >= 0.029 && inner_total < total);
    assert_true(sum <= total);
    assert_true(total - sum >= 0.009);   /* the uncharged pause */
    free(rec);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phases_are_exclusive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
