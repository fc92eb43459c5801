/* The binary allowlist: built candidates are judged by their dynamic symbols. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/vendor_libs.h"
#include "eval/symbols.h"

#define HEADER "#include <kbv/candidate.h>\n"
#define FORWARD                                                                            \
    "int kbv_forward(const kbv_env *e, void *s, const kbv_tensor *i, int ni,"              \
    " const kbv_tensor *p, int np, kbv_tensor *o, int no)"                                 \
    "{ (void)e; (void)s; (void)i; (void)ni; (void)p; (void)np; (void)o; (void)no; %s return 0; }\n"

/* Builds a candidate from source text; returns the .so path (static buffer). */
static const char *build(const char *name, const char *body_fmt, const char *stmt)
{
    static char so[256];
    char src[256], cmd[1024];
    snprintf(src, sizeof src, "/tmp/kbv_test_symbols_%d_%s.c", (int)getpid(), name);
    snprintf(so, sizeof so, "/tmp/kbv_test_symbols_%d_%s.so", (int)getpid(), name);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fprintf(f, body_fmt, stmt);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd,
             "cc -std=c11 -O2 -shared -fPIC -fvisibility=hidden -DKBV_CANDIDATE_BUILD "
             "-I%s/include %s -o %s",
             KBV_TEST_SOURCE_DIR, src, so);
    assert_int_equal(system(cmd), 0);
    unlink(src);
    return so;
}

static bool judge(const char *so, unsigned vendor_libs, char *reason, size_t cap)
{
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(so, &s), KBV_OK);
    kbv_symbol_policy pol = {.vendor_libs = vendor_libs};
    bool ok = kbv_symbols_allowed(&s, &pol, reason, cap);
    kbv_symbols_free(&s);
    unlink(so);
    return ok;
}

static void honest_candidate_passes(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *so = build("honest", HEADER "#include <math.h>\n" FORWARD,
                           "volatile float x = expf(1.0f); (void)x;");
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(so, &s), KBV_OK);
    bool has_forward = false, has_abi = false;
    for (int i = 0; i < s.exports.n; i++) {
        has_forward |= !strcmp(s.exports.names[i], "kbv_forward");
        has_abi |= !strcmp(s.exports.names[i], "kbv_candidate_abi_version");
    }
    kbv_symbols_free(&s);
    assert_true(has_forward);
    assert_true(has_abi);
    assert_true(judge(so, 0, reason, sizeof reason));
}

static void file_io_is_refused(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *so = build("fopen", HEADER "#include <stdio.h>\n" FORWARD,
                           "FILE *f = fopen(\"/tmp/x\", \"r\"); if (f) fclose(f);");
    assert_false(judge(so, 0, reason, sizeof reason));
    assert_true(strstr(reason, "fopen") || strstr(reason, "fclose"));
}

/* A weak reference binds to the library's function like any other: declaring
 * fopen weak must not slip it past the allowlist. */
static void weak_import_is_refused(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *so = build("weak", HEADER "#include <stddef.h>\n"
                           "extern void *fopen(const char *, const char *) __attribute__((weak));\n"
                           FORWARD,
                           "if (fopen) (void)fopen(\"/tmp/x\", \"r\");");
    assert_false(judge(so, 0, reason, sizeof reason));
    assert_non_null(strstr(reason, "fopen"));
}

static void dlopen_is_refused(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *so = build("dlopen", HEADER "#include <dlfcn.h>\n" FORWARD,
                           "void *h = dlopen(\"libc.so.6\", 2); (void)h;");
    assert_false(judge(so, 0, reason, sizeof reason));
    assert_non_null(strstr(reason, "dlopen"));
}

static void extra_export_is_refused(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *so = build("export",
                           HEADER "KBV_EXPORT int kbv_sneaky_hook(void) { return 1; }\n" FORWARD, "");
    assert_false(judge(so, 0, reason, sizeof reason));
    assert_non_null(strstr(reason, "kbv_sneaky_hook"));
}

static void vendor_library_needs_permission(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *src = HEADER "extern int cublasCreate_v2(void **h);\n" FORWARD;
    const char *so = build("vendor", src, "void *h; if (cublasCreate_v2(&h)) return 1;");
    assert_false(judge(so, 0, reason, sizeof reason));
    assert_non_null(strstr(reason, "cuBLAS is not allowed in this run"));
    so = build("vendor2", src, "void *h; if (cublasCreate_v2(&h)) return 1;");
    assert_true(judge(so, KBV_VENDOR_ALL, reason, sizeof reason));
    so = build("vendor3", src, "void *h; if (cublasCreate_v2(&h)) return 1;");
    assert_true(judge(so, 1u << KBV_VENDOR_CUBLAS, reason, sizeof reason));
    /* another library's permission is not cuBLAS's */
    so = build("vendor4", src, "void *h; if (cublasCreate_v2(&h)) return 1;");
    assert_false(judge(so, 1u << KBV_VENDOR_CUDNN, reason, sizeof reason));
}

/* cublasLt* is cuBLASLt's, not cuBLAS's, though cuBLAS's prefix matches it. */
static void each_library_is_allowed_alone(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *src = HEADER "extern int cublasLtCreate(void **h);\n"
                             "extern int cudnnCreate(void **h);\n" FORWARD;
    const char *call = "void *h; if (cublasLtCreate(&h) || cudnnCreate(&h)) return 1;";
    const char *so = build("lt1", src, call);
    assert_false(judge(so, 1u << KBV_VENDOR_CUBLAS | 1u << KBV_VENDOR_CUDNN, reason,
                       sizeof reason));
    assert_non_null(strstr(reason, "cublasLtCreate"));
    assert_non_null(strstr(reason, "cuBLASLt is not allowed"));
    so = build("lt2", src, call);
    assert_false(judge(so, 1u << KBV_VENDOR_CUBLASLT, reason, sizeof reason));
    assert_non_null(strstr(reason, "cudnnCreate"));
    assert_non_null(strstr(reason, "cuDNN is not allowed"));
    so = build("lt3", src, call);
    assert_true(judge(so, 1u << KBV_VENDOR_CUBLASLT | 1u << KBV_VENDOR_CUDNN, reason,
                      sizeof reason));
}

/* Allowing a library does not allow its multi-device and logging entry points. */
static void refused_entry_points_stay_refused(void **state)
{
    (void)state;
    char reason[256] = "";
    const char *so = build("xt", HEADER "extern int cublasXtCreate(void **h);\n" FORWARD,
                           "void *h; if (cublasXtCreate(&h)) return 1;");
    assert_false(judge(so, KBV_VENDOR_ALL, reason, sizeof reason));
    assert_non_null(strstr(reason, "cublasXtCreate"));
    assert_non_null(strstr(reason, "refused even where cuBLAS is allowed"));
    so = build("ltlog", HEADER "extern int cublasLtLoggerOpenFile(const char *f);\n" FORWARD,
               "if (cublasLtLoggerOpenFile(\"/tmp/x\")) return 1;");
    assert_false(judge(so, KBV_VENDOR_ALL, reason, sizeof reason));
    assert_non_null(strstr(reason, "cublasLtLoggerOpenFile"));
    /* the library's other names, and names that merely start alike, are not refused */
    assert_false(kbv_vendor_refused(KBV_VENDOR_CUBLAS, "cublasSgemm_v2"));
    assert_true(kbv_vendor_refused(KBV_VENDOR_CUBLAS, "cublasXtSgemm"));
}

/* What the object names in DT_NEEDED tells the runner which libraries to
 * load before the sandbox closes: here two stub libraries with the
 * vendor's sonames, and one that is not a vendor library. */
static void needed_libraries_are_read(void **state)
{
    (void)state;
    char dir[] = "/tmp/kbv_test_symbols_needed_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[2048], so[512];
    snprintf(cmd, sizeof cmd,
             "cd %s && printf 'int cudnnCreate(void **h){*h=0;return 0;}\\n' > dnn.c && "
             "printf 'int cublasLtCreate(void **h){*h=0;return 0;}\\n' > lt.c && "
             "printf 'int other_lib_fn(void){return 0;}\\n' > other.c && "
             "cc -shared -fPIC -Wl,-soname,libcudnn.so.9 dnn.c -o libcudnn.so.9 && "
             "cc -shared -fPIC -Wl,-soname,libcublasLt.so.13 lt.c -o libcublasLt.so.13 && "
             "cc -shared -fPIC -Wl,-soname,libother.so.1 other.c -o libother.so.1 && "
             "printf '#include <kbv/candidate.h>\\nint cudnnCreate(void **h); int "
             "cublasLtCreate(void **h); int other_lib_fn(void);\\nKBV_EXPORT int f(void){void "
             "*h; return cudnnCreate(&h) + cublasLtCreate(&h) + other_lib_fn();}\\n' > cand.c && "
             "cc -shared -fPIC -DKBV_CANDIDATE_BUILD -I%s/include cand.c -o cand.so "
             "-L. -l:libcudnn.so.9 -l:libcublasLt.so.13 -l:libother.so.1",
             dir, KBV_TEST_SOURCE_DIR);
    assert_int_equal(system(cmd), 0);
    snprintf(so, sizeof so, "%s/cand.so", dir);
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(so, &s), KBV_OK);
    bool other = false;
    for (int i = 0; i < s.needed.n; i++)
        other = other || !strcmp(s.needed.names[i], "libother.so.1");
    assert_true(other);
    assert_int_equal(kbv_symbols_vendor_needed(&s), 1u << KBV_VENDOR_CUDNN | 1u << KBV_VENDOR_CUBLASLT);
    kbv_symbols_free(&s);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* Kernels' host stubs are hidden functions: the traced pass matches kernel
 * names against every function the object defines, not only its exports. */
static void hidden_functions_are_listed(void **state)
{
    (void)state;
    const char *so = build("hidden", HEADER
                           "void my_hidden_kernel(float *x) { if (x) x[0] = 1.f; }\n" FORWARD,
                           "my_hidden_kernel(0);");
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(so, &s), KBV_OK);
    bool hidden = false, forward = false;
    for (int i = 0; i < s.functions.n; i++) {
        hidden = hidden || !strcmp(s.functions.names[i], "my_hidden_kernel");
        forward = forward || !strcmp(s.functions.names[i], "kbv_forward");
    }
    for (int i = 0; i < s.exports.n; i++)
        assert_string_not_equal(s.exports.names[i], "my_hidden_kernel");
    assert_true(hidden);
    assert_true(forward);
    kbv_symbols_free(&s);
    unlink(so);
}

static void not_an_elf_file_is_an_error(void **state)
{
    (void)state;
    char path[] = "/tmp/kbv_test_symbols_notelf_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "hello", 5), 5);
    close(fd);
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(path, &s), KBV_ERR_INVALID);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest_candidate_passes),
        cmocka_unit_test(file_io_is_refused),
        cmocka_unit_test(weak_import_is_refused),
        cmocka_unit_test(dlopen_is_refused),
        cmocka_unit_test(extra_export_is_refused),
        cmocka_unit_test(vendor_library_needs_permission),
        cmocka_unit_test(each_library_is_allowed_alone),
        cmocka_unit_test(refused_entry_points_stay_refused),
        cmocka_unit_test(needed_libraries_are_read),
        cmocka_unit_test(hidden_functions_are_listed),
        cmocka_unit_test(not_an_elf_file_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
