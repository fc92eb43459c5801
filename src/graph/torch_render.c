/* Renders a problem definition as KernelBench-style PyTorch: the op
 * table's templates give each node's expression; inputs are drawn by their
 * base generators in get_inputs(); params become nn.Parameter attributes
 * (nested nn.Module containers for dotted names) so that state_dict keys
 * equal the definition's param names. */
#include "graph/torch_render.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/ops_table.h"

void kbv_render_float(double v, char *buf, size_t cap)
{
    if (isnan(v)) {
        snprintf(buf, cap, "float(\"nan\")");
        return;
    }
    if (isinf(v)) {
        snprintf(buf, cap, "float(\"%sinf\")", v < 0 ? "-" : "");
        return;
    }
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(buf, cap, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    if (!strpbrk(buf, ".e")) {
        size_t n = strlen(buf);
        if (n + 2 < cap)
            memcpy(buf + n, ".0", 3);
    }
}

/* A bounded string builder: overflow is remembered and reported once. */
typedef struct strbuf {
    char *p;
    size_t cap, len;
    bool overflow;
} strbuf;

static void put(strbuf *b, const char *s, size_t n)
{
    if (b->len + n >= b->cap) {
        b->overflow = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(strbuf *b, const char *s) { put(b, s, strlen(s)); }

static bool is_number(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    return true;
}

/* A dotted state_dict path as Python, "self." first: a numbered component
 * (layer1.0, a Sequential's index) is a key of the nn.ModuleDict that holds
 * it, so that "layer1.0.conv1.weight" is self.layer1["0"].conv1.weight. The
 * first n bytes of name only. */
static void render_path(const char *name, size_t n, char *buf, size_t cap)
{
    size_t at = (size_t)snprintf(buf, cap, "self");
    for (size_t i = 0; i < n && at < cap;) {
        const char *dot = memchr(name + i, '.', n - i);
        size_t len = dot ? (size_t)(dot - (name + i)) : n - i;
        at += (size_t)snprintf(buf + at, cap - at, is_number(name + i, len) ? "[\"%.*s\"]" : ".%.*s",
                               (int)len, name + i);
        i += len + 1;
    }
}

/* How a value is written inside forward(). */
static void put_operand(strbuf *b, const kbv_value *v)
{
    if (v->kind != KBV_VALUE_PARAM) {
        puts_(b, v->name);
        return;
    }
    char path[256];
    render_path(v->name, strlen(v->name), path, sizeof path);
    puts_(b, path);
}

/* A bitmask of dims as a Python tuple: 0b110 -> "(1, 2)", 0b10 -> "(1,)". */
static void put_dims_tuple(strbuf *b, int64_t mask)
{
    char tmp[16];
    int n = 0;
    puts_(b, "(");
    for (int d = 0; d < 63; d++)
        if ((mask >> d) & 1) {
            snprintf(tmp, sizeof tmp, "%s%d", n++ ? ", " : "", d);
            puts_(b, tmp);
        }
    puts_(b, n == 1 ? ",)" : ")");
}

/* The string attribute, with a view's size(k) as the operand's own
 * x.size(k) (graph/ops.h, view). */
static void put_sizes(strbuf *b, const char *s, const kbv_value *operand)
{
    for (const char *p = s; *p;) {
        bool starts = !strncmp(p, "size(", 5) && (p == s || !(isalnum((unsigned char)p[-1]) ||
                                                          p[-1] == '_' || p[-1] == '.'));
        if (starts && operand) {
            put_operand(b, operand);
            puts_(b, ".");
        }
        put(b, p, 1);
        p++;
    }
}

kbv_status kbv_render_node(const kbv_graph *g, int node, char *buf, size_t cap)
{
    if (node < 0 || node >= g->n_nodes || cap == 0)
        return kbv_fail(KBV_ERR_INVALID, "render: no node %d", node);
    const kbv_node *n = &g->nodes[node];
    const kbv_op_info *info = &kbv_op_table[n->op];
    strbuf b = {buf, cap, 0, false};
    buf[0] = '\0';
    const char *tmpl = n->def->in_place && info->torch_inplace ? info->torch_inplace : info->torch;
    for (const char *t = tmpl; *t; t++) {
        if (*t != '{') {
            put(&b, t, 1);
            continue;
        }
        const char *close = strchr(t, '}');
        if (!close || close - t > 3)
            return kbv_fail(KBV_ERR_INVALID, "render: bad placeholder in %s template '%s'",
                            info->name, info->torch);
        char kind = t[1];
        char field = close - t == 3 ? t[2] : '\0';
        char tmp[64];
        if (kind >= '0' && kind <= '9' && close - t == 2 && kind - '0' < n->n_args) {
            put_operand(&b, &g->values[n->args[kind - '0']]);
        } else if (kind == '*' && (close - t == 2 || (field >= '0' && field <= '9'))) {
            /* every operand (cat's list), or those from index `field` on (an
             * RNN's weights) */
            for (int a = close - t == 2 ? 0 : field - '0', first = a; a < n->n_args; a++) {
                if (a > first)
                    puts_(&b, ", ");
                put_operand(&b, &g->values[n->args[a]]);
            }
        } else if (kind >= '0' && kind <= '9' && close - t == 2 && info->min_args &&
                   kind - '0' >= info->min_args && kind - '0' < info->n_args) {
            puts_(&b, "None"); /* an optional operand left out */
        } else if (kind == 'm' && field >= '0' && field <= '3') {
            put_dims_tuple(&b, n->def->i[field - '0']);
        } else if (kind == 'f' && field >= '0' && field <= '3') {
            kbv_render_float(n->def->f[field - '0'], tmp, sizeof tmp);
            puts_(&b, tmp);
        } else if (kind == 'i' && field >= '0' && field <= '3') {
            snprintf(tmp, sizeof tmp, "%lld", (long long)n->def->i[field - '0']);
            puts_(&b, tmp);
        } else if (kind == 'b' && field >= '0' && field <= '3') {
            puts_(&b, n->def->i[field - '0'] ? "True" : "False");
        } else if (kind == 's' && close - t == 2 && n->def->s) {
            put_sizes(&b, n->def->s, n->n_args > 0 ? &g->values[n->args[0]] : NULL);
        } else {
            return kbv_fail(KBV_ERR_INVALID, "render: placeholder '%.*s' of %s has no value",
                            (int)(close - t + 1), t, info->name);
        }
        t = close;
    }
    if (b.overflow)
        return kbv_fail(KBV_ERR_INVALID, "render: node '%s' does not fit %zu bytes",
                        g->values[n->out].name, cap);
    return KBV_OK;
}

/* "(M, N)" style argument list from a definition shape: dim names stay
 * names (module-level constants), literals stay literals. */
static void fprint_dims(FILE *f, const char *const *shape)
{
    for (int d = 0; d < KBV_MAX_DIMS && shape[d]; d++)
        fprintf(f, "%s%s", d ? ", " : "", shape[d]);
}

static int shape_ndim(const char *const *shape)
{
    int n = 0;
    while (n < KBV_MAX_DIMS && shape[n])
        n++;
    return n;
}

static const char *torch_dtype(kbv_dtype dt)
{
    switch (dt) {
    case KBV_F32: return "torch.float32";
    case KBV_F64: return "torch.float64";
    case KBV_F16: return "torch.float16";
    case KBV_BF16: return "torch.bfloat16";
    case KBV_I32: return "torch.int32";
    case KBV_I64: return "torch.int64";
    case KBV_BOOL: return "torch.bool";
    }
    return "None";
}

/* A factory call: torch.rand(M, N), torch.rand(()) for 0-dim, with a dtype
 * keyword when it is not the default. */
static void fprint_factory(FILE *f, const char *fn, const char *const *shape, kbv_dtype dt,
                           kbv_dtype default_dt)
{
    fprintf(f, "%s(", fn);
    if (shape_ndim(shape) == 0)
        fprintf(f, "()");
    else
        fprint_dims(f, shape);
    if (dt != default_dt)
        fprintf(f, ", dtype=%s", torch_dtype(dt));
    fprintf(f, ")");
}

static void render_input(FILE *f, const kbv_input_def *in)
{
    char num[64];
    fprintf(f, "    %s = ", in->name);
    switch (in->gen) {
    case KBV_GEN_SCALAR:
        kbv_render_float(in->value, num, sizeof num);
        fprintf(f, "%s\n", num);
        return;
    case KBV_GEN_RANDINT: {
        int nd = shape_ndim(in->shape);
        fprintf(f, "torch.randint(%lld, %lld, (", (long long)in->low, (long long)in->high);
        fprint_dims(f, in->shape);
        fprintf(f, "%s)", nd == 1 ? "," : "");
        if (in->structure == KBV_STRUCT_SIGNS) {
            if (in->dtype == KBV_F32)
                fprintf(f, ").float() * 2 - 1\n");
            else
                fprintf(f, ").to(%s) * 2 - 1\n", torch_dtype(in->dtype));
            return;
        }
        if (in->dtype == KBV_BOOL) {
            fprintf(f, ").bool()\n");
            return;
        }
        if (in->dtype != KBV_I64)
            fprintf(f, ", dtype=%s", torch_dtype(in->dtype));
        fprintf(f, ")\n");
        return;
    }
    default:
        break;
    }
    const char *fn = in->gen == KBV_GEN_RANDN ? "torch.randn" : "torch.rand";
    switch (in->structure) {
    case KBV_STRUCT_TRIU:
    case KBV_STRUCT_TRIL:
        fprintf(f, "%s(", in->structure == KBV_STRUCT_TRIU ? "torch.triu" : "torch.tril");
        fprint_factory(f, fn, in->shape, in->dtype, KBV_F32);
        fprintf(f, ")\n");
        break;
    case KBV_STRUCT_SYMMETRIC:
        fprint_factory(f, fn, in->shape, in->dtype, KBV_F32);
        fprintf(f, "\n    %s = (%s + %s.T) / 2\n", in->name, in->name, in->name);
        break;
    case KBV_STRUCT_SCALED:
        fprint_factory(f, fn, in->shape, in->dtype, KBV_F32);
        fprintf(f, " * torch.rand(())\n");
        break;
    case KBV_STRUCT_SOFTMAX:
        fprint_factory(f, fn, in->shape, in->dtype, KBV_F32);
        fprintf(f, ".softmax(dim=-1)\n");
        break;
    case KBV_STRUCT_SCALED_SOFTMAX:
        fprintf(f, "(");
        fprint_factory(f, fn, in->shape, in->dtype, KBV_F32);
        fprintf(f, " * torch.rand(())).softmax(dim=-1)\n");
        break;
    default:
        fprint_factory(f, fn, in->shape, in->dtype, KBV_F32);
        fprintf(f, "\n");
        break;
    }
}

/* The owner of a dotted param ("bn.weight" -> "self.bn") and its leaf. */
static void split_param(const char *name, char *owner, size_t cap, const char **leaf)
{
    const char *dot = strrchr(name, '.');
    render_path(name, dot ? (size_t)(dot - name) : 0, owner, cap);
    *leaf = dot ? dot + 1 : name;
}

/* Declares each container module of a dotted name once, outermost first:
 * an nn.ModuleDict where its children are numbered (a Sequential's), an
 * nn.Module otherwise. */
static void declare_containers(FILE *f, const kbv_problem *def, int p)
{
    const char *name = def->params[p].name;
    for (const char *dot = strchr(name, '.'); dot; dot = strchr(dot + 1, '.')) {
        size_t prefix = (size_t)(dot - name);
        bool seen = false;
        for (int q = 0; q < p && !seen; q++) {
            const char *other = def->params[q].name;
            seen = strlen(other) > prefix && !strncmp(other, name, prefix) && other[prefix] == '.';
        }
        if (seen)
            continue;
        const char *next = dot + 1, *next_dot = strchr(next, '.');
        bool numbered = next_dot && is_number(next, (size_t)(next_dot - next));
        char path[256];
        render_path(name, prefix, path, sizeof path);
        fprintf(f, "        %s = nn.%s()\n", path, numbered ? "ModuleDict" : "Module");
    }
}

static void render_param(FILE *f, const kbv_graph *g, int p)
{
    const kbv_problem *def = g->def;
    const kbv_param_def *pd = &def->params[g->values[g->n_inputs + p].def_index];
    char num[64];
    char owner[256];
    const char *leaf = NULL;
    declare_containers(f, def, p);
    split_param(pd->name, owner, sizeof owner, &leaf);
    if (pd->is_buffer)
        fprintf(f, "        %s.register_buffer(\"%s\", ", owner, leaf);
    else
        fprintf(f, "        %s.%s = nn.Parameter(", owner, leaf);
    switch (pd->init) {
    case KBV_INIT_ONES:
        fprint_factory(f, "torch.ones", pd->shape, pd->dtype, KBV_F32);
        break;
    case KBV_INIT_UNIFORM_FAN_IN:
    case KBV_INIT_UNIFORM_HIDDEN: {
        long long fan_in = (long long)g->values[g->n_inputs + p].fan_in;
        fprint_factory(f, "torch.empty", pd->shape, pd->dtype, KBV_F32);
        fprintf(f, ".uniform_(-1 / math.sqrt(%lld), 1 / math.sqrt(%lld))", fan_in, fan_in);
        break;
    }
    case KBV_INIT_RANDN:
        fprint_factory(f, "torch.randn", pd->shape, pd->dtype, KBV_F32);
        break;
    case KBV_INIT_NORMAL:
        kbv_render_float(pd->value, num, sizeof num);
        fprint_factory(f, "torch.empty", pd->shape, pd->dtype, KBV_F32);
        fprintf(f, ".normal_(0, %s)", num);
        break;
    case KBV_INIT_TRIL_ONES:
        fprintf(f, "torch.tril(");
        fprint_factory(f, "torch.ones", pd->shape, pd->dtype, KBV_F32);
        fprintf(f, ")");
        break;
    case KBV_INIT_XAVIER_UNIFORM:
        fprintf(f, "nn.init.xavier_uniform_(");
        fprint_factory(f, "torch.empty", pd->shape, pd->dtype, KBV_F32);
        fprintf(f, ")");
        break;
    case KBV_INIT_CONST:
        /* torch.tensor(x) for a 0-dim param, torch.ones(shape) * x otherwise */
        kbv_render_float(pd->value, num, sizeof num);
        if (shape_ndim(pd->shape) == 0 && pd->dtype == KBV_F32) {
            fprintf(f, "torch.tensor(%s)", num);
        } else {
            fprint_factory(f, "torch.ones", pd->shape, pd->dtype, KBV_F32);
            fprintf(f, " * %s", num);
        }
        break;
    case KBV_INIT_SWIN_COORDS_TABLE:
    case KBV_INIT_SWIN_POSITION_INDEX:
    case KBV_INIT_SWIN_ATTN_MASK: {
        int64_t geometry = g->values[g->n_inputs + p].fan_in;
        long long window = (long long)(geometry & 0xffff), side = (long long)(geometry >> 16);
        if (pd->init == KBV_INIT_SWIN_COORDS_TABLE)
            fprintf(f, "swin_relative_coords_table(%lld)", window);
        else if (pd->init == KBV_INIT_SWIN_POSITION_INDEX)
            fprintf(f, "swin_relative_position_index(%lld)", window);
        else
            fprintf(f, "swin_attn_mask(%lld, %lld, %lld)", side, window, (long long)pd->value);
        break;
    }
    default:
        fprint_factory(f, "torch.zeros", pd->shape, pd->dtype, KBV_F32);
        break;
    }
    fprintf(f, ")\n");
}

/* The functions the Swin V2 buffers render with: the module's __init__ code,
 * statement for statement (WindowAttention, SwinTransformerBlock). */
static const char swin_buffer_functions[] =
    "def swin_relative_coords_table(w):\n"
    "    h = torch.arange(-(w - 1), w, dtype=torch.float32)\n"
    "    table = torch.stack(torch.meshgrid([h, h], indexing=\"ij\")).permute(1, 2, 0)\n"
    "    table = table.contiguous().unsqueeze(0)\n"
    "    table[:, :, :, 0] /= (w - 1)\n"
    "    table[:, :, :, 1] /= (w - 1)\n"
    "    table *= 8\n"
    "    return torch.sign(table) * torch.log2(torch.abs(table) + 1.0) / math.log2(8)\n"
    "\n\n"
    "def swin_relative_position_index(w):\n"
    "    coords = torch.stack(torch.meshgrid([torch.arange(w), torch.arange(w)], "
    "indexing=\"ij\"))\n"
    "    flat = torch.flatten(coords, 1)\n"
    "    rel = (flat[:, :, None] - flat[:, None, :]).permute(1, 2, 0).contiguous()\n"
    "    rel[:, :, 0] += w - 1\n"
    "    rel[:, :, 1] += w - 1\n"
    "    rel[:, :, 0] *= 2 * w - 1\n"
    "    return rel.sum(-1)\n"
    "\n\n"
    "def swin_attn_mask(side, w, shift):\n"
    "    img_mask = torch.zeros((1, side, side, 1))\n"
    "    cuts = (slice(0, -w), slice(-w, -shift), slice(-shift, None))\n"
    "    cnt = 0\n"
    "    for hs in cuts:\n"
    "        for ws in cuts:\n"
    "            img_mask[:, hs, ws, :] = cnt\n"
    "            cnt += 1\n"
    "    windows = img_mask.view(1, side // w, w, side // w, w, 1).permute(0, 1, 3, 2, 4, 5)\n"
    "    windows = windows.contiguous().view(-1, w * w)\n"
    "    mask = windows.unsqueeze(1) - windows.unsqueeze(2)\n"
    "    return mask.masked_fill(mask != 0, float(-100.0)).masked_fill(mask == 0, float(0.0))\n"
    "\n\n";

static void render_model(FILE *f, const kbv_graph *g, const char *key)
{
    const kbv_problem *def = g->def;
    fprintf(f, "class Model(nn.Module):\n");
    fprintf(f, "    \"\"\"KernelBench %s %s.\"\"\"\n\n", key, def->name);
    fprintf(f, "    def __init__(self");
    for (int a = 0; a < def->n_init_args; a++)
        fprintf(f, ", %s", def->init_args[a].name);
    fprintf(f, "):\n        super().__init__()\n");
    for (int a = 0; a < def->n_init_args; a++)
        fprintf(f, "        self.%s = %s\n", def->init_args[a].name, def->init_args[a].name);
    for (int p = 0; p < g->n_params; p++)
        render_param(f, g, p);
    fprintf(f, "\n    def forward(self");
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(f, ", %s", g->values[i].name);
    fprintf(f, "):\n");
}

kbv_status kbv_render_torch(const kbv_problem *def, kbv_size size, FILE *f)
{
    kbv_graph *g = calloc(1, sizeof *g);
    kbv_status st = KBV_OK;
    if (!g)
        return kbv_fail(KBV_ERR_NOMEM, "render: graph");
    KBV_TRY_GOTO(kbv_graph_build(def, size, g), st, done);
    char key[32];
    snprintf(key, sizeof key, "L%d/%d", def->level, def->id);

    fprintf(f, "# KernelBench %s %s, at the %s size.\n", key, def->name,
            size == KBV_SIZE_SMALL ? "small (CI)" : "full (catalog)");
    bool uses_math = false, uses_swin = false;
    for (int p = 0; p < g->n_params; p++) {
        kbv_init init = def->params[p].init;
        uses_math |= init == KBV_INIT_UNIFORM_FAN_IN || init == KBV_INIT_UNIFORM_HIDDEN;
        uses_swin |= init == KBV_INIT_SWIN_COORDS_TABLE || init == KBV_INIT_SWIN_POSITION_INDEX ||
                     init == KBV_INIT_SWIN_ATTN_MASK;
    }
    if (uses_math || uses_swin)
        fprintf(f, "import math\n\n");
    fprintf(f, "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n");
    if (uses_swin)
        fputs(swin_buffer_functions, f);
    render_model(f, g, key);
    char expr[16384]; /* an RNN node lists its weights, a stack its 256 steps */
    for (int n = 0; n < g->n_nodes; n++) {
        KBV_TRY_GOTO(kbv_render_node(g, n, expr, sizeof expr), st, done);
        const kbv_node *node = &g->nodes[n];
        fprintf(f, "        ");
        for (int j = 0; j < node->n_outs; j++)
            fprintf(f, "%s%s", j ? ", " : "", g->values[node->out + j].name);
        /* one piece of a split unpacks as "a, = ..." */
        fprintf(f, "%s = %s\n", kbv_op_table[node->op].several_outputs && node->n_outs == 1
                                      ? ","
                                      : "",
                expr);
        /* Free temporaries after their last use, as the one-expression forward
         * of the original module does: otherwise locals would hold them and
         * PyTorch's peak memory would exceed the module's own. */
        const char *sep = "        del ";
        for (int v = g->n_inputs + g->n_params; v < g->n_values; v++) {
            const kbv_value *val = &g->values[v];
            bool made_here = v >= node->out && v < node->out + node->n_outs;
            if (!val->is_output && (val->last_use == n || (val->last_use < 0 && made_here))) {
                fprintf(f, "%s%s", sep, val->name);
                sep = ", ";
            }
        }
        if (sep[0] == ',')
            fprintf(f, "\n");
    }
    fprintf(f, "        return ");
    for (int o = 0; o < g->n_outputs; o++)
        fprintf(f, "%s%s", o ? ", " : "", g->values[g->outputs[o]].name);
    fprintf(f, "\n\n\n");

    for (int d = 0; d < g->n_dims; d++)
        fprintf(f, "%s = %lld\n", def->dims[d].name, (long long)g->dims[d]);
    if (g->n_dims)
        fprintf(f, "\n\n");
    fprintf(f, "def get_inputs():\n");
    for (int i = 0; i < g->n_inputs; i++)
        render_input(f, &def->inputs[i]);
    fprintf(f, "    return [");
    for (int i = 0; i < g->n_inputs; i++)
        fprintf(f, "%s%s", i ? ", " : "", def->inputs[i].name);
    fprintf(f, "]\n\n\ndef get_init_inputs():\n    return [");
    for (int a = 0; a < def->n_init_args; a++)
        fprintf(f, "%s%s", a ? ", " : "", def->init_args[a].value);
    fprintf(f, "]\n");
    errno = 0;
    if (fflush(f) != 0 || ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write the PyTorch module: %s",
                      errno ? strerror(errno) : "write error");
done:
    kbv_graph_free(g);
    free(g);
    return st;
}

kbv_status kbv_render_init_inputs(const kbv_graph *g, char *buf, size_t cap)
{
    const kbv_problem *def = g->def;
    size_t used = 0;
    int n;
#define RENDER(...)                                                                         \
    do {                                                                                    \
        n = snprintf(buf + used, cap - used, __VA_ARGS__);                                  \
        if (n < 0 || (size_t)n >= cap - used)                                               \
            return kbv_fail(KBV_ERR_INVALID, "init inputs of %s exceed %zu bytes", def->name, \
                            cap);                                                           \
        used += (size_t)n;                                                                  \
    } while (0)
    if (cap == 0)
        return kbv_fail(KBV_ERR_INVALID, "no room for the init inputs");
    buf[0] = '\0';
    for (int d = 0; d < g->n_dims; d++)
        RENDER("%s = %lld\n", def->dims[d].name, (long long)g->dims[d]);
    RENDER("init_inputs = [");
    for (int a = 0; a < def->n_init_args; a++)
        RENDER("%s%s", a ? ", " : "", def->init_args[a].value);
    RENDER("]\n");
#undef RENDER
    return KBV_OK;
}
