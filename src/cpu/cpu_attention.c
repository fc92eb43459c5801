/* scaled_dot_product_attention without mask or dropout: for each batch
 * index, softmax(Q K^T / sqrt(E)) V. Scores, the softmax and the weighted
 * sum are taken in double; the result is rounded to the output's storage
 * type and, when the node's operands are float16 (i[0] = 1) and the run is
 * not float64, to float16 as PyTorch's half kernels write their output.
 * Operands are contiguous float16, float32 or float64 (float16 inputs may
 * reach an op in their own dtype or widened to the backend's). */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"
#include "cpu/cpu_half.h"

static inline double load(const kbv_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case KBV_F16: return kbv_half_to_double(((const uint16_t *)t->data)[i]);
    case KBV_F32: return (double)((const float *)t->data)[i];
    default: return ((const double *)t->data)[i];
    }
}

kbv_status kbv_cpu_sdpa(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                        kbv_tensor *out)
{
    (void)be;
    const kbv_tensor *q = &args[0], *k = &args[1], *v = &args[2];
    if (node->n_args != 3)
        return kbv_fail(KBV_ERR_INVALID, "scaled_dot_product_attention: 3 operands expected");
    if (out->dtype != KBV_F32 && out->dtype != KBV_F64)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: %s output",
                        kbv_dtype_name(out->dtype));
    for (int a = 0; a < 3; a++) {
        kbv_dtype dt = args[a].dtype;
        if (dt != KBV_F16 && dt != KBV_F32 && dt != KBV_F64)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "scaled_dot_product_attention: operand %d is %s",
                            a, kbv_dtype_name(dt));
        if (!kbv_tensor_is_contiguous(&args[a]) || (!args[a].data && kbv_tensor_numel(&args[a]) > 0))
            return kbv_fail(KBV_ERR_UNSUPPORTED,
                            "scaled_dot_product_attention: operand %d is not contiguous memory",
                            a);
    }
    const int nd = q->ndim;
    if (nd < 2 || k->ndim != nd || v->ndim != nd || out->ndim != nd || !kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INVALID, "scaled_dot_product_attention: operands of %d dims", nd);
    const int64_t L = q->shape[nd - 2], E = q->shape[nd - 1], S = k->shape[nd - 2],
                  Ev = v->shape[nd - 1];
    if (k->shape[nd - 1] != E || v->shape[nd - 2] != S || out->shape[nd - 2] != L ||
        out->shape[nd - 1] != Ev || E == 0 || S == 0)
        return kbv_fail(KBV_ERR_INVALID, "scaled_dot_product_attention: shapes do not match");
    const int64_t batch = L ? kbv_tensor_numel(q) / (L * E) : 0;
    const bool to_half = node->def && node->def->i[0] && out->dtype != KBV_F64;
    const double scale = 1.0 / sqrt((double)E);
    double *p = malloc(sizeof *p * (size_t)S);
    double *acc = malloc(sizeof *acc * (size_t)(Ev ? Ev : 1));
    if (!p || !acc) {
        free(p);
        free(acc);
        return kbv_fail(KBV_ERR_NOMEM, "scaled_dot_product_attention: %lld scores",
                        (long long)S);
    }
    for (int64_t b = 0; b < batch; b++) {
        const int64_t qb = b * L * E, kb = b * S * E, vb = b * S * Ev, ob = b * L * Ev;
        for (int64_t l = 0; l < L; l++) {
            double max = -INFINITY, sum = 0.0;
            for (int64_t j = 0; j < S; j++) {
                double s = 0.0;
                for (int64_t e = 0; e < E; e++)
                    s += load(q, qb + l * E + e) * load(k, kb + j * E + e);
                p[j] = s * scale;
                if (p[j] > max || isnan(p[j]))
                    max = p[j];
            }
            for (int64_t j = 0; j < S; j++) {
                p[j] = exp(p[j] - max);
                sum += p[j];
            }
            for (int64_t e = 0; e < Ev; e++)
                acc[e] = 0.0;
            for (int64_t j = 0; j < S; j++)
                for (int64_t e = 0; e < Ev; e++)
                    acc[e] += p[j] * load(v, vb + j * Ev + e);
            for (int64_t e = 0; e < Ev; e++) {
                double y = acc[e] / sum;
                if (to_half)
                    y = kbv_half_round(y);
                if (out->dtype == KBV_F32)
                    ((float *)out->data)[ob + l * Ev + e] = (float)y;
                else
                    ((double *)out->data)[ob + l * Ev + e] = y;
            }
        }
    }
    free(p);
    free(acc);
    return KBV_OK;
}
