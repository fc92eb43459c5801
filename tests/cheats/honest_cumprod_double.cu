// Honest control (L1/90, cumprod along dim 1): the running product of each
// row in double, each output rounded to float once -- more accurate than any
// float32 scan. A warp owns 32 rows and walks them in tiles of 32 columns:
// the tile is loaded coalesced into shared memory, each lane multiplies its
// row's 32 values in order, and the tile is stored coalesced. Where rows
// overflow (x3 on randn, the D2 that L1/90 no longer draws, overflowed
// float32 near position 190 and float64 near 1540; D7's and D8's rows can
// too), an exact zero makes the truth 0 while arithmetic that overflowed
// gives inf * 0 = NaN. It must pass every protocol with no failing flag (such
// a kernel failed strict under D2 with "12140 elements differ from the oracle
// in class" before the rule was fixed).
#include <kbv/candidate.h>
#include <cuda_runtime.h>

#define WARPS 4

__global__ void __launch_bounds__(32 * WARPS)
cumprod_rows(const float *__restrict__ x, float *__restrict__ y, long long rows, long long cols)
{
    __shared__ float tile[WARPS][32][33];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const long long row0 = ((long long)blockIdx.x * WARPS + warp) * 32;
    if (row0 >= rows)
        return;
    float (*t)[33] = tile[warp];
    double acc = 1.0;   /* lane's row: row0 + lane */
    for (long long c0 = 0; c0 < cols; c0 += 32) {
        for (int i = 0; i < 32; i++) {
            long long r = row0 + i, c = c0 + lane;
            t[i][lane] = r < rows && c < cols ? x[r * cols + c] : 1.0f;
        }
        __syncwarp();
        for (int j = 0; j < 32; j++) {
            acc *= (double)t[lane][j];
            t[lane][j] = (float)acc;
        }
        __syncwarp();
        for (int i = 0; i < 32; i++) {
            long long r = row0 + i, c = c0 + lane;
            if (r < rows && c < cols)
                y[r * cols + c] = t[i][lane];
        }
        __syncwarp();
    }
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[0].dtype != KBV_F32)
        return 1;
    long long rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    if (rows == 0 || cols == 0)
        return 0;
    unsigned blocks = (unsigned)((rows + 32 * WARPS - 1) / (32 * WARPS));
    cumprod_rows<<<blocks, 32 * WARPS, 0, (cudaStream_t)env->stream>>>(
        (const float *)inputs[0].data, (float *)outputs[0].data, rows, cols);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
