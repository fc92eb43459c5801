/* max_pool{1,2,3}d and avg_pool{1,2,3}d in float32 and float64
 * (cpu_pool_t.h). Every case runs as a 3-D pooling: missing leading
 * spatial dims have size 1 (kernel 1, stride 1, no padding), and an input
 * without a batch dim ([C, *spatial]) is a batch of one. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_conv_pool.h"
#include "graph/ops_conv.h"

/* A pooling in three spatial dims; strides in elements. */
typedef struct pool_geom {
    int64_t batch, channels;
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
    int64_t xs[5];
    bool count_include_pad;
} pool_geom;

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_pool_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_pool_t.h"

static kbv_status pool_geometry(const char *op, const kbv_window *win, const kbv_tensor *x,
                                const kbv_tensor *out, pool_geom *g)
{
    const int sp = win->spatial, lead = x->ndim - sp, pad = 3 - sp;
    if ((lead != 1 && lead != 2) || out->ndim != x->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: input of %d dims and output of %d, expected %d or "
                        "%d", op, x->ndim, out->ndim, sp + 1, sp + 2);
    if (!kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INVALID, "%s: the output must be contiguous", op);
    memset(g, 0, sizeof *g);
    g->batch = lead == 2 ? x->shape[0] : 1;
    g->channels = x->shape[lead - 1];
    g->xs[0] = lead == 2 ? x->stride[0] : 0;
    g->xs[1] = x->stride[lead - 1];
    g->count_include_pad = win->count_include_pad;
    for (int d = 0; d < lead; d++)
        if (out->shape[d] != x->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: output dim %d is %lld, input's %lld", op, d,
                            (long long)out->shape[d], (long long)x->shape[d]);
    for (int d = 0; d < 3; d++) {
        int s = d - pad;
        g->in[d] = s < 0 ? 1 : x->shape[lead + s];
        g->out[d] = s < 0 ? 1 : out->shape[lead + s];
        g->k[d] = s < 0 ? 1 : win->kernel[s];
        g->stride[d] = s < 0 ? 1 : win->stride[s];
        g->pad[d] = s < 0 ? 0 : win->padding[s];
        g->dil[d] = s < 0 ? 1 : win->dilation[s];
        g->xs[2 + d] = s < 0 ? 0 : x->stride[lead + s];
        int64_t expect = s < 0 ? 1
                               : kbv_pool_out_size(g->in[d], g->k[d], g->stride[d], g->pad[d],
                                                   g->dil[d], win->ceil_mode);
        if (g->out[d] != expect || expect < 1)
            return kbv_fail(KBV_ERR_INVALID, "%s: output extent %lld along spatial dim %d, "
                            "expected %lld", op, (long long)g->out[d], s, (long long)expect);
    }
    return KBV_OK;
}

kbv_status kbv_cpu_pool(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    kbv_window win;
    KBV_TRY(kbv_window_parse(node->op, node->def ? node->def->s : NULL, &win));
    if (win.kind != KBV_WINDOW_MAX_POOL && win.kind != KBV_WINDOW_AVG_POOL)
        return kbv_fail(KBV_ERR_INVALID, "%s is not a pooling", op);
    KBV_TRY(kbv_cpu_check_float(node, args, 1, out));
    pool_geom g;
    KBV_TRY(pool_geometry(op, &win, &args[0], out, &g));
    if (kbv_tensor_numel(out) == 0)
        return KBV_OK;
    bool is_max = win.kind == KBV_WINDOW_MAX_POOL;
    if (out->dtype == KBV_F32) {
        if (is_max)
            max_pool_f32(&g, args[0].data, out->data);
        else
            avg_pool_f32(&g, args[0].data, out->data);
    } else {
        if (is_max)
            max_pool_f64(&g, args[0].data, out->data);
        else
            avg_pool_f64(&g, args[0].data, out->data);
    }
    return KBV_OK;
}
