/* L3/9 9_ResNet18: torchvision's ResNet-18 (BasicBlock, [2, 2, 2, 2]). */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_009(kbv_builder *b)
{
    kbv_b_problem(b, 3, 9, "9_ResNet18",
                  "Training-mode BatchNorm (batch statistics), in-place ReLUs and residual "
                  "adds as the module's. The small size is 32x32, the least that leaves layer4 "
                  "one pixel, with a batch of 2 so that every BatchNorm sees two values per "
                  "channel.");
    kbv_b_dim(b, "batch_size", 2, 2);
    kbv_b_dim(b, "height", 224, 64);
    kbv_b_dim(b, "width", 224, 64);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    static const int blocks[4] = {2, 2, 2, 2};
    l3_resnet(b, "x", blocks, false, "num_classes");
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
