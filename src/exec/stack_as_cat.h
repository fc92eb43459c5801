/* torch.stack on every backend: the cat of the operands, each viewed with a
 * size-1 dim at the stack's dim (unsqueeze, no copy), along that dim. The
 * backend gives its own cat. */
#ifndef KBV_STACK_AS_CAT_H
#define KBV_STACK_AS_CAT_H

#include "exec/backend.h"

/* dim: the stack's dim in out, resolved by the caller. */
kbv_status kbv_stack_as_cat(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out, int dim, kbv_op_fn cat);

#endif
