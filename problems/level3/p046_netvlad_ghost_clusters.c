/* L3/46 46_NetVladWithGhostClusters: NetVLAD with 32 clusters and 16 ghost
 * clusters, whose assignments are dropped after the softmax. */
#include "level3.h"

#include "netvlad_blocks.h"

kbv_status kbv_l3_046(kbv_builder *b)
{
    kbv_b_problem(b, 3, 46, "46_NetVladWithGhostClusters",
                  "x.view(-1, D) @ clusters [D, K+G], train-mode BatchNorm1d(K+G), softmax "
                  "over the clusters, the first K kept (a strided view), a = sum over the "
                  "features (keepdim) * clusters2; vlad = (assignment^T @ x)^T - a, "
                  "F.normalize along D, flattened to [B, D*K] and normalised again. The "
                  "params are randn / sqrt(D), drawn as normal(0, 1 / sqrt(512)); the small "
                  "size keeps D = 512 and the clusters (the constructor's), and shrinks the "
                  "batch and the feature count (BatchNorm then sees 2 x 7 rows).");
    kbv_b_dim(b, "batch_size", 2048, 2);
    kbv_b_dim(b, "num_features", 100, 7);
    kbv_b_dim(b, "num_clusters", 32, 32);
    kbv_b_dim(b, "feature_size", 512, 512);
    kbv_b_dim(b, "ghost_clusters", 16, 16);
    kbv_b_input(b, "x", KBV_GEN_RAND, "batch_size,num_features,feature_size");
    l3_netvlad(b, 32, 16);
    return kbv_b_status(b);
}
