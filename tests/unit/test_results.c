/* Results files: append + reload, torn-line repair, resume identity, write errors. */
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/vendor_libs.h"
#include "record/results.h"

static char dir[256];

static int make_dir(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_results_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static void path_of(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static kbv_record *sample_record(int sample, const char *sha)
{
    kbv_record *r = malloc(sizeof *r);
    assert_non_null(r);
    kbv_record_init(r);
    snprintf(r->model, sizeof r->model, "model-x");
    snprintf(r->problem, sizeof r->problem, "L1/19");
    r->level = 1;
    r->problem_id = 19;
    r->sample = sample;
    snprintf(r->file, sizeof r->file, "runs/model-x/level_1_problem_19_sample_%d.c", sample);
    snprintf(r->source_sha256, sizeof r->source_sha256, "%s", sha);
    snprintf(r->device, sizeof r->device, "cpu");
    snprintf(r->size, sizeof r->size, "small");
    r->seed = (UINT64_C(1) << 53) - 7;
    r->gate = sample ? KBV_GATE_TEXT : KBV_GATE_LEADERBOARD;
    r->vendor_libs = sample ? 0 : 1u << KBV_VENDOR_CUBLASLT | 1u << KBV_VENDOR_CUDNN;
    r->compile.ok = true;
    r->compile.seconds = 0.25;
    snprintf(r->compile.log, sizeof r->compile.log, "warning: unused \"x\"\n");
    kbv_proto_result *p = &r->proto[KBV_PROTO_STANDARD];
    p->correct = true;
    p->draws_passed = 5;
    p->draws_total = 5;
    p->t_kernel_ms = 1.5;
    p->t_kernel_spread_ms = 0.1;
    p->t_baseline_ms = 3.0;
    p->speedup = 2.0;
    p->mem_kernel_bytes = 1024;
    p->mem_baseline_bytes = 2048;
    kbv_proto_result *s = &r->proto[KBV_PROTO_STRICT];
    s->correct = false;
    snprintf(s->reason, sizeof s->reason, "D6: rel L2 error 3.1e-2 > budget 2.4e-4");
    s->draws_passed = 10;
    s->draws_total = 13;
    s->t_kernel_spread_ms = NAN;
    kbv_proto_add_flag(s, "review-speedup");
    kbv_proto_add_flag(s, "review-speedup");
    r->n_draws = 2;
    snprintf(r->draws[0].dist, sizeof r->draws[0].dist, "base#0");
    r->draws[0].std_pass = 1;
    r->draws[0].strict_pass = true;
    r->draws[0].rel_l2 = 1e-7;
    r->draws[0].first_bad_ndim = -1;
    snprintf(r->draws[1].dist, sizeof r->draws[1].dist, "D6");
    r->draws[1].std_pass = -1;
    r->draws[1].rel_l2 = INFINITY;
    r->draws[1].first_bad_ndim = 2;
    r->draws[1].first_bad[0] = 3;
    r->draws[1].first_bad[1] = 7;
    r->draws[1].allclose_fail = 1234;
    r->draws[1].unjudged = 80;
    r->draws[1].oracle_nonfinite = 77;
    /* judged without the float64 oracle (strict not evaluated) */
    r->n_draws = 3;
    snprintf(r->draws[2].dist, sizeof r->draws[2].dist, "D1");
    r->draws[2].std_pass = 1;
    r->draws[2].strict_pass = -1;
    r->draws[2].rel_l2 = r->draws[2].budget_rel_l2 = NAN;
    r->draws[2].max_err = r->draws[2].budget_max_err = NAN;
    r->draws[2].first_bad_ndim = -1;
    return r;
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[300];
    path_of("round.jsonl", path, sizeof path);
    kbv_results res;
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    assert_int_equal(res.done.n, 0);
    kbv_record *a = sample_record(0, "aa"), *b = sample_record(1, "bb");
    b->has_fault = true;
    snprintf(b->fault_kind, sizeof b->fault_kind, "crash");
    snprintf(b->fault_reason, sizeof b->fault_reason, "killed by SIGSEGV during D2");
    assert_int_equal(kbv_results_append(&res, a), KBV_OK);
    assert_int_equal(kbv_results_append(&res, b), KBV_OK);
    kbv_results_close(&res);

    kbv_record_list list;
    assert_int_equal(kbv_records_load(path, &list), KBV_OK);
    assert_int_equal(list.n, 2);
    assert_int_equal(list.malformed, 0);
    const kbv_record *r = &list.items[0];
    assert_string_equal(r->model, "model-x");
    assert_string_equal(r->problem, "L1/19");
    assert_int_equal(r->sample, 0);
    assert_true(r->seed == (UINT64_C(1) << 53) - 7);
    assert_int_equal(r->gate, KBV_GATE_LEADERBOARD);
    assert_int_equal(list.items[1].gate, KBV_GATE_TEXT);
    assert_int_equal(r->vendor_libs, 1u << KBV_VENDOR_CUBLASLT | 1u << KBV_VENDOR_CUDNN);
    assert_int_equal(list.items[1].vendor_libs, 0);
    assert_int_equal(r->draws[0].oracle_nonfinite, 0);
    assert_int_equal(r->draws[1].oracle_nonfinite, 77);
    assert_true(r->compile.ok);
    assert_string_equal(r->compile.log, "warning: unused \"x\"\n");
    assert_true(r->proto[0].correct);
    assert_true(r->proto[0].t_kernel_ms == 1.5);
    assert_true(r->proto[0].t_kernel_spread_ms == 0.1);
    assert_true(r->proto[0].mem_baseline_bytes == 2048);
    assert_true(isnan(r->proto[KBV_PROTO_VERIFIED].t_kernel_ms));   /* null */
    assert_false(r->proto[KBV_PROTO_STRICT].correct);
    assert_string_equal(r->proto[KBV_PROTO_STRICT].reason,
                        "D6: rel L2 error 3.1e-2 > budget 2.4e-4");
    assert_int_equal(r->proto[KBV_PROTO_STRICT].n_flags, 1);
    assert_string_equal(r->proto[KBV_PROTO_STRICT].flags[0], "review-speedup");
    assert_int_equal(r->n_draws, 3);
    assert_int_equal(r->draws[0].strict_pass, 1);
    assert_int_equal(r->draws[1].strict_pass, 0);
    assert_int_equal(r->draws[2].strict_pass, -1);   /* null: not judged */
    assert_true(isnan(r->draws[2].max_err));
    assert_int_equal(r->draws[1].std_pass, -1);
    assert_true(isnan(r->draws[1].rel_l2));     /* non-finite numbers are written as null */
    assert_int_equal(r->draws[1].first_bad_ndim, 2);
    assert_int_equal(r->draws[1].first_bad[1], 7);
    assert_int_equal(r->draws[1].allclose_fail, 1234);
    assert_false(r->has_fault);
    assert_true(list.items[1].has_fault);
    assert_string_equal(list.items[1].fault_kind, "crash");
    kbv_record_list_free(&list);

    /* the JSON names the contract's fields */
    json_t *o;
    assert_int_equal(kbv_record_to_json(a, &o), KBV_OK);
    json_t *strict = json_object_get(json_object_get(o, "protocols"), "strict");
    assert_non_null(json_object_get(strict, "t_kernel_iqr_ms"));
    assert_non_null(json_object_get(strict, "t_fp32_strict_ms"));
    assert_true(json_is_null(json_object_get(o, "fault")));
    assert_int_equal(json_integer_value(json_object_get(o, "schema")), 1);
    assert_string_equal(json_string_value(json_object_get(o, "gate")), "leaderboard");
    json_decref(o);
    free(a);
    free(b);
}

/* phase_s and a protocol not evaluated survive a write and a read; a record
 * without phase_s (older kbv) reads with no phases. */
static void test_phases_and_skipped_round_trip(void **state)
{
    (void)state;
    kbv_record *a = sample_record(0, "aa"), *back = malloc(sizeof *back);
    assert_non_null(back);
    a->has_phases = true;
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        a->phase_s[k] = 0.125 * (k + 1);
    a->phase_s[KBV_PHASE_BASELINES] = NAN;           /* not measured: null */
    a->total_s = 4.5;
    kbv_proto_skip(&a->proto[KBV_PROTO_STRICT], "not evaluated (kbv eval --protocols)");
    snprintf(a->params, sizeof a->params, "state_dict");
    json_t *o;
    assert_int_equal(kbv_record_to_json(a, &o), KBV_OK);
    assert_string_equal(json_string_value(json_object_get(o, "params")), "state_dict");
    const json_t *ph = json_object_get(o, "phase_s");
    assert_true(json_is_object(ph));
    assert_int_equal(json_object_size(ph), KBV_PHASE_COUNT + 1);
    assert_true(json_real_value(json_object_get(ph, "compile")) == 0.125);
    assert_true(json_real_value(json_object_get(ph, "audit")) == 0.75);
    assert_true(json_real_value(json_object_get(ph, "total")) == 4.5);
    assert_true(json_is_null(json_object_get(ph, "baselines")));
    const json_t *strict = json_object_get(json_object_get(o, "protocols"), "strict");
    assert_true(json_is_false(json_object_get(strict, "evaluated")));
    const json_t *verified = json_object_get(json_object_get(o, "protocols"), "verified");
    assert_null(json_object_get(verified, "evaluated"));   /* only written when false */

    assert_int_equal(kbv_record_from_json(o, back), KBV_OK);
    assert_string_equal(back->params, "state_dict");
    assert_true(back->has_phases);
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        if (k != KBV_PHASE_BASELINES)
            assert_true(back->phase_s[k] == a->phase_s[k]);
    assert_true(isnan(back->phase_s[KBV_PHASE_BASELINES]));
    assert_true(back->total_s == 4.5);
    assert_true(back->proto[KBV_PROTO_STRICT].skipped);
    assert_false(back->proto[KBV_PROTO_STRICT].correct);
    assert_true(isnan(back->proto[KBV_PROTO_STRICT].t_kernel_ms));
    assert_false(back->proto[KBV_PROTO_STANDARD].skipped);
    assert_string_equal(kbv_phase_name(KBV_PHASE_CORRECTNESS), "correctness");

    /* without phase_s: still a valid record, with no phases */
    json_object_del(o, "phase_s");
    assert_int_equal(kbv_record_from_json(o, back), KBV_OK);
    assert_false(back->has_phases);
    assert_true(isnan(back->total_s));
    json_t *again;
    assert_int_equal(kbv_record_to_json(back, &again), KBV_OK);
    assert_null(json_object_get(again, "phase_s"));
    json_decref(again);
    json_decref(o);
    free(a);
    free(back);
}

/* A sample recorded without strict is done for a verified run, not for a full one. */
static void test_resume_needs_the_protocols(void **state)
{
    (void)state;
    char path[300];
    path_of("protocols.jsonl", path, sizeof path);
    kbv_results res;
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    kbv_record *a = sample_record(0, "aa");
    kbv_proto_skip(&a->proto[KBV_PROTO_STRICT], "not evaluated");
    assert_int_equal(kbv_results_append(&res, a), KBV_OK);
    kbv_results_close(&res);
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    unsigned verified = 1u << KBV_PROTO_VERIFIED, all = (1u << KBV_PROTO_COUNT) - 1;
    assert_true(kbv_results_has_protocols(&res, a, verified));
    assert_false(kbv_results_has_protocols(&res, a, all));
    assert_true(kbv_results_has(&res, a));
    kbv_results_close(&res);
    free(a);
}

static void test_resume_identity(void **state)
{
    (void)state;
    char path[300];
    path_of("resume.jsonl", path, sizeof path);
    kbv_results res;
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    kbv_record *a = sample_record(0, "aa");
    assert_int_equal(kbv_results_append(&res, a), KBV_OK);
    kbv_results_close(&res);

    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    assert_int_equal(res.done.n, 1);
    assert_true(kbv_results_has(&res, a));
    kbv_record *k = sample_record(0, "aa");
    snprintf(k->source_sha256, sizeof k->source_sha256, "changed");
    assert_false(kbv_results_has(&res, k));     /* edited source: evaluate again */
    memcpy(k, a, sizeof *a);
    snprintf(k->size, sizeof k->size, "full");
    assert_false(kbv_results_has(&res, k));
    memcpy(k, a, sizeof *a);
    snprintf(k->device, sizeof k->device, "NVIDIA H200 / CUDA 13.0");
    assert_false(kbv_results_has(&res, k));
    memcpy(k, a, sizeof *a);
    k->sample = 1;
    assert_false(kbv_results_has(&res, k));
    memcpy(k, a, sizeof *a);
    k->seed = 1;   /* the seed is not part of the identity */
    assert_true(kbv_results_has(&res, k));
    k->gate = KBV_GATE_TEXT;   /* the gate is: another gate evaluates again */
    assert_false(kbv_results_has(&res, k));
    memcpy(k, a, sizeof *a);   /* and so are the vendor libraries a run allowed */
    k->vendor_libs = KBV_VENDOR_ALL;
    assert_false(kbv_results_has(&res, k));
    k->vendor_libs = 0;
    assert_false(kbv_results_has(&res, k));
    k->vendor_libs = a->vendor_libs;
    assert_true(kbv_results_has(&res, k));
    kbv_results_close(&res);
    free(a);
    free(k);
}

static void test_torn_line_repaired(void **state)
{
    (void)state;
    char path[300];
    path_of("torn.jsonl", path, sizeof path);
    kbv_results res;
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    kbv_record *a = sample_record(0, "aa"), *b = sample_record(1, "bb");
    assert_int_equal(kbv_results_append(&res, a), KBV_OK);
    kbv_results_close(&res);
    /* a run killed mid-write: half a record, no newline */
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("{\"schema\":1,\"model\":\"model-x\",\"problem\":\"L1/19\",\"sam", f);
    fclose(f);

    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    assert_true(res.repaired);
    assert_int_equal(res.done.n, 1);
    assert_int_equal(res.done.malformed, 1);
    assert_int_equal(res.done.first_malformed_line, 2);
    assert_false(kbv_results_has(&res, b));
    assert_int_equal(kbv_results_append(&res, b), KBV_OK);
    kbv_results_close(&res);

    kbv_record_list list;
    assert_int_equal(kbv_records_load(path, &list), KBV_OK);
    assert_int_equal(list.n, 2);
    assert_int_equal(list.items[0].sample, 0);
    assert_int_equal(list.items[1].sample, 1);
    assert_int_equal(list.malformed, 1);
    kbv_record_list_free(&list);
    /* reopening a repaired file changes nothing more */
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    assert_false(res.repaired);
    assert_int_equal(res.done.n, 2);
    kbv_results_close(&res);
    free(a);
    free(b);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The whole file, for byte-for-byte comparisons (static: one at a time). */
static const char *read_text(const char *path)
{
    static char buf[8192];
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* A second writer is refused at once, with the holder's pid, until the
 * first closes; kbv merge's claim is refused alike. */
static void test_one_writer_at_a_time(void **state)
{
    (void)state;
    char path[300], want[64];
    path_of("locked.jsonl", path, sizeof path);
    kbv_results first, second;
    assert_int_equal(kbv_results_open(path, &first), KBV_OK);
    assert_true(first.created);
    assert_int_equal(kbv_results_open(path, &second), KBV_ERR_IO);
    snprintf(want, sizeof want, "(pid %d)", (int)getpid());
    assert_true(second.refused);
    const char *why = kbv_last_message();
    assert_non_null(strstr(why, "is in use by another kbv process"));
    assert_non_null(strstr(why, want));
    assert_non_null(strstr(why, "choose another --out"));
    assert_non_null(strstr(why, path));
    assert_null(strchr(why, '\n'));
    assert_int_equal(second.fd, -1);
    kbv_clear_error();
    assert_int_equal(kbv_results_claim(path, &second), KBV_ERR_IO);
    assert_non_null(strstr(kbv_last_message(), "in use"));
    kbv_clear_error();
    /* reading is not writing: loading the records is never refused */
    kbv_record_list list;
    assert_int_equal(kbv_records_load(path, &list), KBV_OK);
    kbv_record_list_free(&list);
    kbv_results_close(&first);
    assert_int_equal(kbv_results_open(path, &second), KBV_OK);
    assert_false(second.created);
    kbv_results_close(&second);
    assert_int_equal(kbv_results_claim(path, &second), KBV_OK);
    kbv_results_close(&second);
}

/* A file no kbv wrote is refused before anything touches it. */
static void test_foreign_file_is_refused_untouched(void **state)
{
    (void)state;
    static const char *const foreign[] = {
        "model,problem,speedup\nm,L1/19,1.2\n",                 /* a CSV */
        "[{\"schema\":1,\"model\":\"m\",\"problem\":\"L1/19\"}]\n", /* a JSON array */
        "{\n  \"schema\": 1,\n  \"model\": \"m\"\n}\n",     /* pretty-printed */
        "my notes on the run",                              /* no newline: no repair either */
        "\n\n# results\n",
    };
    static const int first_bad[] = {1, 1, 2, 1, 3};
    char path[300];
    path_of("notes.txt", path, sizeof path);
    for (size_t i = 0; i < sizeof foreign / sizeof foreign[0]; i++) {
        write_text(path, foreign[i]);
        kbv_results res;
        assert_int_equal(kbv_results_open(path, &res), KBV_ERR_INVALID);
        char want[400];
        snprintf(want, sizeof want, "%s is not a kbv results file (line %d ", path, first_bad[i]);
        if (!strstr(kbv_last_message(), want))
            fail_msg("case %zu: %s", i, kbv_last_message());
        assert_false(res.created);
        kbv_clear_error();
        assert_int_equal(kbv_results_claim(path, &res), KBV_ERR_INVALID);
        kbv_clear_error();
        assert_string_equal(read_text(path), foreign[i]);
        kbv_record_list list;   /* loading counts the foreign lines */
        assert_int_equal(kbv_records_load(path, &list), KBV_OK);
        assert_int_equal(list.first_foreign_line, first_bad[i]);
        kbv_record_list_free(&list);
    }
}

/* What kbv wrote, however it was cut, is a results file: old files resume. */
static void test_kbv_files_are_accepted(void **state)
{
    (void)state;
    char path[300];
    path_of("written.jsonl", path, sizeof path);
    kbv_results res;
    kbv_record *a = sample_record(0, "aa"), *b = sample_record(1, "bb");
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    assert_int_equal(kbv_results_append(&res, a), KBV_OK);
    kbv_results_close(&res);
    /* torn lines repaired by earlier resumes, one cut after a single byte, a
     * record of a later schema, blank lines, and a record another tool
     * rewrote with its members in another order */
    FILE *f = fopen(path, "a");
    assert_non_null(f);
    fputs("{\"schema\":1,\"model\":\"model-x\",\"probl\n"
          "{\n"
          "{\"sch\n"
          "\n   \n"
          "{\"schema\":2,\"model\":\"m\",\"problem\":\"L1/1\",\"new\":true}\n"
          "{\"model\":\"other\",\"problem\":\"L1/2\",\"schema\":1}\r\n"
          "{\"schema\": 1, \"model\": \"m", f);
    fclose(f);
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    assert_true(res.repaired);
    assert_int_equal(res.done.n, 2);
    assert_int_equal(res.done.malformed, 5);
    assert_int_equal(res.done.foreign, 0);
    assert_int_equal(kbv_results_append(&res, b), KBV_OK);
    kbv_results_close(&res);
    assert_int_equal(kbv_results_claim(path, &res), KBV_OK);
    kbv_results_close(&res);
    /* an empty file is one too, and so is one of blank lines */
    write_text(path, "");
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    kbv_results_close(&res);
    write_text(path, "\n\n");
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    kbv_results_close(&res);
    free(a);
    free(b);
}

/* The lock is the file's: a file renamed over the name is a new one, free. */
static void test_renamed_over_file_is_free(void **state)
{
    (void)state;
    char path[300], tmp[300];
    path_of("renamed.jsonl", path, sizeof path);
    path_of("renamed.tmp", tmp, sizeof tmp);
    kbv_results held, next;
    assert_int_equal(kbv_results_claim(path, &held), KBV_OK);
    write_text(tmp, "");
    assert_int_equal(rename(tmp, path), 0);   /* what kbv merge does while holding */
    assert_int_equal(kbv_results_open(path, &next), KBV_OK);
    kbv_results_close(&next);
    kbv_results_close(&held);
}

static void test_missing_file_is_empty(void **state)
{
    (void)state;
    char path[300];
    path_of("absent.jsonl", path, sizeof path);
    kbv_record_list list;
    assert_int_equal(kbv_records_load(path, &list), KBV_OK);
    assert_int_equal(list.n, 0);
    kbv_record_list_free(&list);
}

static void test_write_error_is_reported(void **state)
{
    (void)state;
    /* /dev/full fails every write with ENOSPC: a full disk */
    kbv_results res;
    memset(&res, 0, sizeof res);
    snprintf(res.path, sizeof res.path, "/dev/full");
    res.fd = open("/dev/full", O_WRONLY | O_APPEND);
    if (res.fd < 0)
        skip();
    kbv_record *a = sample_record(0, "aa");
    assert_int_equal(kbv_results_append(&res, a), KBV_ERR_IO);
    assert_non_null(strstr(kbv_last_error(), "No space left on device"));
    assert_int_equal(res.done.n, 0);
    kbv_results_close(&res);
    kbv_clear_error();
    free(a);
}

static void test_unwritable_path(void **state)
{
    (void)state;
    kbv_results res;
    assert_int_equal(kbv_results_open("/nonexistent-dir/x/results.jsonl", &res), KBV_ERR_IO);
    assert_non_null(strstr(kbv_last_error(), "/nonexistent-dir/x/results.jsonl"));
    kbv_clear_error();
}

/* A later schema (a newer kbv's) is not read, and says so; a schema that was
 * never one of kbv's is not a record. */
static void test_wrong_schema_rejected(void **state)
{
    (void)state;
    json_error_t err;
    json_t *o = json_loads("{\"schema\":2,\"model\":\"m\",\"problem\":\"L1/1\"}", 0, &err);
    assert_non_null(o);
    kbv_record *r = malloc(sizeof *r);
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_UNSUPPORTED);
    assert_non_null(strstr(kbv_last_error(), "written by a newer kbv"));
    kbv_clear_error();
    assert_int_equal(kbv_record_schema(o), 2);
    json_decref(o);
    o = json_loads("{\"schema\":0,\"model\":\"m\",\"problem\":\"L1/1\"}", 0, &err);
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_PARSE);
    json_decref(o);
    free(r);
    kbv_clear_error();
}

/* A record without "gate" was judged under the text's gate; an unknown gate
 * is not a record this kbv can read. */
static void test_gate_in_records(void **state)
{
    (void)state;
    kbv_record *r = malloc(sizeof *r);
    assert_non_null(r);
    json_error_t err;
    json_t *o = json_loads("{\"schema\":1,\"model\":\"m\",\"problem\":\"L1/1\"}", 0, &err);
    assert_int_equal(kbv_record_from_json(o, r), KBV_OK);
    assert_int_equal(r->gate, KBV_GATE_TEXT);
    json_object_set_new(o, "gate", json_string("leaderboard"));
    assert_int_equal(kbv_record_from_json(o, r), KBV_OK);
    assert_int_equal(r->gate, KBV_GATE_LEADERBOARD);
    json_object_set_new(o, "gate", json_string("lenient"));
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_PARSE);
    json_object_set_new(o, "gate", json_integer(1));
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_PARSE);
    kbv_clear_error();
    json_decref(o);
    free(r);
    /* the table */
    kbv_gate g = KBV_GATE_COUNT;
    assert_int_equal(kbv_gate_parse("text", &g), KBV_OK);
    assert_int_equal(g, KBV_GATE_TEXT);
    assert_int_equal(kbv_gate_parse("leaderboard", &g), KBV_OK);
    assert_int_equal(g, KBV_GATE_LEADERBOARD);
    assert_int_equal(kbv_gate_parse("Leaderboard", &g), KBV_ERR_PARSE);
    kbv_clear_error();
    assert_string_equal(kbv_gate_get(KBV_GATE_TEXT)->name, "text");
    assert_non_null(strstr(kbv_gate_get(KBV_GATE_LEADERBOARD)->help, "1e-4"));
}

/* "vendor_libs" is a list of the table's names in table order, [] for none;
 * a record without it was written when no run could allow them; an unknown
 * name is not a record this kbv can read. */
static void test_vendor_libs_in_records(void **state)
{
    (void)state;
    kbv_record *r = malloc(sizeof *r);
    assert_non_null(r);
    kbv_record_init(r);
    r->vendor_libs = 1u << KBV_VENDOR_CUDNN | 1u << KBV_VENDOR_CUBLAS;
    json_t *o = NULL;
    assert_int_equal(kbv_record_to_json(r, &o), KBV_OK);
    char *text = json_dumps(json_object_get(o, "vendor_libs"), JSON_COMPACT);
    assert_string_equal(text, "[\"cublas\",\"cudnn\"]");
    free(text);
    json_decref(o);
    r->vendor_libs = 0;
    assert_int_equal(kbv_record_to_json(r, &o), KBV_OK);
    assert_true(json_is_array(json_object_get(o, "vendor_libs")));
    assert_int_equal(json_array_size(json_object_get(o, "vendor_libs")), 0);
    json_decref(o);

    json_error_t err;
    o = json_loads("{\"schema\":1,\"model\":\"m\",\"problem\":\"L1/1\"}", 0, &err);
    r->vendor_libs = 5;
    assert_int_equal(kbv_record_from_json(o, r), KBV_OK);
    assert_int_equal(r->vendor_libs, 0);
    json_object_set_new(o, "vendor_libs", json_pack("[ss]", "cublasLt", "cudnn"));
    assert_int_equal(kbv_record_from_json(o, r), KBV_OK);
    assert_int_equal(r->vendor_libs, 1u << KBV_VENDOR_CUBLASLT | 1u << KBV_VENDOR_CUDNN);
    json_object_set_new(o, "vendor_libs", json_pack("[s]", "mkl"));
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_PARSE);
    json_object_set_new(o, "vendor_libs", json_pack("[s]", "all"));
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_PARSE);
    json_object_set_new(o, "vendor_libs", json_string("cublas"));
    assert_int_equal(kbv_record_from_json(o, r), KBV_ERR_PARSE);
    kbv_clear_error();
    json_decref(o);
    free(r);

    /* the table's words */
    unsigned m = 7;
    assert_int_equal(kbv_vendor_parse("none", &m), KBV_OK);
    assert_int_equal(m, 0);
    assert_int_equal(kbv_vendor_parse("all", &m), KBV_OK);
    assert_int_equal(m, KBV_VENDOR_ALL);
    assert_int_equal(kbv_vendor_parse("cudnn,cublas", &m), KBV_OK);
    assert_int_equal(m, 1u << KBV_VENDOR_CUBLAS | 1u << KBV_VENDOR_CUDNN);
    assert_int_equal(kbv_vendor_parse("cuBLAS", &m), KBV_ERR_PARSE);
    assert_int_equal(kbv_vendor_parse("", &m), KBV_ERR_PARSE);
    assert_int_equal(kbv_vendor_parse("cublas,", &m), KBV_ERR_PARSE);
    assert_int_equal(kbv_vendor_parse("cublas,,cudnn", &m), KBV_ERR_PARSE);
    kbv_clear_error();
    char buf[64];
    assert_string_equal(kbv_vendor_format(0, buf, sizeof buf), "none");
    assert_string_equal(kbv_vendor_format(KBV_VENDOR_ALL, buf, sizeof buf), "cublas,cublasLt,cudnn");
    assert_string_equal(kbv_vendor_titles(KBV_VENDOR_ALL, buf, sizeof buf),
                        "cuBLAS, cuBLASLt and cuDNN");
    assert_string_equal(kbv_vendor_titles(1u << KBV_VENDOR_CUDNN, buf, sizeof buf), "cuDNN");
    assert_int_equal(kbv_vendor_of_symbol("cublasLtMatmul"), KBV_VENDOR_CUBLASLT);
    assert_int_equal(kbv_vendor_of_symbol("cublasSgemm_v2"), KBV_VENDOR_CUBLAS);
    assert_int_equal(kbv_vendor_of_symbol("cudnnConvolutionForward"), KBV_VENDOR_CUDNN);
    assert_int_equal(kbv_vendor_of_symbol("cudaMalloc"), -1);
    assert_int_equal(kbv_vendor_of_needed("libcublasLt.so.13"), KBV_VENDOR_CUBLASLT);
    assert_int_equal(kbv_vendor_of_needed("libcublas.so.13"), KBV_VENDOR_CUBLAS);
    assert_int_equal(kbv_vendor_of_needed("libcudnn.so.9"), KBV_VENDOR_CUDNN);
    assert_int_equal(kbv_vendor_of_needed("libcudnn_ops.so.9"), -1);
    assert_int_equal(kbv_vendor_of_needed("libcudart.so.13"), -1);
}

static void test_utf8_and_log_cut(void **state)
{
    (void)state;
    char buf[16];
    /* invalid bytes become '?', a character is never cut */
    assert_int_equal(kbv_utf8_copy(buf, sizeof buf, "a\xff" "b", 10), 3);
    assert_string_equal(buf, "a?b");
    assert_int_equal(kbv_utf8_copy(buf, sizeof buf, "ab\xe2\x80\x98x", 4), 2);
    assert_string_equal(buf, "ab");
    assert_int_equal(kbv_utf8_copy(buf, 4, "ab\xe2\x80\x98", 10), 2);
    kbv_record *r = sample_record(0, "aa");
    char *log = malloc(10000);
    assert_non_null(log);
    memset(log, 'e', 9999);
    log[9999] = '\0';
    kbv_record_set_log(r, log);
    assert_true(strlen(r->compile.log) <= KBV_RECORD_LOG_CAP);
    assert_non_null(strstr(r->compile.log, "cut at 4 KiB"));
    /* a path that is not UTF-8 still makes a valid record */
    snprintf(r->file, sizeof r->file, "runs/mod\xe9le/level_1_problem_19_sample_0.c");
    json_t *o;
    assert_int_equal(kbv_record_to_json(r, &o), KBV_OK);
    assert_string_equal(json_string_value(json_object_get(o, "file")),
                        "runs/mod?le/level_1_problem_19_sample_0.c");
    json_decref(o);
    free(log);
    free(r);
}

static void test_file_sha256(void **state)
{
    (void)state;
    char path[300], hex[65];
    path_of("abc.txt", path, sizeof path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("abc", f);
    fclose(f);
    assert_int_equal(kbv_file_sha256(path, hex), KBV_OK);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    path_of("missing.c", path, sizeof path);
    assert_int_equal(kbv_file_sha256(path, hex), KBV_ERR_IO);
    kbv_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_phases_and_skipped_round_trip),
        cmocka_unit_test(test_resume_needs_the_protocols),
        cmocka_unit_test(test_resume_identity),
        cmocka_unit_test(test_torn_line_repaired),
        cmocka_unit_test(test_one_writer_at_a_time),
        cmocka_unit_test(test_foreign_file_is_refused_untouched),
        cmocka_unit_test(test_kbv_files_are_accepted),
        cmocka_unit_test(test_renamed_over_file_is_free),
        cmocka_unit_test(test_missing_file_is_empty),
        cmocka_unit_test(test_write_error_is_reported),
        cmocka_unit_test(test_unwritable_path),
        cmocka_unit_test(test_wrong_schema_rejected),
        cmocka_unit_test(test_gate_in_records),
        cmocka_unit_test(test_vendor_libs_in_records),
        cmocka_unit_test(test_utf8_and_log_cut),
        cmocka_unit_test(test_file_sha256),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
