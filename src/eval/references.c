/* The references of one draw: the fp32, fp32-strict and tf32 baselines and
 * the float64 oracle, computed on the candidate's own input buffers. */
#include "eval/sample.h"

#include <string.h>

static void release_outputs(kbv_backend *be, const kbv_graph *g, kbv_tensor *t)
{
    for (int k = 0; k < g->n_outputs; k++)
        if (t[k].data)
            be->release(be, t[k].data);
}

void sample_refs_release(sample *s, refs *r)
{
    kbv_backend *const *be = s->ev->be;
    if (r->have_fp32)
        release_outputs(be[KBV_MODE_FP32], s->g, r->fp32);
    if (r->have_strict)
        release_outputs(be[KBV_MODE_FP32_STRICT], s->g, r->strict);
    if (r->have_tf32)
        release_outputs(be[KBV_MODE_TF32], s->g, r->tf32);
    if (r->have_fp64)
        release_outputs(be[KBV_MODE_FP64], s->g, r->fp64);
    memset(r, 0, sizeof *r);
}

static kbv_status run_mode(sample *s, kbv_mode m, const kbv_tensor *in, const kbv_tensor *par,
                           kbv_tensor *out, bool *have)
{
    kbv_backend *be = s->ev->be[m];
    KBV_TRY(kbv_graph_run(s->g, be, in, par, out));
    *have = true;
    /* the comparison runs on the services backend: this one's work must be done */
    KBV_TRY(be->sync(be));
    return KBV_OK;
}

/* References on input set `set`: fp32 (when asked), fp32-strict, tf32 and
 * the float64 oracle on float64 copies of exactly the candidate's values. */
kbv_status sample_refs_compute(sample *s, int set, bool with_fp32, refs *r)
{
    kbv_status st = KBV_OK;
    kbv_backend *be64 = s->ev->be[KBV_MODE_FP64];
    kbv_tensor in64[KBV_DEF_MAX_INPUTS];
    bool owned[KBV_DEF_MAX_INPUTS] = {false};
    memset(r, 0, sizeof *r);
    if (with_fp32)
        KBV_TRY_GOTO(run_mode(s, KBV_MODE_FP32, s->in[set], s->par, r->fp32, &r->have_fp32), st,
                     done);
    KBV_TRY_GOTO(run_mode(s, KBV_MODE_FP32_STRICT, s->in[set], s->par, r->strict,
                          &r->have_strict),
                 st, done);
    KBV_TRY_GOTO(run_mode(s, KBV_MODE_TF32, s->in[set], s->par, r->tf32, &r->have_tf32), st,
                 done);
    for (int i = 0; i < s->g->n_inputs; i++) {
        in64[i] = s->in[set][i];
        if (!dtype_is_float(in64[i].dtype))
            continue;
        in64[i].dtype = KBV_F64;
        void *p = NULL;
        KBV_TRY_GOTO(be64->alloc(be64, tensor_bytes(&in64[i]), &p), st, done);
        in64[i].data = p;
        owned[i] = true;
        KBV_TRY_GOTO(be64->convert(be64, &s->in[set][i], &in64[i]), st, done);
    }
    KBV_TRY_GOTO(run_mode(s, KBV_MODE_FP64, in64, s->par64, r->fp64, &r->have_fp64), st, done);
done:
    for (int i = 0; i < s->g->n_inputs; i++)
        if (owned[i])
            be64->release(be64, in64[i].data);
    if (st != KBV_OK)
        sample_refs_release(s, r);
    return st;
}
