/* Problems of one or a few ops each, for every op the level-2 problems
 * use beyond level 1's: test data, not part of the suite. torch_parity.sh
 * checks them against PyTorch (op_parity_dump.c), and the GPU tests run
 * them on the CUDA backend against the CPU's float64 (tests/gpu). Dims B,
 * C, H, W; the small size is the full one (the GPU tests choose others). */
#include <math.h>

#include "op_problems.h"

#define X3 {"B", "C", "H", NULL}
#define DIMS {{"B", 3, 3}, {"C", 4, 4}, {"H", 5, 5}, {"W", 7, 7}}
#define IN_X3 {{.name = "x", .dtype = KBV_F32, .shape = X3, .gen = KBV_GEN_RANDN}}

const kbv_problem_def kbv_op_problems[] = {
    {.level = 0, .id = 1, .name = "1_Linear_Bias", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "W"}, .gen = KBV_GEN_RANDN}},
     .params = {{.name = "fc.weight", .dtype = KBV_F32, .shape = {"H", "W"},
                 .init = KBV_INIT_UNIFORM_FAN_IN},
                {.name = "fc.bias", .dtype = KBV_F32, .shape = {"H"},
                 .init = KBV_INIT_UNIFORM_FAN_IN}},
     .nodes = {{.op = KBV_OP_LINEAR, .args = {"x", "fc.weight", "fc.bias"}, .out = "y"}}},
    {.level = 0, .id = 2, .name = "2_Linear_NoBias_Randn_Const", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "W"}, .gen = KBV_GEN_RANDN}},
     /* state_dict order: the module's own params before its children's */
     .params = {{.name = "bias", .dtype = KBV_F32, .shape = {"H"}, .init = KBV_INIT_RANDN},
                {.name = "scale", .dtype = KBV_F32, .init = KBV_INIT_CONST, .value = 0.1},
                {.name = "shift", .dtype = KBV_F32, .shape = {"1", "H"},
                 .init = KBV_INIT_CONST, .value = -0.5},
                {.name = "fc.weight", .dtype = KBV_F32, .shape = {"H", "W"},
                 .init = KBV_INIT_UNIFORM_FAN_IN}},
     .nodes = {{.op = KBV_OP_LINEAR, .args = {"x", "fc.weight"}, .out = "a"},
               {.op = KBV_OP_ADD, .args = {"a", "bias"}, .out = "b"},
               {.op = KBV_OP_MINIMUM, .args = {"b", "scale"}, .out = "c"},
               {.op = KBV_OP_MAXIMUM, .args = {"c", "shift"}, .out = "y"}}},
    {.level = 0, .id = 3, .name = "3_Clamps_Scalars", .dims = DIMS, .inputs = IN_X3,
     .nodes = {{.op = KBV_OP_CLAMP, .args = {"x"}, .out = "a", .f = {-0.5, 0.75}},
               {.op = KBV_OP_CLAMP_MAX, .args = {"x"}, .out = "b", .f = {0.3}},
               {.op = KBV_OP_SUB_SCALAR, .args = {"b"}, .out = "c", .f = {0.7}},
               {.op = KBV_OP_DIV_SCALAR, .args = {"c"}, .out = "d", .f = {3.0}},
               {.op = KBV_OP_MIN_SCALAR, .args = {"x"}, .out = "e", .f = {0.1}},
               {.op = KBV_OP_MAX_SCALAR, .args = {"e"}, .out = "g", .f = {-0.2}}},
     .outputs = {"a", "d", "g"}},
    {.level = 0, .id = 4, .name = "4_Activations", .dims = DIMS, .inputs = IN_X3,
     .nodes = {{.op = KBV_OP_MUL_SCALAR, .args = {"x"}, .out = "x4", .f = {4.0}},
               {.op = KBV_OP_MISH, .args = {"x4"}, .out = "a"},
               {.op = KBV_OP_HARDSWISH, .args = {"x4"}, .out = "b"},
               {.op = KBV_OP_GELU_TANH, .args = {"x4"}, .out = "c"},
               {.op = KBV_OP_SILU, .args = {"x4"}, .out = "d"}},
     .outputs = {"a", "b", "c", "d"}},
    {.level = 0, .id = 5, .name = "5_Minimum_Broadcast", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = X3, .gen = KBV_GEN_RANDN},
                {.name = "y", .dtype = KBV_F32, .shape = {"C", "1"}, .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_MINIMUM, .args = {"x", "y"}, .out = "a"},
               {.op = KBV_OP_MAXIMUM, .args = {"y", "x"}, .out = "b"}},
     .outputs = {"a", "b"}},
    {.level = 0, .id = 6, .name = "6_Reductions", .dims = DIMS, .inputs = IN_X3,
     .nodes = {{.op = KBV_OP_SUM_DIMS, .args = {"x"}, .out = "a", .i = {0x6, 1}},
               {.op = KBV_OP_MEAN_DIMS, .args = {"x"}, .out = "b", .i = {0x5, 0}},
               {.op = KBV_OP_AMAX_DIMS, .args = {"x"}, .out = "c", .i = {0x2, 1}},
               {.op = KBV_OP_LOGSUMEXP, .args = {"c"}, .out = "d", .i = {0, 1}},
               {.op = KBV_OP_MUL_SCALAR, .args = {"x"}, .out = "big", .f = {300.0}},
               {.op = KBV_OP_LOGSUMEXP, .args = {"big"}, .out = "e", .i = {-1, 0}}},
     .outputs = {"a", "b", "d", "e"}},
    {.level = 0, .id = 7, .name = "7_Adaptive_Pools", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H", "W"},
                 .gen = KBV_GEN_RANDN},
                {.name = "v", .dtype = KBV_F32, .shape = {"B", "C", "H", "W", "C"},
                 .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_ADAPTIVE_AVG_POOL2D, .args = {"x"}, .out = "a",
                .s = "output_size=(3, 2)"},
               {.op = KBV_OP_ADAPTIVE_AVG_POOL2D, .args = {"x"}, .out = "b",
                .s = "output_size=1"},
               {.op = KBV_OP_FLATTEN, .args = {"x"}, .out = "f", .i = {2, 3}},
               {.op = KBV_OP_ADAPTIVE_AVG_POOL1D, .args = {"f"}, .out = "c",
                .s = "output_size=4"},
               {.op = KBV_OP_ADAPTIVE_AVG_POOL3D, .args = {"v"}, .out = "d",
                .s = "output_size=(2, None, 3)"}},
     .outputs = {"a", "b", "c", "d"}},
    {.level = 0, .id = 8, .name = "8_Views_Clone_Dropout", .dims = DIMS, .inputs = IN_X3,
     .nodes = {{.op = KBV_OP_UNSQUEEZE, .args = {"x"}, .out = "u", .i = {1}},
               {.op = KBV_OP_VIEW, .args = {"u"}, .out = "v", .s = "(B, -1)"},
               {.op = KBV_OP_DROPOUT, .args = {"v"}, .out = "d", .f = {0.2}, .i = {1}},
               {.op = KBV_OP_CLONE, .args = {"d"}, .out = "c"},
               {.op = KBV_OP_UNSQUEEZE, .args = {"c"}, .out = "w", .i = {-1}},
               {.op = KBV_OP_SQUEEZE, .args = {"w"}, .out = "s", .i = {2}},
               {.op = KBV_OP_SQUEEZE_ALL, .args = {"u"}, .out = "t"},
               {.op = KBV_OP_DROPOUT, .args = {"t"}, .out = "e", .f = {0.5}, .i = {0}},
               {.op = KBV_OP_MUL_SCALAR, .args = {"e"}, .out = "y", .f = {2.0}}},
     .outputs = {"s", "y"}},
    /* the general views: strided views of strided views, the copies of
     * reshape and contiguous, softmax of a transpose */
    {.level = 0, .id = 9, .name = "9_General_Views", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H", "W"},
                 .gen = KBV_GEN_RANDN},
                {.name = "g", .dtype = KBV_F32, .shape = {"C", "1"}, .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {1, -1}},
               {.op = KBV_OP_PERMUTE, .args = {"t"}, .out = "p", .s = "(3, 0, 2, 1)"},
               {.op = KBV_OP_NARROW, .args = {"p"}, .out = "n", .i = {2, 1, 3}},
               {.op = KBV_OP_RESHAPE, .args = {"n"}, .out = "r", .s = "(C, -1)"},
               {.op = KBV_OP_CONTIGUOUS, .args = {"t"}, .out = "c"},
               {.op = KBV_OP_EXPAND, .args = {"g"}, .out = "e", .s = "(B, H, -1, W)"},
               {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"e"}, .out = "et", .i = {1, 2}},
               {.op = KBV_OP_MUL, .args = {"x", "et"}, .out = "m"},
               {.op = KBV_OP_SOFTMAX, .args = {"t"}, .out = "s", .i = {1}}},
     .outputs = {"r", "c", "m", "s"}},
    /* several outputs: split (the q, k, v of attention) and chunk */
    {.level = 0, .id = 10, .name = "10_Split_Chunk", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "W"}, .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_SPLIT, .args = {"x"}, .outs = {"q", "k", "v"}, .i = {3, -1}},
               {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"k"}, .out = "kt", .i = {-2, -1}},
               {.op = KBV_OP_MATMUL, .args = {"q", "kt"}, .out = "a"},
               {.op = KBV_OP_MATMUL, .args = {"kt", "q"}, .out = "qk"},
               {.op = KBV_OP_SOFTMAX, .args = {"a"}, .out = "sa", .i = {-1}},
               {.op = KBV_OP_CHUNK, .args = {"x"}, .outs = {"c0", "c1"}, .i = {2, 1}},
               {.op = KBV_OP_SUB, .args = {"c0", "c1"}, .out = "d"}},
     .outputs = {"sa", "v", "d", "qk"}},
    /* attention's masked_fill: -inf where a broadcast bool mask is true (the
     * causal mask), a finite value through a strided operand */
    {.level = 0, .id = 11, .name = "11_Masked_Fill", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H", "W"},
                 .gen = KBV_GEN_RANDN},
                {.name = "mask", .dtype = KBV_BOOL, .shape = {"1", "1", "H", "W"},
                 .gen = KBV_GEN_RANDINT, .low = 0, .high = 2},
                {.name = "row", .dtype = KBV_BOOL, .shape = {"C", "1", "1", "1"},
                 .gen = KBV_GEN_RANDINT, .low = 0, .high = 2}},
     .nodes = {{.op = KBV_OP_MASKED_FILL, .args = {"x", "mask"}, .out = "a",
                .f = {-INFINITY}},
               {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {0, 1}},
               {.op = KBV_OP_MASKED_FILL, .args = {"t", "row"}, .out = "b", .f = {-0.25}}},
     .outputs = {"a", "b"}},
    /* F.pad in constant mode: Swin-MLP's (dims 1 and 2 of a 4-D tensor, the
     * last left alone), of a strided operand, and with a value */
    {.level = 0, .id = 12, .name = "12_Pad", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H", "W"},
                 .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_PAD, .args = {"x"}, .out = "p", .s = "[0, 0, 2, 1, 3, 0]"},
               {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {1, -1}},
               {.op = KBV_OP_PAD, .args = {"t"}, .out = "q", .s = "(1, 2)", .f = {-1.5}},
               {.op = KBV_OP_MUL_SCALAR, .args = {"q"}, .out = "y", .f = {2.0}}},
     .outputs = {"p", "y"}},
    /* basic slicing: PatchMerging's 2x2 gather cat along the last dim, a cut
     * with negative bounds, and a stop naming a dim */
    {.level = 0, .id = 13, .name = "13_Slice", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "C", "W"},
                 .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_SLICE, .args = {"x"}, .out = "a", .s = ":, 0::2, 0::2, :"},
               {.op = KBV_OP_SLICE, .args = {"x"}, .out = "b", .s = ":, 1::2, 1::2, :"},
               {.op = KBV_OP_CAT, .args = {"a", "b"}, .out = "g", .i = {-1}},
               {.op = KBV_OP_SLICE, .args = {"x"}, .out = "c", .s = "1:-1, :, 2:-1:2"},
               {.op = KBV_OP_CONTIGUOUS, .args = {"c"}, .out = "y"},
               {.op = KBV_OP_SLICE, .args = {"x"}, .out = "n", .s = ":, :, :, 1:H"},
               {.op = KBV_OP_MUL_SCALAR, .args = {"n"}, .out = "z", .f = {0.5}}},
     .outputs = {"g", "y", "z"}},
    /* torch.roll: Swin V2's cyclic shift over dims 1 and 2, of a strided
     * operand, and one dim with a shift beyond its size */
    {.level = 0, .id = 14, .name = "14_Roll", .dims = DIMS,
     .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H", "W"},
                 .gen = KBV_GEN_RANDN}},
     .nodes = {{.op = KBV_OP_ROLL, .args = {"x"}, .out = "r", .s = "shifts=(-3, -2), dims=(1, 2)"},
               {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {1, -1}},
               {.op = KBV_OP_ROLL, .args = {"t"}, .out = "y", .s = "shifts=(9,), dims=(-1,)"}},
     .outputs = {"r", "y"}},
};

const int kbv_op_problem_count = (int)(sizeof kbv_op_problems / sizeof kbv_op_problems[0]);

const kbv_problem *kbv_op_problem(int p)
{
    static kbv_static_problem rooms[sizeof kbv_op_problems / sizeof kbv_op_problems[0]];
    static const kbv_problem *done[sizeof kbv_op_problems / sizeof kbv_op_problems[0]];
    if (p < 0 || p >= kbv_op_problem_count)
        return NULL;
    if (!done[p])
        done[p] = kbv_problem_of_def(&kbv_op_problems[p], &rooms[p]);
    return done[p];
}
