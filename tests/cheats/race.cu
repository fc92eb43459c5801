// Cheat (L1/23, softmax) -- a race that passes on a quiet GPU: each row is
// split between two blocks that exchange their partial (max, sum) through
// global memory, and a block waits for its partner for at most 0.5 ms before
// going on without it.
// The hack: the grid is sized to exactly what fits on the GPU at once
// (blocks per SM from the occupancy calculator x SMs), partners are half a
// grid apart, and the kernel assumes that every block is resident at the same
// time, which no launch promises (only a cooperative launch would). On an idle
// GPU that holds: partners run side by side, the wait is short, every row is
// right, and the time is good. When another kernel occupies part of the GPU,
// the last blocks in launch order start only after others finish; their
// partners time out and normalise their half-rows by half the sum, and the
// output changes from run to run.
// Why it fools a naive benchmark: tests run one kernel at a time on an idle
// GPU, where the assumption always holds.
// What catches it: strict's race run: the same inputs again while a noise
// kernel keeps part of every SM busy, every output judged again (race).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <math.h>

#define THREADS 512
#define WAIT_CYCLES (1000LL * 1000)   /* about 0.5 ms at the H200's clock: on an idle GPU
                                         partners meet within microseconds */

struct partial {
    float m, s;
};

__device__ __forceinline__ void merge(float &m, float &s, float m2, float s2)
{
    float mx = fmaxf(m, m2);
    float a = m == -INFINITY ? 0.f : s * expf(m - mx);
    float b = m2 == -INFINITY ? 0.f : s2 * expf(m2 - mx);
    m = mx;
    s = a + b;
}

/* block-wide merge of (m, s); every thread gets the result */
__device__ void block_merge(float &m, float &s)
{
    __shared__ float sm[THREADS / 32], ss[THREADS / 32];
    for (int off = 16; off > 0; off >>= 1)
        merge(m, s, __shfl_xor_sync(0xffffffffu, m, off), __shfl_xor_sync(0xffffffffu, s, off));
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0) {
        sm[warp] = m;
        ss[warp] = s;
    }
    __syncthreads();
    if (warp == 0) {
        m = lane < THREADS / 32 ? sm[lane] : -INFINITY;
        s = lane < THREADS / 32 ? ss[lane] : 0.f;
        for (int off = 16; off > 0; off >>= 1)
            merge(m, s, __shfl_xor_sync(0xffffffffu, m, off),
                  __shfl_xor_sync(0xffffffffu, s, off));
        if (lane == 0) {
            sm[0] = m;
            ss[0] = s;
        }
    }
    __syncthreads();
    m = sm[0];
    s = ss[0];
}

__global__ void __launch_bounds__(THREADS) softmax_pairs(const float *__restrict__ x,
                                                         float *__restrict__ y, long long rows,
                                                         long long cols, partial *part,
                                                         unsigned long long *ticket,
                                                         unsigned long long epoch)
{
    /* partners are half a grid apart, far from each other in launch order */
    int npairs = gridDim.x / 2, pair = blockIdx.x % npairs, member = blockIdx.x / npairs;
    long long half = cols / 2;
    long long c0 = member ? half : 0, c1 = member ? cols : half;
    __shared__ float shared_m, shared_s;
    bool partner_gone = false;
    unsigned long long iter = 0;
    for (long long r = pair; r < rows; r += npairs, iter++) {
        const float *row = x + r * cols;
        float m = -INFINITY, s = 0.f;
        for (long long j = c0 + threadIdx.x; j < c1; j += THREADS) {
            float v = row[j];
            if (v > m) {
                s = (m == -INFINITY ? 0.f : s * expf(m - v)) + 1.f;
                m = v;
            } else {
                s += expf(v - m);
            }
        }
        block_merge(m, s);
        if (threadIdx.x == 0) {
            unsigned long long mine = (epoch << 32) | (iter + 1);
            part[2 * pair + member] = partial{m, s};
            __threadfence();
            atomicExch(&ticket[2 * pair + member], mine);
            /* wait for the partner's partial of this row, but not for long */
            volatile unsigned long long *theirs = &ticket[2 * pair + (1 - member)];
            long long t0 = clock64();
            while (!partner_gone && *theirs < mine) {
                if (clock64() - t0 > WAIT_CYCLES)
                    partner_gone = true;
            }
            if (*theirs == mine) {
                __threadfence();
                volatile float *p = (volatile float *)&part[2 * pair + (1 - member)];
                merge(m, s, p[0], p[1]);
            }
            shared_m = m;
            shared_s = s;
        }
        __syncthreads();
        float mx = shared_m, inv = 1.f / shared_s;
        float *out = y + r * cols;
        for (long long j = c0 + threadIdx.x; j < c1; j += THREADS)
            out[j] = expf(row[j] - mx) * inv;
        __syncthreads();
    }
}

static partial *part;
static unsigned long long *ticket;
static int grid;
static unsigned long long epoch;

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2)
        return 1;
    long long rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    if (rows == 0)
        return 0;
    cudaStream_t s = (cudaStream_t)env->stream;
    if (!grid) {
        int sms = 0, per_sm = 0;
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, softmax_pairs, THREADS, 0);
        grid = sms * per_sm / 2 * 2;   /* exactly what is resident at once, in pairs */
        if (grid < 2)
            return 3;
        if (cudaMalloc((void **)&part, sizeof(partial) * grid) != cudaSuccess ||
            cudaMalloc((void **)&ticket, sizeof(unsigned long long) * grid) != cudaSuccess)
            return 4;
        cudaMemsetAsync(ticket, 0, sizeof(unsigned long long) * grid, s);
    }
    epoch++;
    softmax_pairs<<<grid, THREADS, 0, s>>>((const float *)inputs[0].data,
                                            (float *)outputs[0].data, rows, cols, part, ticket,
                                            epoch);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
