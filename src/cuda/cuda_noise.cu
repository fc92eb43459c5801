/* Noise beside a candidate's call, for the strict protocol's race run: blocks
 * that read and write a buffer of the runner's own for a set time, taking
 * the SMs and part of the memory bandwidth, so that the candidate's blocks
 * are scheduled and interleaved unlike on a quiet GPU. A race that happens
 * to come out right when the candidate runs alone rarely survives. */
#include "cuda/cuda_launch.h"

namespace {

/* Block b spins for (b % 8 + 1) / 8 of the time: the noise fills every SM at
 * first and then retires in eight steps, so the candidate's blocks start a
 * few at a time, not side by side as they would on an idle GPU. */
__global__ void __launch_bounds__(256) noise_kernel(float *buf, size_t n, long long cycles)
{
    const long long t0 = clock64();
    const long long mine = cycles * (blockIdx.x % 8 + 1) / 8;
    const size_t step = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.f;
    while (clock64() - t0 < mine) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            size_t j = (i + k * step) % n;
            acc += buf[j];
            buf[j] = acc * 0.5f;
        }
        i += 8 * step;
    }
}

} // namespace

extern "C" cudaError_t kbv_cuda_launch_noise(cudaStream_t s, void *buf, size_t bytes, int us)
{
    int device = 0, sms = 0, khz = 0;
    if (bytes < sizeof(float) || us <= 0)
        return cudaSuccess;
    cudaGetDevice(&device);
    if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        sms < 1)
        sms = 1;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) != cudaSuccess || khz < 1)
        khz = 1500000;
    (void)cudaGetLastError();
    /* eight blocks of 256 per SM: all of an H200 SM's threads, at first */
    const long long cycles = (long long)us * (khz / 1000);
    noise_kernel<<<8 * sms, 256, 0, s>>>(static_cast<float *>(buf), bytes / sizeof(float), cycles);
    return cudaGetLastError();
}
