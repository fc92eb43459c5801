/* Device helpers of the normalisation, reduction, scan, loss and attention
 * kernels (C++ only): the backend's vectors and math (cuda_device.h), plus
 * block-wide sums and grid sizing. */
#ifndef KBV_CUDA_NORM_DEVICE_H
#define KBV_CUDA_NORM_DEVICE_H

#ifndef __CUDACC__
#error "cuda_norm_device.h is for .cu files"
#endif

#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda/cuda_device.h"

namespace kbv_norm {

/* The backend's 16-byte vectors and float/double overloads (cuda_device.h). */
template <typename T> using Vec = kbv_cuda::VecOf<T>;
using kbv_cuda::acc_t;
using kbv_cuda::bf16;
using kbv_cuda::k_exp;
using kbv_cuda::k_log;
using kbv_cuda::KIND_BF16;
using kbv_cuda::KIND_F32;
using kbv_cuda::KIND_F64;
using kbv_cuda::lane;
using kbv_cuda::shfl_down;

__device__ __forceinline__ float k_sqrt(float x) { return sqrtf(x); }
__device__ __forceinline__ double k_sqrt(double x) { return sqrt(x); }
__device__ __forceinline__ float k_pow(float x, float e) { return powf(x, e); }
__device__ __forceinline__ double k_pow(double x, double e) { return pow(x, e); }

/* Sum of v over the block; the result is valid in thread 0. blockDim.x is a
 * multiple of 32, at most 1024. */
template <typename A> __device__ __forceinline__ A block_sum(A v)
{
    __shared__ A partial[32];
#pragma unroll
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, off);
    const int warp = threadIdx.x / 32, lid = threadIdx.x % 32;
    __syncthreads(); /* partial may still be read from a previous call */
    if (lid == 0)
        partial[warp] = v;
    __syncthreads();
    A total = 0;
    if (warp == 0) {
        total = lid < (int)(blockDim.x / 32) ? partial[lid] : A(0);
#pragma unroll
        for (int off = 16; off > 0; off >>= 1)
            total += __shfl_down_sync(0xffffffffu, total, off);
    }
    return total;
}

using kbv_cuda::aligned16;

static inline unsigned blocks_for(int64_t work, int threads)
{
    int64_t b = (work + threads - 1) / threads;
    if (b < 1)
        b = 1;
    return (unsigned)(b < 0x7fffffff ? b : 0x7fffffff);
}

} /* namespace kbv_norm */

#endif
