/* kbv judge: the paper's LLM judge as a second opinion on evaluated
 * candidates. For each sample of the results files that survived (correct
 * under --protocol, default verified, with speedup > 1, as the paper judged
 * its surviving fast kernels; --all: every sample with its source here), the
 * problem's PyTorch reference and the candidate's source go to a model
 * (OpenAI-compatible or Anthropic API, kbv's own client) under the paper's
 * judge prompt; its label goes to a JSONL file that kbv report --judge puts
 * beside strict's verdicts and flags. Resumes: a sample already judged by
 * the same model is not asked again. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "gen/chat.h"
#include "gen/http.h"
#include "gen/judge.h"
#include "record/judge_record.h"
#include "report/report_data.h"
#include "report/sources.h"

#define MAX_INPUTS 256

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv judge RESULTS.jsonl... --model NAME --endpoint URL [--out FILE]\n"
            "                 [--api openai|anthropic] [--api-key-env VAR] [--protocol P]\n"
            "                 [--all] [--temperature T] [--max-tokens N] [--timeout S]\n"
            "                 [--retries N]\n\n"
            "Asks a model for a second opinion on the evaluated candidates, as the\n"
            "KernelBench-Verified paper audited its surviving fast kernels: the problem's\n"
            "PyTorch reference, the candidate's source (the file its record names, only\n"
            "when its SHA-256 is the one evaluated; looked for as named, then beside the\n"
            "results file) and its speedup and memory ratio go to the model under the\n"
            "paper's judge prompt, which answers LEGITIMATE, SPEED_HACK, MEMORY_HACK,\n"
            "SPEED_AND_MEMORY_HACK or UNCERTAIN with its reasons. Each answer is one JSON\n"
            "line in FILE; kbv report --judge FILE shows them beside strict's verdicts and\n"
            "flags, with the agreement between the two.\n\n"
            "  --model NAME      the judging model\n"
            "  --endpoint URL    its API (as kbv generate takes it: docs/GENERATE.md)\n"
            "  --api A           openai or anthropic (default: from the endpoint)\n"
            "  --api-key-env VAR the key is in $VAR (never printed or written)\n"
            "  --out FILE        where the judgements go, appended (default: the first\n"
            "                    results file with .judge.jsonl for .jsonl)\n"
            "  --protocol P      the samples judged: correct under P (standard, verified\n"
            "                    (default), strict) with speedup > 1\n"
            "  --all             every sample whose source is here instead\n"
            "  --temperature T   default 0, as the paper's Claude judge; -1: not sent (a\n"
            "                    reasoning model that takes none)\n"
            "  --max-tokens N    default 4096\n"
            "  --timeout S       seconds per request (default 600)\n"
            "  --retries N       on 408, 409, 425, 429, 5xx, timeouts (default 3)\n"
            "  --help            this text\n\n"
            "Exit status: 0 when every chosen sample was judged or had no source here (said\n"
            "per sample), 1 when some got no answer (rerun to retry them), 2 on bad usage.\n");
}

typedef struct judge_opts {
    const char *inputs[MAX_INPUTS];
    int n_inputs;
    const char *model, *endpoint, *api_name, *key_env, *out;
    kbv_protocol protocol;
    bool all;
    double temperature, timeout_s;
    long max_tokens;
    int retries;
} judge_opts;

static int bad_usage(const char *msg)
{
    fprintf(stderr, "kbv judge: %s (see kbv judge --help)\n", msg);
    return 2;
}

static bool number(const char *s, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(s, &end);
    return *s && !*end && !errno;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, judge_opts *o)
{
    memset(o, 0, sizeof *o);
    o->protocol = KBV_PROTO_VERIFIED;
    o->temperature = 0;
    o->timeout_s = 600;
    o->max_tokens = 4096;
    o->retries = 3;
    char msg[400];
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        bool v = a + 1 < argc;
        double x;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--model") && v) {
            o->model = argv[++a];
        } else if (!strcmp(arg, "--endpoint") && v) {
            o->endpoint = argv[++a];
        } else if (!strcmp(arg, "--api") && v) {
            o->api_name = argv[++a];
        } else if (!strcmp(arg, "--api-key-env") && v) {
            o->key_env = argv[++a];
        } else if (!strcmp(arg, "--out") && v) {
            o->out = argv[++a];
        } else if (!strcmp(arg, "--all")) {
            o->all = true;
        } else if (!strcmp(arg, "--protocol") && v) {
            const char *p = argv[++a];
            int k = -1;
            for (int i = 0; i < KBV_PROTO_COUNT; i++)
                if (!strcmp(p, kbv_protocol_name((kbv_protocol)i)))
                    k = i;
            if (k < 0)
                return bad_usage("--protocol takes standard, verified or strict");
            o->protocol = (kbv_protocol)k;
        } else if (!strcmp(arg, "--temperature") && v && number(argv[a + 1], &x)) {
            o->temperature = x;
            a++;
        } else if (!strcmp(arg, "--max-tokens") && v && number(argv[a + 1], &x) && x >= 1) {
            o->max_tokens = (long)x;
            a++;
        } else if (!strcmp(arg, "--timeout") && v && number(argv[a + 1], &x) && x > 0) {
            o->timeout_s = x;
            a++;
        } else if (!strcmp(arg, "--retries") && v && number(argv[a + 1], &x) && x >= 0) {
            o->retries = (int)x;
            a++;
        } else if (arg[0] == '-') {
            snprintf(msg, sizeof msg, "unexpected or incomplete argument '%s'", arg);
            return bad_usage(msg);
        } else {
            if (o->n_inputs == MAX_INPUTS)
                return bad_usage("too many results files (at most 256)");
            o->inputs[o->n_inputs++] = arg;
        }
    }
    if (o->n_inputs == 0)
        return bad_usage("no results file given");
    if (!o->model || !o->endpoint)
        return bad_usage("--model and --endpoint are required");
    return -1;
}

static bool already_judged(const kbv_judge_list *done, const char *judge, const kbv_record *r)
{
    for (int i = 0; i < done->n; i++) {
        const kbv_judge_record *j = &done->items[i];
        if (j->label != KBV_JUDGE_NO_ANSWER && j->sample == r->sample &&
            !strcmp(j->judge, judge) && !strcmp(j->model, r->model) &&
            !strcmp(j->problem, r->problem) && !strcmp(j->source_sha256, r->source_sha256))
            return true;
    }
    return false;
}

/* One line, appended and fsync'd: a killed run keeps every answer before. */
static kbv_status append(int fd, const char *path, const kbv_judge_record *r)
{
    char *line = NULL;
    KBV_TRY(kbv_judge_record_to_json(r, &line));
    size_t len = strlen(line);
    line[len] = '\n';   /* json_dumps leaves room for the NUL, used for the newline */
    kbv_status st = KBV_OK;
    if (write(fd, line, len + 1) != (ssize_t)(len + 1) || fsync(fd))
        st = kbv_fail(KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    free(line);
    return st;
}

int kbv_cmd_judge(int argc, char **argv)
{
    judge_opts o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed >= 0)
        return parsed;
    kbv_api api = kbv_api_for_endpoint(o.endpoint);
    if (o.api_name && kbv_api_parse(o.api_name, &api) != KBV_OK) {
        kbv_clear_error();
        return bad_usage("--api takes openai or anthropic");
    }
    char url[2048], out_path[1100];
    if (kbv_chat_url(api, o.endpoint, url, sizeof url) != KBV_OK) {
        kbv_cli_error("kbv judge", NULL);
        return 2;
    }
    const char *key = NULL;
    if (o.key_env) {
        key = getenv(o.key_env);
        if (!key || !*key) {
            fprintf(stderr, "kbv judge: --api-key-env %s: that variable is not set\n", o.key_env);
            return 2;
        }
    }
    if (!o.out) {
        size_t n = strlen(o.inputs[0]);
        if (n > 6 && !strcmp(o.inputs[0] + n - 6, ".jsonl"))
            n -= 6;
        snprintf(out_path, sizeof out_path, "%.*s.judge.jsonl", (int)n, o.inputs[0]);
        o.out = out_path;
    }

    int status = 1, asked = 0, answered = 0, unanswered = 0, no_source = 0, resumed = 0;
    int fd = -1;
    kbv_report_data d;
    kbv_judge_list done = {0};
    const kbv_report_config cfg = {KBV_DENOM_SAMPLED, NULL};
    if (kbv_report_data_load(o.inputs, o.n_inputs, &cfg, &d) != KBV_OK) {
        kbv_cli_error("kbv judge", NULL);
        return 1;
    }
    if (kbv_judge_list_load(o.out, &done) != KBV_OK || kbv_http_global_init() != KBV_OK) {
        kbv_cli_error("kbv judge", NULL);
        goto end;
    }
    fd = open(o.out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        fprintf(stderr, "kbv judge: cannot write %s: %s\n", o.out, strerror(errno));
        goto end;
    }
    kbv_judge_client client = {api, url, o.model, key, o.temperature, o.max_tokens,
                               o.timeout_s, o.retries, 1.0};
    for (int i = 0; i < d.n_samples; i++) {
        const kbv_report_sample *s = &d.samples[i];
        const kbv_record *r = s->rec;
        const kbv_proto_result *pr = &r->proto[o.protocol];
        if (d.problems[s->problem].degenerate)
            continue;
        double sp = kbv_report_speedup(pr);
        if (!o.all && !(pr->correct && sp > 1))
            continue;
        if (already_judged(&done, o.model, r)) {
            resumed++;
            continue;
        }
        kbv_source src;
        char *reference = NULL, *prompt = NULL;
        if (kbv_source_find(r, o.inputs, o.n_inputs, &src) != KBV_OK) {
            kbv_cli_error("kbv judge", NULL);
            goto end;
        }
        if (src.state != KBV_SOURCE_FOUND ||
            kbv_reference_render(r, d.problems[s->problem].key, &reference) != KBV_OK) {
            kbv_clear_error();
            fprintf(stderr, "kbv judge: %s %s sample %d: not judged: %s\n", r->model, r->problem,
                    r->sample, src.state == KBV_SOURCE_CHANGED ? "its file is not the source "
                    "evaluated" : src.state == KBV_SOURCE_MISSING ? "its source is not here"
                                                                 : "no reference for it");
            no_source++;
            kbv_source_free(&src);
            continue;
        }
        kbv_judge_record j;
        memset(&j, 0, sizeof j);
        snprintf(j.judge, sizeof j.judge, "%s", o.model);
        snprintf(j.model, sizeof j.model, "%s", r->model);
        snprintf(j.problem, sizeof j.problem, "%s", r->problem);
        j.sample = r->sample;
        snprintf(j.source_sha256, sizeof j.source_sha256, "%s", r->source_sha256);
        kbv_judge_answer ans;
        kbv_status st = kbv_judge_prompt(d.problems[s->problem].key, reference, src.bytes, sp,
                                         kbv_report_mem_ratio(pr), &prompt);
        if (st == KBV_OK)
            st = kbv_judge_ask(&client, prompt, &ans);
        if (st == KBV_OK) {
            /* the answer's label, one of the record's; none: NO_ANSWER with the reason */
            j.label = KBV_JUDGE_NO_ANSWER;
            if (ans.label[0] && kbv_judge_label_parse(ans.label, &j.label) != KBV_OK)
                kbv_clear_error();
            snprintf(j.pattern, sizeof j.pattern, "%s", ans.pattern);
            snprintf(j.explanation, sizeof j.explanation, "%s", ans.explanation);
            snprintf(j.error, sizeof j.error, "%s", ans.error);
            st = append(fd, o.out, &j);
        }
        free(prompt);
        free(reference);
        kbv_source_free(&src);
        if (st != KBV_OK) {
            kbv_cli_error("kbv judge", NULL);
            goto end;
        }
        asked++;
        if (j.label == KBV_JUDGE_NO_ANSWER) {
            unanswered++;
            fprintf(stderr, "kbv judge: %s %s sample %d: no answer: %s\n", r->model, r->problem,
                    r->sample, j.error);
        } else {
            answered++;
            printf("%s %s sample %d: %s%s%s\n", r->model, r->problem, r->sample,
                   kbv_judge_label_name(j.label), j.pattern[0] ? " -- " : "", j.pattern);
        }
    }
    printf("kbv judge: %d asked (%d answered, %d without an answer), %d already judged, %d "
           "without their source here; judgements in %s\n", asked, answered, unanswered,
           resumed, no_source, o.out);
    status = unanswered ? 1 : 0;
    if (kbv_cli_flush_stdout("kbv judge"))
        status = 1;
end:
    if (fd >= 0)
        close(fd);
    kbv_http_global_cleanup();
    kbv_judge_list_free(&done);
    kbv_report_data_free(&d);
    return status;
}
