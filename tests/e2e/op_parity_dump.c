/* The one-op problems of op_problems.c, dumped as `kbv dump` and
 * `kbv show --torch` dump a registered problem (meta.json, inputs, params and the float64 oracle's outputs as
 * .npy, model.py), so that torch_parity.py checks them against real
 * PyTorch the same way. They are test data, not part of the suite.
 *
 * Usage: op_parity_dump OUT_DIR SEED   (one directory per problem) */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph/problem_def.h"
#include "eval/npy.h"
#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/torch_render.h"
#include "op_problems.h"

static int fail(const char *what)
{
    fprintf(stderr, "op_parity_dump: %s: %s\n", what, kbv_last_error());
    return 1;
}

static kbv_status write_npy(kbv_backend *be, const kbv_tensor *t, const kbv_value *v,
                            kbv_dtype want, const char *dir, const char *file, json_t *list,
                            const char *generator)
{
    int64_t n = kbv_value_numel(v);
    const double *src = t->data; /* float64 storage on the fp64 backend */
    void *buf = malloc((size_t)(n ? n : 1) * 8);
    char path[4096];
    if (!buf)
        return kbv_fail(KBV_ERR_NOMEM, "%s", v->name);
    (void)be;
    if (t->dtype == KBV_BOOL) /* a mask: its bytes as they are */
        want = KBV_BOOL;
    for (int64_t i = 0; i < n; i++) {
        if (want == KBV_BOOL)
            ((unsigned char *)buf)[i] = ((const unsigned char *)t->data)[i];
        else if (want == KBV_F32)
            ((float *)buf)[i] = (float)src[i];
        else
            ((double *)buf)[i] = src[i];
    }
    snprintf(path, sizeof path, "%s/%s", dir, file);
    kbv_status st = kbv_npy_write(path, want, v->ndim, v->shape, buf);
    free(buf);
    json_t *shape = json_array();
    for (int d = 0; d < v->ndim; d++)
        json_array_append_new(shape, json_integer(v->shape[d]));
    json_t *e = json_pack("{s:s, s:s, s:o, s:s}", "name", v->name, "file", file, "shape", shape,
                          "dtype", kbv_dtype_name(want));
    if (generator)
        json_object_set_new(e, "generator", json_string(generator));
    json_array_append_new(list, e);
    return st;
}

static kbv_status dump_one(const kbv_problem *def, const char *dir, uint64_t seed)
{
    /* dir is under 1024 bytes (main) */
    kbv_status st = KBV_OK;
    static kbv_graph g;
    kbv_backend *be = NULL;
    kbv_tensor in[KBV_STATIC_MAX_INPUTS], par[KBV_STATIC_MAX_PARAMS], out[KBV_STATIC_MAX_OUTPUTS];
    int n_in = 0, n_par = 0;
    bool ran = false;
    char file[512], path[4096];
    json_t *meta = json_object(), *inputs = json_array(), *params = json_array(),
           *outputs = json_array();
    KBV_TRY_GOTO(kbv_graph_build(def, KBV_SIZE_SMALL, &g), st, done);
    KBV_TRY_GOTO(kbv_cpu_backend_create(KBV_MODE_FP64, &be), st, done);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "mkdir %s: %s", dir, strerror(errno));
    const kbv_draw draw = {KBV_DIST_D6, seed, NULL}, base = {KBV_DIST_BASE, seed, NULL};
    for (; n_in < g.n_inputs; n_in++) {
        kbv_value_tensor(&g.values[n_in], &in[n_in]);
        /* float inputs in float64; a bool mask stays bool */
        const bool is_mask = in[n_in].dtype == KBV_BOOL;
        if (!is_mask)
            in[n_in].dtype = KBV_F64;
        KBV_TRY_GOTO(be->alloc(be, (size_t)kbv_value_numel(&g.values[n_in]) * (is_mask ? 1 : 8),
                               &in[n_in].data),
                     st, done);
        KBV_TRY_GOTO(be->fill(be, &def->inputs[n_in], n_in, &draw, &in[n_in]), st, done);
    }
    for (; n_par < g.n_params; n_par++) {
        const kbv_value *v = &g.values[g.n_inputs + n_par];
        kbv_value_tensor(v, &par[n_par]);
        par[n_par].dtype = KBV_F64;
        KBV_TRY_GOTO(be->alloc(be, (size_t)kbv_value_numel(v) * 8, &par[n_par].data), st, done);
        KBV_TRY_GOTO(be->fill_param(be, &g, n_par, &base, &par[n_par]), st, done);
    }
    KBV_TRY_GOTO(kbv_graph_run(&g, be, in, par, out), st, done);
    ran = true;
    for (int i = 0; i < g.n_inputs; i++) {
        snprintf(file, sizeof file, "%s.npy", g.values[i].name);
        KBV_TRY_GOTO(write_npy(be, &in[i], &g.values[i], KBV_F32, dir, file, inputs, "randn"),
                     st, done);
    }
    for (int p = 0; p < g.n_params; p++) {
        const kbv_value *v = &g.values[g.n_inputs + p];
        snprintf(file, sizeof file, "%s.npy", v->name);
        KBV_TRY_GOTO(write_npy(be, &par[p], v, KBV_F32, dir, file, params, NULL), st, done);
    }
    for (int k = 0; k < g.n_outputs; k++) {
        snprintf(file, sizeof file, "output_%d.npy", k);
        KBV_TRY_GOTO(write_npy(be, &out[k], &g.values[g.outputs[k]], KBV_F64, dir, file, outputs,
                               NULL),
                     st, done);
    }
    char key[32];
    snprintf(key, sizeof key, "L%d/%d", def->level, def->id);
    json_object_set_new(meta, "problem", json_string(key));
    json_object_set_new(meta, "name", json_string(def->name));
    json_object_set(meta, "inputs", inputs);
    json_object_set(meta, "params", params);
    json_object_set(meta, "outputs", outputs);
    snprintf(path, sizeof path, "%s/meta.json", dir);
    if (json_dump_file(meta, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s", path);
    snprintf(path, sizeof path, "%s/model.py", dir);
    FILE *f = fopen(path, "w");
    if (!f)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot create %s", path);
    st = kbv_render_torch(def, KBV_SIZE_SMALL, f);
    if (fclose(f) != 0 && st == KBV_OK)
        st = kbv_fail(KBV_ERR_IO, "writing %s", path);
done:
    if (ran)
        for (int k = 0; k < g.n_outputs; k++)
            be->release(be, out[k].data);
    for (int p = 0; p < n_par; p++)
        be->release(be, par[p].data);
    for (int i = 0; i < n_in; i++)
        be->release(be, in[i].data);
    if (be)
        kbv_backend_destroy(be);
    json_decref(meta);
    json_decref(inputs);
    json_decref(params);
    json_decref(outputs);
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: op_parity_dump OUT_DIR SEED\n");
        return 2;
    }
    uint64_t seed = strtoull(argv[2], NULL, 10);
    if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "op_parity_dump: mkdir %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    for (int p = 0; p < kbv_op_problem_count; p++) {
        char dir[1024];
        if (snprintf(dir, sizeof dir, "%s/L0_%d", argv[1], kbv_op_problems[p].id) >= (int)sizeof dir) {
            fprintf(stderr, "op_parity_dump: %s is too long\n", argv[1]);
            return 1;
        }
        if (dump_one(kbv_op_problem(p), dir, seed) != KBV_OK)
            return fail(kbv_op_problems[p].name);
        printf("%s\n", dir);
    }
    return 0;
}
