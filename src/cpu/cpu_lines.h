/* Visiting every line of a tensor along one dim: the reductions, scans and
 * cat walk their operands line by line, whatever the operands' strides.
 *
 *     kbv_cpu_lines l;
 *     KBV_TRY(kbv_cpu_lines_init(&l, out, out_has_dim, ins, n_ins, dim));
 *     for (int64_t r = 0; r < l.it.outer_count; r++, kbv_cpu_iter_advance(&l.it))
 *         for (int64_t j = 0; j < l.it.inner; j++)
 *             ... line start of operand k: l.it.offset[k] + j * l.it.inner_stride[k]
 *                 (operand 0 is out), step along the line: l.step[k] ...
 *
 * The line length is ins[0]'s extent along dim; every input has the same
 * shape outside dim. out either has dim (any extent: a scan, a keepdim
 * reduction, cat) or lacks it (a reduction without keepdim; step 0). */
#ifndef KBV_CPU_LINES_H
#define KBV_CPU_LINES_H

#include <stdbool.h>

#include "cpu/cpu_iter.h"

typedef struct kbv_cpu_lines {
    kbv_cpu_iter it;                          /* over line starts */
    int64_t len;                              /* ins[0]'s extent along dim */
    int64_t step[KBV_CPU_ITER_MAX_OPERANDS];  /* stride along dim per operand */
} kbv_cpu_lines;

kbv_status kbv_cpu_lines_init(kbv_cpu_lines *l, const kbv_tensor *out, bool out_has_dim,
                              const kbv_tensor *const *ins, int n_ins, int dim);

/* dim (negative counts from the end) resolved against t's rank. */
kbv_status kbv_cpu_resolve_dim(const char *op, const kbv_tensor *t, int64_t dim, int *out);

#endif
