/* nn.LSTM and nn.GRU on the CPU (ops.h: lstm, gru): the float64 oracle and
 * the float32 baseline, one kernel for both (cpu_rnn_t.h). PyTorch's gate
 * order: LSTM i, f, g, o with c' = f c + i g, h' = o tanh(c'); GRU r, z, n
 * with n = tanh(W_in x + b_in + r (W_hn h + b_hn)), h' = (1 - z) n + z h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "cpu/cpu_ops.h"
#include "graph/ops_rnn.h"

#define KBV_CPU_TYPE_F32
#include "cpu/cpu_template.h"
#include "cpu/cpu_rnn_t.h"
#define KBV_CPU_TYPE_F64
#include "cpu/cpu_template.h"
#include "cpu/cpu_rnn_t.h"

kbv_status kbv_cpu_rnn(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                       kbv_tensor *out)
{
    (void)be;
    const char *op = kbv_cpu_op_name(node);
    KBV_TRY(kbv_cpu_check_float(node, args, node->n_args, out));
    int states = node->op == KBV_OP_LSTM ? 2 : 1;
    if (node->n_args < 2 + states || args[2 + states].ndim != 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: no 2-D weight_hh_l0 among %d operands", op,
                        node->n_args);
    kbv_rnn_dims r;
    KBV_TRY(kbv_rnn_dims_of(node->def, node->n_args, args[0].ndim, args[0].shape,
                            args[2 + states].shape[1], &r));
    for (int k = 0; k < node->n_args; k++)
        if (!kbv_tensor_is_contiguous(&args[k]) || args[k].dtype != out->dtype)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is not contiguous %s", op, k,
                            kbv_dtype_name(out->dtype));
    if (!kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INVALID, "%s: the output must be contiguous", op);
    if (kbv_tensor_numel(out) == 0)
        return KBV_OK;
    return out->dtype == KBV_F32 ? rnn_run_f32(&r, args, out) : rnn_run_f64(&r, args, out);
}
