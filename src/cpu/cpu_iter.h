/* Strided, broadcasting iteration over an output and its operands.
 *
 * Operand 0 is the output; the others are aligned to it from the right, as
 * PyTorch broadcasts (a missing or size-1 dim repeats: stride 0). Dims are
 * coalesced where every operand is contiguous across them, so a contiguous
 * elementwise op becomes a single run. The caller loops
 *
 *     for (int64_t r = 0; r < it.outer_count; r++, kbv_cpu_iter_advance(&it))
 *         for (int64_t j = 0; j < it.inner; j++)
 *             ... element it.offset[k] + j * it.inner_stride[k] of operand k ...
 *
 * Offsets and strides are in elements. */
#ifndef KBV_CPU_ITER_H
#define KBV_CPU_ITER_H

#include <stdint.h>

#include "kbv/candidate.h"
#include "core/status.h"

#define KBV_CPU_ITER_MAX_OPERANDS 3

typedef struct kbv_cpu_iter {
    int n_operands;
    int ndim;                       /* outer dims (the innermost run excluded) */
    int64_t shape[KBV_MAX_DIMS];
    int64_t stride[KBV_CPU_ITER_MAX_OPERANDS][KBV_MAX_DIMS];
    int64_t index[KBV_MAX_DIMS];
    int64_t offset[KBV_CPU_ITER_MAX_OPERANDS];
    int64_t inner;                  /* length of each run */
    int64_t inner_stride[KBV_CPU_ITER_MAX_OPERANDS];
    int64_t outer_count;            /* number of runs; 0 when the output is empty */
} kbv_cpu_iter;

/* Sets up iteration over out's shape; ins[0..n_ins-1] must broadcast to it. */
kbv_status kbv_cpu_iter_init(kbv_cpu_iter *it, const kbv_tensor *out,
                             const kbv_tensor *const *ins, int n_ins);

/* Moves to the next run (odometer over the outer dims). */
static inline void kbv_cpu_iter_advance(kbv_cpu_iter *it)
{
    for (int d = it->ndim - 1; d >= 0; d--) {
        it->index[d]++;
        for (int k = 0; k < it->n_operands; k++)
            it->offset[k] += it->stride[k][d];
        if (it->index[d] < it->shape[d])
            return;
        for (int k = 0; k < it->n_operands; k++)
            it->offset[k] -= it->stride[k][d] * it->shape[d];
        it->index[d] = 0;
    }
}

#endif
