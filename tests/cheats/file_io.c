/* Cheat (L1/19, ReLU) on the CPU backend -- file I/O from the candidate: it
 * opens a file on every call (here /dev/null; a real cheat would read answers
 * cached by an earlier run, or log the inputs). The ReLU itself is honest.
 * Why it fools a naive benchmark: nothing there stops a kernel's host code
 * from reading or writing files, so data can be smuggled in or out.
 * What catches it: once the candidate is loaded, the sandbox lets no path be
 * opened: the open never runs and the candidate fails every protocol for
 * trying ("the candidate called openat"); the binary allowlist, which reads
 * the built object's dynamic symbols, refuses the fopen import too
 * (binary-allowlist). */
#include <kbv/candidate.h>
#include <stdio.h>

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    FILE *f = fopen("/dev/null", "r");
    if (f)
        fclose(f);
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > 0.f ? x[i] : 0.f;
    return 0;
}
