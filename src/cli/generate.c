/* kbv generate: ask a model behind an OpenAI-compatible endpoint or
 * Anthropic's Messages API for candidates and write them into a run
 * directory (docs/GENERATE.md). */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "cli/options.h"
#include "cli/prompt_options.h"
#include "cli/vendor_option.h"
#include "eval/runset.h"
#include "gen/chat.h"
#include "gen/generate.h"

enum {
    OPT_MODEL, OPT_ENDPOINT, OPT_API, OPT_PROBLEMS, OPT_OUT, OPT_SAMPLES, OPT_TEMPERATURE,
    OPT_MAX_TOKENS, OPT_MAX_TOKENS_FIELD, OPT_SYSTEM, OPT_KEY_ENV, OPT_CONCURRENCY, OPT_TIMEOUT,
    OPT_RETRIES, OPT_BACKOFF,
};

#define STR_(x) #x
#define STR(x) STR_(x)

static const kbv_cli_option options[] = {
    {"--model", "NAME", OPT_MODEL, "the model, sent as \"model\" (required)"},
    {"--endpoint", "URL", OPT_ENDPOINT,
     "the server (required). OpenAI: http://host:port gets\n"
     "/v1/chat/completions appended, a URL with a path\n"
     "(.../v1) /chat/completions, one that ends in\n"
     "/chat/completions is used as it is. Anthropic: the\n"
     "same with /v1/messages and /messages\n"
     "(https://api.anthropic.com)"},
    {"--api", "openai|anthropic", OPT_API,
     "the wire format: OpenAI-compatible chat completions\n"
     "or Anthropic's Messages API (default: anthropic for\n"
     "the host api.anthropic.com or a URL ending in\n"
     "/messages, else openai)"},
    {"--problems", "SEL", OPT_PROBLEMS,
     "L1/1-32, L1/19,L1/21 or L1 (a whole level; required)"},
    {"--out", "DIR", OPT_OUT, "the run directory (default: runs/NAME)"},
    {"--samples", "N", OPT_SAMPLES,
     "samples per problem (default " STR(KBV_GEN_DEFAULT_SAMPLES) ", as the paper's\n"
     "runs)"},
    {"--temperature", "T|none", OPT_TEMPERATURE,
     "sampling temperature (default " STR(KBV_GEN_DEFAULT_TEMPERATURE) ", as the paper's\n"
     "runs; none: not sent, the server's own, for models\n"
     "that take no other)"},
    {"--max-tokens", "N", OPT_MAX_TOKENS,
     "answer token limit (default " STR(KBV_GEN_DEFAULT_MAX_TOKENS) ", as the paper's\n"
     "runs; 0: not sent, OpenAI only)"},
    {"--max-tokens-field", "F", OPT_MAX_TOKENS_FIELD,
     "OpenAI: the limit's JSON field (default max_tokens;\n"
     "OpenAI's reasoning models want max_completion_tokens)"},
    {"--system", "TEXT", OPT_SYSTEM,
     "the system prompt, \"\" for none (default: what the\n"
     "paper's client sent, \"" KBV_GEN_DEFAULT_SYSTEM "\")"},
    {"--api-key-env", "VAR", OPT_KEY_ENV,
     "the key is in $VAR: sent as a bearer token (OpenAI)\n"
     "or as x-api-key (Anthropic), never printed or written\n"
     "(default: no key, for local servers)"},
    {"--concurrency", "N", OPT_CONCURRENCY,
     "requests in flight (default " STR(KBV_GEN_DEFAULT_CONCURRENCY) ")"},
    {"--timeout", "S", OPT_TIMEOUT,
     "seconds per request, connect to last byte (default\n"
     "600)"},
    {"--retries", "N", OPT_RETRIES,
     "retries on 408, 409, 425, 429, 5xx, timeouts, transport\n"
     "errors and garbled answers (default 5)"},
    {"--backoff", "S", OPT_BACKOFF,
     "first retry delay, doubled each retry, jittered, never\n"
     "below Retry-After (default 1)"},
    {NULL, NULL, 0, NULL},
};

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv generate --model NAME --endpoint URL --problems SEL [options]\n\n"
            "Asks the model for SAMPLES candidates per problem, through an OpenAI-compatible\n"
            "chat-completions endpoint or Anthropic's Messages API, one single-turn prompt\n"
            "each (kbv prompt shows it), and writes level_L_problem_P_sample_S.cu (.c with\n"
            "--cpu) into the run directory, with the raw answer and token usage in\n"
            ".response.json beside it. An answer without usable code is a failed sample,\n"
            "recorded as .failed.json. A rerun skips every sample whose candidate or failure\n"
            "record exists. The defaults are the paper's runs. docs/GENERATE.md has the\n"
            "details.\n\n");
    kbv_cli_options_print(f, options);
    fprintf(f, "\nThe prompt, as for kbv prompt (--cpu also writes .c files):\n");
    kbv_cli_options_print(f, kbv_prompt_cli_options);
    kbv_vendor_option_help_prompt(f);
    kbv_cli_options_print(f, kbv_cli_help_option);
    fprintf(f, "\nExit status: 0 when every sample is ok or failed (a result), 1 when some got no\n"
               "answer (rerun to retry them), 2 on bad usage.\n");
}

/* The defined problems the selection names, in registry order; every item
 * must name at least one, so a typo does not silently shrink the run. */
static int select_problems(const char *sel, const kbv_problem ***out, int *n_out)
{
    kbv_problem_set set;
    if (kbv_problem_set_parse(sel, &set) != KBV_OK) {
        kbv_cli_error("kbv generate", NULL);
        return 2;
    }
    int total = kbv_problem_count();
    const kbv_problem **defs = calloc((size_t)total + 1, sizeof *defs);
    if (!defs) {
        fprintf(stderr, "kbv generate: out of memory\n");
        return 1;
    }
    int n = 0;
    for (int i = 0; i < total; i++) {
        const kbv_problem *d = kbv_problem_at(i);
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

/* Where the options that are not kbv_gen_config's own go. */
typedef struct raw_args {
    const char *endpoint, *api, *selection, *key_env;
} raw_args;

/* Sets what option o of the table says; false when its value is bad. */
static bool apply(const kbv_cli_option *o, const char *v, kbv_gen_config *cfg, raw_args *raw)
{
    long n = 0;
    bool ok = true;
    switch (o->id) {
    case OPT_MODEL: cfg->model = v; break;
    case OPT_ENDPOINT: raw->endpoint = v; break;
    case OPT_API: raw->api = v; break;
    case OPT_PROBLEMS: raw->selection = v; break;
    case OPT_OUT: cfg->out_dir = v; break;
    case OPT_KEY_ENV: raw->key_env = v; break;
    case OPT_SYSTEM: cfg->system = v; break;
    case OPT_MAX_TOKENS_FIELD: cfg->max_tokens_field = v; break;
    case OPT_SAMPLES: ok = kbv_cli_parse_long(v, 1, 100000, &n), cfg->samples = (int)n; break;
    case OPT_CONCURRENCY: ok = kbv_cli_parse_long(v, 1, 256, &n), cfg->concurrency = (int)n; break;
    case OPT_RETRIES: ok = kbv_cli_parse_long(v, 0, 100, &n), cfg->retries = (int)n; break;
    case OPT_MAX_TOKENS: ok = kbv_cli_parse_long(v, 0, LONG_MAX, &cfg->max_tokens); break;
    case OPT_TEMPERATURE:
        if (!strcmp(v, "none"))
            cfg->temperature = -1;  /* not sent */
        else
            ok = kbv_cli_parse_double(v, 0, 100, &cfg->temperature);
        break;
    case OPT_TIMEOUT: ok = kbv_cli_parse_double(v, 0.001, 86400, &cfg->timeout_s); break;
    case OPT_BACKOFF: ok = kbv_cli_parse_double(v, 0, 3600, &cfg->backoff_s); break;
    }
    return ok;
}

int kbv_cmd_generate(int argc, char **argv)
{
    kbv_gen_config cfg = {
        .system = KBV_GEN_DEFAULT_SYSTEM,
        .samples = KBV_GEN_DEFAULT_SAMPLES,
        .temperature = KBV_GEN_DEFAULT_TEMPERATURE,
        .max_tokens = KBV_GEN_DEFAULT_MAX_TOKENS,
        .max_tokens_field = "max_tokens",
        .concurrency = KBV_GEN_DEFAULT_CONCURRENCY,
        .timeout_s = 600,
        .retries = 5,
        .backoff_s = 1,
        .prompt = {.input_blind = KBV_BLIND_DEFAULT},
        .progress = stderr,
    };
    raw_args raw = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        }
        int taken = kbv_vendor_option_take("kbv generate", a, &cfg.prompt.vendor_libs);
        if (taken < 0)
            return 2;
        if (taken)
            continue;
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        const kbv_cli_option *o = kbv_cli_option_find(options, a);
        const kbv_cli_option *po = o ? NULL : kbv_cli_option_find(kbv_prompt_cli_options, a);
        const kbv_cli_option *any = o ? o : po;
        bool ok = any && (!any->arg || v);
        if (ok && po)
            kbv_prompt_cli_apply(po, po->arg ? v : NULL, &cfg.prompt);
        else if (ok)
            ok = apply(o, v, &cfg, &raw);
        if (!ok) {
            bool show_value = any && any->arg && v;
            fprintf(stderr, "kbv generate: bad or incomplete option '%s%s%s' (see kbv generate "
                            "--help)\n", a, show_value ? " " : "", show_value ? v : "");
            return 2;
        }
        if (any->arg)
            i++;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!cfg.model || !raw.endpoint || !raw.selection) {
        fprintf(stderr, "kbv generate: --model, --endpoint and --problems are required (see kbv "
                        "generate --help)\n");
        return 2;
    }

    kbv_precision precision;
    if (kbv_prompt_precision(&cfg.prompt, &precision) != KBV_OK) {
        kbv_cli_error("kbv generate", NULL);
        return 2;
    }
    cfg.api = kbv_api_for_endpoint(raw.endpoint);
    if (raw.api && kbv_api_parse(raw.api, &cfg.api) != KBV_OK) {
        kbv_cli_error("kbv generate", NULL);
        return 2;
    }
    if (cfg.api == KBV_API_ANTHROPIC && cfg.max_tokens == 0) {
        fprintf(stderr, "kbv generate: Anthropic's Messages API needs a token limit: --max-tokens "
                        "must be > 0\n");
        return 2;
    }
    char url[2048], out_dir[1024];
    if (kbv_chat_url(cfg.api, raw.endpoint, url, sizeof url) != KBV_OK) {
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
    if (raw.key_env) {
        cfg.api_key = getenv(raw.key_env);
        if (!cfg.api_key || !*cfg.api_key) {
            fprintf(stderr, "kbv generate: --api-key-env %s: that variable is not set\n",
                    raw.key_env);
            return 2;
        }
    }

    const kbv_problem **problems = NULL;
    int n_problems = 0;
    int rc = select_problems(raw.selection, &problems, &n_problems);
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
