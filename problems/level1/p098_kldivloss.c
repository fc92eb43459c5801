/* L1/98 98_KLDivLoss: y = F.kl_div(torch.log(predictions), targets, reduction='batchmean'). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_098 = {
    .level = 1,
    .id = 98,
    .name = "98_KLDivLoss",
    .dims = {{"batch_size", 16384, 37}, {"input_size", 16384, 301}},
    .inputs = {
        {.name = "predictions", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED_SOFTMAX},
        {.name = "targets", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SOFTMAX},
    },
    .nodes = {
        {.op = KBV_OP_LOG, .args = {"predictions"}, .out = "log_p"},
        {.op = KBV_OP_KL_DIV, .args = {"log_p", "targets"}, .out = "y"},
    },
    .hidden = {.omit = KBV_OMIT_D4,
               .omit_why = "its generator found the reference NaN: x(-1) negates the "
                           "probabilities, and torch.log of a negative number is NaN"},
    .notes = "predictions = (torch.rand(...) * torch.rand(())).softmax(dim=-1) and targets = "
             "torch.rand(...).softmax(dim=-1): rows are probability vectors under the base "
             "draws and D5-D8 (which transform the draw before the softmax); D1-D3 scale the "
             "probabilities after it, as the paper's hidden tests scale what get_inputs() "
             "returns (rows sum to 1, 3 and 0.01). batchmean divides the sum by batch_size.",
};
