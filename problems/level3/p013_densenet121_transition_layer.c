/* L3/13 13_DenseNet121TransitionLayer: BatchNorm2d(32) - ReLU(inplace) - Conv2d 1x1
 * 32 -> 64 (no bias) - AvgPool2d(2, 2), as transition.0 .. transition.3. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_013(kbv_builder *b)
{
    kbv_b_problem(b, 3, 13, "13_DenseNet121TransitionLayer",
                  "Training-mode BatchNorm (batch statistics), the ReLU in place. The small "
                  "size keeps the channels (fixed by the constructor arguments).");
    kbv_b_dim(b, "batch_size", 128, 2);
    kbv_b_dim(b, "height", 256, 6);
    kbv_b_dim(b, "width", 256, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,32,height,width");
    l3_transition(b, "", "x", 32, 64);
    kbv_b_init_arg(b, "num_input_features", "32");
    kbv_b_init_arg(b, "num_output_features", "64");
    return kbv_b_status(b);
}
