/* Mamba-2's segsum mask on CUDA: ~tril(ones(T, T, bool)), true strictly
 * above the diagonal, one thread per element (T x T is small: 64 x 64 in
 * L3/48-49). */
#include "cuda/cuda_device.h"

using namespace kbv_cuda;

namespace {

constexpr int kThreads = 256;

__global__ void segsum_mask_kernel(unsigned char *m, int64_t t)
{
    const int64_t n = t * t;
    for (int64_t e = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        m[e] = e % t > e / t;
}

} /* namespace */

extern "C" cudaError_t kbv_cuda_launch_segsum_mask(cudaStream_t s, unsigned char *m, int64_t t)
{
    if (t <= 0)
        return cudaSuccess;
    segsum_mask_kernel<<<grid_cover(kThreads, t * t), kThreads, 0, s>>>(m, t);
    return cudaGetLastError();
}
