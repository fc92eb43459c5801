/* L3/10 10_ResNet101: torchvision's ResNet-101 (Bottleneck, [3, 4, 23, 3]). */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_010(kbv_builder *b)
{
    kbv_b_problem(b, 3, 10, "10_ResNet101",
                  "314 param tensors and 208 buffers. Training-mode BatchNorm (batch "
                  "statistics), in-place ReLUs and residual adds as the module's. The small "
                  "size is 32x32 (layer4 at one pixel) with a batch of 2.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 64);
    kbv_b_dim(b, "width", 224, 64);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,height,width");
    static const int blocks[4] = {3, 4, 23, 3};
    l3_resnet(b, "x", blocks, true, "num_classes");
    kbv_b_init_arg(b, "layers", "[3, 4, 23, 3]");
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
