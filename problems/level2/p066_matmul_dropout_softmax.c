/* L2/66 66_Matmul_Dropout_Softmax: y = torch.softmax(dropout(matmul(x), p=0.2), dim=1). */
#include "graph/problem_def.h"

const kbv_problem_def kbv_problem_l2_066 = {
    .level = 2,
    .id = 66,
    .name = "66_Matmul_Dropout_Softmax",
    .dims = {{"batch_size", 128, 3}, {"in_features", 16384, 7}, {"out_features", 16384, 9}},
    .inputs = {
        {.name = "x", .dtype = KBV_F32, .shape = {"batch_size", "in_features"}, .gen = KBV_GEN_RAND},
    },
    .params = {
        {.name = "matmul.weight", .dtype = KBV_F32, .shape = {"out_features", "in_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "matmul.bias", .dtype = KBV_F32, .shape = {"out_features"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
    },
    .init_args = {{"in_features", "in_features"}, {"out_features", "out_features"}, {"dropout_p", "0.2"}},
    .nodes = {
        {.op = KBV_OP_LINEAR, .args = {"x", "matmul.weight", "matmul.bias"}, .out = "mm"},
        {.op = KBV_OP_DROPOUT, .args = {"mm"}, .out = "dropped", .f = {0.2}, .i = {1}},
        {.op = KBV_OP_SOFTMAX, .args = {"dropped"}, .out = "y", .i = {1}},
    },
    .notes = "nn.Dropout(0.2) in a module left in training mode is active in KernelBench: it "
             "zeroes 20% of the GEMM outputs at random and scales the rest by 1.25, so the "
             "reference itself changes from call to call and no candidate can match it. kbv runs "
             "dropout as the identity (documented deviation; PyTorch's RNG cannot be matched): "
             "the reference is softmax(x W^T + b), and a candidate that does apply a random "
             "dropout differs from it (by up to the 1.25 factor on kept logits, i.e. far more "
             "than any tolerance in relative terms). Outputs are nearly constant: the softmax "
             "over 16384 features of values near 0 gives every output ~1/16384 = 6.1e-5 at full "
             "size (measured in PyTorch: max 3.0e-4 on the base draw, 95% below 1e-4; under D2 "
             "x3 the max is 5.3e-3). So under --gate text (allclose 1e-3) an all-zero output, or "
             "one with dropout applied, passes D1, D3 and D4 and only D2 catches it; under "
             "--gate leaderboard (1e-4) the 5% above 1e-4 fail it: the tolerance, not the math, "
             "decides most of it. Strict judges against the float64 oracle relative to the "
             "output's scale.",
};
