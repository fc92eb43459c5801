/* L3/35 35_LSTM: a 6-layer nn.LSTM (batch_first) from zero states, then fc on the
 * last step's output, out[:, -1, :]. */
#include "level3.h"

#include "rnn_blocks.h"

kbv_status kbv_l3_035(kbv_builder *b)
{
    kbv_b_problem(b, 3, 35, "35_LSTM",
                  "The paper's version (facebookresearch/kernel_bench_verified): h0 and c0 are "
                  "zeros made inside forward(), where upstream KernelBench draws them with "
                  "torch.randn at call time, which the reference and a candidate could never "
                  "agree on. Prompted input-blind by default, as the paper does "
                  "(src/gen/input_blind.c). The small size shrinks the batch, the sequence and "
                  "the widths; the six layers stay (num_layers sets the params).");
    const l3_rnn lstm = l3_lstm_model(b, false, false);
    const char *h0 = l3_rnn_zero_state(b, lstm, "x", "h0");
    const char *c0 = l3_rnn_zero_state(b, lstm, "x", "c0");
    const char *out = l3_rnn_apply(b, lstm, "x", h0, c0, 0);
    const char *last = kbv_b_op1(b, KBV_OP_SELECT, "last", (kbv_b_attrs){.i = {1, -1}}, out);
    kbv_b_op3(b, KBV_OP_LINEAR, "out", (kbv_b_attrs){0}, last, "fc.weight", "fc.bias");
    return kbv_b_status(b);
}
