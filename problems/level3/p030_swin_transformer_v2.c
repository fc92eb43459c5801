/* L3/30 30_SwinTransformerV2: Swin Transformer V2-T. Patch embedding (conv
 * 4x4/4 to 96 channels, LayerNorm), four stages of res-post-norm
 * SwinTransformerBlocks (depths 2, 2, 6, 2; 3, 6, 12, 24 heads; window 7,
 * every other block shifted by 3 through torch.roll and masked), PatchMerging
 * (reduction, then norm) between stages, LayerNorm, the mean over the tokens
 * and the head. */
#include "level3.h"

#include "swin_blocks.h"

kbv_status kbv_l3_030(kbv_builder *b)
{
    kbv_b_problem(b, 3, 30, "30_SwinTransformerV2",
                  "Model() takes no arguments: the image (224), the widths and the 1000 "
                  "classes are the module's defaults at every size; the small size is a "
                  "batch of 2. The buffers __init__ computes (relative_coords_table, "
                  "relative_position_index, the shifted blocks' attn_mask) are computed "
                  "element by element as the module does and never perturbed. The last "
                  "stage's resolution (7) equals the window, so its blocks neither shift "
                  "nor mask. q_bias and v_bias start at zero, logit_scale at log(10), as "
                  "the module's; drop_path is nn.Identity and every Dropout has p = 0.");
    kbv_b_dim(b, "batch_size", 10, 2);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,3,224,224");
    const char *x = swin_patch_embed(b, "x", 96);
    x = swin_stages(b, x, swin_v2_block, true);
    swin_head(b, x, 768);
    return kbv_b_status(b);
}
