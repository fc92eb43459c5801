/* The generation loop: for every (problem, sample) not done yet, ask the
 * model once (with retries), extract the candidate and write it into the
 * run directory. Workers share a job queue; files are written atomically;
 * a rerun skips every sample whose candidate or failure record exists.
 *
 * Per sample, in the run directory (S = sample, ext = cu or c):
 *   level_L_problem_P_sample_S.ext            the extracted candidate
 *   level_L_problem_P_sample_S.response.json  the raw answer, token usage, attempts
 *   level_L_problem_P_sample_S.failed.json    an answer with no usable code, and why
 * A request that still fails after its retries (transport, HTTP errors) is
 * an error: reported, not recorded, so the next run asks again. */
#ifndef KBV_GEN_GENERATE_H
#define KBV_GEN_GENERATE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"
#include "gen/chat.h"
#include "gen/prompt.h"
#include "graph/problem.h"

/* The paper's generation runs: 5 samples per problem at temperature 0.8,
 * 32k answer tokens, 4 requests in flight, the system prompt its client
 * sent. */
#define KBV_GEN_DEFAULT_SAMPLES 5
#define KBV_GEN_DEFAULT_TEMPERATURE 0.8
#define KBV_GEN_DEFAULT_MAX_TOKENS 32000
#define KBV_GEN_DEFAULT_CONCURRENCY 4
#define KBV_GEN_DEFAULT_SYSTEM "You are a helpful assistant"

typedef struct kbv_gen_config {
    kbv_api api;                    /* the wire format */
    const char *model;              /* sent as "model" */
    const char *url;                /* the request URL (kbv_chat_url) */
    const char *api_key;            /* NULL for none. Never written anywhere. */
    const char *system;             /* the system prompt; NULL or "": none */
    int samples;                    /* samples 0 .. samples-1 per problem */
    double temperature;             /* < 0: not sent */
    long max_tokens;                /* 0: not sent (OpenAI only) */
    const char *max_tokens_field;   /* OpenAI: "max_tokens" */
    const char *out_dir;
    int concurrency;                /* requests in flight */
    double timeout_s;               /* per request */
    int retries;                    /* extra attempts after the first */
    double backoff_s;               /* first retry delay; doubles each time, with jitter */
    kbv_prompt_options prompt;      /* .cpu also picks .c over .cu */
    FILE *progress;                 /* one line per finished sample; NULL: quiet */
} kbv_gen_config;

typedef struct kbv_gen_summary {
    int ok;                         /* candidates written */
    int failed;                     /* answers without usable code: .failed.json */
    int skipped;                    /* done by an earlier run */
    int errors;                     /* no answer after the retries: nothing written */
    int requests;                   /* HTTP attempts */
    long long prompt_tokens, completion_tokens;
} kbv_gen_summary;

/* Longest Retry-After honoured, and the cap on computed backoff delays. */
#define KBV_GEN_MAX_RETRY_AFTER_S 600.0
#define KBV_GEN_MAX_BACKOFF_S 120.0

/* Runs every job of problems x samples. KBV_OK when the loop ran, even if
 * some samples failed or erred (see *summary); a failure here means the run
 * could not proceed (bad configuration, unwritable directory, rejected key). */
kbv_status kbv_generate(const kbv_gen_config *cfg, const kbv_problem *const *problems,
                        int n_problems, kbv_gen_summary *summary);

/* The delay before retry `attempt` (0 for the first retry): backoff_s * 2^attempt
 * capped at KBV_GEN_MAX_BACKOFF_S, times a jitter factor u in [0.5, 1], and
 * never less than a Retry-After the server sent (retry_after_s >= 0). */
double kbv_gen_backoff_delay(double backoff_s, int attempt, double retry_after_s, double u);

#endif
