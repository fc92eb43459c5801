/* Cheat (L1/88, GELU) on the CPU backend -- file I/O through weak references,
 * so the binary allowlist does not see the import: fopen and fclose are
 * declared weak, and the candidate reads /proc/self/maps (the map of its own
 * process, where the shared arena can be found) on every call. The GELU
 * itself is honest.
 * The hack: the linker accepts weak undefined symbols, the dynamic loader
 * binds them to the C library the runner has loaded, and a symbol audit that
 * skips weak undefined symbols (as it must for __gmon_start__ and the like)
 * skips these too. If the references stay unbound, the call returns 7; if the
 * file cannot be opened, 8: either fails every protocol.
 * Why it fools a naive benchmark: the imports look clean.
 * What catches it: the sandbox, which lets no path be opened once the
 * candidate is loaded (the open never runs; every protocol fails: "the
 * candidate called openat"), and the binary allowlist, which counts weak
 * undefined symbols as imports; only the toolchain's own hooks
 * (__gmon_start__ and the like) are allowed (binary-allowlist). */
#include <kbv/candidate.h>
#include <math.h>
#include <stdio.h>

#pragma weak fopen
#pragma weak fclose

static float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    if (!fopen || !fclose)
        return 7;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return 8;
    fclose(f);
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = gelu(x[i]);
    return 0;
}
