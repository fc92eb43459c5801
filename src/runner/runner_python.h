/* KernelBench-format candidates (a Python file defining ModelNew) in the
 * candidate process: the runner embeds the interpreter, built in where the
 * build found libpython3 and an importable PyTorch (runner_python.c), else
 * a load fault that says so (runner_python_absent.c).
 *
 * runner_python_start is kbv's own set-up, like CUDA's before the sandbox's
 * load stage: it starts the interpreter, imports torch (whose libraries'
 * constructors probe the system), wraps every tensor of the arena without a
 * copy (DLPack) and takes a snapshot of torch. The candidate's code runs
 * after it, in the load stage (paths readable, no process creation):
 * runner_python_load executes the file and builds ModelNew with the
 * problem's init inputs (setup.python_init, from kbv's definition). It then
 * stands in for the candidate's symbols: r->prepare binds kbv's parameters
 * into ModelNew's state_dict, r->forward calls forward on kbv's stream and
 * copies its results into kbv's outputs. */
#ifndef KBV_RUNNER_PYTHON_H
#define KBV_RUNNER_PYTHON_H

#include <stdbool.h>

#include "runner/runner.h"


/* A runner started ahead for a KernelBench-format candidate: the
 * interpreter started and the host loaded (torch imported) while it waits
 * for its setup, under the spawn's confinement as CUDA's warm-up is; no
 * device work (torch's own device set-up stays in runner_python_start,
 * after track_begin). A failure is kept: runner_python_start reports it at
 * setup, the same fault and reason as when nothing was started ahead. */
void runner_python_warm(void);

/* The host (unless runner_python_warm brought it up), the arena wrapped,
 * torch started on kbv's device and stream. */
kbv_child_fault runner_python_start(runner *r, char *reason);
kbv_child_fault runner_python_load(runner *r, char *reason);

/* kbv-runner --build-extensions CANDIDATE OUT_DIR ARCH, run by the compile
 * step in kbv's compiler sandbox (processes allowed, nothing but OUT_DIR
 * and its temporary files writable): executes the file with load_inline
 * building each extension into OUT_DIR/<key>.so, where runner_python_load's
 * load_inline finds it. The exit status: 0, 1 (a build failed), 2. */
int runner_python_build(const char *candidate, const char *out_dir, const char *arch);

/* Why the last r->prepare or r->forward of a KernelBench-format file
 * failed ("ModelNew.forward: RuntimeError: ..."); NULL when it did not
 * fail or the candidate is not one. */
const char *runner_python_error(void);

/* What the runner saw of the candidate so far (all zero for a C candidate). */
void runner_python_report(kbv_child_python *out);

#endif
