/* L3/6 6_GoogleNetInceptionModule: one InceptionModule(480: 192, 96->208, 16->48, 64)
 * over x [batch_size, 480, height, width], its four branches cat along the channels. */
#include "level3.h"

#include "blocks.h"

kbv_status kbv_l3_006(kbv_builder *b)
{
    kbv_b_problem(b, 3, 6, "6_GoogleNetInceptionModule",
                  "No activations (the module has none). Channels 192 + 208 + 48 + 64 = 512. "
                  "The small size keeps the channels (constructor arguments, fixed) and shrinks "
                  "the batch and the image.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_dim(b, "height", 224, 7);
    kbv_b_dim(b, "width", 224, 5);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,480,height,width");
    l3_inception_module(b, "", "x", (l3_inception){480, 192, 96, 208, 16, 48, 64});
    static const char *const args[][2] = {
        {"in_channels", "480"}, {"out_1x1", "192"}, {"reduce_3x3", "96"}, {"out_3x3", "208"},
        {"reduce_5x5", "16"},   {"out_5x5", "48"},  {"pool_proj", "64"},
    };
    for (size_t a = 0; a < sizeof args / sizeof args[0]; a++)
        kbv_b_init_arg(b, args[a][0], args[a][1]);
    return kbv_b_status(b);
}
