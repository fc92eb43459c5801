/* Backend-independent parts of the backend interface: precision mode names,
 * which modes run the same code, which inputs a float64 run takes as float32,
 * and destruction through the backend's own table. */
#include "exec/backend.h"

#include <string.h>

#include "graph/ops_table.h"

static const char *const mode_names[KBV_MODE_COUNT] = {
    [KBV_MODE_FP32_STRICT] = "fp32-strict",
    [KBV_MODE_FP32] = "fp32",
    [KBV_MODE_TF32] = "tf32",
    [KBV_MODE_FP64] = "fp64",
    [KBV_MODE_BF16] = "bf16",
};

const char *kbv_mode_name(kbv_mode m)
{
    if ((unsigned)m >= KBV_MODE_COUNT)
        return "unknown-mode";
    return mode_names[m];
}

kbv_status kbv_mode_parse(const char *s, kbv_mode *m)
{
    if (!s)
        return kbv_fail(KBV_ERR_PARSE, "precision mode missing");
    for (int i = 0; i < KBV_MODE_COUNT; i++) {
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (kbv_mode)i;
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_PARSE,
                    "unknown precision mode '%s' (expected fp32-strict, fp32, tf32, fp64 or bf16)",
                    s);
}

/* Whether modes a and b use TF32 alike in every op class g has. */
static bool same_code(const kbv_graph *g, kbv_mode a, kbv_mode b)
{
    for (int i = 0; i < g->n_nodes; i++) {
        switch (kbv_op_table[g->nodes[i].op].tf32) {
        case KBV_TF32_MATMUL:
            if ((a == KBV_MODE_TF32) != (b == KBV_MODE_TF32))
                return false;
            break;
        case KBV_TF32_CONV:
            if ((a == KBV_MODE_FP32_STRICT) != (b == KBV_MODE_FP32_STRICT))
                return false;
            break;
        case KBV_TF32_NONE:
            break;
        }
    }
    return true;
}

kbv_mode kbv_mode_equivalent(const kbv_backend *be, const kbv_graph *g, kbv_mode m)
{
    /* only the float32 modes can share code */
    if (m == KBV_MODE_FP64 || m == KBV_MODE_BF16 || (unsigned)m >= KBV_MODE_COUNT)
        return m;
    if (!be->tensor_math)
        return KBV_MODE_FP32_STRICT;
    for (int r = KBV_MODE_FP32_STRICT; r < (int)m; r++)
        if (same_code(g, (kbv_mode)r, m))
            return (kbv_mode)r;
    return m;
}

kbv_dtype kbv_storage_dtype(const kbv_backend *be, kbv_dtype logical, bool python_scalar)
{
    bool is_float = logical == KBV_F32 || logical == KBV_F64 || logical == KBV_F16 ||
                    logical == KBV_BF16;
    if (!is_float)
        return logical;
    if (python_scalar && be->float_dtype == KBV_BF16)
        return KBV_F32;
    return be->float_dtype;
}

bool kbv_graph_takes_f32_input(const kbv_backend *be, const kbv_graph *g, int input)
{
    if (!be->widens_f32 || be->float_dtype != KBV_F64 || input < 0 || input >= g->n_inputs)
        return false;
    int v = -1;
    for (int k = 0; k < g->n_values && v < 0; k++)
        if (g->values[k].kind == KBV_VALUE_INPUT && g->values[k].def_index == input)
            v = k;
    if (v < 0 || g->values[v].dtype != KBV_F32)
        return false;
    for (int j = 0; j < g->n_outputs; j++)
        if (g->outputs[j] == v)
            return false;
    bool read = false;
    for (int k = 0; k < g->n_nodes; k++) {
        const kbv_node *node = &g->nodes[k];
        bool reads = false;
        for (int a = 0; a < node->n_args; a++)
            reads |= node->args[a] == v;
        if (!reads)
            continue;
        const bool in_place = node->def && node->def->in_place;
        if ((unsigned)node->op >= KBV_OP_COUNT || kbv_op_table[node->op].is_view || in_place ||
            !be->widens_f32(be, node->op))
            return false;
        read = true;
    }
    return read;
}

void kbv_backend_destroy(kbv_backend *be)
{
    if (be && be->destroy)
        be->destroy(be);
}
