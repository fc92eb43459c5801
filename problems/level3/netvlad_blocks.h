/* NetVLAD (L3/46, L3/47): KernelBench's module, with and without ghost
 * clusters, as one block over the problem's dims. */
#ifndef KBV_L3_NETVLAD_BLOCKS_H
#define KBV_L3_NETVLAD_BLOCKS_H

#include "graph/problem_builder.h"

/* The module's params (clusters, clusters2, then batch_norm's: the
 * state_dict's order, a module's own params before its children's), its
 * forward over input "x" [batch_size, num_features, feature_size] and its
 * init args (cluster_size, feature_size, ghost_clusters). The problem
 * declares the dims num_clusters (= num_clusters here) and feature_size
 * (= 512), the same at both sizes: the narrow to the kept clusters takes
 * an integer, and init_sc = 1 / sqrt(feature_size) is the params' std.
 * Sizes the forward needs are read off the tensors (x.size(1), as the
 * module's max_sample) or are the constructor's, never module-level
 * constants, so the input-blind rendering (without them) runs. */
void l3_netvlad(kbv_builder *b, int num_clusters, int ghost_clusters);

#endif
