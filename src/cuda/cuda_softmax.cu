/* Softmax and log-softmax.
 *
 * Along the last (contiguous) dim, in two passes over each row: the first
 * keeps a running max and a sum of exponentials rescaled whenever the max
 * grows (online softmax), the second writes exp(x - max) / sum, or
 * x - max - log(sum) as PyTorch's epilogues compute them. That is 2 reads
 * and 1 write per element, against PyTorch's 3 reads and 1 write. Rows of
 * up to 1024 elements are held in a warp's registers: 1 read, 1 write. Long rows
 * are split over a thread-block cluster whose blocks combine their partial
 * (max, sum) pairs through distributed shared memory, so a few thousand rows
 * still make many small blocks and no long partial last wave. Every kernel
 * keeps (max, sum) in the opmath type (float for bfloat16, as PyTorch's
 * accscalar_t) and rounds each output once. */
#include <math.h>

#include <type_traits>

#include <cooperative_groups.h>

#include "cuda/cuda_device.h"

namespace cg = cooperative_groups;
using namespace kbv_cuda;

namespace {

/* 512 threads with four 16-byte loads in flight each: 32 KB per block in
 * flight, 4 blocks per SM. */
constexpr int kRowThreads = 512;
constexpr int kUnroll = 4;
constexpr int kMaxSplit = 8;      /* portable cluster size limit */
constexpr int64_t kWarpRowMax = 1024;  /* rows up to this long: one warp each */

template <typename T> __device__ __forceinline__ T neg_inf() { return -INFINITY; }

/* (m, s) <- the combination of two partial (max, sum of exp(x - max)). Exact
 * for an empty side (-inf, 0); NaN anywhere makes the sum NaN. */
template <typename T> __device__ __forceinline__ void ms_combine(T &m, T &s, T m2, T s2)
{
    T big = m2 > m ? m2 : m;
    T a = m == big ? s : s * k_exp(m - big);
    T b = m2 == big ? s2 : s2 * k_exp(m2 - big);
    m = big;
    s = a + b;
}

/* exp(x - m) of an element x <= m; 0 while m is still -inf (x is then -inf
 * too: a masked element, masked_fill(-inf), whose exp(-inf - -inf) would be
 * NaN). A row of -inf only ends with s = 0 and gives NaN, as in PyTorch. */
template <typename T> __device__ __forceinline__ T ms_term(T x, T m)
{
    return m == neg_inf<T>() ? T(0) : k_exp(x - m);
}

/* Adds one element to a thread's running (m, s). */
template <typename T> __device__ __forceinline__ void ms_add(T &m, T &s, T x)
{
    if (x > m) {
        s *= k_exp(m - x);
        m = x;
    }
    s += ms_term(x, m);
}

template <typename T> __device__ __forceinline__ void warp_ms(T &m, T &s)
{
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) {
        T m2 = __shfl_xor_sync(0xffffffffu, m, off);
        T s2 = __shfl_xor_sync(0xffffffffu, s, off);
        ms_combine(m, s, m2, s2);
    }
}

/* Every thread of the block gets the block's (m, s). */
template <typename T> __device__ __forceinline__ void block_ms(T &m, T &s)
{
    __shared__ T sh_m[32], sh_s[32];
    warp_ms(m, s);
    const int warp = threadIdx.x / 32, lid = threadIdx.x % 32, nwarps = blockDim.x / 32;
    __syncthreads(); /* sh_* may still be read from the previous row */
    if (lid == 0) {
        sh_m[warp] = m;
        sh_s[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        m = lid < nwarps ? sh_m[lid] : neg_inf<T>();
        s = lid < nwarps ? sh_s[lid] : T(0);
        warp_ms(m, s);
        if (lid == 0) {
            sh_m[0] = m;
            sh_s[0] = s;
        }
    }
    __syncthreads();
    m = sh_m[0];
    s = sh_s[0];
}

template <typename T, bool LOG>
__device__ __forceinline__ T softmax_out(T x, T m, T s, T log_s)
{
    if constexpr (LOG)
        return x - m - log_s;
    else
        return k_exp(x - m) / s;
}

/* One cluster of `split` blocks per row (split may be 1); W elements per
 * access (the 16-byte width, or 1 when rows are not 16-byte aligned). */
template <typename T, bool LOG, int W>
__global__ void __launch_bounds__(kRowThreads)
softmax_rows_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t cols,
                    int split)
{
    using A = acc_t<T>;
    using V = typename std::conditional<W == 1, T, typename VecOf<T>::type>::type;
    __shared__ A block_m, block_s;
    cg::cluster_group cluster = cg::this_cluster();
    const int rank = split > 1 ? (int)cluster.block_rank() : 0;
    const int64_t nvec = cols / W;
    const int64_t chunk = (nvec + split - 1) / split;
    const int64_t v0 = rank * chunk < nvec ? rank * chunk : nvec;
    const int64_t v1 = v0 + chunk < nvec ? v0 + chunk : nvec;
    const int nthreads = blockDim.x;

    for (int64_t row = blockIdx.x / split; row < rows; row += gridDim.x / split) {
        const V *__restrict__ xr = reinterpret_cast<const V *>(x + row * cols);
        V *__restrict__ yr = reinterpret_cast<V *>(y + row * cols);

        A m = neg_inf<A>(), s = A(0);
        for (int64_t v = v0 + threadIdx.x; v < v1; v += kUnroll * nthreads) {
            V buf[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; u++)
                if (v + u * nthreads < v1)
                    buf[u] = xr[v + u * nthreads];
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                if (v + u * nthreads < v1) {
                    /* one rescale per vector, not per element */
                    A mv = A(lane<V, T>(buf[u], 0));
#pragma unroll
                    for (int w = 1; w < W; w++)
                        mv = k_max(mv, A(lane<V, T>(buf[u], w)));
                    if (mv > m) {
                        s *= k_exp(m - mv);
                        m = mv;
                    }
#pragma unroll
                    for (int w = 0; w < W; w++)
                        s += ms_term(A(lane<V, T>(buf[u], w)), m);
                }
            }
        }
        block_ms(m, s);

        if (split > 1) {
            /* every block of the cluster combines the partials in rank order,
             * so all of them use bit-identical (m, s) */
            if (threadIdx.x == 0) {
                block_m = m;
                block_s = s;
            }
            cluster.sync();
            A cm = neg_inf<A>(), cs = A(0);
            for (int r = 0; r < split; r++) {
                A *rm = cluster.map_shared_rank(&block_m, r);
                A *rs = cluster.map_shared_rank(&block_s, r);
                ms_combine(cm, cs, *rm, *rs);
            }
            m = cm;
            s = cs;
            cluster.sync(); /* no block overwrites its partial while others read it */
        }

        const A log_s = LOG ? k_log(s) : A(0);
        for (int64_t v = v0 + threadIdx.x; v < v1; v += kUnroll * nthreads) {
            V buf[kUnroll];
#pragma unroll
            for (int u = 0; u < kUnroll; u++)
                if (v + u * nthreads < v1)
                    buf[u] = xr[v + u * nthreads];
#pragma unroll
            for (int u = 0; u < kUnroll; u++) {
                if (v + u * nthreads < v1) {
#pragma unroll
                    for (int w = 0; w < W; w++)
                        lane<V, T>(buf[u], w) =
                            T(softmax_out<A, LOG>(A(lane<V, T>(buf[u], w)), m, s, log_s));
                    yr[v + u * nthreads] = buf[u];
                }
            }
        }
    }
}

/* Short rows (up to 32 * N elements): one warp per row, held in registers,
 * N elements a lane, so each element is read once and exponentiated once, as
 * PyTorch's softmax_warp_forward does; re-reading the row for a second pass
 * and rescaling an online sum ran L3/43's [128, 8, 512, 512] softmax at half
 * PyTorch's speed on an H200. A row of -inf only gives NaN, as PyTorch's. */
template <typename T, bool LOG, int N>
__global__ void __launch_bounds__(256)
softmax_warp_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t rows, int64_t cols)
{
    using A = acc_t<T>;
    const int lid = threadIdx.x % 32;
    const int64_t nwarps = (int64_t)gridDim.x * blockDim.x / 32;
    for (int64_t row = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows;
         row += nwarps) {
        const T *xr = x + row * cols;
        T *yr = y + row * cols;
        A v[N];
        A m = neg_inf<A>();
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int64_t c = lid + 32 * i;
            v[i] = c < cols ? A(xr[c]) : neg_inf<A>();
            m = k_max(m, v[i]);
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            m = k_max(m, __shfl_xor_sync(0xffffffffu, m, off));
        A s = A(0);
#pragma unroll
        for (int i = 0; i < N; i++) {
            if (lid + 32 * i < cols) {
                const A e = k_exp(v[i] - m);
                s += e;
                if (!LOG)
                    v[i] = e;
            }
        }
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        const A log_s = LOG ? k_log(s) : A(0);
#pragma unroll
        for (int i = 0; i < N; i++) {
            const int64_t c = lid + 32 * i;
            if (c < cols)
                yr[c] = LOG ? T(v[i] - m - log_s) : T(v[i] / s);
        }
    }
}

template <typename T, bool LOG, int N>
cudaError_t warp_launch(cudaStream_t s, int sms, const T *x, T *y, int64_t rows, int64_t cols)
{
    auto kernel = softmax_warp_kernel<T, LOG, N>;
    kernel<<<grid_for(kernel, 256, sms, rows * 32), 256, 0, s>>>(x, y, rows, cols);
    return cudaGetLastError();
}

/* Along the middle dim of [outer, dim, inner]: one thread per (outer, inner)
 * pair; neighbouring threads read neighbouring inner elements. */
template <typename T, bool LOG>
__global__ void __launch_bounds__(256)
softmax_strided_kernel(const T *__restrict__ x, T *__restrict__ y, int64_t outer, int64_t dim,
                       int64_t inner)
{
    const int64_t total = outer * inner;
    const int64_t step = (int64_t)gridDim.x * blockDim.x;
    for (int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; t < total; t += step) {
        using A = acc_t<T>;
        const int64_t base = (t / inner) * dim * inner + t % inner;
        A m = neg_inf<A>(), s = A(0);
        for (int64_t d = 0; d < dim; d++)
            ms_add(m, s, A(x[base + d * inner]));
        const A log_s = LOG ? k_log(s) : A(0);
        for (int64_t d = 0; d < dim; d++)
            y[base + d * inner] = T(softmax_out<A, LOG>(A(x[base + d * inner]), m, s, log_s));
    }
}

/* Blocks per row: enough blocks in all for ~16 waves of resident blocks
 * (a short last wave then costs little), each still with >= kUnroll
 * vectors per thread. On an H200, 4096 rows of 393216 floats: 1 block per
 * row 4.69 ms, 2 blocks 4.63 ms, 4 blocks 4.73 ms, 8 blocks 4.97 ms. */
int choose_split(int64_t rows, int64_t nvec, int threads, int sms, int per_sm)
{
    int64_t resident = (int64_t)sms * per_sm;
    int64_t want = (16 * resident + rows - 1) / rows;
    int64_t fit = nvec / ((int64_t)threads * kUnroll);
    int64_t split = want < fit ? want : fit;
    if (split > kMaxSplit)
        split = kMaxSplit;
    return split < 1 ? 1 : (int)split;
}

template <typename T, bool LOG, int W>
cudaError_t rows_launch(cudaStream_t s, int sms, const T *x, T *y, int64_t rows, int64_t cols)
{
    auto kernel = softmax_rows_kernel<T, LOG, W>;
    const int64_t nvec = cols / W;
    int threads = nvec >= (int64_t)kRowThreads * kUnroll ? kRowThreads
                  : nvec >= 256 * kUnroll                ? 256
                                                         : 128;
    int per_sm = 1;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0) != cudaSuccess
        || per_sm < 1)
        per_sm = 1;
    (void)cudaGetLastError();
    int split = choose_split(rows, nvec, threads, sms, per_sm);
    /* the grid covers every row once, up to the grid limit (then rows loop) */
    int64_t max_clusters = 0x7fffffff / split;
    int64_t clusters = rows < max_clusters ? rows : max_clusters;

    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)(clusters * split));
    cfg.blockDim = dim3((unsigned)threads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = (unsigned)split;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = split > 1 ? 1 : 0;
    cudaError_t err = cudaLaunchKernelEx(&cfg, kernel, x, y, rows, cols, split);
    if (err != cudaSuccess)
        return err;
    return cudaGetLastError();
}

template <typename T, bool LOG>
cudaError_t lastdim_typed(cudaStream_t s, int sms, const void *xv, void *yv, int64_t rows,
                          int64_t cols)
{
    const T *x = static_cast<const T *>(xv);
    T *y = static_cast<T *>(yv);
    if (cols <= 32)
        return warp_launch<T, LOG, 1>(s, sms, x, y, rows, cols);
    if (cols <= 64)
        return warp_launch<T, LOG, 2>(s, sms, x, y, rows, cols);
    if (cols <= 128)
        return warp_launch<T, LOG, 4>(s, sms, x, y, rows, cols);
    if (cols <= 256)
        return warp_launch<T, LOG, 8>(s, sms, x, y, rows, cols);
    if (cols <= 512)
        return warp_launch<T, LOG, 16>(s, sms, x, y, rows, cols);
    if (cols <= kWarpRowMax)
        return warp_launch<T, LOG, 32>(s, sms, x, y, rows, cols);
    constexpr int W = VecOf<T>::width;
    if (cols % W == 0 && aligned16(x) && aligned16(y))
        return rows_launch<T, LOG, W>(s, sms, x, y, rows, cols);
    return rows_launch<T, LOG, 1>(s, sms, x, y, rows, cols);
}

template <typename T, bool LOG>
cudaError_t strided_typed(cudaStream_t s, int sms, const void *x, void *y, int64_t outer,
                          int64_t dim, int64_t inner)
{
    auto kernel = softmax_strided_kernel<T, LOG>;
    kernel<<<grid_for(kernel, 256, sms, outer * inner), 256, 0, s>>>(
        static_cast<const T *>(x), static_cast<T *>(y), outer, dim, inner);
    return cudaGetLastError();
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_softmax_lastdim(cudaStream_t s, int sms, int is_log,
                                                       int kind, const void *x, void *y,
                                                       int64_t rows, int64_t cols)
{
    if (rows <= 0 || cols <= 0)
        return cudaSuccess;
    if (kind == KIND_BF16)
        return is_log ? lastdim_typed<bf16, true>(s, sms, x, y, rows, cols)
                      : lastdim_typed<bf16, false>(s, sms, x, y, rows, cols);
    if (kind == KIND_F64)
        return is_log ? lastdim_typed<double, true>(s, sms, x, y, rows, cols)
                      : lastdim_typed<double, false>(s, sms, x, y, rows, cols);
    return is_log ? lastdim_typed<float, true>(s, sms, x, y, rows, cols)
                  : lastdim_typed<float, false>(s, sms, x, y, rows, cols);
}

extern "C" cudaError_t kbv_cuda_launch_softmax_strided(cudaStream_t s, int sms, int is_log,
                                                       int kind, const void *x, void *y,
                                                       int64_t outer, int64_t dim, int64_t inner)
{
    if (outer <= 0 || dim <= 0 || inner <= 0)
        return cudaSuccess;
    if (kind == KIND_BF16)
        return is_log ? strided_typed<bf16, true>(s, sms, x, y, outer, dim, inner)
                      : strided_typed<bf16, false>(s, sms, x, y, outer, dim, inner);
    if (kind == KIND_F64)
        return is_log ? strided_typed<double, true>(s, sms, x, y, outer, dim, inner)
                      : strided_typed<double, false>(s, sms, x, y, outer, dim, inner);
    return is_log ? strided_typed<float, true>(s, sms, x, y, outer, dim, inner)
                  : strided_typed<float, false>(s, sms, x, y, outer, dim, inner);
}
