/* Honest control (L1/90, cumprod along dim 1) on the CPU backend: the running
 * product in double, each output rounded to float once -- more accurate than
 * any float32 scan. Where rows overflow (x3 on randn, the D2 that L1/90 no
 * longer draws, overflowed float32 near position 190 and float64 near 1540;
 * D7's and D8's rows can too), an exact zero makes the truth 0 while float
 * arithmetic that overflowed gives inf * 0 = NaN. It must pass every protocol
 * with no failing flag: the strict rule does not judge where the float64
 * oracle itself is NaN or inf, nor where fp32-strict overflowed and the truth
 * did not. */
#include <kbv/candidate.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].ndim != 2 || inputs[0].dtype != KBV_F32)
        return 1;
    int64_t rows = inputs[0].shape[0], cols = inputs[0].shape[1];
    for (int64_t r = 0; r < rows; r++) {
        const float *x = (const float *)inputs[0].data + r * cols;
        float *y = (float *)outputs[0].data + r * cols;
        double acc = 1.0;
        for (int64_t j = 0; j < cols; j++) {
            acc *= (double)x[j];
            y[j] = (float)acc;
        }
    }
    return 0;
}
