/* The device-busy meter (nested stretches counted once, each to its kind of
 * work) and a run's pace:
 * shares of the wall time per device, idle and "other", evaluations per
 * device-hour, the JSON the summary carries, and busy_s through a record's
 * JSON and back. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "eval/busy.h"
#include "eval/pace.h"

static void pause_ms(int ms)
{
    struct timespec ts = {0, ms * 1000L * 1000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void test_meter_counts_nested_stretches_once(void **state)
{
    (void)state;
    kbv_record *rec = malloc(sizeof *rec);
    assert_non_null(rec);
    kbv_record_init(rec);
    assert_false(rec->has_busy);
    assert_true(isnan(rec->busy_s[KBV_BUSY_CHECKS]));
    kbv_busy_meter m = {0};
    kbv_busy_enter(&m, rec, KBV_CHECK_FILLS);
    pause_ms(10);
    kbv_busy_enter(&m, rec, KBV_CHECK_HASHES);   /* a hash inside a fill: its own seconds */
    pause_ms(20);
    kbv_busy_leave(&m, rec);
    pause_ms(10);
    kbv_busy_leave(&m, rec);
    assert_true(rec->has_busy);
    double checks = rec->busy_s[KBV_BUSY_CHECKS];
    assert_true(checks >= 0.039 && checks < 1.0);
    /* the fill gets the 20 ms around the hash, the hash its 20 ms: each second once */
    assert_true(rec->checks_s[KBV_CHECK_FILLS] >= 0.019 &&
                rec->checks_s[KBV_CHECK_FILLS] < checks - 0.019);
    assert_true(rec->checks_s[KBV_CHECK_HASHES] >= 0.019 &&
                rec->checks_s[KBV_CHECK_HASHES] < checks - 0.019);
    double sum = 0;
    for (int k = 0; k < KBV_CHECK_COUNT; k++)
        sum += rec->checks_s[k];
    assert_true(fabs(sum - checks) < 1e-12);
    assert_true(rec->checks_s[KBV_CHECK_ORACLE] == 0);
    assert_true(rec->busy_s[KBV_BUSY_CANDIDATE] == 0 && rec->busy_s[KBV_BUSY_BASELINES] == 0);
    kbv_busy_leave(&m, rec);   /* one leave too many: ignored */
    assert_int_equal(m.depth, 0);
    assert_true(rec->busy_s[KBV_BUSY_CHECKS] == checks);
    /* deeper than the meter keeps: charged to the deepest kept, still once */
    for (int d = 0; d < KBV_BUSY_MAX_DEPTH + 3; d++)
        kbv_busy_enter(&m, rec, KBV_CHECK_ORACLE);
    pause_ms(5);
    for (int d = 0; d < KBV_BUSY_MAX_DEPTH + 3; d++)
        kbv_busy_leave(&m, rec);
    assert_int_equal(m.depth, 0);
    assert_true(rec->checks_s[KBV_CHECK_ORACLE] >= 0.004);
    sum = 0;
    for (int k = 0; k < KBV_CHECK_COUNT; k++)
        sum += rec->checks_s[k];
    assert_true(fabs(sum - rec->busy_s[KBV_BUSY_CHECKS]) < 1e-12);
    kbv_busy_enter(&m, NULL, KBV_CHECK_COMPARISONS);   /* no record: nothing charged */
    kbv_busy_leave(&m, NULL);
    assert_true(rec->checks_s[KBV_CHECK_COMPARISONS] == 0);
    kbv_busy_add(rec, KBV_BUSY_CANDIDATE, 0.25);
    kbv_busy_add(NULL, KBV_BUSY_CANDIDATE, 1.0);   /* no record: nothing */
    assert_true(rec->busy_s[KBV_BUSY_CANDIDATE] == 0.25);

    /* through the record's JSON and back */
    json_t *o = NULL;
    assert_int_equal(kbv_record_to_json(rec, &o), KBV_OK);
    const json_t *b = json_object_get(o, "busy_s");
    assert_true(json_is_object(b));
    assert_true(json_real_value(json_object_get(b, "candidate")) == 0.25);
    kbv_record *back = malloc(sizeof *back);
    assert_non_null(back);
    assert_int_equal(kbv_record_from_json(o, back), KBV_OK);
    assert_true(back->has_busy);
    for (int k = 0; k < KBV_BUSY_COUNT; k++)
        assert_true(back->busy_s[k] == rec->busy_s[k]);
    const json_t *c = json_object_get(o, "checks_s");
    assert_true(json_is_object(c));
    assert_int_equal(json_object_size(c), KBV_CHECK_COUNT);
    assert_true(json_real_value(json_object_get(c, "hashes")) == rec->checks_s[KBV_CHECK_HASHES]);
    for (int k = 0; k < KBV_CHECK_COUNT; k++)
        assert_true(back->checks_s[k] == rec->checks_s[k]);
    json_decref(o);
    free(back);
    free(rec);
}

/* A record of total_s seconds: phases as given, the rest in no phase. */
static void fake_record(kbv_record *rec, double compile, double timing, double total,
                        double candidate, double checks)
{
    kbv_record_init(rec);
    rec->has_phases = true;
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        rec->phase_s[k] = 0;
    rec->phase_s[KBV_PHASE_COMPILE] = compile;
    rec->phase_s[KBV_PHASE_TIMING] = timing;
    rec->total_s = total;
    kbv_busy_add(rec, KBV_BUSY_CANDIDATE, candidate);
    kbv_busy_add(rec, KBV_BUSY_CHECKS, checks);
    rec->checks_s[KBV_CHECK_ORACLE] = 0.75 * checks;
    rec->checks_s[KBV_CHECK_COMPARISONS] = 0.25 * checks;
}

static void test_pace_shares(void **state)
{
    (void)state;
    kbv_pace *p = malloc(sizeof *p);
    kbv_record *rec = malloc(sizeof *rec);
    assert_non_null(p);
    assert_non_null(rec);
    kbv_pace_start(p, "all");
    assert_int_equal(kbv_pace_worker(p, 0), KBV_OK);
    assert_int_equal(kbv_pace_worker(p, 1), KBV_OK);
    fake_record(rec, 1, 5, 8, 3, 1);
    assert_int_equal(kbv_pace_add(p, 0, rec), KBV_OK);
    fake_record(rec, 0, 2, 4, 1, 1);
    assert_int_equal(kbv_pace_add(p, 0, rec), KBV_OK);
    kbv_record_init(rec);   /* no phase_s (an earlier kbv's): not counted */
    assert_int_equal(kbv_pace_add(p, 1, rec), KBV_OK);
    kbv_pace_stop(p);
    p->wall_s = 20;   /* as if the run took 20 s */

    kbv_pace_share sh;
    kbv_pace_share_of(p, &p->lanes[0], &sh);
    assert_int_equal(p->lanes[0].samples, 2);
    assert_true(fabs(sh.busy - 6.0 / 20) < 1e-12);
    assert_true(fabs(sh.busy_of[KBV_BUSY_CANDIDATE] - 4.0 / 20) < 1e-12);
    assert_true(fabs(sh.checks_of[KBV_CHECK_ORACLE] - 1.5 / 20) < 1e-12);
    assert_true(fabs(sh.checks_of[KBV_CHECK_COMPARISONS] - 0.5 / 20) < 1e-12);
    assert_true(sh.checks_of[KBV_CHECK_FILLS] == 0);
    assert_true(fabs(sh.phase[KBV_PHASE_TIMING] - 7.0 / 20) < 1e-12);
    assert_true(fabs(sh.other - 4.0 / 20) < 1e-12);   /* 12 s of samples, 8 in phases */
    assert_true(fabs(sh.idle - 8.0 / 20) < 1e-12);    /* 20 s wall, 12 in samples */
    assert_true(fabs(sh.per_hour - 2 * 3600.0 / 20) < 1e-9);
    double sum = sh.other + sh.idle;
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        sum += sh.phase[k];
    assert_true(fabs(sum - 1) < 1e-12);   /* every second of the wall time is somewhere */

    kbv_pace_share_of(p, &p->lanes[1], &sh);   /* a device with nothing counted: all idle */
    assert_true(sh.busy == 0 && fabs(sh.idle - 1) < 1e-12 && sh.per_hour == 0);

    kbv_pace_lane all;
    kbv_pace_total(p, &all);
    assert_int_equal(all.devices, 2);
    assert_int_equal(all.samples, 2);
    kbv_pace_share_of(p, &all, &sh);
    assert_true(fabs(sh.busy - 6.0 / 40) < 1e-12);
    assert_true(fabs(sh.per_hour - 2 * 3600.0 / 40) < 1e-9);

    json_t *o = NULL;
    assert_int_equal(kbv_pace_json(p, &o), KBV_OK);
    assert_string_equal(json_string_value(json_object_get(o, "protocols")), "all");
    const json_t *lanes = json_object_get(o, "per_device");
    assert_int_equal(json_array_size(lanes), 2);
    const json_t *l0 = json_array_get(lanes, 0);
    assert_int_equal(json_integer_value(json_object_get(l0, "device")), 0);
    assert_true(fabs(json_real_value(json_object_get(l0, "busy")) - 0.3) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(l0, "wall_by"), "idle")) -
                     0.4) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(l0, "checks_by"), "oracle")) -
                     1.5 / 20) < 1e-12);
    assert_true(fabs(json_real_value(json_object_get(json_object_get(l0, "checks_s"), "oracle")) -
                     1.5) < 1e-12);
    const json_t *total = json_object_get(o, "total");
    assert_string_equal(json_string_value(json_object_get(total, "device")), "all");
    json_decref(o);
    free(rec);
    free(p);
}

static void test_pace_lanes_are_bounded(void **state)
{
    (void)state;
    kbv_pace *p = malloc(sizeof *p);
    assert_non_null(p);
    kbv_pace_start(p, "standard");
    for (int d = 0; d < KBV_PACE_MAX_LANES; d++)
        assert_int_equal(kbv_pace_worker(p, d), KBV_OK);
    assert_int_equal(kbv_pace_worker(p, KBV_PACE_MAX_LANES), KBV_ERR_INVALID);
    kbv_clear_error();
    assert_int_equal(kbv_pace_worker(p, 3), KBV_OK);   /* a known device: its lane */
    assert_int_equal(p->lanes[3].workers, 2);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_meter_counts_nested_stretches_once),
        cmocka_unit_test(test_pace_shares),
        cmocka_unit_test(test_pace_lanes_are_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
