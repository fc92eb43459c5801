/* kbv report: the paper's tables and figures for any set of results files
 * (terminal table, tables.md/.csv, summary.json, index.html with inline SVG
 * figures, one .svg file per figure), and --compare between two runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "report/compare.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/report_data.h"
#include "report/report_tables.h"

#define MAX_INPUTS 256

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv report RESULTS.jsonl... [--out DIR] [--protocol P] [--title TEXT]\n"
            "                  [--denominator suite|sampled] [--degenerate FILE|paper]\n"
            "                  [--torch FILE] [--judge FILE]\n"
            "       kbv report --compare A.jsonl B.jsonl [--out DIR] [--protocol P]\n"
            "                  [--model-a NAME] [--model-b NAME] [--noise RUN.jsonl]...\n\n"
            "Reads results files (records of the same model, problem and sample: the last\n"
            "wins), prints the metrics table, and with --out writes into DIR (created):\n"
            "  tables.md      per model, level and pooled: the three protocols side by side,\n"
            "                 every metric (Fast@0.8, mem-up %%, compiled %% among them), the\n"
            "                 per-sample mean +- std, the 2x2 of baseline x tests, the\n"
            "                 attribution and tolerance tables, failures by reason, audit\n"
            "                 flags (Markdown)\n"
            "  tables.csv     the metrics, one row per model, level and protocol\n"
            "  summary.json   every number, with failure and flag counts\n"
            "  index.html     one offline page: the tables (sortable: click a header),\n"
            "                 ranks per level, figures (inline SVG) and every sample's\n"
            "                 details with its source and the problem's PyTorch reference\n"
            "  figures/*.svg  each figure as a file\n\n"
            "  --out DIR        where to write (without it: the terminal table only)\n"
            "  --protocol P     standard, verified (default) or strict: the protocol of the\n"
            "                   scatters, heat map and ranks, and of the --compare terminal\n"
            "                   table\n"
            "  --title TEXT     the page's title (default \"kbv report\")\n"
            "  --denominator D  what every percentage is over:\n"
            "                   suite (default): per level the suite's problems less\n"
            "                     the degenerate ones (100, 96, 47 for levels 1-3), a\n"
            "                     problem without a sample counting as failed, as the\n"
            "                     paper counts; the levels are those of the records\n"
            "                   sampled: per model, the problems it has samples for\n"
            "                     (the view of kbv eval's table)\n"
            "  --degenerate FILE|paper\n"
            "                   the problems to leave out as degenerate: kbv audit --json\n"
            "                   lines, or one problem key (L2/23) per line; \"paper\": the\n"
            "                   paper's list (L2/23, L2/80, L2/83: its denominators 100,\n"
            "                   97, 50); default: what kbv audit found at full size on an\n"
            "                   H200 (docs/audit_h200.jsonl: the paper's three, L2/36,\n"
            "                   L3/28, L3/36 and L3/37)\n"
            "  --torch FILE     PyTorch eager and torch.compile times on this device\n"
            "                   (bench/torch_baselines.py writes them beside the baselines):\n"
            "                   each model's speedup against both where measured\n"
            "  --judge FILE     kbv judge's answers: each beside strict's verdict, and the\n"
            "                   agreement between the two\n"
            "  --compare A B    per problem, what changed from run A to run B: verdicts, and\n"
            "                   kernel times judged against the noise between runs (a\n"
            "                   difference within 2 sqrt(n^2 + eA^2 + eB^2) in log time is\n"
            "                   \"no change\"; n the run-to-run noise, eA and eB each\n"
            "                   run's own standard error); --out writes compare.md\n"
            "  --noise RUN.jsonl\n"
            "                   a run of the same code as another --noise run (repeat the\n"
            "                   option: bench/repeatability.sh's run-N/results.jsonl): the\n"
            "                   run-to-run noise, per sample. Without it, the noise of\n"
            "                   A's and B's baselines when each measured them anew; when\n"
            "                   they share them, differences are shown, not judged\n"
            "  --model-a NAME, --model-b NAME\n"
            "                   the model to compare in a file that holds several\n"
            "  --help           this text\n\n"
            "docs/REPORTS.md describes every table, figure and column.\n"
            "Exit status: 0 on success, 2 on any error (one line on stderr).\n");
}

static int fail_line(const char *what)
{
    fprintf(stderr, "kbv report: %s\n", what);
    return 2;
}

static int fail_status(void)
{
    kbv_cli_error("kbv report", NULL);
    return 2;
}

typedef struct report_opts {
    const char *inputs[MAX_INPUTS];
    int n_inputs;
    const char *out;
    const char *title;
    bool compare;
    const char *model_a, *model_b;
    kbv_protocol protocol;
    kbv_denominator denominator;
    const char *degenerate;
    const char *torch;
    const char *judge;
    const char *noise[MAX_INPUTS];
    int n_noise;
} report_opts;

static bool parse_protocol(const char *s, kbv_protocol *out)
{
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        if (!strcmp(s, kbv_protocol_name((kbv_protocol)p))) {
            *out = (kbv_protocol)p;
            return true;
        }
    return false;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, report_opts *o)
{
    char msg[512];
    memset(o, 0, sizeof *o);
    o->protocol = KBV_PROTO_VERIFIED;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        bool has_value = a + 1 < argc;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--out") && has_value) {
            o->out = argv[++a];
        } else if (!strcmp(arg, "--title") && has_value) {
            o->title = argv[++a];
        } else if (!strcmp(arg, "--model-a") && has_value) {
            o->model_a = argv[++a];
        } else if (!strcmp(arg, "--model-b") && has_value) {
            o->model_b = argv[++a];
        } else if (!strcmp(arg, "--noise") && has_value) {
            if (o->n_noise == MAX_INPUTS)
                return fail_line("too many --noise runs (at most 256)");
            o->noise[o->n_noise++] = argv[++a];
        } else if (!strcmp(arg, "--judge") && has_value) {
            o->judge = argv[++a];
        } else if (!strcmp(arg, "--torch") && has_value) {
            o->torch = argv[++a];
        } else if (!strcmp(arg, "--degenerate") && has_value) {
            o->degenerate = argv[++a];
        } else if (!strcmp(arg, "--denominator") && has_value) {
            if (kbv_denominator_parse(argv[++a], &o->denominator) != KBV_OK) {
                kbv_clear_error();
                snprintf(msg, sizeof msg, "unknown denominator '%s' (suite or sampled)", argv[a]);
                return fail_line(msg);
            }
        } else if (!strcmp(arg, "--compare")) {
            o->compare = true;
        } else if (!strcmp(arg, "--protocol") && has_value) {
            if (!parse_protocol(argv[++a], &o->protocol)) {
                snprintf(msg, sizeof msg, "unknown protocol '%s' (standard, verified, strict)",
                         argv[a]);
                return fail_line(msg);
            }
        } else if (arg[0] == '-') {
            snprintf(msg, sizeof msg, "unexpected or incomplete argument '%s' (see kbv report "
                     "--help)", arg);
            return fail_line(msg);
        } else {
            if (o->n_inputs == MAX_INPUTS)
                return fail_line("too many results files (at most 256)");
            o->inputs[o->n_inputs++] = arg;
        }
    }
    if (o->compare && o->n_inputs != 2)
        return fail_line("--compare takes exactly two results files: A.jsonl B.jsonl");
    if (!o->compare && o->n_inputs == 0)
        return fail_line("no results file given (usage: kbv report RESULTS.jsonl... --out DIR)");
    if (!o->compare && (o->model_a || o->model_b || o->n_noise))
        return fail_line("--model-a, --model-b and --noise go with --compare");
    if (o->n_noise == 1)
        return fail_line("--noise needs two runs or more of the same code (repeat the option)");
    return -1;
}

/* mkdir -p. */
static kbv_status make_dirs(const char *path)
{
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return kbv_fail(KBV_ERR_INVALID, "output path too long: %s", path);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, 0755) && errno != EEXIST)
                return kbv_fail(KBV_ERR_IO, "cannot create directory %s: %s", buf,
                                strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    return KBV_OK;
}

/* What one output file holds: a writer and its arguments. */
typedef struct out_file {
    const char *name;
    kbv_status (*write)(FILE *f, const struct out_file *of);
    const kbv_report_data *d;
    const kbv_summary_info *info;
    const report_opts *o;
    const kbv_figure *fig;
    const kbv_comparison *cmp;
} out_file;

/* Why writing f failed, when a writer saw only ferror(): one more byte and
 * a flush ask the file system again (f is a temporary file, discarded). */
static const char *write_cause(FILE *f)
{
    clearerr(f);
    errno = 0;
    if (fputc('\n', f) != EOF && fflush(f) == 0)
        return "write error";
    return errno ? strerror(errno) : "write error";
}

/* Writes DIR/name through a temporary file and a rename: a reader never
 * sees half a file. Errors name DIR/name, the file the user asked for. */
static kbv_status write_out(const char *dir, const out_file *of)
{
    kbv_status st = KBV_OK;
    char path[1100], tmp[1110];
    FILE *f = NULL;
    if (snprintf(path, sizeof path, "%s/%s", dir, of->name) >= (int)sizeof path)
        return kbv_fail(KBV_ERR_INVALID, "output path too long: %s/%s", dir, of->name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    f = fopen(tmp, "w");
    if (!f)
        return kbv_fail(KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    st = of->write(f, of);
    if (st != KBV_OK && ferror(f)) {
        kbv_clear_error();   /* the writer's "writing ... failed": which file, and why */
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", path, write_cause(f));
    }
    if (st != KBV_OK) {
        kbv_relay_at(__FILE__, __LINE__, st);
        goto done;
    }
    if (fflush(f) || ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", path, write_cause(f));
    int rc = fclose(f);
    f = NULL;
    if (rc)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
    if (rename(tmp, path))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "renaming %s to %s: %s", tmp, path, strerror(errno));
done:
    if (f)
        fclose(f);
    if (st != KBV_OK)
        unlink(tmp);
    return st;
}

static kbv_status write_md(FILE *f, const out_file *of)
{
    return kbv_report_write_markdown(f, of->d, of->info);
}

static kbv_status write_csv(FILE *f, const out_file *of) { return kbv_report_write_csv(f, of->d); }

static kbv_status write_json(FILE *f, const out_file *of)
{
    json_t *o = NULL;
    KBV_TRY(kbv_report_summary(of->d, of->info, of->o->inputs, of->o->n_inputs, &o));
    int rc = json_dumpf(o, f, JSON_INDENT(2)) || fputc('\n', f) == EOF;
    json_decref(o);
    if (rc)
        return kbv_fail(KBV_ERR_IO, "writing the summary JSON failed");
    return KBV_OK;
}

static kbv_status write_page(FILE *f, const out_file *of)
{
    kbv_html_opts ho = {of->o->title, of->info, of->o->inputs, of->o->n_inputs, of->o->protocol};
    return kbv_html_write(f, of->d, &ho);
}

static kbv_status write_figure(FILE *f, const out_file *of)
{
    return kbv_figure_write(f, of->d, of->fig, true);
}

static kbv_status write_compare(FILE *f, const out_file *of)
{
    return kbv_compare_markdown(f, of->cmp);
}

static kbv_status write_report(const report_opts *o, const kbv_report_data *d,
                               const kbv_summary_info *info)
{
    char figdir[1100];
    if (snprintf(figdir, sizeof figdir, "%s/figures", o->out) >= (int)sizeof figdir)
        return kbv_fail(KBV_ERR_INVALID, "output path too long: %s", o->out);
    KBV_TRY(make_dirs(figdir));
    const out_file files[] = {
        {"tables.md", write_md, d, info, o, NULL, NULL},
        {"tables.csv", write_csv, d, info, o, NULL, NULL},
        {"summary.json", write_json, d, info, o, NULL, NULL},
        {"index.html", write_page, d, info, o, NULL, NULL},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        KBV_TRY(write_out(o->out, &files[i]));
    kbv_figure figs[64];
    int n = kbv_figures_plan(d, o->protocol, figs, 64);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.svg", figs[i].name);
        out_file of = {name, write_figure, d, info, o, &figs[i], NULL};
        KBV_TRY(write_out(figdir, &of));
    }
    printf("kbv report: wrote %s/index.html, tables.md, tables.csv, summary.json and %d "
           "figures in %s/\n", o->out, n, figdir);
    return KBV_OK;
}

static int run_report(const report_opts *o)
{
    kbv_report_data d;
    char joined[4096] = "";
    size_t used = 0;
    for (int i = 0; i < o->n_inputs && used < sizeof joined; i++)
        used += (size_t)snprintf(joined + used, sizeof joined - used, "%s%s", i ? ", " : "",
                                 o->inputs[i]);
    kbv_suite suite;
    if (kbv_suite_default(o->degenerate, &suite) != KBV_OK)
        return fail_status();
    kbv_report_config cfg = {o->denominator, &suite};
    kbv_status loaded = kbv_report_data_load(o->inputs, o->n_inputs, &cfg, &d);
    kbv_suite_free(&suite);
    if (loaded != KBV_OK)
        return fail_status();
    struct stat sb;
    if (o->judge && stat(o->judge, &sb)) {
        fprintf(stderr, "kbv report: cannot read the judgements %s: %s\n", o->judge,
                strerror(errno));
        kbv_report_data_free(&d);
        return 2;
    }
    if ((o->torch && kbv_torch_load(o->torch, &d.torch) != KBV_OK) ||
        (o->judge && kbv_judge_list_load(o->judge, &d.judges) != KBV_OK)) {
        kbv_report_data_free(&d);
        return fail_status();
    }
    if (d.malformed && d.records.n == 0) {
        fprintf(stderr, "kbv report: %s: no results records, %d malformed line%s (first: %s)%s\n",
                joined, d.malformed, d.malformed == 1 ? "" : "s", d.malformed_where,
                d.newer ? "; of them records of a later schema: a newer kbv reads them" : "");
        kbv_report_data_free(&d);
        return 2;
    }
    if (d.malformed > d.newer)
        fprintf(stderr, "kbv report: %d malformed line%s skipped (first: %s)\n",
                d.malformed - d.newer, d.malformed - d.newer == 1 ? "" : "s", d.malformed_where);
    if (d.newer)
        fprintf(stderr, "kbv report: %d record%s of schema %d, written by a newer kbv, not read "
                        "(this kbv reads schema %d; first: %s): a newer kbv reports them\n",
                d.newer, d.newer == 1 ? "" : "s", d.newest_schema, KBV_RESULTS_SCHEMA,
                d.newer_where);
    for (int k = 0; k < KBV_LEGACY_COUNT; k++)
        if (d.legacy[k])
            fprintf(stderr, "kbv report: note: %d record%s %s\n", d.legacy[k],
                    d.legacy[k] == 1 ? "" : "s", kbv_legacy_note(k));
    kbv_summary_info info = {joined, d.device, d.size, d.records.n, d.gate, d.precision,
                             d.vendor_libs};
    kbv_table_print(stdout, &d.metrics, &info);
    int status = 0;
    if (o->out && write_report(o, &d, &info) != KBV_OK)
        status = fail_status();
    if (status == 0 && kbv_cli_flush_stdout("kbv report"))
        status = 2;
    kbv_report_data_free(&d);
    return status;
}

static int run_compare(const report_opts *o)
{
    kbv_comparison c;
    if (kbv_compare_load(o->inputs[0], o->inputs[1], o->model_a, o->model_b, o->noise, o->n_noise,
                         &c) != KBV_OK)
        return fail_status();
    kbv_compare_print(stdout, &c, o->protocol);
    int status = 0;
    if (o->out) {
        out_file of = {"compare.md", write_compare, NULL, NULL, o, NULL, &c};
        if (make_dirs(o->out) != KBV_OK || write_out(o->out, &of) != KBV_OK)
            status = fail_status();
        else
            printf("kbv report: wrote %s/compare.md\n", o->out);
    }
    if (status == 0 && kbv_cli_flush_stdout("kbv report"))
        status = 2;
    kbv_compare_free(&c);
    return status;
}

int kbv_cmd_report(int argc, char **argv)
{
    report_opts o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed >= 0)
        return parsed;
    return o.compare ? run_compare(&o) : run_report(&o);
}
