/* L3/15 15_DenseNet121: KernelBench's DenseNet-121 (dense blocks of 6, 12, 24, 16 layers,
 * growth rate 32, transitions halving the channels), 10 classes. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_015(kbv_builder *b)
{
    kbv_b_problem(b, 3, 15, "15_DenseNet121",
                  "Params in the module's registration order (features, all dense blocks, all "
                  "transitions, final_bn, classifier), not forward order. Training-mode "
                  "BatchNorm; in-place ReLUs. The small size is 64x64 with a batch of 2, so "
                  "that the last block's BatchNorms see 2x2 pixels.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 64);
    kbv_b_dim(b, "width", 224, 64);
    kbv_b_dim(b, "num_classes", 10, 3);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    static const int blocks[4] = {6, 12, 24, 16};
    l3_densenet(b, "x", blocks, "num_classes");
    kbv_b_init_arg(b, "growth_rate", "32");
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
