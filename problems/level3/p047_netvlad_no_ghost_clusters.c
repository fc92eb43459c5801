/* L3/47 47_NetVladNoGhostClusters: NetVLAD without ghost clusters, in the
 * paper's version (16 clusters). */
#include "level3.h"

#include "netvlad_blocks.h"

kbv_status kbv_l3_047(kbv_builder *b)
{
    kbv_b_problem(b, 3, 47, "47_NetVladNoGhostClusters",
                  "The paper's version (facebookresearch/kernel_bench_verified): "
                  "num_clusters = 16, where upstream KernelBench has 32 (the paper's stripped "
                  "prompt still ends with get_init_inputs() returning [32, 512, 0]; its module "
                  "file and hidden tests run 16). NetVLAD as L3/46 with ghost_clusters = 0: "
                  "the narrow to the first K clusters keeps them all. Prompted input-blind by "
                  "default, as the paper does (src/gen/input_blind.c).");
    kbv_b_dim(b, "batch_size", 2048, 2);
    kbv_b_dim(b, "num_features", 100, 7);
    kbv_b_dim(b, "num_clusters", 16, 16);
    kbv_b_dim(b, "feature_size", 512, 512);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,num_features,feature_size");
    l3_netvlad(b, 16, 0);
    return kbv_b_status(b);
}
