/* Evaluation workers on the CPU: dynamic hand-out, one record per job back
 * to the parent, a worker that dies costing only its job (retried once), a
 * harness error reported, --gpus lists. The evaluate callback here writes a
 * record without running a candidate: what is tested is the machinery. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/workers.h"

#define N_JOBS 12
#define JOB_DIES_ONCE 3
#define JOB_ALWAYS_DIES 5
#define JOB_HARNESS_ERROR 7

static char root[256];

typedef struct fixture {
    int recorded[N_JOBS];           /* records received per job */
    int failed[N_JOBS];
    char why[N_JOBS][512];
    int recorder_pid_ok;            /* record() ran in the parent */
    pid_t parent;
    int worker_pids[N_JOBS];        /* which worker evaluated each job */
    char marker[300];
} fixture;

static int make_root(void **state)
{
    (void)state;
    snprintf(root, sizeof root, "/tmp/kbv_test_workers_XXXXXX");
    if (!mkdtemp(root))
        return -1;
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", root);
    setenv("KBV_CACHE_DIR", cache, 1);
    snprintf(cache, sizeof cache, "%s/secret", root);
    setenv("KBV_SECRET_FILE", cache, 1);   /* the workers' baseline caches: not the user's key */
    return 0;
}

static int remove_root(void **state)
{
    (void)state;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs in a worker. */
static kbv_status fake_evaluate(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache, int job,
                                kbv_record *rec)
{
    fixture *fx = ctx;
    (void)cache;
    if (job == JOB_DIES_ONCE && access(fx->marker, F_OK) != 0) {
        FILE *f = fopen(fx->marker, "w");
        if (f)
            fclose(f);
        raise(SIGKILL);
    }
    if (job == JOB_ALWAYS_DIES)
        raise(SIGKILL);
    if (job == JOB_HARNESS_ERROR)
        return kbv_fail(KBV_ERR_IO, "the disk is on fire (job %d)", job);
    kbv_record_init(rec);
    snprintf(rec->model, sizeof rec->model, "worker-%d", (int)getpid());
    snprintf(rec->problem, sizeof rec->problem, "L1/%d", job + 1);
    snprintf(rec->device, sizeof rec->device, "%s", ev->device_name);
    snprintf(rec->size, sizeof rec->size, "small");
    rec->sample = job;
    rec->proto[KBV_PROTO_STRICT].correct = job % 2 == 0;
    return KBV_OK;
}

/* Runs in the parent. */
static kbv_status fake_record(void *ctx, int job, int device, const kbv_record *rec,
                              double seconds)
{
    fixture *fx = ctx;
    if (getpid() == fx->parent)
        fx->recorder_pid_ok++;
    if (job < 0 || job >= N_JOBS || rec->sample != job || seconds < 0)
        return kbv_fail(KBV_ERR_INVALID, "record of job %d is sample %d", job, rec->sample);
    if (device != -1)   /* every worker here is on the CPU */
        return kbv_fail(KBV_ERR_INVALID, "record of job %d from device %d", job, device);
    fx->recorded[job]++;
    fx->worker_pids[job] = atoi(rec->model + strlen("worker-"));
    if (rec->proto[KBV_PROTO_STRICT].correct != (job % 2 == 0))
        return kbv_fail(KBV_ERR_INVALID, "record of job %d lost its verdict", job);
    return KBV_OK;
}

static void fake_failed(void *ctx, int job, const char *why)
{
    fixture *fx = ctx;
    if (job >= 0 && job < N_JOBS) {
        fx->failed[job]++;
        snprintf(fx->why[job], sizeof fx->why[job], "%s", why);
    }
}

static const char *fake_describe(void *ctx, int job)
{
    (void)ctx;
    static char buf[32];
    snprintf(buf, sizeof buf, "job %d", job);
    return buf;
}

static void run_pool(int n_workers, fixture *fx, kbv_workers_stats *stats, kbv_status want)
{
    int devices[4] = {-1, -1, -1, -1};
    int jobs[N_JOBS];
    for (int j = 0; j < N_JOBS; j++)
        jobs[j] = j;
    kbv_workers_opts o = {.n = n_workers, .devices = devices,
                          .eval = {.device = -1, .size = KBV_SIZE_SMALL}, .device_name = "cpu"};
    kbv_worker_ops ops = {.evaluate = fake_evaluate, .record = fake_record,
                          .failed = fake_failed, .describe = fake_describe, .ctx = fx};
    kbv_status st = kbv_workers_run(&o, jobs, N_JOBS, &ops, stats);
    if (st != want)
        fprintf(stderr, "%s\n", kbv_last_error());
    assert_int_equal(st, want);
    kbv_clear_error();
}

static void test_every_job_once(void **state)
{
    (void)state;
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    fx->parent = getpid();
    snprintf(fx->marker, sizeof fx->marker, "%s/died-once", root);
    kbv_workers_stats stats;
    run_pool(3, fx, &stats, KBV_OK);
    for (int j = 0; j < N_JOBS; j++) {
        if (j == JOB_ALWAYS_DIES || j == JOB_HARNESS_ERROR) {
            assert_int_equal(fx->recorded[j], 0);
            assert_int_equal(fx->failed[j], 1);
        } else {
            assert_int_equal(fx->recorded[j], 1);
            assert_int_equal(fx->failed[j], 0);
            assert_true(fx->worker_pids[j] > 0 && fx->worker_pids[j] != (int)fx->parent);
        }
    }
    /* the job whose worker died once was done by another worker */
    assert_int_equal(access(fx->marker, F_OK), 0);
    assert_non_null(strstr(fx->why[JOB_ALWAYS_DIES], "died twice"));
    assert_non_null(strstr(fx->why[JOB_ALWAYS_DIES], "signal 9"));
    assert_non_null(strstr(fx->why[JOB_HARNESS_ERROR], "the disk is on fire (job 7)"));
    assert_int_equal(fx->recorder_pid_ok, N_JOBS - 2);
    assert_int_equal(stats.deaths, 3);
    assert_int_equal(stats.retried, 2);
    assert_int_equal(stats.started, 3 + 3);  /* a replacement per death */
    /* the work was spread: more than one worker process recorded jobs */
    int distinct = 0;
    for (int j = 0; j < N_JOBS; j++) {
        bool seen = false;
        for (int k = 0; k < j; k++)
            seen |= fx->worker_pids[k] == fx->worker_pids[j];
        distinct += fx->worker_pids[j] > 0 && !seen;
    }
    assert_true(distinct >= 2);
    free(fx);
}

static void test_record_error_stops(void **state)
{
    (void)state;
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    /* job 1000 is outside the fixture: record() refuses it, and the run
     * stops there with that error, job 1 never recorded */
    int devices[1] = {-1};
    int jobs[2] = {1000, 1};
    kbv_workers_opts o = {.n = 1, .devices = devices,
                          .eval = {.device = -1, .size = KBV_SIZE_SMALL}, .device_name = "cpu"};
    kbv_worker_ops ops = {.evaluate = fake_evaluate, .record = fake_record,
                          .failed = fake_failed, .describe = fake_describe, .ctx = fx};
    kbv_workers_stats stats;
    assert_int_equal(kbv_workers_run(&o, jobs, 2, &ops, &stats), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "record of job 1000"));
    kbv_clear_error();
    assert_int_equal(fx->recorded[1], 0);
    free(fx);
}

static void test_wrong_device_name(void **state)
{
    (void)state;
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    int devices[2] = {-1, -1};
    int jobs[1] = {0};
    kbv_workers_opts o = {.n = 2, .devices = devices,
                          .eval = {.device = -1, .size = KBV_SIZE_SMALL},
                          .device_name = "NVIDIA H200 / CUDA 13.0"};
    kbv_worker_ops ops = {.evaluate = fake_evaluate, .record = fake_record,
                          .failed = fake_failed, .describe = fake_describe, .ctx = fx};
    kbv_workers_stats stats;
    assert_int_equal(kbv_workers_run(&o, jobs, 1, &ops, &stats), KBV_ERR_CHILD);
    assert_non_null(strstr(kbv_last_error(), "no worker could start"));
    kbv_clear_error();
    assert_int_equal(fx->recorded[0], 0);
    free(fx);
}

/* Runs in a worker: fails when it still holds the parent's results file. */
static kbv_status evaluate_without_results(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache,
                                           int job, kbv_record *rec)
{
    const struct stat *results = ctx;
    (void)cache;
    for (int fd = 0; fd < 1024; fd++) {
        struct stat sb;
        if (fstat(fd, &sb) == 0 && sb.st_dev == results->st_dev && sb.st_ino == results->st_ino)
            return kbv_fail(KBV_ERR_INVALID, "worker %d holds the results file as fd %d",
                            (int)getpid(), fd);
    }
    kbv_record_init(rec);
    snprintf(rec->model, sizeof rec->model, "m");
    snprintf(rec->device, sizeof rec->device, "%s", ev->device_name);
    rec->sample = job;
    return KBV_OK;
}

static kbv_status accept_record(void *ctx, int job, int device, const kbv_record *rec,
                                double seconds)
{
    (void)ctx;
    (void)job;
    (void)device;
    (void)rec;
    (void)seconds;
    return KBV_OK;
}

static void note_failure(void *ctx, int job, const char *why)
{
    (void)ctx;
    fail_msg("job %d: %s", job, why);
}

/* Only the parent writes the results file: workers close the descriptor
 * they inherit (the parent's lock stays). */
static void test_workers_do_not_hold_the_results_file(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "%s/results.jsonl", root);
    kbv_results res;
    assert_int_equal(kbv_results_open(path, &res), KBV_OK);
    struct stat sb;
    assert_int_equal(fstat(res.fd, &sb), 0);
    int devices[2] = {-1, -1};
    int jobs[2] = {0, 1};
    kbv_workers_opts o = {.n = 2, .devices = devices,
                          .eval = {.device = -1, .size = KBV_SIZE_SMALL}, .device_name = "cpu",
                          .results = &res};
    kbv_worker_ops ops = {.evaluate = evaluate_without_results, .record = accept_record,
                          .failed = note_failure, .describe = fake_describe, .ctx = &sb};
    kbv_workers_stats stats;
    assert_int_equal(kbv_workers_run(&o, jobs, 2, &ops, &stats), KBV_OK);
    kbv_results other;   /* still the parent's */
    assert_int_equal(kbv_results_open(path, &other), KBV_ERR_IO);
    assert_non_null(strstr(kbv_last_message(), "in use by another kbv process"));
    kbv_clear_error();
    kbv_results_close(&res);
}

static void test_gpu_list(void **state)
{
    (void)state;
    int d[8], n;
    assert_int_equal(kbv_gpu_list_parse("0,1", 2, d, 8, &n), KBV_OK);
    assert_int_equal(n, 2);
    assert_int_equal(d[0], 0);
    assert_int_equal(d[1], 1);
    assert_int_equal(kbv_gpu_list_parse("3,1", 4, d, 8, &n), KBV_OK);
    assert_int_equal(d[0], 3);
    assert_int_equal(d[1], 1);
    assert_int_equal(kbv_gpu_list_parse("2", 2, d, 8, &n), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "there is no GPU 2"));
    assert_int_equal(kbv_gpu_list_parse("0,0", 2, d, 8, &n), KBV_ERR_INVALID);
    assert_int_equal(kbv_gpu_list_parse("0,1,2", 3, d, 2, &n), KBV_ERR_INVALID);
    const char *bad[] = {"", "a", "0,", ",0", "0;1", "-1", "0, 1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(kbv_gpu_list_parse(bad[i], 4, d, 8, &n), KBV_ERR_PARSE);
    kbv_clear_error();
}

static void test_probe_cpu(void **state)
{
    (void)state;
    kbv_device_probe *p = malloc(sizeof *p);
    assert_non_null(p);
    assert_int_equal(kbv_devices_probe("cpu", NULL, p), KBV_OK);
    assert_int_equal(p->opts.device, -1);
    assert_int_equal(p->opts.size, KBV_SIZE_SMALL);
    assert_int_equal(p->n_gpus, 0);
    assert_string_equal(p->cpu_name, "cpu");
    /* the same answer through the probe child */
    assert_int_equal(kbv_devices_probe(NULL, "full", p), KBV_OK);
    assert_string_equal(p->cpu_name, "cpu");
    assert_int_equal(p->opts.size, KBV_SIZE_FULL);
#ifndef KBV_HAVE_CUDA
    assert_int_equal(p->opts.device, -1);
    assert_int_equal(kbv_devices_probe("cuda", NULL, p), KBV_ERR_UNSUPPORTED);
    assert_non_null(strstr(kbv_last_error(), "no usable GPU"));
#endif
    kbv_clear_error();
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_job_once),
        cmocka_unit_test(test_record_error_stops),
        cmocka_unit_test(test_wrong_device_name),
        cmocka_unit_test(test_workers_do_not_hold_the_results_file),
        cmocka_unit_test(test_gpu_list),
        cmocka_unit_test(test_probe_cpu),
    };
    return cmocka_run_group_tests(tests, make_root, remove_root);
}
