/* Broadcasting and dim coalescing for the strided iterator (cpu_iter.h). */
#include "cpu/cpu_iter.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* "[2, 3, 4]" for messages. */
static const char *shape_text(const kbv_tensor *t, char *buf, size_t cap)
{
    size_t used = 0;
    used += (size_t)snprintf(buf, cap, "[");
    for (int d = 0; d < t->ndim && used < cap; d++)
        used += (size_t)snprintf(buf + used, cap - used, d ? ", %lld" : "%lld",
                                 (long long)t->shape[d]);
    if (used < cap)
        snprintf(buf + used, cap - used, "]");
    return buf;
}

kbv_status kbv_cpu_iter_init(kbv_cpu_iter *it, const kbv_tensor *out,
                             const kbv_tensor *const *ins, int n_ins)
{
    memset(it, 0, sizeof *it);
    if (n_ins < 0 || n_ins + 1 > KBV_CPU_ITER_MAX_OPERANDS)
        return kbv_fail(KBV_ERR_INVALID, "iterator: %d operands (at most %d)", n_ins,
                        KBV_CPU_ITER_MAX_OPERANDS - 1);
    if (out->ndim < 0 || out->ndim > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "iterator: output has %d dims", out->ndim);
    it->n_operands = n_ins + 1;

    /* Full-rank strides of every operand, broadcast dims at stride 0. */
    int nd = out->ndim;
    int64_t shape[KBV_MAX_DIMS];
    int64_t stride[KBV_CPU_ITER_MAX_OPERANDS][KBV_MAX_DIMS];
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        shape[d] = out->shape[d];
        stride[0][d] = out->stride[d];
        numel *= shape[d];
    }
    for (int k = 0; k < n_ins; k++) {
        const kbv_tensor *in = ins[k];
        int lead = nd - in->ndim;
        if (in->ndim < 0 || lead < 0) {
            char a[128], b[128];
            return kbv_fail(KBV_ERR_INVALID, "operand %s does not broadcast to %s",
                            shape_text(in, a, sizeof a), shape_text(out, b, sizeof b));
        }
        for (int d = 0; d < nd; d++) {
            if (d < lead) {
                stride[k + 1][d] = 0;
                continue;
            }
            int64_t size = in->shape[d - lead];
            if (size != shape[d] && size != 1) {
                char a[128], b[128];
                return kbv_fail(KBV_ERR_INVALID, "operand %s does not broadcast to %s",
                                shape_text(in, a, sizeof a), shape_text(out, b, sizeof b));
            }
            stride[k + 1][d] = size == 1 ? 0 : in->stride[d - lead];
        }
    }
    if (numel == 0)
        return KBV_OK; /* outer_count 0: nothing to visit */

    /* Drop size-1 dims, then merge a dim into the next (inner) one where every
     * operand steps across the pair as across one dim. */
    int m = 0;
    for (int d = 0; d < nd; d++) {
        if (shape[d] == 1)
            continue;
        if (m > 0) {
            bool mergeable = true;
            for (int k = 0; k < it->n_operands; k++)
                if (stride[k][m - 1] != stride[k][d] * shape[d])
                    mergeable = false;
            if (mergeable) {
                shape[m - 1] *= shape[d];
                for (int k = 0; k < it->n_operands; k++)
                    stride[k][m - 1] = stride[k][d];
                continue;
            }
        }
        shape[m] = shape[d];
        for (int k = 0; k < it->n_operands; k++)
            stride[k][m] = stride[k][d];
        m++;
    }

    if (m == 0) {
        it->inner = 1;
    } else {
        it->inner = shape[m - 1];
        for (int k = 0; k < it->n_operands; k++)
            it->inner_stride[k] = stride[k][m - 1];
        m--;
    }
    it->ndim = m;
    it->outer_count = 1;
    for (int d = 0; d < m; d++) {
        it->shape[d] = shape[d];
        it->outer_count *= shape[d];
        for (int k = 0; k < it->n_operands; k++)
            it->stride[k][d] = stride[k][d];
    }
    return KBV_OK;
}
