/* Division of 32-bit indices by a divisor fixed for a whole launch, as a
 * multiply-high and a shift (Granlund and Montgomery's method, as PyTorch's
 * IntDivider): a hardware-less 32-bit division costs some twenty
 * instructions and a 64-bit one far more, which dominates kernels that
 * decode a flat index per element. Exact for dividends below 2^31. */
#ifndef KBV_CUDA_FASTDIV_H
#define KBV_CUDA_FASTDIV_H

#ifndef __CUDACC__
#error "cuda_fastdiv.h is for .cu files"
#endif

#include <stdint.h>

namespace kbv_cuda {

struct FastDiv {
    unsigned divisor, mul, shift;

    FastDiv() : divisor(1), mul(0), shift(0) {}
    /* divisor >= 1 */
    explicit FastDiv(unsigned d) : divisor(d)
    {
        shift = 0;
        while (shift < 32 && (1ull << shift) < d)
            shift++;
        uint64_t one = 1;
        mul = (unsigned)(((one << 32) * ((one << shift) - d)) / d + 1);
    }
    __device__ __forceinline__ unsigned div(unsigned n) const
    {
        return (__umulhi(n, mul) + n) >> shift;
    }
    __device__ __forceinline__ unsigned mod(unsigned n, unsigned q) const { return n - q * divisor; }
};

} // namespace kbv_cuda

#endif
