/* L1/90 90_cumprod: y = torch.cumprod(x, dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l1_090 = {
    .level = 1,
    .id = 90,
    .name = "90_cumprod",
    .dims = {{"batch_size", 32768, 37}, {"input_size", 32768, 301}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "input_size"}, .gen = KBV_GEN_RANDN},
    },
    .init_args = {{"dim", "1"}},
    .nodes = {
        {.op = KBV_OP_CUMPROD, .args = {"x"}, .out = "y", .i = {1}},
    },
    .hidden = {.omit = KBV_OMIT_D2,
               .omit_why = "its generator found the fp32 reference not finite: x3 "
                           "makes |x| grow by E[log|3x|] ~ +0.46 per step, so the rows "
                           "overflow to +-inf"},
    .notes = "The paper's copy draws randn: rows drift by E[log|x|] ~ -0.64 per step and underflow to 0 within a few hundred positions (D1, D3, D4); under D2 (x3) they would overflow to +-inf near position 190, which is why the paper's hidden tests have no D2 here. Under strict's D7 (1% of elements x100) some rows still overflow, and inf * 0 at an exact zero gives NaN in fp32 but not in float64: such elements are not judged.",
};
