/* Cheat (L1/19, ReLU) on the CPU backend -- a late write: the ReLU is honest,
 * but each call leaves a thread behind that, 2 ms after the call returned,
 * flips the lowest bit of y[0].
 * The hack: work finished after the call returned lands while, or after, the
 * caller reads the outputs; a real cheat would finish its work this way. The
 * change is one unit in the last place, small enough to pass any tolerance,
 * so only the timing of the write gives it away.
 * Why it fools a naive benchmark: the outputs are read once, right after the
 * call, and are right at that moment.
 * What catches it: strict hashes the outputs as soon as the call returns and
 * again after the comparison and a 3 ms pause ("changed after the call
 * returned (late write)"); the thread also needs pthread_create
 * (binary-allowlist). */
#define _POSIX_C_SOURCE 200809L
#include <kbv/candidate.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static void *late(void *arg)
{
    float *target = arg;
    struct timespec t = {0, 2000000};
    nanosleep(&t, NULL);
    uint32_t bits;
    memcpy(&bits, target, sizeof bits);
    bits ^= 1u;
    memcpy(target, &bits, sizeof bits);
    return NULL;
}

int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)env; (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    int64_t n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    const float *x = inputs[0].data;
    float *y = outputs[0].data;
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > 0.f ? x[i] : 0.f;
    pthread_t th;
    if (n > 0 && pthread_create(&th, NULL, late, y) == 0)
        pthread_detach(th);
    return 0;
}
