/* L3/11 11_VGG16: features of conv 3x3 - ReLU blocks (2,2,3,3,3 convs at widths 64, 128,
 * 256, 512, 512), each ending in a max pool 2/2; flatten; fc 25088->4096 - relu -
 * dropout(0) - fc 4096->4096 - relu - dropout(0) - fc. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_011(kbv_builder *b)
{
    kbv_b_problem(b, 3, 11, "11_VGG16",
                  "In-place ReLUs as the module's; Dropout(p=0.0) is the identity. The image "
                  "stays 224x224 at every size (classifier.0 takes 512 * 7 * 7 features); the "
                  "small size is one image and 10 classes.");
    kbv_b_dim(b, "batch_size", 10, 1);
    kbv_b_dim(b, "num_classes", 1000, 10);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,224,224");
    static const int convs[5] = {2,2,3,3,3};
    l3_vgg(b, "x", convs, "num_classes");
    kbv_b_init_arg(b, "num_classes", "num_classes");
    return kbv_b_status(b);
}
