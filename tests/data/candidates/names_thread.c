/* Test candidate: starts a thread and names it from the calling thread, as
 * the CUDA driver names the helper threads it starts lazily (glibc opens
 * /proc/self/task/<tid>/comm for that). Must not count as a forbidden call.
 * Returns 0, or 30 when the thread could not be started. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include <kbv/candidate.h>

static void *nap(void *arg)
{
    usleep(1000);
    return arg;
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs,
                           int n_inputs, const kbv_tensor *params, int n_params,
                           kbv_tensor *outputs, int n_outputs)
{
    (void)env, (void)state, (void)inputs, (void)n_inputs, (void)params, (void)n_params;
    (void)outputs, (void)n_outputs;
    pthread_t t;
    if (pthread_create(&t, NULL, nap, NULL) != 0)
        return 30;
    (void)pthread_setname_np(t, "kbv-helper");
    pthread_join(t, NULL);
    return 0;
}
