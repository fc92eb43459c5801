#include "netvlad_blocks.h"

#include <math.h>

#include "blocks.h"

/* F.normalize(v) with its defaults: p=2, dim=1, eps=1e-12. */
static const char *normalize(kbv_builder *b, const char *out, const char *v)
{
    return kbv_b_op1(b, KBV_OP_NORMALIZE, out, (kbv_b_attrs){.i = {1}, .f = {1e-12}}, v);
}

void l3_netvlad(kbv_builder *b, int num_clusters, int ghost_clusters)
{
    const int feature_size = 512, clusters = num_clusters + ghost_clusters;
    const double init_sc = 1.0 / sqrt((double)feature_size);
    kbv_b_paramf(b, "clusters", KBV_INIT_NORMAL, false, "feature_size,%d", clusters);
    kbv_b_param_value(b, init_sc);
    kbv_b_paramf(b, "clusters2", KBV_INIT_NORMAL, false, "1,feature_size,%d", num_clusters);
    kbv_b_param_value(b, init_sc);

    const kbv_b_attrs none = {0};
    const char *flat = kbv_b_op1(b, KBV_OP_VIEW, "x_flat", (kbv_b_attrs){.s = "(-1, size(2))"},
                                 "x");
    const char *assignment = kbv_b_op2(b, KBV_OP_MATMUL, "assignment", none, flat, "clusters");
    /* nn.BatchNorm1d(clusters) in training mode: the same F.batch_norm */
    assignment = l3_batch_norm2d(b, "batch_norm", assignment, clusters);
    assignment = kbv_b_op1(b, KBV_OP_SOFTMAX, "assignment_soft", (kbv_b_attrs){.i = {1}},
                           assignment);
    /* assignment[:, :cluster_size]: a view, strided when there are ghosts,
     * and its .view(-1, max_sample, cluster_size) splits dim 0 only, so it
     * stays a view (reshape's rule; PyTorch's view accepts it too) */
    assignment = kbv_b_op1(b, KBV_OP_NARROW, "assignment_kept",
                           (kbv_b_attrs){.i = {1, 0, num_clusters}}, assignment);
    assignment = kbv_b_op1(b, KBV_OP_RESHAPE, "assignment_bnk",
                           (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, x.size(1), %d)", num_clusters)},
                           assignment);
    const char *a_sum = kbv_b_op1(b, KBV_OP_SUM, "a_sum", (kbv_b_attrs){.i = {1, 1}}, assignment);
    const char *a = kbv_b_op2(b, KBV_OP_MUL, "a", none, a_sum, "clusters2");
    const char *assignment_t = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, "assignment_t",
                                         (kbv_b_attrs){.i = {1, 2}}, assignment);
    const char *x3 = kbv_b_op1(b, KBV_OP_VIEW, "x_bnd",
                               (kbv_b_attrs){.s = "(-1, x.size(1), size(1))"}, flat);
    const char *vlad = kbv_b_op2(b, KBV_OP_MATMUL, "vlad_kd", none, assignment_t, x3);
    vlad = kbv_b_op1(b, KBV_OP_TRANSPOSE_DIMS, "vlad_dk", (kbv_b_attrs){.i = {1, 2}}, vlad);
    vlad = kbv_b_op2(b, KBV_OP_SUB, "vlad_centred", none, vlad, a);
    vlad = normalize(b, "vlad_intra", vlad);
    vlad = kbv_b_op1(b, KBV_OP_RESHAPE, "vlad_flat", (kbv_b_attrs){.s = kbv_b_strf(b, "(-1, %d)", num_clusters * feature_size)},
                     vlad);
    normalize(b, "vlad", vlad);

    kbv_b_init_arg(b, "cluster_size", "num_clusters");
    kbv_b_init_arg(b, "feature_size", "feature_size");
    kbv_b_init_arg(b, "ghost_clusters", ghost_clusters ? "ghost_clusters" : "0");
    if (feature_size != 512)
        kbv_b_fail(b, "netvlad: feature_size is 512");
}
