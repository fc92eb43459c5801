/* A vendor library behind the runner's sandbox, as kbv-runner sets it up
 * under --allow-vendor-libs (runner_main.c): the load stage's filter, the
 * library loaded as the candidate's dependency, its on-demand parts loaded
 * (runner_vendor.c), then the run stage, which closes every path. cuDNN 9's
 * libcudnn.so loads its sub-libraries on first use; the calls that make it
 * do so (descriptor creation, which needs no GPU) must then work and make
 * no forbidden call -- and fail, or be counted, without the parts loaded or
 * without the probes answered. Skipped where libcudnn.so.9 cannot be loaded. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/vendor_libs.h"
#include "runner/runner.h"
#include "runner/runner_sandbox.h"
#include "runner/runner_vendor.h"

#define SKIPPED 77
/* NVRTC's names come from the CUDA runtime's version; these calls need no NVRTC */
#define CUDA_VERSION_FOR_NAMES 13000

typedef int (*create_fn)(void **d);
typedef int (*destroy_fn)(void *d);
typedef int (*backend_create_fn)(int type, void **d);

typedef struct outcome {
    int killed;               /* the signal that ended the child, 0: it exited */
    int skipped;
    int calls_failed;         /* cuDNN calls that did not return success */
    int denied;               /* forbidden system calls counted */
    char first_path[64];
} outcome;

/* One of cuDNN's sub-libraries per call: ops, cnn, adv, graph. */
static int use_cudnn(void *shim)
{
    static const char *const pairs[][2] = {
        {"cudnnCreateTensorDescriptor", "cudnnDestroyTensorDescriptor"},
        {"cudnnCreateConvolutionDescriptor", "cudnnDestroyConvolutionDescriptor"},
        {"cudnnCreateRNNDescriptor", "cudnnDestroyRNNDescriptor"},
    };
    int failed = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        void *c = dlsym(shim, pairs[i][0]), *d = dlsym(shim, pairs[i][1]);
        create_fn create;
        destroy_fn destroy;
        memcpy(&create, &c, sizeof c);
        memcpy(&destroy, &d, sizeof d);
        void *desc = NULL;
        if (!c || !d || create(&desc) != 0)
            failed++;
        else
            destroy(desc);
    }
    void *c = dlsym(shim, "cudnnBackendCreateDescriptor");
    void *d = dlsym(shim, "cudnnBackendDestroyDescriptor");
    backend_create_fn create;
    destroy_fn destroy;
    memcpy(&create, &c, sizeof c);
    memcpy(&destroy, &d, sizeof d);
    void *desc = NULL;
    if (!c || !d || create(0 /* CUDNN_BACKEND_POINTWISE_DESCRIPTOR */, &desc) != 0)
        failed++;
    else
        destroy(desc);
    return failed;
}

/* In a child: the runner's stages around cuDNN. */
static outcome run_child(bool load_parts, unsigned probes)
{
    outcome o;
    memset(&o, 0, sizeof o);
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        char reason[RUNNER_REASON_CAP] = "";
        if (runner_sandbox_before_load() != KBV_OK)
            _exit(3);
        void *shim = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
        int syscall_nr = 0;
        o.denied = runner_sandbox_denied(&syscall_nr, o.first_path, sizeof o.first_path);
        if (!shim) {
            o.skipped = o.denied == 0;
        } else {
            if (load_parts &&
                runner_vendor_load_parts(1u << KBV_VENDOR_CUDNN, CUDA_VERSION_FOR_NAMES,
                                         reason) != KBV_FAULT_NONE)
                _exit(4);
            if (runner_sandbox_after_load(probes) != KBV_OK)
                _exit(5);
            o.calls_failed = use_cudnn(shim);
            o.denied = runner_sandbox_denied(&syscall_nr, o.first_path, sizeof o.first_path);
        }
        ssize_t w = write(fds[1], &o, sizeof o);
        _exit(w == (ssize_t)sizeof o ? 0 : 6);
    }
    close(fds[1]);
    ssize_t n = read(fds[0], &o, sizeof o);
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) {
        memset(&o, 0, sizeof o);
        o.killed = WTERMSIG(status);
        return o;
    }
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_int_equal(n, (ssize_t)sizeof o);
    return o;
}

static void parts_loaded_and_probes_answered(void **state)
{
    (void)state;
    outcome o = run_child(true, 1u << KBV_VENDOR_CUDNN);
    if (o.skipped)
        skip();
    assert_int_equal(o.killed, 0);
    assert_int_equal(o.calls_failed, 0);
    if (o.denied)
        fail_msg("%d forbidden calls, the first on '%s'", o.denied, o.first_path);
}

/* Without the probes answered, the shim's search for its versioned names
 * is counted against the candidate. */
static void probes_not_answered_are_counted(void **state)
{
    (void)state;
    outcome o = run_child(true, 0);
    if (o.skipped)
        skip();
    assert_int_equal(o.killed, 0);
    assert_true(o.denied > 0);
#ifndef __SANITIZE_ADDRESS__
    assert_non_null(strstr(o.first_path, "libcudnn"));
#else
    /* under ASan the loader reads /etc/ld.so.cache before it tries the libcudnn names */
    print_message("first refused path under ASan: %s\n", o.first_path);
#endif
}

/* Without the parts loaded in the load stage, the shim cannot load them
 * afterwards: the calls fail, or cuDNN aborts the process. */
static void parts_not_loaded_fail_the_calls(void **state)
{
    (void)state;
    outcome o = run_child(false, 1u << KBV_VENDOR_CUDNN);
    if (o.skipped)
        skip();
    assert_true(o.killed || o.calls_failed > 0);
}

int main(void)
{
    if (getenv("KBV_SANDBOX") && !strcmp(getenv("KBV_SANDBOX"), "off"))
        return 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parts_loaded_and_probes_answered),
        cmocka_unit_test(probes_not_answered_are_counted),
        cmocka_unit_test(parts_not_loaded_fail_the_calls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
