/* conv{1,2,3}d and conv_transpose{1,2,3}d, with or without bias, as direct
 * loops in float32 and float64 (cpu_conv_t.h). Every case is run as a 3-D
 * convolution: 1-D and 2-D ones get leading spatial dims of size 1 (kernel
 * 1, stride 1, no padding), which changes no result. */
#include <stdbool.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_conv_pool.h"
#include "graph/ops_conv.h"

/* A convolution in three spatial dims. For a transposed one, in[] is the
 * input's extent and out[] the output's, as for a standard one; the weight
 * strides ws[] follow the weight's own dims ([C_out, C_in/g, k...] or
 * [C_in, C_out/g, k...]). Strides are in elements. */
typedef struct conv_geom {
    int64_t batch, cin, cout, groups;
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
    int64_t xs[5], ws[5];
} conv_geom;

/* Positions o in [*lo, *hi), o < n, whose index o * s - p + off lies in
 * [0, len): the loop bounds that keep a tap off the padding. */
static void tap_range(int64_t len, int64_t n, int64_t s, int64_t p, int64_t off, int64_t *lo,
                      int64_t *hi)
{
    int64_t first = p - off;           /* o * s >= first */
    int64_t last = len - 1 + p - off;  /* o * s <= last */
    int64_t a = first <= 0 ? 0 : (first + s - 1) / s;
    int64_t b = last < 0 ? 0 : last / s + 1;
    if (b > n)
        b = n;
    *lo = a < b ? a : b;
    *hi = b;
}

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_conv_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_conv_t.h"

/* The geometry of node's convolution over x, w into out, checked against
 * the shapes the op's shape rule gives. */
static kbv_status conv_geometry(const char *op, const kbv_window *win, const kbv_tensor *x,
                                const kbv_tensor *w, const kbv_tensor *out, conv_geom *g)
{
    const int sp = win->spatial, pad = 3 - sp;
    bool transposed = win->kind == KBV_WINDOW_CONV_TRANSPOSE;
    if (x->ndim != sp + 2 || w->ndim != sp + 2 || out->ndim != sp + 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: input, weight and output need %d dims (have %d, "
                        "%d, %d)", op, sp + 2, x->ndim, w->ndim, out->ndim);
    if (!kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INVALID, "%s: the output must be contiguous", op);
    memset(g, 0, sizeof *g);
    g->batch = x->shape[0];
    g->cin = x->shape[1];
    g->cout = out->shape[1];
    g->groups = win->groups;
    g->xs[0] = x->stride[0];
    g->xs[1] = x->stride[1];
    g->ws[0] = w->stride[0];
    g->ws[1] = w->stride[1];
    for (int d = 0; d < 3; d++) {
        int s = d - pad; /* spatial dim of the op, or < 0 for an added one */
        g->in[d] = s < 0 ? 1 : x->shape[2 + s];
        g->out[d] = s < 0 ? 1 : out->shape[2 + s];
        g->k[d] = s < 0 ? 1 : w->shape[2 + s];
        g->stride[d] = s < 0 ? 1 : win->stride[s];
        g->pad[d] = s < 0 ? 0 : win->padding[s];
        g->dil[d] = s < 0 ? 1 : win->dilation[s];
        g->xs[2 + d] = s < 0 ? 0 : x->stride[2 + s];
        g->ws[2 + d] = s < 0 ? 0 : w->stride[2 + s];
        int64_t expect = s < 0 ? 1
                         : transposed ? kbv_conv_transpose_out_size(g->in[d], g->k[d],
                                                                    g->stride[d], g->pad[d],
                                                                    g->dil[d],
                                                                    win->output_padding[s])
                                      : kbv_conv_out_size(g->in[d], g->k[d], g->stride[d],
                                                          g->pad[d], g->dil[d]);
        if (g->out[d] != expect || expect < 1)
            return kbv_fail(KBV_ERR_INVALID, "%s: output extent %lld along spatial dim %d, "
                            "expected %lld", op, (long long)g->out[d], s, (long long)expect);
    }
    int64_t cin_w = transposed ? w->shape[0] : w->shape[1] * g->groups;
    int64_t cout_w = transposed ? w->shape[1] * g->groups : w->shape[0];
    if (g->cin != cin_w || g->cout != cout_w || g->cin % g->groups || g->cout % g->groups ||
        out->shape[0] != g->batch)
        return kbv_fail(KBV_ERR_INVALID, "%s: channels do not match: input %lld, output %lld, "
                        "weight [%lld, %lld, ...], groups %lld", op, (long long)g->cin,
                        (long long)g->cout, (long long)w->shape[0], (long long)w->shape[1],
                        (long long)g->groups);
    return KBV_OK;
}

kbv_status kbv_cpu_conv(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    kbv_window win;
    KBV_TRY(kbv_window_parse(node->op, node->def ? node->def->s : NULL, &win));
    if (win.kind != KBV_WINDOW_CONV && win.kind != KBV_WINDOW_CONV_TRANSPOSE)
        return kbv_fail(KBV_ERR_INVALID, "%s is not a convolution", op);
    KBV_TRY(kbv_cpu_check_float(node, args, win.has_bias ? 3 : 2, out));
    conv_geom g;
    KBV_TRY(conv_geometry(op, &win, &args[0], &args[1], out, &g));
    const kbv_tensor *b = win.has_bias ? &args[2] : NULL;
    if (b && (b->ndim != 1 || b->shape[0] != g.cout))
        return kbv_fail(KBV_ERR_INVALID, "%s: bias needs %lld elements", op, (long long)g.cout);
    if (kbv_tensor_numel(out) == 0)
        return KBV_OK;
    bool transposed = win.kind == KBV_WINDOW_CONV_TRANSPOSE;
    if (out->dtype == KBV_F32) {
        if (transposed)
            conv_transpose_f32(&g, args[0].data, args[1].data, out->data);
        else
            conv_forward_f32(&g, args[0].data, args[1].data, out->data);
        if (b)
            add_bias_f32(&g, b->data, b->stride[0], out->data);
    } else {
        if (transposed)
            conv_transpose_f64(&g, args[0].data, args[1].data, out->data);
        else
            conv_forward_f64(&g, args[0].data, args[1].data, out->data);
        if (b)
            add_bias_f64(&g, b->data, b->stride[0], out->data);
    }
    return KBV_OK;
}
