/* torch.stack as a cat of unsqueezed views (see stack_as_cat.h). */
#include "exec/stack_as_cat.h"

#include <stdbool.h>
#include <stdlib.h>

kbv_status kbv_stack_as_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out, int dim, kbv_op_fn cat)
{
    int n = node->n_args;
    kbv_tensor *views = malloc(sizeof *views * (size_t)n);
    if (!views)
        return kbv_fail(KBV_ERR_NOMEM, "stack: %d operand views", n);
    for (int k = 0; k < n; k++) {
        const kbv_tensor *a = &args[k];
        views[k] = *a;
        views[k].ndim = a->ndim + 1;
        for (int d = 0, j = 0; d < views[k].ndim; d++) {
            bool here = d == dim;
            views[k].shape[d] = here ? 1 : a->shape[j];
            views[k].stride[d] = here ? 1 : a->stride[j];
            j += !here;
        }
    }
    kbv_status st = cat(be, node, views, out);
    free(views);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}
