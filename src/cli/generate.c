/* kbv generate: ask a model behind an OpenAI-compatible endpoint for
 * candidates and write them into a run directory (docs/GENERATE.md). */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "eval/runset.h"
#include "gen/chat.h"
#include "gen/generate.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv generate --model NAME --endpoint URL --problems SEL [options]\n\n"
            "Asks the model for SAMPLES candidates per problem through an OpenAI-compatible\n"
            "chat-completions endpoint, one single-turn prompt each (kbv prompt shows it), and\n"
            "writes level_L_problem_P_sample_S.cu (.c with --cpu) into the run directory, with\n"
            "the raw answer and token usage in .response.json beside it. An answer without\n"
            "usable code is a failed sample, recorded as .failed.json. A rerun skips every\n"
            "sample whose candidate or failure record exists. docs/GENERATE.md has the details.\n\n"
            "  --model NAME          the model, sent as \"model\"\n"
            "  --endpoint URL        http://host:port gets /v1/chat/completions appended; a URL\n"
            "                        with a path (.../v1) gets /chat/completions; a URL ending\n"
            "                        in /chat/completions is used as it is\n"
            "  --problems SEL        L1/1-32, L1/19,L1/21 or L1 (a whole level)\n"
            "  --out DIR             the run directory (default: runs/NAME)\n"
            "  --samples N           samples per problem (default 1)\n"
            "  --temperature T       sampling temperature (default: not sent, the server's)\n"
            "  --max-tokens N        answer token limit (default 32000; 0: not sent)\n"
            "  --max-tokens-field F  its JSON field (default max_tokens; some APIs want\n"
            "                        max_completion_tokens)\n"
            "  --api-key-env VAR     send the key in $VAR as a bearer token (never printed\n"
            "                        or written)\n"
            "  --concurrency N       requests in flight (default 4)\n"
            "  --timeout S           seconds per request (default 600)\n"
            "  --retries N           retries on 429, 5xx, timeouts, transport errors and\n"
            "                        garbled answers (default 5)\n"
            "  --backoff S           first retry delay, doubled each retry, jittered, never\n"
            "                        below Retry-After (default 1)\n"
            "  --cpu                 ask for C candidates for the CPU backend\n"
            "  --input-blind, --no-input-blind, --template NAME|FILE, --gpu NAME\n"
            "                        as for kbv prompt\n"
            "  --help                this text\n\n"
            "Exit status: 0 when every sample is ok or failed (a result), 1 when some got no\n"
            "answer (rerun to retry them), 2 on bad usage.\n");
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static bool parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

/* The defined problems the selection names, in registry order; every item
 * must name at least one, so a typo does not silently shrink the run. */
static int select_problems(const char *sel, const kbv_problem_def ***out, int *n_out)
{
    kbv_problem_set set;
    if (kbv_problem_set_parse(sel, &set) != KBV_OK) {
        kbv_cli_error("kbv generate", NULL);
        return 2;
    }
    int total = kbv_problem_count();
    const kbv_problem_def **defs = calloc((size_t)total + 1, sizeof *defs);
    if (!defs) {
        fprintf(stderr, "kbv generate: out of memory\n");
        return 1;
    }
    int n = 0;
    for (int i = 0; i < total; i++) {
        const kbv_problem_def *d = kbv_problem_at(i);
        if (kbv_problem_set_contains(&set, d->level, d->id))
            defs[n++] = d;
    }
    for (int r = 0; r < set.n; r++) {
        bool any = false;
        for (int i = 0; i < n && !any; i++)
            any = defs[i]->level == set.r[r].level && defs[i]->id >= set.r[r].lo &&
                  defs[i]->id <= set.r[r].hi;
        if (!any) {
            fprintf(stderr, "kbv generate: no defined problem in L%d/%d%s (kbv list shows them)\n",
                    set.r[r].level, set.r[r].lo, set.r[r].hi != set.r[r].lo ? "-..." : "");
            free(defs);
            return 2;
        }
    }
    *out = defs;
    *n_out = n;
    return 0;
}

int kbv_cmd_generate(int argc, char **argv)
{
    kbv_gen_config cfg = {
        .samples = 1,
        .temperature = -1,
        .max_tokens = 32000,
        .max_tokens_field = "max_tokens",
        .concurrency = 4,
        .timeout_s = 600,
        .retries = 5,
        .backoff_s = 1,
        .prompt = {.input_blind = KBV_BLIND_DEFAULT},
        .progress = stderr,
    };
    const char *endpoint = NULL, *selection = NULL, *key_env = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        long n;
        bool ok = true, takes_value = true;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--cpu")) {
            cfg.prompt.cpu = true, takes_value = false;
        } else if (!strcmp(a, "--input-blind")) {
            cfg.prompt.input_blind = KBV_BLIND_ON, takes_value = false;
        } else if (!strcmp(a, "--no-input-blind")) {
            cfg.prompt.input_blind = KBV_BLIND_OFF, takes_value = false;
        } else if (!v) {
            ok = false;
        } else if (!strcmp(a, "--model")) {
            cfg.model = v;
        } else if (!strcmp(a, "--endpoint")) {
            endpoint = v;
        } else if (!strcmp(a, "--problems")) {
            selection = v;
        } else if (!strcmp(a, "--out")) {
            cfg.out_dir = v;
        } else if (!strcmp(a, "--api-key-env")) {
            key_env = v;
        } else if (!strcmp(a, "--template")) {
            cfg.prompt.template_name = v;
        } else if (!strcmp(a, "--gpu")) {
            cfg.prompt.gpu = v;
        } else if (!strcmp(a, "--max-tokens-field")) {
            cfg.max_tokens_field = v;
        } else if (!strcmp(a, "--samples")) {
            ok = parse_long(v, 1, 100000, &n), cfg.samples = (int)n;
        } else if (!strcmp(a, "--concurrency")) {
            ok = parse_long(v, 1, 256, &n), cfg.concurrency = (int)n;
        } else if (!strcmp(a, "--retries")) {
            ok = parse_long(v, 0, 100, &n), cfg.retries = (int)n;
        } else if (!strcmp(a, "--max-tokens")) {
            ok = parse_long(v, 0, LONG_MAX, &cfg.max_tokens);
        } else if (!strcmp(a, "--temperature")) {
            ok = parse_double(v, 0, 100, &cfg.temperature);
        } else if (!strcmp(a, "--timeout")) {
            ok = parse_double(v, 0.001, 86400, &cfg.timeout_s);
        } else if (!strcmp(a, "--backoff")) {
            ok = parse_double(v, 0, 3600, &cfg.backoff_s);
        } else {
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "kbv generate: bad or incomplete option '%s%s%s' (see kbv generate "
                            "--help)\n", a, takes_value && v ? " " : "", takes_value && v ? v : "");
            return 2;
        }
        if (takes_value)
            i++;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!cfg.model || !endpoint || !selection) {
        fprintf(stderr, "kbv generate: --model, --endpoint and --problems are required (see kbv "
                        "generate --help)\n");
        return 2;
    }

    char url[2048], out_dir[1024];
    if (kbv_chat_url(endpoint, url, sizeof url) != KBV_OK) {
        kbv_cli_error("kbv generate", NULL);
        return 2;
    }
    cfg.url = url;
    if (!cfg.out_dir) {
        /* runs/<model>, with path separators in the model name made safe */
        snprintf(out_dir, sizeof out_dir, "runs/%s", cfg.model);
        for (char *c = out_dir + 5; *c; c++)
            if (*c == '/' || *c == '\\' || *c == ':')
                *c = '_';
        cfg.out_dir = out_dir;
    }
    if (key_env) {
        cfg.api_key = getenv(key_env);
        if (!cfg.api_key || !*cfg.api_key) {
            fprintf(stderr, "kbv generate: --api-key-env %s: that variable is not set\n", key_env);
            return 2;
        }
    }

    const kbv_problem_def **problems = NULL;
    int n_problems = 0;
    int rc = select_problems(selection, &problems, &n_problems);
    if (rc != 0)
        return rc;

    /* a peer closing a connection must not kill the process */
    signal(SIGPIPE, SIG_IGN);
    kbv_gen_summary s;
    kbv_status st = kbv_generate(&cfg, problems, n_problems, &s);
    free(problems);
    if (st != KBV_OK)
        kbv_cli_error("kbv generate", NULL);
    fprintf(stderr,
            "generate: %d ok, %d failed, %d skipped, %d errors; %d requests; tokens: %lld prompt "
            "+ %lld completion; run directory %s\n",
            s.ok, s.failed, s.skipped, s.errors, s.requests, s.prompt_tokens, s.completion_tokens,
            cfg.out_dir);
    return st != KBV_OK || s.errors > 0 ? 1 : 0;
}
