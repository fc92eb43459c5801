/* The candidate compiler: builds, the content-addressed cache (hits, cached
 * failures, concurrent builders), the flags-line allowlist, timeouts, and
 * what is not a candidate at all. */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <pthread.h>
#include <unistd.h>

#include <cmocka.h>

#include "support/processes.h"

#include "eval/compile.h"
#include "sandbox/workdir.h"

static char dir[256];     /* sources written by the tests */
static char cache[300];   /* KBV_CACHE_DIR for this run */
static kbv_compile_result res;

static int make_dirs(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_compile_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(cache, sizeof cache, "%s/cache", dir);
    /* before the first kbv_cache_dir(): it is computed once per process */
    setenv("KBV_CACHE_DIR", cache, 1);
    setenv("KBV_INCLUDE_DIR", KBV_TEST_SOURCE_DIR "/include", 1);
    return 0;
}

static int remove_dirs(void **state)
{
    (void)state;
    return kbv_sandbox_remove_dir(dir) == KBV_OK ? 0 : -1;
}

static const char *write_source(const char *name, const char *text)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static const char good_c[] =
    "#include <kbv/candidate.h>\n"
    "KBV_EXPORT int kbv_forward(const kbv_env *e, void *s, const kbv_tensor *in, int ni,\n"
    "    const kbv_tensor *p, int np, kbv_tensor *out, int no)\n"
    "{ (void)e; (void)s; (void)in; (void)ni; (void)p; (void)np; (void)out; (void)no;\n"
    "  return 0; }\n";

static void test_cache_dir_from_env(void **state)
{
    (void)state;
    const char *c = kbv_cache_dir();
    assert_non_null(c);
    assert_string_equal(c, cache);
    struct stat sb;
    assert_int_equal(stat(c, &sb), 0);
    assert_true(S_ISDIR(sb.st_mode));
}

static void test_good_c_compiles_then_hits_cache(void **state)
{
    (void)state;
    kbv_compile_opts o = {.source = write_source("good.c", good_c)};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.ok);
    assert_false(res.cached);
    assert_int_equal(strlen(res.sha256), 64);
    assert_int_equal(strlen(res.key), 64);
    assert_true(res.seconds > 0);
    /* <cache>/build/<key[0:2]>/<key>/candidate.so */
    char expect[PATH_MAX + 200];
    snprintf(expect, sizeof expect, "%s/build/%.2s/%s/candidate.so", cache, res.key, res.key);
    assert_string_equal(res.so_path, expect);
    assert_int_equal(access(res.so_path, R_OK), 0);

    char first_so[PATH_MAX], first_sha[65];
    snprintf(first_so, sizeof first_so, "%s", res.so_path);
    snprintf(first_sha, sizeof first_sha, "%s", res.sha256);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.ok);
    assert_true(res.cached);
    assert_string_equal(res.so_path, first_so);
    assert_string_equal(res.sha256, first_sha);

    void *so = dlopen(res.so_path, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(so);
    const int *abi = dlsym(so, "kbv_candidate_abi_version");
    assert_non_null(abi);
    assert_int_equal(*abi, 1);
    assert_non_null(dlsym(so, "kbv_forward"));
    dlclose(so);
}

static void test_same_source_elsewhere_shares_the_entry(void **state)
{
    (void)state;
    kbv_compile_opts o = {.source = write_source("good.c", good_c)};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    char first[PATH_MAX];
    snprintf(first, sizeof first, "%s", res.so_path);
    o.source = write_source("renamed_copy.c", good_c);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.cached);
    assert_string_equal(res.so_path, first);
}

static void test_syntax_error_is_a_cached_failure(void **state)
{
    (void)state;
    kbv_compile_opts o = {.source = write_source(
        "broken.c", "#include <kbv/candidate.h>\nint kbv_forward(oops this is not C\n")};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_false(res.cached);
    assert_string_equal(res.so_path, "");
    assert_non_null(strstr(res.log, "error"));
    assert_non_null(strstr(res.log, "candidate.c"));

    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_true(res.cached);
    assert_non_null(strstr(res.log, "error"));
}

static void test_flags_line(void **state)
{
    (void)state;
    /* an allowed flag for a C candidate: built */
    char text[2048];
    snprintf(text, sizeof text, "// kbv: nvcc-flags=-O3\n%s", good_c);
    kbv_compile_opts o = {.source = write_source("o3.c", text)};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.ok);

    /* anything else: refused before any compiler runs, with the reason */
    snprintf(text, sizeof text, "// kbv: nvcc-flags=-Xlinker foo\n%s", good_c);
    o.source = write_source("xlinker.cu", text);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "\"-Xlinker\" is not allowed"));

    snprintf(text, sizeof text, "// kbv: nvcc-flags=--use_fast_math -lcublas\n%s", good_c);
    o.source = write_source("vendor.cu", text);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "vendor library -lcublas is not allowed"));

    snprintf(text, sizeof text, "// kbv: nvcc-flags=-maxrregcount=4096\n%s", good_c);
    o.source = write_source("regs.cu", text);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "-maxrregcount=4096"));

    snprintf(text, sizeof text, "// kbv: run-as=root\n%s", good_c);
    o.source = write_source("directive.c", text);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "unknown kbv directive"));

    snprintf(text, sizeof text, "// kbv: nvcc-flags=--use_fast_math\n%s", good_c);
    o.source = write_source("fastmath.c", text);
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "C candidate may only ask for -O2 or -O3"));
}

static void test_not_a_candidate(void **state)
{
    (void)state;
    kbv_compile_opts o = {.source = write_source("model.txt", "import torch\n")};
    assert_int_equal(kbv_compile(&o, &res), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "expected a .cu (CUDA), .c (CPU) or"));

    /* a KernelBench-format file: kept in its own entry as it was read, once */
    o.source = write_source("model.py", "import torch\n");
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.ok);
    assert_false(res.cached);
    const char *base = strrchr(res.so_path, '/');
    assert_non_null(base);
    assert_string_equal(base, "/candidate.py");
    FILE *kept = fopen(res.so_path, "r");
    assert_non_null(kept);
    char line[64] = "";
    assert_non_null(fgets(line, sizeof line, kept));
    fclose(kept);
    assert_string_equal(line, "import torch\n");
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.ok);
    assert_true(res.cached);

    o.source = write_source("empty.c", "");
    assert_int_equal(kbv_compile(&o, &res), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "is empty"));

    char missing[300];
    snprintf(missing, sizeof missing, "%s/does_not_exist.cu", dir);
    o.source = missing;
    assert_int_equal(kbv_compile(&o, &res), KBV_ERR_NOT_FOUND);
    assert_non_null(strstr(kbv_last_error(), "does_not_exist.cu"));

    o.source = dir;  /* a directory named like nothing */
    assert_int_equal(kbv_compile(&o, &res), KBV_ERR_INVALID);

    /* the source is read under the candidate rule: never through a link */
    char link[300];
    snprintf(link, sizeof link, "%s/link.c", dir);
    assert_int_equal(symlink(write_source("target.c", good_c), link), 0);
    o.source = link;
    assert_int_equal(kbv_compile(&o, &res), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "symbolic link, not followed"));
    kbv_clear_error();
}

static void test_missing_compiler_is_an_error(void **state)
{
    (void)state;
    kbv_compile_opts o = {.source = write_source("nocc.c", good_c),
                          .cc = "/nonexistent/kbv-cc"};
    assert_int_equal(kbv_compile(&o, &res), KBV_ERR_NOT_FOUND);
    assert_non_null(strstr(kbv_last_error(), "/nonexistent/kbv-cc"));
}

/* A compiler that answers --version and then hangs, with a child of its own:
 * the timeout must end both, and the result must not be cached. */
static void test_compiler_timeout_kills_the_group(void **state)
{
    (void)state;
    char script[512];
    const char *text = "#!/bin/sh\n"
                       "if [ \"$1\" = --version ]; then echo slowcc 1.0; exit 0; fi\n"
                       "sleep 30.0417 &\n"
                       "wait\n";
    snprintf(script, sizeof script, "%s", write_source("slowcc.sh", text));
    assert_int_equal(chmod(script, 0755), 0);

    kbv_compile_opts o = {.source = write_source("slow.c", good_c), .cc = script,
                          .timeout_s = 0.5};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_false(res.cached);
    assert_non_null(strstr(res.log, "timed out"));
    assert_true(res.seconds < 5.0);

    assert_true(kbv_test_gone_soon("30.0417"));

    /* a timeout is not cached: the next attempt runs the compiler again */
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.cached);
}

/* Several processes building one source at once all get the same entry. */
static void test_concurrent_builders(void **state)
{
    (void)state;
    const char *src = write_source("race.c", "/* race */\n#include <kbv/candidate.h>\n"
                                             "KBV_EXPORT int kbv_forward(const kbv_env *e, void *s,"
                                             " const kbv_tensor *i, int ni, const kbv_tensor *p,"
                                             " int np, kbv_tensor *o, int no) { return 0; }\n");
    enum { N = 4 };
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            kbv_compile_opts o = {.source = src};
            static kbv_compile_result r;
            _exit(kbv_compile(&o, &r) == KBV_OK && r.ok && access(r.so_path, R_OK) == 0 ? 0 : 1);
        }
    }
    for (int i = 0; i < N; i++) {
        int ws;
        assert_int_equal(waitpid(pids[i], &ws, 0), pids[i]);
        assert_true(WIFEXITED(ws));
        assert_int_equal(WEXITSTATUS(ws), 0);
    }
    kbv_compile_opts o = {.source = src};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.cached);
    /* no temporary build directory left behind in the shard */
    char shard[PATH_MAX + 40];
    snprintf(shard, sizeof shard, "%s/build/%.2s", cache, res.key);
    DIR *d = opendir(shard);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        assert_null(strstr(e->d_name, ".tmp-"));
        assert_null(strstr(e->d_name, ".lock"));
    }
    closedir(d);
}

/* No .tmp- build directory and no .lock file left in the shard of key. */
static void assert_shard_clean(const char *key)
{
    char shard[PATH_MAX + 40];
    snprintf(shard, sizeof shard, "%s/build/%.2s", cache, key);
    DIR *d = opendir(shard);
    if (!d)
        return;   /* never created: clean */
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        assert_null(strstr(e->d_name, ".tmp-"));
        assert_null(strstr(e->d_name, ".lock"));
    }
    closedir(d);
}

/* Processes that want one entry while it is being built wait for that build
 * (the entry's lock) instead of running the compiler again. */
static void test_one_build_for_concurrent_wants(void **state)
{
    (void)state;
    /* each build takes 0.5 s; a second build would not be cached (r.cached)
     * and is counted as built below */
    char script[512];
    const char *text = "#!/bin/sh\n"
                       "if [ \"$1\" != --version ]; then sleep 0.5; fi\n"
                       "exec cc \"$@\"\n";
    snprintf(script, sizeof script, "%s", write_source("slowcc-logged.sh", text));
    assert_int_equal(chmod(script, 0755), 0);
    const char *src = write_source("wanted.c", "/* wanted */\n#include <kbv/candidate.h>\n"
                                               "KBV_EXPORT int kbv_forward(const kbv_env *e, "
                                               "void *s, const kbv_tensor *i, int ni, const "
                                               "kbv_tensor *p, int np, kbv_tensor *o, int no) "
                                               "{ return 0; }\n");
    enum { N = 3 };
    pid_t pids[N];
    for (int i = 0; i < N; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            kbv_compile_opts o = {.source = src, .cc = script};
            static kbv_compile_result r;
            if (kbv_compile(&o, &r) != KBV_OK || !r.ok || r.seconds < 0.5)
                _exit(1);
            _exit(r.cached ? 10 : 0);
        }
    }
    int built = 0, found = 0;
    for (int i = 0; i < N; i++) {
        int ws;
        assert_int_equal(waitpid(pids[i], &ws, 0), pids[i]);
        assert_true(WIFEXITED(ws));
        built += WEXITSTATUS(ws) == 0;
        found += WEXITSTATUS(ws) == 10;
    }
    assert_int_equal(built, 1);
    assert_int_equal(found, N - 1);
    kbv_compile_opts o = {.source = src, .cc = script};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_true(res.cached);
    assert_shard_clean(res.key);
}

static volatile sig_atomic_t stop_flag;

static void *stop_later(void *arg)
{
    (void)arg;
    usleep(300 * 1000);
    stop_flag = 1;
    return NULL;
}

/* A build stopped through opts.cancel: its compiler and what it started are
 * killed at once, the build directory removed, nothing cached. */
static void test_cancel_stops_the_compiler(void **state)
{
    (void)state;
    char script[512];
    const char *text = "#!/bin/sh\n"
                       "if [ \"$1\" = --version ]; then echo slowcc 2.0; exit 0; fi\n"
                       "echo compiler-ran >&2\n"
                       "sleep 30.0419 &\n"
                       "wait\n";
    snprintf(script, sizeof script, "%s", write_source("cancelcc.sh", text));
    assert_int_equal(chmod(script, 0755), 0);

    stop_flag = 0;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, stop_later, NULL), 0);
    kbv_compile_opts o = {.source = write_source("cancelled.c", good_c), .cc = script,
                          .cancel = &stop_flag};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    pthread_join(th, NULL);
    assert_false(res.ok);
    assert_false(res.cached);
    assert_non_null(strstr(res.log, "compilation stopped"));
    assert_true(res.seconds < 5.0);
    assert_true(kbv_test_gone_soon("30.0419"));
    char entry[PATH_MAX + 120];
    snprintf(entry, sizeof entry, "%s/build/%.2s/%s", cache, res.key, res.key);
    assert_int_not_equal(access(entry, F_OK), 0);
    assert_shard_clean(res.key);

    /* already stopped: the compiler never runs (it would say so) */
    o.source = write_source("cancelled2.c", "/* again */\n#include <kbv/candidate.h>\n");
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "stopped before it started"));
    assert_null(strstr(res.log, "compiler-ran"));
}

static bool have_nvcc(void)
{
    return access("/usr/local/cuda/bin/nvcc", X_OK) == 0 || system("nvcc --version >/dev/null 2>&1") == 0;
}

static void test_cuda_candidate_exports_forward(void **state)
{
    (void)state;
    if (!have_nvcc())
        skip();
    const char *src = write_source(
        "scale.cu",
        "// kbv: nvcc-flags=--use_fast_math -lineinfo\n"
        "#include <kbv/candidate.h>\n"
        "__global__ void twice(const float *x, float *y, long n)\n"
        "{ long i = blockIdx.x * (long)blockDim.x + threadIdx.x; if (i < n) y[i] = 2 * x[i]; }\n"
        "KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *in,\n"
        "    int ni, const kbv_tensor *p, int np, kbv_tensor *out, int no)\n"
        "{\n"
        "    long n = out[0].shape[0];\n"
        "    twice<<<(n + 255) / 256, 256, 0, (cudaStream_t)env->stream>>>(\n"
        "        (const float *)in[0].data, (float *)out[0].data, n);\n"
        "    return 0;\n"
        "}\n");
    kbv_compile_opts o = {.source = src};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    if (!res.ok)
        fprintf(stderr, "%s\n", res.log);
    assert_true(res.ok);
    void *so = dlopen(res.so_path, RTLD_LAZY | RTLD_LOCAL);
    if (!so)
        fprintf(stderr, "dlopen: %s\n", dlerror());
    assert_non_null(so);
    assert_non_null(dlsym(so, "kbv_forward"));
    const int *abi = dlsym(so, "kbv_candidate_abi_version");
    assert_non_null(abi);
    assert_int_equal(*abi, 1);
    assert_null(dlsym(so, "_Z5twicePKfPfl"));  /* hidden: only the ABI is exported */
    dlclose(so);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cache_dir_from_env),
        cmocka_unit_test(test_good_c_compiles_then_hits_cache),
        cmocka_unit_test(test_same_source_elsewhere_shares_the_entry),
        cmocka_unit_test(test_syntax_error_is_a_cached_failure),
        cmocka_unit_test(test_flags_line),
        cmocka_unit_test(test_not_a_candidate),
        cmocka_unit_test(test_missing_compiler_is_an_error),
        cmocka_unit_test(test_compiler_timeout_kills_the_group),
        cmocka_unit_test(test_concurrent_builders),
        cmocka_unit_test(test_one_build_for_concurrent_wants),
        cmocka_unit_test(test_cancel_stops_the_compiler),
        cmocka_unit_test(test_cuda_candidate_exports_forward),
    };
    return cmocka_run_group_tests(tests, make_dirs, remove_dirs);
}
