/* L3/29 29_SwinMLP: Swin-MLP-T. Patch embedding (conv 4x4/4 to 96 channels,
 * LayerNorm), four stages of SwinMLPBlocks (depths 2, 2, 6, 2; 3, 6, 12,
 * 24 heads; window 7, every other block shifted by 3 through a zero
 * F.pad), PatchMerging between stages, LayerNorm, the mean over the tokens
 * and the head. */
#include "level3.h"

#include "swin_blocks.h"

kbv_status kbv_l3_029(kbv_builder *b)
{
    kbv_b_problem(b, 3, 29, "29_SwinMLP",
                  "Model() takes no arguments: the image (224), the widths and the 1000 "
                  "classes are the module's defaults at every size; the small size is a "
                  "batch of 2. The last stage's resolution (7) equals the window, so its "
                  "blocks neither shift nor pad, as the module's __init__ decides; stages "
                  "1-3 pad 4 before and 3 after each side. drop_path is nn.Identity and "
                  "every Dropout has p = 0, so neither appears.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,224,224");
    const char *x = swin_patch_embed(b, "x", 96);
    x = swin_stages(b, x, swin_mlp_block, false);
    swin_head(b, x, 768);
    return kbv_b_status(b);
}
