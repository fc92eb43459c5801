/* kbv-runner built without Python: a KernelBench-format candidate is a load
 * fault with this reason. */
#include "runner/runner_python.h"

#include <stdio.h>
#include <string.h>

void runner_python_warm(void)
{
    /* nothing to start: runner_python_load says why */
}

kbv_child_fault runner_python_start(runner *r, char *reason)
{
    (void)r;
    (void)reason;
    return KBV_FAULT_NONE;   /* runner_python_load says why not */
}

kbv_child_fault runner_python_load(runner *r, char *reason)
{
    (void)r;
    snprintf(reason, RUNNER_REASON_CAP, "this kbv-runner was built without Python (install "
             "libpython3-dev and python3-torch and rebuild): it cannot run KernelBench-format "
             "candidates");
    return KBV_FAULT_LOAD;
}

int runner_python_build(const char *candidate, const char *out_dir, const char *arch)
{
    (void)candidate;
    (void)out_dir;
    (void)arch;
    fprintf(stderr, "kbv-runner: error: built without Python: it cannot build KernelBench-format "
                    "candidates' extensions\n");
    return 2;
}

const char *runner_python_error(void)
{
    return NULL;
}

void runner_python_report(kbv_child_python *out)
{
    memset(out, 0, sizeof *out);
}
