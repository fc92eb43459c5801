/* The generation loop (see generate.h): a fixed pool of worker threads
 * takes (problem, sample) jobs from one queue; each job is one request with
 * retries, then the files it produced. */
#include "gen/generate.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/vendor_libs.h"
#include "gen/atomic_file.h"
#include "gen/chat.h"
#include "gen/extract.h"
#include "gen/http.h"

typedef struct gen_job {
    int problem;  /* index into the problem list */
    int sample;
} gen_job;

typedef struct gen_run {
    const kbv_gen_config *cfg;
    const kbv_problem_def *const *problems;
    char **prompts;              /* per problem; NULL when all its samples are done */
    gen_job *jobs;               /* the samples still to do */
    int n_jobs, next, finished;
    pthread_mutex_t lock;        /* guards next, finished, summary, stop, progress output */
    kbv_gen_summary summary;
    char shown_url[2048];        /* the URL without its query, for records and messages */
    bool stop;                   /* a rejected key or an unwritable directory: send no more */
    char stop_reason[384];
} gen_run;

typedef enum outcome_kind { OUTCOME_OK, OUTCOME_FAILED, OUTCOME_ERROR } outcome_kind;

typedef struct outcome {
    outcome_kind kind;
    int attempts;
    double elapsed_s;
    long long prompt_tokens, completion_tokens;
    char detail[512];            /* why it failed or erred */
} outcome;

static void sleep_s(double s)
{
    if (!(s > 0))
        return;
    struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* splitmix64: each worker's own jitter stream, no shared state. */
static double uniform01(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

double kbv_gen_backoff_delay(double backoff_s, int attempt, double retry_after_s, double u)
{
    double d = backoff_s * ldexp(1.0, attempt < 30 ? attempt : 30);
    if (d > KBV_GEN_MAX_BACKOFF_S)
        d = KBV_GEN_MAX_BACKOFF_S;
    d *= 0.5 + 0.5 * u;  /* jitter: workers hit by one 429 do not come back together */
    if (retry_after_s >= 0) {
        double ra = retry_after_s < KBV_GEN_MAX_RETRY_AFTER_S ? retry_after_s
                                                              : KBV_GEN_MAX_RETRY_AFTER_S;
        if (d < ra)
            d = ra;
    }
    return d;
}

/* The first line of the current error's message (a record's detail). */
static void last_error_message(char *buf, size_t cap)
{
    const char *e = kbv_last_message();
    snprintf(buf, cap, "%.*s", (int)strcspn(e, "\n"), e);
}

static void stop_run(gen_run *run, const char *why)
{
    pthread_mutex_lock(&run->lock);
    if (!run->stop) {
        run->stop = true;
        snprintf(run->stop_reason, sizeof run->stop_reason, "%.*s",
                 (int)sizeof run->stop_reason - 1, why);
    }
    pthread_mutex_unlock(&run->lock);
}

static bool stopped(gen_run *run, char *why, size_t cap)
{
    pthread_mutex_lock(&run->lock);
    bool s = run->stop;
    if (s)
        snprintf(why, cap, "%s", run->stop_reason);
    pthread_mutex_unlock(&run->lock);
    return s;
}

static kbv_status sample_path(const kbv_gen_config *cfg, const kbv_problem_def *def, int sample,
                              const char *suffix, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%s/level_%d_problem_%d_sample_%d%s", cfg->out_dir, def->level,
                     def->id, sample, suffix);
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "output path too long under %s", cfg->out_dir);
    return KBV_OK;
}

static const char *candidate_suffix(const kbv_gen_config *cfg)
{
    if (cfg->prompt.kernelbench)
        return "_kernel.py";   /* KernelBench's own name for its format */
    return cfg->prompt.cpu ? ".c" : ".cu";
}

/* Done by an earlier run: its candidate or its failure record exists. */
static bool sample_done(const kbv_gen_config *cfg, const kbv_problem_def *def, int sample)
{
    char path[4096];
    if (sample_path(cfg, def, sample, candidate_suffix(cfg), path, sizeof path) == KBV_OK &&
        kbv_file_exists(path))
        return true;
    return sample_path(cfg, def, sample, ".failed.json", path, sizeof path) == KBV_OK &&
           kbv_file_exists(path);
}

static kbv_status write_json(const char *path, json_t *obj)
{
    char *text = json_dumps(obj, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15));
    if (!text)
        return kbv_fail(KBV_ERR_NOMEM, "serialising %s", path);
    size_t len = strlen(text);
    kbv_status st = KBV_OK;
    char *with_newline = realloc(text, len + 2);
    if (!with_newline) {
        free(text);
        return kbv_fail(KBV_ERR_NOMEM, "serialising %s", path);
    }
    with_newline[len] = '\n';
    with_newline[len + 1] = '\0';
    KBV_TRY_GOTO(kbv_write_file_atomic(path, with_newline, len + 1), st, done);
done:
    free(with_newline);
    return st;
}

/* The fields every record of a sample starts with. */
static json_t *sample_record(const gen_run *run, const gen_job *job)
{
    const kbv_gen_config *cfg = run->cfg;
    const kbv_problem_def *def = run->problems[job->problem];
    char key[32];
    kbv_problem_key(def, key, sizeof key);
    /* the vendor libraries the prompt allowed, as results records list them */
    json_t *libs = json_array();
    for (int l = 0; libs && l < KBV_VENDOR_COUNT; l++)
        if (cfg->prompt.vendor_libs >> l & 1u)
            json_array_append_new(libs, json_string(kbv_vendor_get((kbv_vendor_lib)l)->name));
    return json_pack("{s:s, s:s, s:i, s:i, s:i, s:s, s:s, s:s, s:s, s:s, s:b, s:o*, s:s}",
                     "problem", key, "name", def->name, "level", def->level, "problem_id", def->id,
                     "sample", job->sample, "model", cfg->model, "api", kbv_api_name(cfg->api),
                     "url", run->shown_url, "target",
                     cfg->prompt.kernelbench ? "kernelbench" : cfg->prompt.cpu ? "cpu" : "cuda",
                     "template", kbv_prompt_template_label(&cfg->prompt), "input_blind",
                     kbv_prompt_is_input_blind(def, &cfg->prompt), "vendor_libs", libs,
                     "precision", cfg->prompt.precision ? cfg->prompt.precision : "fp32");
}

/* Writes what one answer produced and classifies it. */
static kbv_status record_answer(gen_run *run, const gen_job *job, const kbv_chat_answer *ans,
                                outcome *o)
{
    const kbv_gen_config *cfg = run->cfg;
    const kbv_problem_def *def = run->problems[job->problem];
    kbv_status st = KBV_OK;
    kbv_extract_result ex = {0};
    json_t *resp = NULL, *failed = NULL;
    char path[4096], response_name[256];

    if (ans->content)
        KBV_TRY_GOTO(kbv_extract_code_kind(ans->content,
                                           cfg->prompt.kernelbench ? KBV_EXTRACT_KERNELBENCH
                                                                   : KBV_EXTRACT_CANDIDATE,
                                           &ex),
                     st, done);
    else
        snprintf(ex.reason, sizeof ex.reason, "the answer has no text");
    bool cut = ans->truncated;
    if (ex.code && ex.unclosed && cut) {
        /* the code block itself was cut off: it cannot be whole */
        kbv_extract_result_free(&ex);
        snprintf(ex.reason, sizeof ex.reason, "the answer was cut at the token limit inside its "
                                              "code block");
    } else if (!ex.code && cut) {
        size_t n = strlen(ex.reason);
        snprintf(ex.reason + n, sizeof ex.reason - n, " (cut at the token limit)");
    }

    resp = sample_record(run, job);
    json_t *extracted = ex.code ? json_pack("{s:i, s:i, s:s, s:b}", "blocks", ex.n_blocks,
                                            "defining", ex.n_defining, "language", ex.language,
                                            "unclosed", ex.unclosed)
                                : json_pack("{s:i, s:i, s:s}", "blocks", ex.n_blocks, "defining",
                                            ex.n_defining, "failure", ex.reason);
    if (!resp || json_object_set_new(resp, "extracted", extracted) ||
        json_object_set_new(resp, "system",
                            cfg->system && *cfg->system ? json_string(cfg->system)
                                                        : json_null()) ||
        json_object_set_new(resp, "temperature",
                            cfg->temperature >= 0 ? json_real(cfg->temperature) : json_null()) ||
        json_object_set_new(resp, "max_tokens",
                            cfg->max_tokens > 0 ? json_integer(cfg->max_tokens) : json_null()) ||
        json_object_set_new(resp, "attempts", json_integer(o->attempts)) ||
        json_object_set_new(resp, "elapsed_s", json_real(round(o->elapsed_s * 1000) / 1000)) ||
        json_object_set_new(resp, "finish_reason", json_string(ans->finish_reason)) ||
        json_object_set(resp, "usage", ans->usage ? ans->usage : json_null()) ||
        json_object_set_new(resp, "content",
                            ans->content ? json_string(ans->content) : json_null()) ||
        json_object_set(resp, "response", ans->response)) {
        if (!resp)
            json_decref(extracted);
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "building the response record");
    }
    KBV_TRY_GOTO(sample_path(cfg, def, job->sample, ".response.json", path, sizeof path), st, done);
    KBV_TRY_GOTO(write_json(path, resp), st, done);
    snprintf(response_name, sizeof response_name, "level_%d_problem_%d_sample_%d.response.json",
             def->level, def->id, job->sample);

    if (ex.code) {
        /* written last: its existence marks the sample done */
        KBV_TRY_GOTO(sample_path(cfg, def, job->sample, candidate_suffix(cfg), path, sizeof path),
                     st, done);
        KBV_TRY_GOTO(kbv_write_file_atomic(path, ex.code, strlen(ex.code)), st, done);
        o->kind = OUTCOME_OK;
        goto done;
    }
    failed = sample_record(run, job);
    if (!failed || json_object_set_new(failed, "reason", json_string(ex.reason)) ||
        json_object_set_new(failed, "finish_reason", json_string(ans->finish_reason)) ||
        json_object_set(failed, "usage", ans->usage ? ans->usage : json_null()) ||
        json_object_set_new(failed, "response_file", json_string(response_name)))
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "building the failure record");
    KBV_TRY_GOTO(sample_path(cfg, def, job->sample, ".failed.json", path, sizeof path), st, done);
    KBV_TRY_GOTO(write_json(path, failed), st, done);
    o->kind = OUTCOME_FAILED;
    snprintf(o->detail, sizeof o->detail, "%s", ex.reason);
done:
    json_decref(resp);
    json_decref(failed);
    kbv_extract_result_free(&ex);
    return st;
}

static bool retryable_status(long status)
{
    return status == 408 || status == 409 || status == 425 || status == 429 || status >= 500;
}

/* One sample: the request with its retries, then its files. */
static void run_job(gen_run *run, const gen_job *job, uint64_t *rng, outcome *o)
{
    const kbv_gen_config *cfg = run->cfg;
    memset(o, 0, sizeof *o);
    o->kind = OUTCOME_ERROR;
    char *body = NULL;
    kbv_chat_answer ans = {0};
    bool answered = false;
    double t0 = kbv_monotonic_s();
    kbv_chat_request req = {
        .api = cfg->api,
        .model = cfg->model,
        .system = cfg->system,
        .prompt = run->prompts[job->problem],
        .temperature = cfg->temperature,
        .max_tokens = cfg->max_tokens,
        .max_tokens_field = cfg->max_tokens_field,
    };
    if (kbv_chat_request_json(&req, &body) != KBV_OK) {
        last_error_message(o->detail, sizeof o->detail);
        goto done;
    }
    for (int attempt = 0; !answered; attempt++) {
        char why[384];
        if (stopped(run, why, sizeof why)) {
            snprintf(o->detail, sizeof o->detail, "not sent: %s", why);
            goto done;
        }
        kbv_http_response resp;
        double retry_after = -1;
        bool retry = false;
        o->attempts++;
        pthread_mutex_lock(&run->lock);
        run->summary.requests++;
        pthread_mutex_unlock(&run->lock);

        kbv_http_request http = {
            .url = cfg->url,
            .body = body,
            .headers = kbv_chat_headers(cfg->api),
            .key_header = kbv_chat_key_header(cfg->api),
            .key = cfg->api_key,
            .timeout_s = cfg->timeout_s,
        };
        kbv_status st = kbv_http_post_json(&http, &resp);
        if (st != KBV_OK) {
            retry = st == KBV_ERR_TIMEOUT || st == KBV_ERR_IO;
            last_error_message(o->detail, sizeof o->detail);
        } else if (resp.status >= 200 && resp.status < 300) {
            /* a garbled 2xx is a server or proxy fault, worth another try */
            answered = kbv_chat_parse_answer(cfg->api, resp.body, resp.body_len, &ans) == KBV_OK;
            retry = !answered;
            if (!answered)
                last_error_message(o->detail, sizeof o->detail);
        } else {
            char msg[224];
            kbv_chat_error_summary(resp.body, msg, sizeof msg);
            snprintf(o->detail, sizeof o->detail, "HTTP %ld: %s", resp.status, msg);
            retry = retryable_status(resp.status);
            retry_after = resp.retry_after_s;
            if (resp.status == 401 || resp.status == 403)
                stop_run(run, o->detail);  /* every other request would be refused too */
        }
        kbv_http_response_free(&resp);
        if (answered)
            break;
        if (!retry || attempt >= cfg->retries)
            goto done;
        sleep_s(kbv_gen_backoff_delay(cfg->backoff_s, attempt, retry_after, uniform01(rng)));
    }
    o->elapsed_s = kbv_monotonic_s() - t0;
    o->prompt_tokens = ans.prompt_tokens;
    o->completion_tokens = ans.completion_tokens;
    o->detail[0] = '\0';
    if (record_answer(run, job, &ans, o) != KBV_OK) {
        o->kind = OUTCOME_ERROR;
        last_error_message(o->detail, sizeof o->detail);
        stop_run(run, o->detail);  /* an unwritable run directory fails every job */
    }
done:
    o->elapsed_s = kbv_monotonic_s() - t0;
    kbv_chat_answer_free(&ans);
    free(body);
}

static void report(gen_run *run, const gen_job *job, const outcome *o)
{
    const kbv_problem_def *def = run->problems[job->problem];
    kbv_gen_summary *s = &run->summary;
    pthread_mutex_lock(&run->lock);
    run->finished++;
    s->prompt_tokens += o->prompt_tokens;
    s->completion_tokens += o->completion_tokens;
    const char *what = "ok";
    switch (o->kind) {
    case OUTCOME_OK: s->ok++; break;
    case OUTCOME_FAILED: s->failed++; what = "failed"; break;
    case OUTCOME_ERROR: s->errors++; what = "error"; break;
    }
    if (run->cfg->progress) {
        fprintf(run->cfg->progress, "[%d/%d] L%d/%d sample %d: %s", run->finished, run->n_jobs,
                def->level, def->id, job->sample, what);
        if (o->detail[0])
            fprintf(run->cfg->progress, ": %s", o->detail);
        fprintf(run->cfg->progress, " (%d attempt%s, %lld+%lld tokens, %.1f s)%s\n", o->attempts,
                o->attempts == 1 ? "" : "s", o->prompt_tokens, o->completion_tokens,
                o->elapsed_s, o->kind == OUTCOME_ERROR ? "; not recorded, a rerun retries it" : "");
        fflush(run->cfg->progress);
    }
    pthread_mutex_unlock(&run->lock);
}

typedef struct worker_arg {
    gen_run *run;
    uint64_t seed;
} worker_arg;

static void *worker(void *p)
{
    worker_arg *arg = p;
    gen_run *run = arg->run;
    uint64_t rng = arg->seed;
    for (;;) {
        pthread_mutex_lock(&run->lock);
        int i = !run->stop && run->next < run->n_jobs ? run->next++ : -1;
        pthread_mutex_unlock(&run->lock);
        if (i < 0)
            break;
        outcome o;
        run_job(run, &run->jobs[i], &rng, &o);
        report(run, &run->jobs[i], &o);
    }
    return NULL;
}

static kbv_status check_config(const kbv_gen_config *cfg)
{
    if (!cfg->model || !*cfg->model || !cfg->url || !cfg->out_dir)
        return kbv_fail(KBV_ERR_INVALID, "generate: model, URL and output directory needed");
    if (cfg->samples < 1 || cfg->concurrency < 1 || cfg->retries < 0 || !(cfg->timeout_s > 0) ||
        cfg->backoff_s < 0 || cfg->max_tokens < 0)
        return kbv_fail(KBV_ERR_INVALID, "generate: samples and concurrency must be >= 1, "
                                         "retries, backoff and max tokens >= 0, timeout > 0");
    return KBV_OK;
}

/* Plans the jobs not done yet and builds the prompts they need. */
static kbv_status plan(gen_run *run, int n_problems)
{
    const kbv_gen_config *cfg = run->cfg;
    if (!(run->jobs = calloc((size_t)n_problems * (size_t)cfg->samples, sizeof *run->jobs)) ||
        !(run->prompts = calloc((size_t)n_problems, sizeof *run->prompts)))
        return kbv_fail(KBV_ERR_NOMEM, "generate: job list");
    for (int p = 0; p < n_problems; p++) {
        for (int s = 0; s < cfg->samples; s++) {
            if (sample_done(cfg, run->problems[p], s)) {
                run->summary.skipped++;
                continue;
            }
            run->jobs[run->n_jobs++] = (gen_job){p, s};
            if (!run->prompts[p])
                KBV_TRY(kbv_prompt_build(run->problems[p], &cfg->prompt, &run->prompts[p]));
        }
    }
    return KBV_OK;
}

kbv_status kbv_generate(const kbv_gen_config *cfg, const kbv_problem_def *const *problems,
                        int n_problems, kbv_gen_summary *summary)
{
    if (!cfg || !problems || n_problems < 1 || !summary)
        return kbv_fail(KBV_ERR_INVALID, "generate: no problems");
    memset(summary, 0, sizeof *summary);
    KBV_TRY(check_config(cfg));
    KBV_TRY(kbv_make_dirs(cfg->out_dir));

    kbv_status st = KBV_OK;
    gen_run run = {.cfg = cfg, .problems = problems};
    /* a query string may carry credentials: it is sent, never shown */
    snprintf(run.shown_url, sizeof run.shown_url, "%.*s", (int)strcspn(cfg->url, "?"), cfg->url);
    pthread_t *threads = NULL;
    worker_arg *args = NULL;
    int started = 0;
    bool http_ready = false, lock_ready = false;
    KBV_TRY_GOTO(plan(&run, n_problems), st, done);
    if (cfg->progress) {
        fprintf(cfg->progress,
                "generate: %d problem%s x %d sample%s: %d done already, %d to request from %s "
                "(%s API, model %s, %d at a time)\n",
                n_problems, n_problems == 1 ? "" : "s", cfg->samples, cfg->samples == 1 ? "" : "s",
                run.summary.skipped, run.n_jobs, run.shown_url, kbv_api_name(cfg->api),
                cfg->model, cfg->concurrency);
        fflush(cfg->progress);
    }
    if (run.n_jobs == 0)
        goto done;

    KBV_TRY_GOTO(kbv_http_global_init(), st, done);
    http_ready = true;
    if (pthread_mutex_init(&run.lock, NULL) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "generate: mutex");
    lock_ready = true;
    int n_threads = cfg->concurrency < run.n_jobs ? cfg->concurrency : run.n_jobs;
    threads = calloc((size_t)n_threads, sizeof *threads);
    args = calloc((size_t)n_threads, sizeof *args);
    if (!threads || !args)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "generate: threads");
    uint64_t seed = (uint64_t)time(NULL) ^ ((uint64_t)(kbv_monotonic_s() * 1e9) << 17);
    for (; started < n_threads; started++) {
        args[started] = (worker_arg){&run, seed + 0x632BE59BD9B4E019ull * (uint64_t)(started + 1)};
        int rc = pthread_create(&threads[started], NULL, worker, &args[started]);
        if (rc != 0) {
            /* the workers already running drain the queue */
            if (started == 0)
                KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "generate: cannot start a thread: %s",
                              strerror(rc));
            break;
        }
    }
done:
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    if (st == KBV_OK && run.stop) {
        /* the jobs no worker took are errors too: nothing was sent for them */
        run.summary.errors += run.n_jobs - run.next;
        st = kbv_fail(KBV_ERR_IO, "stopped early, %d sample%s not requested: %s",
                      run.n_jobs - run.next, run.n_jobs - run.next == 1 ? "" : "s",
                      run.stop_reason);
    }
    *summary = run.summary;
    if (lock_ready)
        pthread_mutex_destroy(&run.lock);
    if (http_ready)
        kbv_http_global_cleanup();
    if (run.prompts)
        for (int p = 0; p < n_problems; p++)
            free(run.prompts[p]);
    free(run.prompts);
    free(run.jobs);
    free(threads);
    free(args);
    return st;
}
