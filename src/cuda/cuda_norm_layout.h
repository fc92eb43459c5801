/* The normalisations' statistics groups, as the three kernel paths of
 * cuda_norm.cu, cuda_norm_rows.cu and cuda_norm_columns.cu see them (C++
 * only), and the one formula that turns a group's shifted sums into its mean
 * and 1/sqrt(var + eps).
 *
 * A group is `count` runs of `run` contiguous elements `gap` apart: batch
 * norm's channel is one run of `spatial` elements per sample; an instance,
 * a group of group norm or a row of layer norm is one run. Which path a
 * normalisation takes depends on how short its runs are:
 *   chunks  (cuda_norm.cu): long runs, a block per chunk of a run;
 *   rows    (cuda_norm_rows.cu): instance, group and layer norm whose runs
 *           are short: a few lanes of a warp per group, one kernel;
 *   columns (cuda_norm_columns.cu): batch norm whose channels hold few
 *           elements per sample (BatchNorm1d of [N, C]): blocks split N
 *           and the columns of a sample's row. */
#ifndef KBV_CUDA_NORM_LAYOUT_H
#define KBV_CUDA_NORM_LAYOUT_H

#ifndef __CUDACC__
#error "cuda_norm_layout.h is for .cu files"
#endif

#include <math.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/cuda_norm_device.h"
#include "cuda/cuda_norm_launch.h"

namespace kbv_norm {

constexpr int kNormThreads = 256;
/* Runs of at most this many elements take the rows path. */
constexpr int64_t kRowsMaxRun = 2048;
/* Batch norm whose channels hold fewer elements than this per sample takes
 * the columns path: a block per run would leave most of its threads idle. */
constexpr int64_t kColumnsMaxSpatial = 256;

struct Layout {
    int kind;
    int64_t groups;      /* statistics groups */
    int64_t count, run;  /* runs per group, elements per run */
    int64_t gap;         /* elements between runs of a group */
    int64_t chunks;      /* blocks per run (chunks path) */
    int64_t spatial;     /* elements per channel within a run */
    int64_t per_group;   /* channels per group (group norm) */
    int64_t channels;
    int64_t n;           /* samples */
};

/* The offset of group g's first element. */
__host__ __device__ inline int64_t group_base(const Layout &l, int64_t g)
{
    return l.kind == KBV_CUDA_NORM_BATCH ? g * l.spatial : g * l.run;
}

/* The affine of element k of group g's run (k: offset within the run), in A. */
template <typename T, typename A>
__device__ __forceinline__ void affine_at(const Layout &l, int64_t g, int64_t k,
                                          const T *__restrict__ w, const T *__restrict__ b,
                                          A &wk, A &bk)
{
    switch (l.kind) {
    case KBV_CUDA_NORM_BATCH: wk = A(w[g]); bk = A(b[g]); break;
    case KBV_CUDA_NORM_GROUP: {
        const int64_t ch = (g % (l.channels / l.per_group)) * l.per_group + k / l.spatial;
        wk = A(w[ch]);
        bk = A(b[ch]);
        break;
    }
    case KBV_CUDA_NORM_LAYER: wk = A(w[k]); bk = A(b[k]); break;
    default: wk = A(1); bk = A(0); break;
    }
}

/* Mean and 1/sqrt(var + eps) of a group of n elements from its sums of
 * (x - shift) and (x - shift)^2 (biased variance, as PyTorch). */
__device__ __forceinline__ double2 stats_of(double s1, double s2, double n, double shift,
                                            double eps)
{
    const double m = s1 / n;
    double var = s2 / n - m * m;
    var = var > 0.0 ? var : 0.0;
    return make_double2(shift + m, 1.0 / sqrt(var + eps));
}

/* The rows path: every group's statistics and output in one kernel, no scratch. */
bool rows_fit(const Layout &l);
cudaError_t launch_rows(cudaStream_t s, const Layout &l, int ft, const void *x, void *y,
                        const void *w, const void *b, double eps);

/* The columns path: per-(row chunk, column) partials, per-channel stats, the affine. */
bool columns_fit(const Layout &l);
size_t columns_scratch_bytes(const Layout &l);
cudaError_t launch_columns(cudaStream_t s, const Layout &l, int ft, const void *x, void *y,
                           const void *w, const void *b, double eps, void *scratch);

} /* namespace kbv_norm */

#endif
