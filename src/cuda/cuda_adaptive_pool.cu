/* Adaptive average pooling over contiguous [planes, *in] into
 * [planes, *out] (three spatial dims; missing leading ones have size 1): a
 * thread per output element sums its window, [floor(i * in / out),
 * ceil((i + 1) * in / out)) along each dim, in the element type and
 * divides by its size, as PyTorch's adaptive_average_pool kernels do. (An
 * output of one element per plane is a mean; cuda_adaptive_pool.c runs the
 * reduction for it, as PyTorch's adaptive_avg_pool2d calls mean.) */
#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_device.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ int64_t start_of(int64_t i, int64_t in, int64_t out)
{
    return (i * in) / out;
}

__device__ __forceinline__ int64_t end_of(int64_t i, int64_t in, int64_t out)
{
    return ((i + 1) * in + out - 1) / out;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
adaptive_avg_kernel(const T *__restrict__ x, T *__restrict__ y, kbv_cuda_window w,
                    int64_t total)
{
    const int64_t step = (int64_t)gridDim.x * kThreads;
    for (int64_t e = (int64_t)blockIdx.x * kThreads + threadIdx.x; e < total; e += step) {
        int64_t r = e;
        const int64_t o2 = r % w.out[2];
        r /= w.out[2];
        const int64_t o1 = r % w.out[1];
        r /= w.out[1];
        const int64_t o0 = r % w.out[0];
        const int64_t p = r / w.out[0];
        const int64_t a0 = start_of(o0, w.in[0], w.out[0]), b0 = end_of(o0, w.in[0], w.out[0]);
        const int64_t a1 = start_of(o1, w.in[1], w.out[1]), b1 = end_of(o1, w.in[1], w.out[1]);
        const int64_t a2 = start_of(o2, w.in[2], w.out[2]), b2 = end_of(o2, w.in[2], w.out[2]);
        const T *plane = x + p * w.in[0] * w.in[1] * w.in[2];
        T sum = 0;
        for (int64_t i0 = a0; i0 < b0; i0++)
            for (int64_t i1 = a1; i1 < b1; i1++) {
                const T *line = plane + (i0 * w.in[1] + i1) * w.in[2];
                for (int64_t i2 = a2; i2 < b2; i2++)
                    sum += line[i2];
            }
        y[e] = sum / T((b0 - a0) * (b1 - a1) * (b2 - a2));
    }
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_adaptive_avg_pool(cudaStream_t s, int is_f64,
                                                         const kbv_cuda_window *w,
                                                         int64_t planes, const void *x, void *y)
{
    const int64_t total = planes * w->out[0] * w->out[1] * w->out[2];
    if (total <= 0)
        return cudaSuccess;
    const unsigned grid = grid_cover(kThreads, total);
    if (is_f64)
        adaptive_avg_kernel<double><<<grid, kThreads, 0, s>>>((const double *)x, (double *)y, *w,
                                                              total);
    else
        adaptive_avg_kernel<float><<<grid, kThreads, 0, s>>>((const float *)x, (float *)y, *w,
                                                             total);
    return cudaGetLastError();
}
