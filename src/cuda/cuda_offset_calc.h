/* Offsets of a flat (row-major) output index into N strided operands of one
 * shape, as PyTorch's OffsetCalculator finds them: on the host, size-1 dims
 * are dropped and neighbouring dims whose strides nest in every operand are
 * merged (a permuted copy of [B, H, T, D] decodes two or three dims, not
 * four); on the device, each remaining dim costs one multiply-shift division
 * (FastDiv) in 32-bit arithmetic, where the generic layout_offset() pays a
 * 64-bit division per dim -- which ran kbv's strided copies and elementwise
 * ops at under half PyTorch's speed (Mamba-2's and Swin V2's permutes on an
 * H200). Only for work below 2^31 elements and offsets below 2^31; the
 * callers keep the 64-bit kernels for the rest. */
#ifndef KBV_CUDA_OFFSET_CALC_H
#define KBV_CUDA_OFFSET_CALC_H

#ifndef __CUDACC__
#error "cuda_offset_calc.h is for .cu files"
#endif

#include "cuda/cuda_device.h"
#include "cuda/cuda_fastdiv.h"

namespace kbv_cuda {

/* Elements per thread of the kernels that use it: loads of all of them
 * before any store, so each thread keeps several misses in flight. */
constexpr int kOffsetUnroll = 4;

template <int N> struct OffsetCalc {
    int ndim; /* merged dims, innermost first */
    unsigned size[KBV_MAX_DIMS];
    FastDiv div[KBV_MAX_DIMS];
    unsigned stride[KBV_MAX_DIMS][N];

    __device__ __forceinline__ void get(unsigned linear, unsigned (&off)[N]) const
    {
#pragma unroll
        for (int k = 0; k < N; k++)
            off[k] = 0;
#pragma unroll
        for (int d = 0; d < KBV_MAX_DIMS; d++) {
            if (d == ndim)
                break;
            const unsigned q = div[d].div(linear), c = div[d].mod(linear, q);
#pragma unroll
            for (int k = 0; k < N; k++)
                off[k] += c * stride[d][k];
            linear = q;
        }
    }
};

/* Builds the calculator for operands sharing ls[0]'s shape; false when the
 * work or an offset needs more than 31 bits, or a stride is negative. */
template <int N>
static inline bool make_offset_calc(const kbv_cuda_layout *const (&ls)[N], OffsetCalc<N> &c)
{
    const kbv_cuda_layout &l0 = *ls[0];
    if (layout_numel(l0) >= ((int64_t)1 << 31))
        return false;
    for (int k = 0; k < N; k++) {
        if (ls[k]->ndim != l0.ndim)
            return false;
        int64_t reach = 0;
        for (int d = 0; d < l0.ndim; d++) {
            if (ls[k]->stride[d] < 0)
                return false;
            reach += (l0.shape[d] - 1) * ls[k]->stride[d];
        }
        if (reach >= ((int64_t)1 << 31))
            return false;
    }
    int64_t size[KBV_MAX_DIMS], stride[KBV_MAX_DIMS][N];
    int m = 0;
    for (int d = l0.ndim - 1; d >= 0; d--) {
        if (l0.shape[d] == 1)
            continue;
        bool nests = m > 0;
        for (int k = 0; k < N && nests; k++)
            nests = stride[m - 1][k] * size[m - 1] == ls[k]->stride[d];
        if (nests) {
            size[m - 1] *= l0.shape[d];
            continue;
        }
        size[m] = l0.shape[d];
        for (int k = 0; k < N; k++)
            stride[m][k] = ls[k]->stride[d];
        m++;
    }
    c.ndim = m;
    for (int d = 0; d < m; d++) {
        c.size[d] = (unsigned)size[d];
        c.div[d] = FastDiv((unsigned)size[d]);
        for (int k = 0; k < N; k++)
            c.stride[d][k] = (unsigned)stride[d][k];
    }
    return true;
}

/* A thread's first flat index; its others follow blockDim.x apart, so each
 * of its kOffsetUnroll stores is coalesced across the block. */
__device__ __forceinline__ unsigned offset_first()
{
    return blockIdx.x * blockDim.x * kOffsetUnroll + threadIdx.x;
}

/* A thread's kOffsetUnroll flat indices below n: load(i) of each first, so
 * its loads are in flight together, then store(i, value) of each. */
template <typename V, typename Load, typename Store>
__device__ __forceinline__ void unrolled_each(unsigned n, Load load, Store store)
{
    const unsigned first = offset_first();
    V v[kOffsetUnroll];
#pragma unroll
    for (int u = 0; u < kOffsetUnroll; u++) {
        const unsigned i = first + u * blockDim.x;
        if (i < n)
            v[u] = load(i);
    }
#pragma unroll
    for (int u = 0; u < kOffsetUnroll; u++) {
        const unsigned i = first + u * blockDim.x;
        if (i < n)
            store(i, v[u]);
    }
}

/* Blocks of `threads` threads covering n elements, kOffsetUnroll each. */
static inline unsigned offset_grid(int threads, int64_t n)
{
    return grid_cover(threads * kOffsetUnroll, n);
}

} // namespace kbv_cuda

#endif
