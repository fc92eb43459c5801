/* kbv dump: one draw of a problem's inputs and params, and the float64
 * oracle's outputs on them, as .npy files with a meta.json -- for looking
 * at a draw, reproducing one (--seed) and checking kbv against PyTorch.
 * With --precision bf16 the draw is rounded to bfloat16 as a bf16 run
 * rounds it, the oracle runs on the rounded values, and the bf16 baseline's
 * outputs are written beside it. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "core/bf16.h"
#include "dist/draws.h"
#include "eval/npy.h"
#include "exec/backend.h"
#include "graph/graph.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv dump KEY --out DIR [--small|--full] [--dist base|D1..D8|H5] [--seed N]\n"
            "                [--device cpu|cuda] [--precision fp32|bf16]\n\n"
            "Draws the problem's inputs and params and computes the float64 oracle on them,\n"
            "then writes into DIR (created if missing):\n"
            "  <input>.npy        each forward() argument in its dtype (float32, int64); a Python\n"
            "                     scalar as a 0-d float32 array\n"
            "  <param>.npy        each parameter/buffer, named by its state_dict key\n"
            "  output_<i>.npy     the float64 oracle's outputs\n"
            "  meta.json          problem, size, dims, init_inputs, dist, seed, device, and each\n"
            "                     file's tensor name, shape and dtype\n\n"
            "  --out DIR          where to write (required)\n"
            "  --small, --full    CI shapes (default) or the catalog's\n"
            "  --dist D           base (the base generators, default), D1..D8 (DESIGN section 4)\n"
            "                     or one of the problem's extra hidden configs (L1/100: H5)\n"
            "  --seed N           the draw's seed (0 .. 2^64-1); without it a fresh random seed\n"
            "                     is drawn, printed and recorded (meta.json holds it as an\n"
            "                     integer, or as a decimal string above 2^63-1)\n"
            "  --device cpu|cuda  the backends: cpu (default) or the GPU (CUDA builds)\n"
            "  --precision P      fp32 (default) or bf16: every float tensor (not a Python\n"
            "                     scalar) rounded to bfloat16 as a bf16 run rounds it and\n"
            "                     written as float32 numbers (meta.json: dtype bfloat16,\n"
            "                     stored_as float32); the oracle runs on the rounded values,\n"
            "                     and baseline_<i>.npy holds the bf16 baseline's outputs\n"
            "  --help             this text\n\n"
            "Exit status: 0 on success, 2 on any error (one line on stderr).\n");
}

static int fail_line(const char *what)
{
    fprintf(stderr, "kbv dump: %s\n", what);
    return 2;
}

static int fail_status(void)
{
    kbv_cli_error("kbv dump", NULL);
    return 2;
}

typedef struct dump_opts {
    const char *key;
    const char *out;
    kbv_size size;
    const char *dist;               /* a draw label, resolved for the problem */
    bool have_seed;
    uint64_t seed;
    bool cuda;
    bool bf16;                      /* --precision bf16 */
} dump_opts;

/* The draw's name as kbv writes it: "base", "D3", "H5". */
static void draw_name(const kbv_draw *d, char *buf, size_t cap)
{
    if (d->extra)
        snprintf(buf, cap, "%s", d->extra->label);
    else if (d->dist == KBV_DIST_BASE)
        snprintf(buf, cap, "base");
    else
        snprintf(buf, cap, "D%d", (int)d->dist);
}

static bool parse_seed(const char *s, uint64_t *out)
{
    if (!s[0] || s[0] < '0' || s[0] > '9')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

/* Returns -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, dump_opts *o)
{
    memset(o, 0, sizeof *o);
    o->size = KBV_SIZE_SMALL;
    o->dist = "base";
    char msg[512];
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        bool has_value = a + 1 < argc;
        if (!strcmp(arg, "--help") || !strcmp(arg, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(arg, "--small")) {
            o->size = KBV_SIZE_SMALL;
        } else if (!strcmp(arg, "--full")) {
            o->size = KBV_SIZE_FULL;
        } else if (!strcmp(arg, "--out") && has_value) {
            o->out = argv[++a];
        } else if (!strcmp(arg, "--dist") && has_value) {
            o->dist = argv[++a];
        } else if (!strcmp(arg, "--seed") && has_value) {
            if (!parse_seed(argv[++a], &o->seed)) {
                snprintf(msg, sizeof msg, "--seed needs an integer in 0 .. 2^64-1, got '%s'",
                         argv[a]);
                return fail_line(msg);
            }
            o->have_seed = true;
        } else if (!strcmp(arg, "--device") && has_value) {
            const char *dev = argv[++a];
            if (strcmp(dev, "cpu") && strcmp(dev, "cuda")) {
                snprintf(msg, sizeof msg, "--device is cpu or cuda, got '%s'", dev);
                return fail_line(msg);
            }
            o->cuda = !strcmp(dev, "cuda");
        } else if (!strcmp(arg, "--precision") && has_value) {
            const char *prec = argv[++a];
            if (strcmp(prec, "fp32") && strcmp(prec, "bf16")) {
                snprintf(msg, sizeof msg, "--precision is fp32 or bf16, got '%s'", prec);
                return fail_line(msg);
            }
            o->bf16 = !strcmp(prec, "bf16");
        } else if (arg[0] == '-' || o->key) {
            snprintf(msg, sizeof msg, "unexpected or incomplete argument '%s' (see kbv dump --help)",
                     arg);
            return fail_line(msg);
        } else {
            o->key = arg;
        }
    }
    if (!o->key)
        return fail_line("which problem? give a key such as L1/19 ('kbv list' shows them all)");
    if (!o->out)
        return fail_line("--out DIR is required (see kbv dump --help)");
    return -1;
}

/* mkdir -p: every missing component, then a check that it is a directory. */
static kbv_status make_dirs(const char *path)
{
    char buf[4096];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
        return kbv_fail(KBV_ERR_INVALID, "output path too long: %s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST)
            return kbv_fail(KBV_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return kbv_fail(KBV_ERR_IO, "cannot create directory %s: %s", buf, strerror(errno));
    struct stat sb;
    if (stat(buf, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return kbv_fail(KBV_ERR_IO, "%s is not a directory", buf);
    return KBV_OK;
}

static bool is_float_dtype(kbv_dtype dt)
{
    return dt == KBV_F32 || dt == KBV_F64;
}

/* An output's file dtype: every float output holds the float64 oracle. */
static kbv_dtype output_dtype(kbv_dtype logical)
{
    bool half = logical == KBV_F16 || logical == KBV_BF16;
    return is_float_dtype(logical) || half ? KBV_F64 : logical;
}

/* A host element of a float tensor as a double. */
static double host_float(kbv_dtype dt, const void *data, int64_t i)
{
    switch (dt) {
    case KBV_F64: return ((const double *)data)[i];
    case KBV_BF16: return kbv_bf16_to_double(((const uint16_t *)data)[i]);
    default: return ((const float *)data)[i];
    }
}

/* Copies one tensor to the host in dtype `want` and writes DIR/file. */
static kbv_status write_tensor(kbv_backend *be, const kbv_tensor *t, const kbv_value *v,
                               kbv_dtype want, const char *dir, const char *file)
{
    kbv_status st = KBV_OK;
    int64_t n = kbv_value_numel(v);
    size_t have_bytes = (size_t)n * kbv_dtype_size(t->dtype);
    void *host = malloc(have_bytes ? have_bytes : 1);
    void *conv = NULL;
    char path[4096];
    if (!host)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "%zu bytes for %s", have_bytes, v->name);
    KBV_TRY_GOTO(be->to_host(be, host, t->data, have_bytes), st, done);
    const void *data = host;
    if (want != t->dtype) {
        if (!is_float_dtype(want) || (!is_float_dtype(t->dtype) && t->dtype != KBV_BF16))
            KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "%s: cannot write %s data as %s",
                          v->name, kbv_dtype_name(t->dtype), kbv_dtype_name(want));
        conv = malloc((size_t)n * kbv_dtype_size(want));
        if (!conv)
            KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "converting %s", v->name);
        for (int64_t i = 0; i < n; i++) {
            double x = host_float(t->dtype, host, i);
            if (want == KBV_F64)
                ((double *)conv)[i] = x;
            else
                ((float *)conv)[i] = (float)x;
        }
        data = conv;
    }
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "output path too long: %s/%s", dir, file);
    KBV_TRY_GOTO(kbv_npy_write(path, want, v->ndim, v->shape, data), st, done);
done:
    free(conv);
    free(host);
    return st;
}

static json_t *shape_json(const kbv_value *v)
{
    json_t *shape = json_array();
    for (int d = 0; d < v->ndim; d++)
        json_array_append_new(shape, json_integer(v->shape[d]));
    return shape;
}

static const char *gen_name(kbv_gen gen)
{
    switch (gen) {
    case KBV_GEN_RAND: return "rand";
    case KBV_GEN_RANDN: return "randn";
    case KBV_GEN_RANDINT: return "randint";
    case KBV_GEN_SCALAR: return "scalar";
    default: return "none";
    }
}

static const char *structure_name(kbv_structure s)
{
    switch (s) {
    case KBV_STRUCT_TRIU: return "triu";
    case KBV_STRUCT_TRIL: return "tril";
    case KBV_STRUCT_SYMMETRIC: return "symmetric";
    case KBV_STRUCT_SCALED: return "scaled";
    case KBV_STRUCT_SOFTMAX: return "softmax";
    case KBV_STRUCT_SCALED_SOFTMAX: return "scaled_softmax";
    case KBV_STRUCT_SIGNS: return "signs";
    default: return "none";
    }
}

static json_t *entry_json(const kbv_value *v, const char *file, kbv_dtype dt)
{
    json_t *e = json_pack("{s:s, s:s, s:o, s:s}", "name", v->name, "file", file, "shape",
                          shape_json(v), "dtype", kbv_dtype_name(dt));
    if (dt == KBV_BF16) /* npy has no bfloat16: the values are written as float32 numbers */
        json_object_set_new(e, "stored_as", json_string("float32"));
    return e;
}

/* The dtypes of one dump's tensors: as drawn and as the baseline wrote them. */
typedef struct dump_dtypes {
    kbv_dtype *in, *par, *out;   /* [n_inputs], [n_params], [n_outputs] */
} dump_dtypes;

/* The file dtype of a tensor stored as dt: bfloat16 as float32 numbers. */
static kbv_dtype file_dtype(kbv_dtype dt, kbv_dtype logical)
{
    return dt == KBV_BF16 ? KBV_F32 : logical;
}

static kbv_status write_meta(const kbv_graph *g, const dump_opts *o, const kbv_draw *draw,
                             const char *device, const dump_dtypes *dt)
{
    const kbv_problem *def = g->def;
    kbv_status st = KBV_OK;
    char key[32], file[512], path[4096];
    json_t *meta = json_object(), *dims = json_object(), *init = json_array();
    json_t *inputs = json_array(), *params = json_array(), *outputs = json_array();
    if (!meta || !dims || !init || !inputs || !params || !outputs)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "meta.json");
    for (int d = 0; d < g->n_dims; d++)
        json_object_set_new(dims, def->dims[d].name, json_integer(g->dims[d]));
    for (int a = 0; a < def->n_init_args; a++)
        json_array_append_new(init, json_pack("{s:s, s:s}", "name", def->init_args[a].name,
                                              "value", def->init_args[a].value));
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_input_def *in = &def->inputs[i];
        snprintf(file, sizeof file, "%s.npy", in->name);
        json_t *e = entry_json(&g->values[i], file,
                               dt->in[i] == KBV_BF16 ? KBV_BF16 : g->values[i].dtype);
        json_object_set_new(e, "generator", json_string(gen_name(in->gen)));
        json_object_set_new(e, "structure", json_string(structure_name(in->structure)));
        if (in->gen == KBV_GEN_SCALAR)
            json_object_set_new(e, "value", json_real(in->value));
        json_array_append_new(inputs, e);
    }
    for (int p = 0; p < g->n_params; p++) {
        const kbv_value *v = &g->values[g->n_inputs + p];
        snprintf(file, sizeof file, "%s.npy", v->name);
        json_t *e = entry_json(v, file, dt->par[p] == KBV_BF16 ? KBV_BF16 : v->dtype);
        json_object_set_new(e, "buffer", json_boolean(def->params[p].is_buffer));
        kbv_init init = def->params[p].init;
        /* a buffer the module's __init__ computes: the parity test compares it */
        json_object_set_new(e, "computed",
                            json_boolean(init == KBV_INIT_SWIN_COORDS_TABLE ||
                                         init == KBV_INIT_SWIN_POSITION_INDEX ||
                                         init == KBV_INIT_SWIN_ATTN_MASK));
        json_array_append_new(params, e);
    }
    for (int o2 = 0; o2 < g->n_outputs; o2++) {
        const kbv_value *v = &g->values[g->outputs[o2]];
        snprintf(file, sizeof file, "output_%d.npy", o2);
        json_t *e = entry_json(v, file, output_dtype(v->dtype));
        if (o->bf16) {
            snprintf(file, sizeof file, "baseline_%d.npy", o2);
            json_object_set_new(e, "baseline", entry_json(v, file, dt->out[o2]));
        }
        json_array_append_new(outputs, e);
    }
    const uint64_t seed = draw->seed;
    char dist[8];
    draw_name(draw, dist, sizeof dist);
    json_t *seed_json = seed <= (uint64_t)INT64_MAX ? json_integer((json_int_t)seed) : NULL;
    if (!seed_json) {
        char digits[32];
        snprintf(digits, sizeof digits, "%llu", (unsigned long long)seed);
        seed_json = json_string(digits);
    }
    json_object_set_new(meta, "problem", json_string(kbv_problem_key(def, key, sizeof key)));
    json_object_set_new(meta, "name", json_string(def->name));
    json_object_set_new(meta, "size", json_string(o->size == KBV_SIZE_SMALL ? "small" : "full"));
    json_object_set_new(meta, "dims", dims);
    json_object_set_new(meta, "init_inputs", init);
    json_object_set_new(meta, "dist", json_string(dist));
    json_object_set_new(meta, "seed", seed_json);
    json_object_set_new(meta, "device", json_string(device));
    json_object_set_new(meta, "oracle", json_string("fp64"));
    json_object_set_new(meta, "precision", json_string(o->bf16 ? "bf16" : "fp32"));
    json_object_set_new(meta, "inputs", inputs);
    json_object_set_new(meta, "params", params);
    json_object_set_new(meta, "outputs", outputs);
    dims = init = inputs = params = outputs = NULL;

    snprintf(path, sizeof path, "%s/meta.json", o->out);
    FILE *f = fopen(path, "w");
    if (!f)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot create %s: %s", path, strerror(errno));
    bool ok = json_dumpf(meta, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
              fputc('\n', f) != EOF && fflush(f) == 0;
    if (fclose(f) != 0 || !ok)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s failed: %s", path, strerror(errno));
done:
    json_decref(meta);
    json_decref(dims);
    json_decref(init);
    json_decref(inputs);
    json_decref(params);
    json_decref(outputs);
    return st;
}

/* A float64 copy of t on be64 (t itself when it holds no floats). */
static kbv_status widen64(kbv_backend *be64, const kbv_tensor *t, kbv_tensor *t64, bool *owned)
{
    *t64 = *t;
    *owned = false;
    if (t->dtype != KBV_F32 && t->dtype != KBV_F64 && t->dtype != KBV_BF16 &&
        t->dtype != KBV_F16)
        return KBV_OK;
    t64->dtype = KBV_F64;
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    size_t bytes = (size_t)n * sizeof(double);
    KBV_TRY(be64->alloc(be64, bytes, &t64->data));
    *owned = true;
    return be64->convert(be64, t, t64);
}

/* Draws inputs and params on be (the fp64 backend, or the bf16 one with
 * --precision bf16), runs the oracle (on float64 copies of a bf16 draw) and
 * the bf16 baseline, writes every file. */
static kbv_status dump(const kbv_graph *g, kbv_backend *be, kbv_backend *be64,
                       const dump_opts *o, const kbv_draw *draw)
{
    kbv_status st = KBV_OK;
    size_t ni = (size_t)g->n_inputs + 1, np = (size_t)g->n_params + 1;
    size_t no = (size_t)g->n_outputs + 1;
    kbv_tensor *inputs = calloc(ni, sizeof *inputs), *params = calloc(np, sizeof *params);
    kbv_tensor *in64 = calloc(ni, sizeof *in64), *par64 = calloc(np, sizeof *par64);
    bool *in64_owned = calloc(ni, sizeof *in64_owned);
    bool *par64_owned = calloc(np, sizeof *par64_owned);
    kbv_tensor *outputs = calloc(no, sizeof *outputs), *base_out = calloc(no, sizeof *base_out);
    int n_inputs = 0, n_params = 0;
    bool have_outputs = false, have_base = false;
    dump_dtypes dt = {calloc(ni, sizeof *dt.in), calloc(np, sizeof *dt.par),
                      calloc(no, sizeof *dt.out)};
    char file[512];
    if (!inputs || !params || !in64 || !par64 || !in64_owned || !par64_owned || !outputs ||
        !base_out || !dt.in || !dt.par || !dt.out)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "dump of %d params", g->n_params);

    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_value *v = &g->values[i];
        kbv_tensor *t = &inputs[i];
        kbv_value_tensor(v, t);
        t->dtype = kbv_storage_dtype(be, v->dtype, g->def->inputs[i].gen == KBV_GEN_SCALAR);
        dt.in[i] = t->dtype;
        size_t bytes = (size_t)kbv_value_numel(v) * kbv_dtype_size(t->dtype);
        KBV_TRY_GOTO(be->alloc(be, bytes, &t->data), st, done);
        n_inputs = i + 1;
        KBV_TRY_GOTO(be->fill(be, &g->def->inputs[i], i, draw, t), st, done);
    }
    for (int p = 0; p < g->n_params; p++) {
        const kbv_value *v = &g->values[g->n_inputs + p];
        kbv_tensor *t = &params[p];
        kbv_value_tensor(v, t);
        t->dtype = kbv_storage_dtype(be, v->dtype, false);
        dt.par[p] = t->dtype;
        size_t bytes = (size_t)kbv_value_numel(v) * kbv_dtype_size(t->dtype);
        KBV_TRY_GOTO(be->alloc(be, bytes, &t->data), st, done);
        n_params = p + 1;
        KBV_TRY_GOTO(be->fill_param(be, g, p, draw, t), st, done);
    }
    if (be != be64) {
        KBV_TRY_GOTO(kbv_graph_run(g, be, inputs, params, base_out), st, done);
        have_base = true;
        KBV_TRY_GOTO(be->sync(be), st, done);
        for (int k = 0; k < g->n_outputs; k++)
            dt.out[k] = base_out[k].dtype;
        for (int i = 0; i < g->n_inputs; i++)
            KBV_TRY_GOTO(widen64(be64, &inputs[i], &in64[i], &in64_owned[i]), st, done);
        for (int p = 0; p < g->n_params; p++)
            KBV_TRY_GOTO(widen64(be64, &params[p], &par64[p], &par64_owned[p]), st, done);
    } else {
        memcpy(in64, inputs, sizeof *in64 * ni);
        memcpy(par64, params, sizeof *par64 * np);
    }
    KBV_TRY_GOTO(kbv_graph_run(g, be64, in64, par64, outputs), st, done);
    have_outputs = true;
    KBV_TRY_GOTO(be64->sync(be64), st, done);

    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_value *v = &g->values[i];
        snprintf(file, sizeof file, "%s.npy", v->name);
        KBV_TRY_GOTO(write_tensor(be, &inputs[i], v, file_dtype(inputs[i].dtype, v->dtype),
                                  o->out, file),
                     st, done);
    }
    for (int p = 0; p < g->n_params; p++) {
        const kbv_value *v = &g->values[g->n_inputs + p];
        snprintf(file, sizeof file, "%s.npy", v->name);
        KBV_TRY_GOTO(write_tensor(be, &params[p], v, file_dtype(params[p].dtype, v->dtype),
                                  o->out, file),
                     st, done);
    }
    for (int k = 0; k < g->n_outputs; k++) {
        const kbv_value *v = &g->values[g->outputs[k]];
        snprintf(file, sizeof file, "output_%d.npy", k);
        KBV_TRY_GOTO(write_tensor(be64, &outputs[k], v, output_dtype(v->dtype), o->out, file),
                     st, done);
        if (have_base) {
            snprintf(file, sizeof file, "baseline_%d.npy", k);
            KBV_TRY_GOTO(write_tensor(be, &base_out[k], v, file_dtype(base_out[k].dtype, v->dtype),
                                      o->out, file),
                         st, done);
        }
    }
    KBV_TRY_GOTO(write_meta(g, o, draw, o->cuda ? "cuda" : "cpu", &dt), st, done);
done:
    if (have_outputs)
        for (int k = 0; k < g->n_outputs; k++)
            be64->release(be64, outputs[k].data);
    if (have_base)
        for (int k = 0; k < g->n_outputs; k++)
            be->release(be, base_out[k].data);
    for (int p = 0; p < n_params; p++)
        if (par64_owned[p])
            be64->release(be64, par64[p].data);
    for (int i = 0; i < n_inputs; i++)
        if (in64_owned[i])
            be64->release(be64, in64[i].data);
    for (int p = 0; p < n_params; p++)
        be->release(be, params[p].data);
    for (int i = 0; i < n_inputs; i++)
        be->release(be, inputs[i].data);
    free(inputs);
    free(params);
    free(in64);
    free(par64);
    free(in64_owned);
    free(par64_owned);
    free(outputs);
    free(base_out);
    free(dt.in);
    free(dt.par);
    free(dt.out);
    return st;
}

int kbv_cmd_dump(int argc, char **argv)
{
    dump_opts o;
    int parsed = parse_args(argc, argv, &o);
    if (parsed >= 0)
        return parsed;
    const kbv_problem *def = kbv_problem_find(o.key);
    if (!def) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "unknown problem '%s' ('kbv list' shows the valid keys, e.g. L1/19)", o.key);
        return fail_line(msg);
    }
    kbv_draw draw;
    if (!kbv_draw_from_label(def, o.dist, &draw)) {
        char msg[512], extras[64] = "";
        for (int e = 0; e < KBV_HIDDEN_MAX_EXTRA && def->hidden.extra[e].label; e++)
            snprintf(extras + strlen(extras), sizeof extras - strlen(extras), ", %s",
                     def->hidden.extra[e].label);
        snprintf(msg, sizeof msg, "unknown distribution '%s' (use base, D1..D8%s)", o.dist,
                 extras);
        return fail_line(msg);
    }
    if (o.cuda && !kbv_cuda_available())
        return fail_line("--device cuda: no usable CUDA device (or kbv was built without CUDA)");
    uint64_t seed = o.seed;
    if (!o.have_seed) {
        if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed)
            return fail_line("could not draw a random seed (getrandom failed)");
        seed &= (uint64_t)INT64_MAX; /* fits a JSON integer */
    }
    draw.seed = seed;

    int status = 0;
    kbv_backend *be = NULL, *be64 = NULL;
    kbv_graph *g = calloc(1, sizeof *g);
    if (!g)
        return fail_line("out of memory");
    if (kbv_graph_build(def, o.size, g) != KBV_OK || make_dirs(o.out) != KBV_OK) {
        status = fail_status();
        goto done;
    }
    kbv_status st = o.cuda ? kbv_cuda_backend_create(0, KBV_MODE_FP64, &be64)
                           : kbv_cpu_backend_create(KBV_MODE_FP64, &be64);
    if (st == KBV_OK && o.bf16)
        st = o.cuda ? kbv_cuda_backend_create(0, KBV_MODE_BF16, &be)
                    : kbv_cpu_backend_create(KBV_MODE_BF16, &be);
    if (st == KBV_OK && dump(g, be ? be : be64, be64, &o, &draw) != KBV_OK) {
        status = fail_status();
        goto done;
    }
    if (st != KBV_OK) {
        status = fail_status();
        goto done;
    }
    char key[32], dist[8];
    draw_name(&draw, dist, sizeof dist);
    printf("kbv dump: %s %s (%s, dist %s, seed %llu) -> %s\n", kbv_problem_key(def, key, sizeof key),
           def->name, o.size == KBV_SIZE_SMALL ? "small" : "full", dist,
           (unsigned long long)seed, o.out);
    if (fflush(stdout) != 0)
        status = fail_line("writing to stdout failed");
done:
    kbv_backend_destroy(be);
    kbv_backend_destroy(be64);
    kbv_graph_free(g);
    free(g);
    return status;
}
