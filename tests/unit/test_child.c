/* The candidate process: kbv-runner started through eval/child.c on CPU
 * candidates from tests/data/candidates, one per way a candidate can behave
 * (well, crash, hang, return an error, fail to load, exit, use scratch,
 * print) plus a runner that speaks garbage. Inputs and outputs cross through
 * a memfd arena mapped on both sides. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "eval/ahead.h"
#include "eval/child.h"
#include "eval/compile.h"
#include "eval/protocol.h"
#include "sandbox/workdir.h"

#define ARENA_BYTES (64 * 1024)
#define ROWS 4
#define COLS 5
#define N (ROWS * COLS)
/* byte offsets in the arena */
#define OFF_X0 0
#define OFF_X1 512
#define OFF_SCALE 1024
#define OFF_OUT 1536

static char dir[256];
static kbv_arena arena;
static kbv_compile_result compiled;

static int setup_all(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_child_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char path[300];
    snprintf(path, sizeof path, "%s/cache", dir);
    setenv("KBV_CACHE_DIR", path, 1);
    setenv("KBV_INCLUDE_DIR", KBV_TEST_SOURCE_DIR "/include", 1);
    setenv("TMPDIR", dir, 1);  /* the runners' private directories go here */
    setenv("KBV_TEST_SECRET", "must not reach the candidate", 1);

    arena.fd = memfd_create("kbv-test-arena", MFD_CLOEXEC);
    if (arena.fd < 0 || ftruncate(arena.fd, ARENA_BYTES) != 0)
        return -1;
    arena.bytes = ARENA_BYTES;
    arena.base = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, arena.fd, 0);
    return arena.base == MAP_FAILED ? -1 : 0;
}

static int teardown_all(void **state)
{
    (void)state;
    munmap(arena.base, ARENA_BYTES);
    close(arena.fd);
    return kbv_sandbox_remove_dir(dir) == KBV_OK ? 0 : -1;
}

static float *at(size_t offset) { return (float *)((unsigned char *)arena.base + offset); }

static kbv_tensor matrix(const char *name, size_t offset)
{
    kbv_tensor t = {.data = (void *)(uintptr_t)offset, .dtype = KBV_F32, .ndim = 2,
                    .shape = {ROWS, COLS}, .stride = {COLS, 1}, .name = name};
    return t;
}

/* x in two input sets, an optional scalar parameter, one output; the
 * arrays a layout points at (one layout is in use at a time). */
static kbv_tensor layout_inputs[2], layout_params[1], layout_outputs[1];

static kbv_child_layout layout_of(bool with_param)
{
    kbv_child_layout l;
    memset(&l, 0, sizeof l);
    l.inputs = layout_inputs;
    l.params = layout_params;
    l.outputs = layout_outputs;
    l.n_inputs = 1;
    l.n_sets = 2;
    l.n_outputs = 1;
    l.inputs[0] = matrix("x", OFF_X0);
    l.inputs[1] = matrix("x", OFF_X1);
    l.outputs[0] = matrix("out", OFF_OUT);
    if (with_param) {
        l.n_params = 1;
        l.params[0] = (kbv_tensor){.data = (void *)(uintptr_t)OFF_SCALE, .dtype = KBV_F32,
                                   .ndim = 1, .shape = {1}, .stride = {1}, .name = "scale"};
    }
    return l;
}

static void fill_arena(void)
{
    for (int i = 0; i < N; i++) {
        at(OFF_X0)[i] = (float)i * 0.5f - 3.0f;
        at(OFF_X1)[i] = (float)(i * i) + 1.0f;
        at(OFF_OUT)[i] = -12345.0f;  /* poison */
    }
    at(OFF_SCALE)[0] = 3.0f;
}

/* Compiles tests/data/candidates/<name>.c; returns the .so path. */
static const char *build(const char *name)
{
    char src[512];
    snprintf(src, sizeof src, "%s/tests/data/candidates/%s.c", KBV_TEST_SOURCE_DIR, name);
    kbv_compile_opts o = {.source = src};
    kbv_status st = kbv_compile(&o, &compiled);
    if (st != KBV_OK)
        fprintf(stderr, "%s\n", kbv_last_error());
    assert_int_equal(st, KBV_OK);
    if (!compiled.ok)
        fprintf(stderr, "%s\n", compiled.log);
    assert_true(compiled.ok);
    return compiled.so_path;
}

static kbv_child *start(const char *so, const kbv_child_layout *l, double call_timeout,
                        kbv_child_result *res)
{
    kbv_child_spec spec = {.runner = KBV_TEST_BINARY_DIR "/kbv-runner", .candidate = so,
                           .device = -1, .arena = &arena, .layout = l,
                           .start_timeout_s = 5.0, .call_timeout_s = call_timeout,
                           .flush_bytes = 1 << 16};
    kbv_child *c = NULL;
    kbv_status st = kbv_child_start(&spec, &c, res);
    if (st != KBV_OK)
        fprintf(stderr, "%s\n", kbv_last_error());
    assert_int_equal(st, KBV_OK);
    assert_non_null(c);
    return c;
}

/* Nothing left behind: every runner reaped, every private directory gone. */
static void assert_clean(void)
{
    errno = 0;
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        assert_null(strstr(e->d_name, "kbv-run-"));
    closedir(d);
}

static void assert_scaled(size_t x_offset, float scale)
{
    for (int i = 0; i < N; i++)
        assert_float_equal(at(OFF_OUT)[i], at(x_offset)[i] * scale, 0.0);
}

static void test_good_candidate(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("good"), &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_string_equal(res.reason, "");

    assert_int_equal(kbv_child_call(c, 0, 3, true, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(res.n_times, 3);
    for (int i = 0; i < 3; i++)
        assert_true(res.times_ms[i] > 0);
    assert_true(res.wall_ms > 0);
    assert_scaled(OFF_X0, 2.0f);

    /* the second input set, seen through the same arena */
    assert_int_equal(kbv_child_call(c, 1, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X1, 2.0f);

    /* the strict audits' requests: noise beside the call, and the traced
     * pass, which has nothing to trace on the CPU but still makes its calls */
    assert_int_equal(kbv_child_call_noisy(c, 0, 2, 500, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(res.n_times, 2);
    assert_int_equal(res.l2_persisting, 0);
    assert_scaled(OFF_X0, 2.0f);
    assert_int_equal(kbv_child_trace_calls(c, 1, 3, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(res.n_times, 3);
    assert_int_equal(res.trace.available, 0);
    assert_scaled(OFF_X1, 2.0f);
    assert_int_equal(kbv_child_trace_calls(c, 2, 1, &res), KBV_ERR_INVALID);

    /* one input set + the output, each rounded up to 512 bytes; no scratch */
    size_t peak = 0;
    assert_int_equal(kbv_child_memory(c, &peak, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(peak, 2 * 512);

    /* requests the evaluator should never make are refused without I/O */
    assert_int_equal(kbv_child_call(c, 2, 1, false, &res), KBV_ERR_INVALID);
    assert_int_equal(kbv_child_call(c, 0, KBV_CHILD_MAX_CALLS + 1, false, &res), KBV_ERR_INVALID);
    kbv_child_stop(c);
    assert_clean();
}

static void test_crash_then_a_fresh_child(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("crash"), &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_CRASH);
    assert_non_null(strstr(res.reason, "SIGSEGV"));
    assert_non_null(strstr(res.reason, "kbv_forward"));

    /* sticky: the same fault, at once, with no process to ask */
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_CRASH);
    assert_non_null(strstr(res.reason, "SIGSEGV"));
    assert_true(res.wall_ms < 50);
    size_t peak = 1;
    assert_int_equal(kbv_child_memory(c, &peak, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_CRASH);
    assert_int_equal(peak, 0);
    kbv_child_stop(c);
    assert_clean();

    /* the evaluator goes on with the next sample */
    c = start(build("good"), &l, 2.0, &res);
    assert_int_equal(kbv_child_call(c, 0, 2, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X0, 2.0f);
    kbv_child_stop(c);
    assert_clean();
}

static void test_hang_times_out(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("hang"), &l, 1.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_TIMEOUT);
    assert_non_null(strstr(res.reason, "no answer in 1 s"));
    assert_true(res.wall_ms >= 990);
    assert_true(res.wall_ms < 2000);
    kbv_child_stop(c);
    assert_clean();
}

static void test_nonzero_return(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("returns7"), &l, 2.0, &res);
    assert_int_equal(kbv_child_call(c, 0, 4, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_RETURNED);
    assert_string_equal(res.reason, "kbv_forward returned 7");
    kbv_child_stop(c);
    assert_clean();
}

static void test_load_failures(void **state)
{
    (void)state;
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;

    kbv_child *c = start(build("no_forward"), &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_LOAD);
    assert_string_equal(res.reason, "candidate does not export kbv_forward");
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_LOAD);  /* sticky */
    kbv_child_stop(c);

    c = start(build("abi2"), &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_LOAD);
    assert_string_equal(res.reason, "ABI version 2, this harness speaks 1");
    kbv_child_stop(c);

    char missing[300];
    snprintf(missing, sizeof missing, "%s/no_such_candidate.so", dir);
    c = start(missing, &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_LOAD);
    assert_non_null(strstr(res.reason, "cannot read the candidate"));
    assert_non_null(strstr(res.reason, "no_such_candidate.so"));
    kbv_child_stop(c);
    assert_clean();
}

static void test_exit_inside_forward(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("exits"), &l, 2.0, &res);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_CRASH);
    assert_non_null(strstr(res.reason, "exited with status 0"));
    kbv_child_stop(c);
    assert_clean();
}

static void test_scratch_counts_toward_peak(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("scratch"), &l, 2.0, &res);
    assert_int_equal(kbv_child_call(c, 0, 2, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X0, 2.0f);
    size_t peak = 0;
    assert_int_equal(kbv_child_memory(c, &peak, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    /* released after each call: the peak is one block, not two */
    assert_int_equal(peak, 2 * 512 + (1u << 20));
    kbv_child_stop(c);
    assert_clean();
}

/* Reads a whole small file into buf. */
static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* What the candidate prints, on stdout or stderr, neither breaks the
 * protocol nor reaches the terminal: it is captured, bounded, for the
 * record. */
static void test_output_is_captured(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    const char *so = build("prints");

    /* were anything to reach our stdout or stderr, it would land in these */
    char out_path[300], err_path[300];
    snprintf(out_path, sizeof out_path, "%s/stdout.txt", dir);
    snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    FILE *fo = fopen(out_path, "w"), *fe = fopen(err_path, "w");
    assert_non_null(fo);
    assert_non_null(fe);
    assert_true(dup2(fileno(fo), 1) == 1 && dup2(fileno(fe), 2) == 2);
    fclose(fo);
    fclose(fe);

    kbv_child *c = start(so, &l, 2.0, &res);
    bool all_ok = res.fault == KBV_FAULT_NONE;
    for (int round = 0; round < 3; round++) {
        all_ok = all_ok && kbv_child_call(c, round % 2, 2, false, &res) == KBV_OK &&
                 res.fault == KBV_FAULT_NONE && res.n_times == 2;
        for (int i = 0; all_ok && i < N; i++)
            all_ok = at(OFF_OUT)[i] == at(round % 2 ? OFF_X1 : OFF_X0)[i] * 2.0f;
    }
    size_t dropped = 1;
    char captured[KBV_CHILD_OUTPUT_CAP];
    snprintf(captured, sizeof captured, "%s", kbv_child_output(c, &dropped));
    kbv_child_stop(c);

    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    assert_true(all_ok);
    assert_clean();

    assert_non_null(strstr(captured, "kbvr garbage a candidate printed"));
    assert_int_equal(dropped, 0);
    char buf[8192];
    slurp(out_path, buf, sizeof buf);
    assert_null(strstr(buf, "garbage"));
    slurp(err_path, buf, sizeof buf);
    assert_null(strstr(buf, "garbage"));
}

/* A model's worth of parameters: the tensor table goes to the runner in
 * several messages, every entry in place and named. */
#define MANY_PARAMS 300
#define OFF_MANY 2048

static void test_many_params(void **state)
{
    (void)state;
    fill_arena();
    static kbv_tensor params[MANY_PARAMS];
    static char names[MANY_PARAMS][16];
    kbv_child_layout l = layout_of(false);
    l.n_params = MANY_PARAMS;
    l.params = params;
    float sum = 0;
    for (int p = 0; p < MANY_PARAMS; p++) {
        snprintf(names[p], sizeof names[p], "p.%d", p);
        size_t off = OFF_MANY + 16 * (size_t)p;
        params[p] = (kbv_tensor){.data = (void *)(uintptr_t)off, .dtype = KBV_F32, .ndim = 1,
                                 .shape = {1}, .stride = {1}, .name = names[p]};
        at(off)[0] = (float)(p % 3) - 0.75f;
        sum += at(off)[0];
    }
    assert_true(MANY_PARAMS > 4 * KBV_PROTO_TENSORS_PER_MSG);
    kbv_child_result res;
    kbv_child *c = start(build("sum_params"), &l, 2.0, &res);
    assert_int_equal(kbv_child_call(c, 1, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X1, sum);
    kbv_child_stop(c);
    assert_clean();
}

static void test_prepare_and_params(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(true);
    kbv_child_result res;
    kbv_child *c = start(build("prepared"), &l, 2.0, &res);
    assert_int_equal(kbv_child_prepare(c, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X0, 3.0f);

    /* new parameters, prepared again */
    at(OFF_SCALE)[0] = -0.5f;
    assert_int_equal(kbv_child_prepare(c, &res), KBV_OK);
    assert_int_equal(kbv_child_call(c, 1, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X1, -0.5f);

    size_t peak = 0;
    assert_int_equal(kbv_child_memory(c, &peak, &res), KBV_OK);
    assert_int_equal(peak, 3 * 512);  /* input, param, output */
    kbv_child_stop(c);
    assert_clean();
}

static void test_runner_is_confined(void **state)
{
    (void)state;
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("hygiene"), &l, 2.0, &res);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    if (res.fault != KBV_FAULT_NONE)
        fprintf(stderr, "hygiene: %s\n", res.reason);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    kbv_child_stop(c);
    assert_clean();
}

/* The allowlist is on by default, installed before the candidate loads:
 * fork, a socket and execve each fail with EPERM without running (threads
 * still work), and the candidate fails for trying, naming the first call.
 * With KBV_SANDBOX=off the runner installs no filter and the same fork gets
 * through (return 20). */
static void test_forbidden_calls_fail_the_candidate(void **state)
{
    (void)state;
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    const char *so = build("forbidden");

    kbv_child *c = start(so, &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_SANDBOX);
    assert_non_null(strstr(res.reason, "the candidate called clone"));
    assert_non_null(strstr(res.reason, "3 forbidden calls"));
    kbv_child_stop(c);

    setenv("KBV_SANDBOX", "off", 1);
    c = start(so, &l, 2.0, &res);
    unsetenv("KBV_SANDBOX");
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_RETURNED);
    assert_string_equal(res.reason, "kbv_forward returned 20");
    kbv_child_stop(c);
    assert_clean();
}

/* A thread named from another (what the CUDA driver does with its helper
 * threads, after the candidate is loaded) is not a forbidden call; a
 * system() with every signal blocked around its clone is, though the
 * filter's SIGSYS then kills the runner instead of being handled. */
static void test_thread_names_and_blocked_sigsys(void **state)
{
    (void)state;
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    kbv_child *c = start(build("names_thread"), &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 2, false, &res), KBV_OK);
    if (res.fault != KBV_FAULT_NONE)
        fprintf(stderr, "names_thread: %s\n", res.reason);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    kbv_child_stop(c);

    c = start(build("calls_system"), &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_SANDBOX);
    assert_non_null(strstr(res.reason, "killed by SIGSYS"));
    kbv_child_stop(c);
    assert_clean();
}

/* Relative paths are the evaluator's: the runner works elsewhere. */
static void test_relative_paths(void **state)
{
    (void)state;
    fill_arena();
    kbv_child_layout l = layout_of(false);
    kbv_child_result res;
    char so_dir[PATH_MAX], cwd[PATH_MAX];
    snprintf(so_dir, sizeof so_dir, "%s", build("good"));
    *strrchr(so_dir, '/') = '\0';
    assert_non_null(getcwd(cwd, sizeof cwd));

    assert_int_equal(chdir(so_dir), 0);
    kbv_child *c = start("candidate.so", &l, 2.0, &res);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 0, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    kbv_child_stop(c);

    assert_int_equal(chdir(KBV_TEST_BINARY_DIR), 0);
    kbv_child_spec spec = {.runner = "./kbv-runner", .candidate = compiled.so_path, .device = -1,
                           .arena = &arena, .layout = &l, .start_timeout_s = 5.0,
                           .call_timeout_s = 2.0};
    assert_int_equal(kbv_child_start(&spec, &c, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_int_equal(kbv_child_call(c, 1, 1, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X1, 2.0f);
    kbv_child_stop(c);

    assert_int_equal(chdir(cwd), 0);
    assert_clean();
}

static void test_garbage_from_the_runner(void **state)
{
    (void)state;
    char script[300];
    snprintf(script, sizeof script, "%s/garbage-runner.sh", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fputs("#!/bin/sh\nprintf 'this is not a reply' >&3\nsleep 30\n", f);
    fclose(f);
    assert_int_equal(chmod(script, 0755), 0);

    kbv_child_layout l = layout_of(false);
    kbv_child_spec spec = {.runner = script, .candidate = build("good"), .device = -1,
                           .arena = &arena, .layout = &l, .start_timeout_s = 2.0,
                           .call_timeout_s = 2.0};
    kbv_child *c = NULL;
    kbv_child_result res;
    assert_int_equal(kbv_child_start(&spec, &c, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_HARNESS);
    assert_non_null(strstr(res.reason, "malformed reply"));
    assert_true(res.wall_ms < 1500);  /* answered at once, not at the deadline */
    kbv_child_stop(c);
    assert_clean();
}

/* The "good" candidate `so` loaded into a runner started ahead and called
 * twice: it scales x1 by 2, as in a fresh runner. */
static void serve_good_from(kbv_child *ahead, const char *so)
{
    kbv_child_layout l = layout_of(false);
    kbv_child_spec spec = {.runner = KBV_TEST_BINARY_DIR "/kbv-runner", .candidate = so,
                           .device = -1, .arena = &arena, .layout = &l, .start_timeout_s = 5.0,
                           .call_timeout_s = 2.0, .flush_bytes = 1 << 16, .ahead = ahead};
    kbv_child *c = NULL;
    kbv_child_result res;
    assert_int_equal(kbv_child_start(&spec, &c, &res), KBV_OK);
    assert_non_null(c);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_string_equal(res.reason, "");
    assert_int_equal(kbv_child_call(c, 1, 2, false, &res), KBV_OK);
    assert_int_equal(res.fault, KBV_FAULT_NONE);
    assert_scaled(OFF_X1, 2.0f);
    kbv_child_stop(c);
}

/* A runner started ahead serves the candidate it was started for; one
 * started for a KernelBench-format candidate (torch brought up in it) is
 * not handed a C candidate: that gets a fresh runner (the runner itself
 * would refuse it, a harness fault). */
static void test_started_ahead(void **state)
{
    (void)state;
    const char *so = build("good");
    for (int python = 0; python < 2; python++) {
        fill_arena();
        kbv_child *ahead = NULL;
        assert_int_equal(kbv_child_start_ahead(KBV_TEST_BINARY_DIR "/kbv-runner", -1, python,
                                               &ahead), KBV_OK);
        assert_non_null(ahead);
        serve_good_from(ahead, so);
        assert_clean();
    }
    /* one never taken is stopped with nothing left behind */
    kbv_child *unused = NULL;
    assert_int_equal(kbv_child_start_ahead(KBV_TEST_BINARY_DIR "/kbv-runner", -1, true, &unused),
                     KBV_OK);
    kbv_child_stop(unused);
    assert_clean();
}

/* The evaluator's pool of runners started ahead: each kind topped up to its
 * depth alone, taken oldest first by its own kind, what is left stopped
 * with nothing behind. */
static void test_ahead_pool(void **state)
{
    (void)state;
    const char *runner = KBV_TEST_BINARY_DIR "/kbv-runner";
    kbv_ahead_pool pool = {0};
    assert_null(kbv_ahead_take(&pool, false));
    kbv_ahead_fill(&pool, runner, -1, true, kbv_ahead_default_depth(true));
    assert_int_equal(pool.n[1], KBV_AHEAD_DEPTH_PYTHON);
    assert_int_equal(pool.n[0], 0);
    kbv_ahead_fill(&pool, runner, -1, false, KBV_AHEAD_MAX + 5);   /* clamped */
    assert_int_equal(pool.n[0], KBV_AHEAD_MAX);
    assert_int_equal(pool.n[1], KBV_AHEAD_DEPTH_PYTHON);
    kbv_ahead_stop(&pool);
    assert_int_equal(pool.n[0] + pool.n[1], 0);
    assert_clean();

    kbv_ahead_fill(&pool, runner, -1, false, 2);
    kbv_child *first = pool.runner[0][0], *second = pool.runner[0][1];
    kbv_ahead_fill(&pool, runner, -1, false, 2);   /* already full: nothing started */
    assert_ptr_equal(pool.runner[0][0], first);
    assert_int_equal(pool.n[0], 2);
    assert_null(kbv_ahead_take(&pool, true));      /* none of the other kind */
    kbv_child *taken = kbv_ahead_take(&pool, false);
    assert_ptr_equal(taken, first);
    assert_ptr_equal(pool.runner[0][0], second);
    assert_int_equal(pool.n[0], 1);

    /* the one taken serves a candidate as any runner started ahead does */
    fill_arena();
    serve_good_from(taken, build("good"));
    kbv_ahead_stop(&pool);
    assert_clean();
}

/* --start-ahead: auto, on, off, or how many to keep (on); nothing else. */
static void test_start_ahead_parse(void **state)
{
    (void)state;
    kbv_start_ahead how;
    int depth = -1;
    assert_int_equal(kbv_start_ahead_parse("off", &how, &depth), KBV_OK);
    assert_int_equal(how, KBV_START_AHEAD_OFF);
    assert_int_equal(depth, 0);
    assert_int_equal(kbv_start_ahead_parse("on", &how, &depth), KBV_OK);
    assert_int_equal(how, KBV_START_AHEAD_ON);
    assert_int_equal(depth, 0);
    assert_int_equal(kbv_start_ahead_parse("2", &how, &depth), KBV_OK);
    assert_int_equal(how, KBV_START_AHEAD_ON);
    assert_int_equal(depth, 2);
    assert_int_equal(kbv_start_ahead_parse("8", &how, &depth), KBV_OK);
    assert_int_equal(depth, KBV_AHEAD_MAX);
    const char *bad[] = {"0", "9", "-1", "2x", "", "yes"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(kbv_start_ahead_parse(bad[i], &how, &depth), KBV_ERR_PARSE);
        kbv_clear_error();
    }
}

static void test_missing_runner_is_an_error(void **state)
{
    (void)state;
    kbv_child_layout l = layout_of(false);
    kbv_child_spec spec = {.runner = "/nonexistent/kbv-runner", .candidate = "/x.so",
                           .device = -1, .arena = &arena, .layout = &l};
    kbv_child *c = (kbv_child *)&spec;
    kbv_child_result res;
    assert_int_equal(kbv_child_start(&spec, &c, &res), KBV_ERR_NOT_FOUND);
    assert_null(c);
    assert_non_null(strstr(kbv_last_error(), "/nonexistent/kbv-runner"));
    assert_clean();
}

static void test_fault_names(void **state)
{
    (void)state;
    assert_string_equal(kbv_child_fault_name(KBV_FAULT_NONE), "none");
    assert_string_equal(kbv_child_fault_name(KBV_FAULT_CRASH), "crash");
    assert_string_equal(kbv_child_fault_name(KBV_FAULT_TIMEOUT), "timeout");
    assert_string_equal(kbv_child_fault_name(KBV_FAULT_COUNT), "unknown");
    /* the runner is looked up next to the running program unless overridden */
    const char *runner = kbv_runner_path();
    assert_non_null(runner);
    assert_non_null(strstr(runner, "/kbv-runner"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_candidate),
        cmocka_unit_test(test_crash_then_a_fresh_child),
        cmocka_unit_test(test_hang_times_out),
        cmocka_unit_test(test_nonzero_return),
        cmocka_unit_test(test_load_failures),
        cmocka_unit_test(test_exit_inside_forward),
        cmocka_unit_test(test_scratch_counts_toward_peak),
        cmocka_unit_test(test_output_is_captured),
        cmocka_unit_test(test_prepare_and_params),
        cmocka_unit_test(test_many_params),
        cmocka_unit_test(test_runner_is_confined),
        cmocka_unit_test(test_forbidden_calls_fail_the_candidate),
        cmocka_unit_test(test_thread_names_and_blocked_sigsys),
        cmocka_unit_test(test_relative_paths),
        cmocka_unit_test(test_garbage_from_the_runner),
        cmocka_unit_test(test_started_ahead),
        cmocka_unit_test(test_ahead_pool),
        cmocka_unit_test(test_start_ahead_parse),
        cmocka_unit_test(test_missing_runner_is_an_error),
        cmocka_unit_test(test_fault_names),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
