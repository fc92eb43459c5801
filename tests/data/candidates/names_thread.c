/* Test candidate: starts a thread and names it from the calling thread, as
 * the CUDA driver names the helper threads it starts lazily (glibc opens
 * /proc/self/task/<tid>/comm for that), and asks for the CPU count, as
 * malloc does for a new thread's arena (glibc reads
 * /sys/devices/system/cpu/online). Neither may count as a forbidden call.
 * Returns 0, 30 when the thread could not be started, 31 when sysconf
 * gave no CPU count. */
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
    return sysconf(_SC_NPROCESSORS_ONLN) > 0 ? 0 : 31;
}
