/* kbv show: a problem's definition in words, or (--torch) its PyTorch
 * rendering, which runs as it is: kbv show L1/19 --torch | python3 - */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "dist/draws.h"
#include "graph/graph.h"
#include "graph/ops_table.h"
#include "graph/torch_render.h"
#include "eval/ceilings.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv show KEY [--small|--full] [--torch]\n\n"
            "Prints the problem's definition: dims (catalog and CI sizes), inputs with their\n"
            "generators, params, constructor arguments, the ops with their result shapes,\n"
            "outputs, FLOP/byte counts with the H200 speed-of-light time, and notes.\n"
            "KEY is L<level>/<id> as in 'kbv list' (also l1/19, 1/19 or L1/19_ReLU).\n\n"
            "  --torch     print the PyTorch module (Model, get_inputs, get_init_inputs) instead\n"
            "  --small     shapes at the CI size\n"
            "  --full      shapes at the catalog's size (the default)\n"
            "  --help      this text\n");
}

static void print_shape(const int64_t *shape, int ndim)
{
    printf("[");
    for (int d = 0; d < ndim; d++)
        printf("%s%lld", d ? ", " : "", (long long)shape[d]);
    printf("]");
}

static void print_def_shape(const char *const *shape)
{
    printf("[");
    for (int d = 0; d < KBV_MAX_DIMS && shape[d]; d++)
        printf("%s%s", d ? ", " : "", shape[d]);
    printf("]");
}

static void print_generator(const kbv_input_def *in)
{
    switch (in->gen) {
    case KBV_GEN_RAND: printf("torch.rand: U[0,1)"); break;
    case KBV_GEN_RANDN: printf("torch.randn: N(0,1)"); break;
    case KBV_GEN_RANDINT:
        printf("torch.randint in [%lld, %lld), never scaled", (long long)in->low,
               (long long)in->high);
        break;
    case KBV_GEN_SCALAR: printf("the Python float %g, fixed", in->value); break;
    default: printf("(no generator)"); break;
    }
    switch (in->structure) {
    case KBV_STRUCT_TRIU: printf(", then torch.triu (kept under every distribution)"); break;
    case KBV_STRUCT_TRIL: printf(", then torch.tril (kept under every distribution)"); break;
    case KBV_STRUCT_SYMMETRIC: printf(", symmetrized (G + G.T) / 2 (kept under every distribution)"); break;
    case KBV_STRUCT_SCALED: printf(", times one torch.rand(()) factor per draw (kept under every distribution)"); break;
    case KBV_STRUCT_SOFTMAX: printf(", then softmax over the last dim (kept under every distribution)"); break;
    case KBV_STRUCT_SCALED_SOFTMAX: printf(", times one torch.rand(()) factor, then softmax over the last dim (kept under every distribution)"); break;
    case KBV_STRUCT_SIGNS: printf(", as float * 2 - 1: +-1 (kept under every distribution)"); break;
    default: break;
    }
}

static void print_init(const kbv_param_def *p, const kbv_value *v)
{
    switch (p->init) {
    case KBV_INIT_ONES: printf("ones"); break;
    case KBV_INIT_UNIFORM_FAN_IN:
    case KBV_INIT_UNIFORM_HIDDEN:
        printf("U(-1/sqrt(%lld), 1/sqrt(%lld))", (long long)v->fan_in, (long long)v->fan_in);
        break;
    case KBV_INIT_RANDN: printf("randn: N(0, 1)"); break;
    case KBV_INIT_CONST: printf("constant %.17g", p->value); break;
    case KBV_INIT_NORMAL: printf("normal: N(0, %.17g^2)", p->value); break;
    case KBV_INIT_TRIL_ONES: printf("tril(ones)"); break;
    case KBV_INIT_XAVIER_UNIFORM:
        printf("xavier_uniform_: U(-sqrt(6/%lld), sqrt(6/%lld))", (long long)v->fan_in,
               (long long)v->fan_in);
        break;
    case KBV_INIT_SWIN_COORDS_TABLE: printf("Swin V2's relative_coords_table"); break;
    case KBV_INIT_SWIN_POSITION_INDEX: printf("Swin V2's relative_position_index"); break;
    case KBV_INIT_SWIN_ATTN_MASK: printf("Swin's shifted-window attn_mask (shift %g)", p->value); break;
    default: printf("zeros"); break;
    }
}

/* The paper's hidden configs as the definition has them (DESIGN section 4). */
static void print_hidden(const kbv_problem *def)
{
    kbv_planned_draw configs[KBV_MAX_CONFIGS];
    int n = kbv_hidden_configs(def, configs);
    printf("hidden configs (verified and strict; each a fresh draw):\n  ");
    int shown = 0;
    for (int c = 0; c < n; c++) {
        if (configs[c].draw.extra || kbv_config_omitted(def, configs[c].label))
            continue;
        double f = kbv_dist_factor(configs[c].draw.dist);
        printf(f < 0 ? "%s%s x(%g)" : "%s%s x%g", shown++ ? ", " : "", configs[c].label, f);
    }
    printf(": every float tensor get_inputs() returns, after its structure, times the factor\n");
    for (int c = 0; c < n; c++)
        if (configs[c].draw.extra)
            printf("  %s: %s\n", configs[c].label, configs[c].draw.extra->what);
    for (int c = 0; c < n; c++)
        if (kbv_config_omitted(def, configs[c].label))
            printf("  %s omitted as in the paper's hidden tests: %s\n", configs[c].label,
                   def->hidden.omit_why);
    printf("  (a config whose fp32 reference is not finite at the evaluated size is dropped too; "
           "records and kbv audit list it)\n");
}

static kbv_status print_words(const kbv_graph *g, kbv_size size)
{
    const kbv_problem *def = g->def;
    char key[32];
    printf("%s  %s  (%s size)\n", kbv_problem_key(def, key, sizeof key), def->name,
           size == KBV_SIZE_SMALL ? "small CI" : "full catalog");
    printf("dims:\n");
    for (int d = 0; d < g->n_dims; d++)
        printf("  %s = %lld (small: %lld)\n", def->dims[d].name, (long long)def->dims[d].full,
               (long long)def->dims[d].small);
    printf("inputs (forward arguments, in order):\n");
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_value *v = &g->values[i];
        const kbv_input_def *in = &def->inputs[i];
        printf("  %s: %s ", v->name, kbv_dtype_name(v->dtype));
        if (v->ndim) {
            print_def_shape(in->shape);
            printf(" = ");
            print_shape(v->shape, v->ndim);
        } else {
            printf("0-dim");
        }
        printf(", ");
        print_generator(in);
        printf("\n");
    }
    printf("params (state_dict order):%s\n", g->n_params ? "" : " none");
    for (int p = 0; p < g->n_params; p++) {
        const kbv_value *v = &g->values[g->n_inputs + p];
        printf("  %s: %s ", v->name, kbv_dtype_name(v->dtype));
        print_shape(v->shape, v->ndim);
        printf(", %s", def->params[p].is_buffer ? "buffer, " : "");
        print_init(&def->params[p], v);
        printf("\n");
    }
    printf("constructor arguments:%s\n", def->n_init_args > 0 ? "" : " none");
    for (int a = 0; a < def->n_init_args; a++)
        printf("  %s = %s\n", def->init_args[a].name, def->init_args[a].value);
    printf("ops (as PyTorch eager runs them):\n");
    for (int n = 0; n < g->n_nodes; n++) {
        char expr[16384];
        KBV_TRY(kbv_render_node(g, n, expr, sizeof expr));
        const kbv_node *node = &g->nodes[n];
        const kbv_op_info *info = &kbv_op_table[node->op];
        for (int j = 0; j < node->n_outs; j++) {
            const kbv_value *out = &g->values[node->out + j];
            if (j == 0)
                printf("  %s = %s  -> ", out->name, expr);
            else
                printf(", %s ", out->name);
            printf("%s ", kbv_dtype_name(out->dtype));
            print_shape(out->shape, out->ndim);
        }
        printf("%s\n", info->copy_unless_view ? " (a view where PyTorch's is, else a copy)"
                        : info->is_view         ? " (a view, no copy)"
                                                : "");
    }
    printf("outputs:\n");
    for (int o = 0; o < g->n_outputs; o++) {
        const kbv_value *v = &g->values[g->outputs[o]];
        printf("  %s: %s ", v->name, kbv_dtype_name(v->dtype));
        print_shape(v->shape, v->ndim);
        printf("\n");
    }
    double flops = kbv_graph_flops(g), bytes = kbv_graph_min_bytes(g);
    printf("counts: %.6g GFLOP, %.6g MB minimum traffic; H200 speed of light %.4g us (TF32), "
           "%.4g us (FP32)\n",
           flops * 1e-9, bytes * 1e-6, 1e6 * kbv_sol_seconds(flops, bytes, 1),
           1e6 * kbv_sol_seconds(flops, bytes, 0));
    print_hidden(def);
    if (def->notes)
        printf("notes: %s\n", def->notes);
    return KBV_OK;
}

int kbv_cmd_show(int argc, char **argv)
{
    const char *key = NULL;
    bool torch = false;
    kbv_size size = KBV_SIZE_FULL;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[a], "--torch")) {
            torch = true;
        } else if (!strcmp(argv[a], "--small")) {
            size = KBV_SIZE_SMALL;
        } else if (!strcmp(argv[a], "--full")) {
            size = KBV_SIZE_FULL;
        } else if (argv[a][0] == '-' || key) {
            fprintf(stderr, "kbv show: unexpected argument '%s' (see kbv show --help)\n", argv[a]);
            return 2;
        } else {
            key = argv[a];
        }
    }
    if (!key) {
        fprintf(stderr, "kbv show: which problem? give a key such as L1/19 ('kbv list' shows "
                        "them all)\n");
        return 2;
    }
    const kbv_problem *def = kbv_problem_find(key);
    if (!def) {
        fprintf(stderr, "kbv show: unknown problem '%s' ('kbv list' shows the valid keys, e.g. "
                        "L1/19)\n", key);
        return 2;
    }
    if (torch) {
        if (kbv_render_torch(def, size, stdout) != KBV_OK) {
            kbv_cli_error("kbv show", NULL);
            return 2;
        }
        return 0;
    }
    kbv_graph *g = calloc(1, sizeof *g);
    int status = 0;
    if (!g) {
        fprintf(stderr, "kbv show: out of memory\n");
        return 2;
    }
    if (kbv_graph_build(def, size, g) != KBV_OK || print_words(g, size) != KBV_OK) {
        kbv_cli_error("kbv show", NULL);
        status = 2;
    } else if (kbv_cli_flush_stdout("kbv show")) {
        status = 2;
    }
    kbv_graph_free(g);
    free(g);
    return status;
}
