/* kbv list: one row per problem with its shapes and the counts derived
 * from its graph: FLOPs, minimum bytes and the H200 speed-of-light time. */
#include <errno.h>
#include <stddef.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "dist/draws.h"
#include "graph/graph.h"
#include "eval/ceilings.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv list [--level N] [--small] [--json]\n\n"
            "One row per problem: key, catalog name, input shapes -> output shape, GFLOP,\n"
            "minimum MB moved (inputs and params read once, outputs written once; MB = 1e6\n"
            "bytes), and the speed-of-light time in microseconds on an H200 with TF32 tensor\n"
            "cores: max(FLOPs / 430.6 TFLOP/s, bytes / 4.30 TB/s).\n\n"
            "  --level N   only level N\n"
            "  --small     the CI shapes instead of the catalog's\n"
            "  --json      a JSON array (adds the FP32-rate SOL time, per-tensor dtypes and the\n"
            "              hidden configs: \"configs\" kept, \"configs_omitted\" as the paper omits)\n"
            "  --help      this text\n");
}

/* "[4096,393216]"; a Python scalar input as "=3.14". */
static void format_shape(const kbv_value *v, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < v->ndim && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", d ? "," : "", (long long)v->shape[d]);
    if (n < cap)
        snprintf(buf + n, cap - n, "]");
}

static void format_signature(const kbv_graph *g, char *buf, size_t cap)
{
    size_t n = 0;
    char shape[256];
    buf[0] = '\0';
    for (int i = 0; i < g->n_inputs && n < cap; i++) {
        const kbv_value *v = &g->values[i];
        const kbv_input_def *in = &g->def->inputs[v->def_index];
        if (in->gen == KBV_GEN_SCALAR)
            snprintf(shape, sizeof shape, "=%g", in->value);
        else
            format_shape(v, shape, sizeof shape);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", i ? ", " : "", v->name, shape);
    }
    for (int o = 0; o < g->n_outputs && n < cap; o++) {
        format_shape(&g->values[g->outputs[o]], shape, sizeof shape);
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", o ? ", " : " -> ", shape);
    }
}

static json_t *tensor_json(const kbv_value *v)
{
    json_t *shape = json_array();
    for (int d = 0; d < v->ndim; d++)
        json_array_append_new(shape, json_integer(v->shape[d]));
    return json_pack("{s:s, s:o, s:s}", "name", v->name, "shape", shape, "dtype",
                     kbv_dtype_name(v->dtype));
}

/* The hidden configs the definition keeps, and those it omits (the paper's table). */
static json_t *configs_json(const kbv_problem *def, bool omitted)
{
    kbv_planned_draw configs[KBV_MAX_CONFIGS];
    int n = kbv_hidden_configs(def, configs);
    json_t *a = json_array();
    for (int c = 0; a && c < n; c++)
        if (kbv_config_omitted(def, configs[c].label) == omitted)
            json_array_append_new(a, json_string(configs[c].label));
    return a;
}

static json_t *row_json(const kbv_graph *g, const char *key)
{
    double flops = kbv_graph_flops(g), bytes = kbv_graph_min_bytes(g);
    json_t *inputs = json_array(), *outputs = json_array();
    for (int i = 0; i < g->n_inputs; i++)
        json_array_append_new(inputs, tensor_json(&g->values[i]));
    for (int o = 0; o < g->n_outputs; o++)
        json_array_append_new(outputs, tensor_json(&g->values[g->outputs[o]]));
    return json_pack("{s:s, s:i, s:i, s:s, s:o, s:o, s:f, s:f, s:f, s:f, s:o, s:o}", "key", key,
                     "level", g->def->level, "id", g->def->id, "name", g->def->name, "inputs",
                     inputs, "outputs", outputs, "flops", flops, "min_bytes", bytes,
                     "sol_us_tf32", 1e6 * kbv_sol_seconds(flops, bytes, 1), "sol_us_fp32",
                     1e6 * kbv_sol_seconds(flops, bytes, 0), "configs",
                     configs_json(g->def, false), "configs_omitted", configs_json(g->def, true));
}

typedef struct text_row {
    char key[32], name[128], sig[512], gflop[32], mb[32], sol[32];
} text_row;

/* Four significant digits, but whole numbers from 10000 up (no exponents). */
static void format_number(double x, char *buf, size_t cap)
{
    snprintf(buf, cap, x >= 1e4 ? "%.0f" : "%.4g", x);
}

static int widest(const text_row *rows, int n, size_t offset)
{
    size_t w = 0;
    for (int r = 0; r < n; r++) {
        size_t len = strlen((const char *)&rows[r] + offset);
        w = len > w ? len : w;
    }
    return (int)w;
}

/* Text columns left-aligned, numbers right-aligned, widths from the data. */
static void print_table(const text_row *rows, int n)
{
    int wk = widest(rows, n, offsetof(text_row, key));
    int wn = widest(rows, n, offsetof(text_row, name));
    int ws = widest(rows, n, offsetof(text_row, sig));
    int wg = widest(rows, n, offsetof(text_row, gflop));
    int wm = widest(rows, n, offsetof(text_row, mb));
    int wo = widest(rows, n, offsetof(text_row, sol));
    for (int r = 0; r < n; r++)
        printf("%-*s  %-*s  %-*s  %*s  %*s  %*s\n", wk, rows[r].key, wn, rows[r].name, ws,
               rows[r].sig, wg, rows[r].gflop, wm, rows[r].mb, wo, rows[r].sol);
}

int kbv_cmd_list(int argc, char **argv)
{
    long level = 0;
    bool json = false;
    kbv_size size = KBV_SIZE_FULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[a], "--json")) {
            json = true;
        } else if (!strcmp(argv[a], "--small")) {
            size = KBV_SIZE_SMALL;
        } else if (!strcmp(argv[a], "--level") && a + 1 < argc) {
            char *end = NULL;
            errno = 0;
            level = strtol(argv[++a], &end, 10);
            if (errno || *end || level < 1) {
                fprintf(stderr, "kbv list: --level needs a positive number, got '%s'\n", argv[a]);
                return 2;
            }
        } else {
            fprintf(stderr, "kbv list: unknown or incomplete option '%s' (see kbv list --help)\n",
                    argv[a]);
            return 2;
        }
    }

    kbv_graph *g = calloc(1, sizeof *g);
    json_t *rows = json ? json_array() : NULL;
    text_row *text = calloc((size_t)kbv_problem_count() + 1, sizeof *text);
    int status = 0, shown = 0;
    if (!g || !text || (json && !rows)) {
        fprintf(stderr, "kbv list: out of memory\n");
        status = 2;
        goto done;
    }
    snprintf(text[0].key, sizeof text[0].key, "key");
    snprintf(text[0].name, sizeof text[0].name, "name");
    snprintf(text[0].sig, sizeof text[0].sig, "inputs -> output");
    snprintf(text[0].gflop, sizeof text[0].gflop, "GFLOP");
    snprintf(text[0].mb, sizeof text[0].mb, "min MB");
    snprintf(text[0].sol, sizeof text[0].sol, "SOL us");
    for (int p = 0; p < kbv_problem_count(); p++) {
        const kbv_problem *def = kbv_problem_at(p);
        if (level && def->level != level)
            continue;
        char key[32];
        kbv_problem_key(def, key, sizeof key);
        if (kbv_graph_build(def, size, g) != KBV_OK) {
            kbv_cli_error("kbv list", NULL);
            status = 2;
            goto done;
        }
        shown++;
        if (json) {
            json_array_append_new(rows, row_json(g, key));
            continue;
        }
        text_row *r = &text[shown];
        double flops = kbv_graph_flops(g), bytes = kbv_graph_min_bytes(g);
        snprintf(r->key, sizeof r->key, "%s", key);
        snprintf(r->name, sizeof r->name, "%s", def->name);
        format_signature(g, r->sig, sizeof r->sig);
        format_number(flops * 1e-9, r->gflop, sizeof r->gflop);
        format_number(bytes * 1e-6, r->mb, sizeof r->mb);
        format_number(1e6 * kbv_sol_seconds(flops, bytes, 1), r->sol, sizeof r->sol);
    }
    if (!json && shown > 0)
        print_table(text, shown + 1);
    if (shown == 0) {
        fprintf(stderr, "kbv list: no problems at level %ld\n", level);
        status = 2;
        goto done;
    }
    if (json) {
        if (json_dumpf(rows, stdout, JSON_INDENT(2)) != 0) {
            kbv_cli_stdout_error("kbv list");
            status = 2;
            goto done;
        }
        printf("\n");
    }
    if (kbv_cli_flush_stdout("kbv list"))
        status = 2;
done:
    free(text);
    json_decref(rows);
    kbv_graph_free(g);
    free(g);
    return status;
}
