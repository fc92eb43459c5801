/* Candidates that call vendor libraries, built by nvcc (no GPU needed) with
 * and without kbv eval --allow-vendor-libs: what links, what the object then
 * names in DT_NEEDED (only the libraries it calls), and what the binary
 * allowlist says of it. Skipped where there is no nvcc, or no cuBLAS, cuBLASLt
 * or cuDNN beside it. The candidates are tests/cheats/'s (vendor_manifest.tsv
 * says what a GPU run of them must give). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/vendor_libs.h"
#include "eval/compile.h"
#include "eval/symbols.h"
#include "sandbox/workdir.h"

#define CHEATS KBV_TEST_SOURCE_DIR "/tests/cheats/"
#define ALL KBV_VENDOR_ALL
#define LIB(l) (1u << (l))

static char dir[256];
static kbv_compile_result res;

/* nvcc as kbv_compile finds it, and the libraries' headers beside it. */
static bool toolkit_present(void)
{
    const char *nvcc = getenv("KBV_NVCC");
    char inc[512];
    if (!nvcc || !*nvcc)
        nvcc = "/usr/local/cuda/bin/nvcc";
    if (access(nvcc, X_OK) != 0)
        return false;
    snprintf(inc, sizeof inc, "%s", nvcc);
    char *bin = strstr(inc, "/bin/nvcc");
    if (!bin)
        return false;
    static const char *const headers[] = {"cublas_v2.h", "cublasLt.h", "cudnn.h"};
    for (size_t i = 0; i < sizeof headers / sizeof headers[0]; i++) {
        snprintf(bin, sizeof inc - (size_t)(bin - inc), "/include/%s", headers[i]);
        if (access(inc, R_OK) != 0)
            return false;
    }
    return true;
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_compile_vendor_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char cache[300];
    snprintf(cache, sizeof cache, "%s/cache", dir);
    setenv("KBV_CACHE_DIR", cache, 1);
    setenv("KBV_INCLUDE_DIR", KBV_TEST_SOURCE_DIR "/include", 1);
    if (!getenv("KBV_NVCC") && access("/usr/local/cuda/bin/nvcc", X_OK) == 0)
        setenv("KBV_NVCC", "/usr/local/cuda/bin/nvcc", 1);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return kbv_sandbox_remove_dir(dir) == KBV_OK ? 0 : -1;
}

/* Builds tests/cheats/<file> for sm_90a, allowing `libs`. */
static void build(const char *file, unsigned libs)
{
    char src[512];
    snprintf(src, sizeof src, CHEATS "%s", file);
    kbv_compile_opts o = {.source = src, .arch = "90a", .vendor_libs = libs};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
}

/* The built object's vendor libraries in DT_NEEDED, and the allowlist's
 * verdict on it under `allowed` (reason into why). */
static unsigned needed_and_judged(unsigned allowed, bool *ok, char *why, size_t cap)
{
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(res.so_path, &s), KBV_OK);
    kbv_symbol_policy pol = {.vendor_libs = allowed};
    *ok = kbv_symbols_allowed(&s, &pol, why, cap);
    unsigned needed = kbv_symbols_vendor_needed(&s);
    kbv_symbols_free(&s);
    return needed;
}

typedef struct kernels_seen {
    int n;
    char names[8][128];
    bool addressed;            /* every one had an address */
} kernels_seen;

static void note_kernel(const char *name, uint64_t value, void *ctx)
{
    kernels_seen *k = ctx;
    if (k->n < 8)
        snprintf(k->names[k->n++], sizeof k->names[0], "%s", name);
    k->addressed = k->addressed && value != 0;
}

/* The one kernel the built object defines, by its host function (what the
 * runner asks the runtime for the kernel's handle with). */
static void one_kernel(const char *mangled)
{
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(res.so_path, &s), KBV_OK);
    kernels_seen k = {.addressed = true};
    kbv_symbols_each_kernel(&s, note_kernel, &k);
    kbv_symbols_free(&s);
    assert_int_equal(k.n, 1);
    assert_string_equal(k.names[0], mangled);
    assert_true(k.addressed);
}

static bool defines_function(const char *part)
{
    kbv_symbols s;
    assert_int_equal(kbv_symbols_read(res.so_path, &s), KBV_OK);
    bool found = false;
    for (int i = 0; i < s.functions.n && !found; i++)
        found = strstr(s.functions.names[i], part) != NULL;
    kbv_symbols_free(&s);
    return found;
}

static void cudnn_candidate(void **state)
{
    (void)state;
    if (!toolkit_present())
        skip();
    char why[256] = "";
    bool ok = false;
    /* not allowed: its calls are undefined (-z defs), and the log says why */
    build("honest_conv_cudnn.cu", 0);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "cudnnCreate"));
    assert_non_null(strstr(res.log, "note: cuDNN is not allowed in this run"));
    build("honest_conv_cudnn.cu", LIB(KBV_VENDOR_CUBLAS));   /* another library is not cuDNN */
    assert_false(res.ok);
    /* allowed: linked to cuDNN alone, admitted only where cuDNN is */
    build("honest_conv_cudnn.cu", ALL);
    assert_true(res.ok);
    assert_int_equal(needed_and_judged(ALL, &ok, why, sizeof why), LIB(KBV_VENDOR_CUDNN));
    assert_true(ok);
    needed_and_judged(LIB(KBV_VENDOR_CUDNN), &ok, why, sizeof why);
    assert_true(ok);
    needed_and_judged(LIB(KBV_VENDOR_CUBLAS) | LIB(KBV_VENDOR_CUBLASLT), &ok, why, sizeof why);
    assert_false(ok);
    assert_non_null(strstr(why, "cuDNN is not allowed in this run"));
    /* its own kernel's host stub is there for the traced pass to find */
    assert_true(defines_function("add_bias"));
    one_kernel("_Z8add_biasPfPKfixx");
}

static void cublaslt_candidate(void **state)
{
    (void)state;
    if (!toolkit_present())
        skip();
    char why[256] = "";
    bool ok = false;
    build("honest_triu_cublaslt.cu", 0);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "cuBLASLt is not allowed"));
    build("honest_triu_cublaslt.cu", ALL);
    assert_true(res.ok);
    /* cuBLASLt alone: the others were offered to the linker and dropped */
    assert_int_equal(needed_and_judged(LIB(KBV_VENDOR_CUBLASLT), &ok, why, sizeof why),
                     LIB(KBV_VENDOR_CUBLASLT));
    assert_true(ok);
    needed_and_judged(LIB(KBV_VENDOR_CUBLAS), &ok, why, sizeof why);
    assert_false(ok);
    assert_non_null(strstr(why, "cublasLt"));
    assert_true(defines_function("triu_rows"));
    one_kernel("_Z9triu_rowsPfx");
}

static void cublas_candidates(void **state)
{
    (void)state;
    if (!toolkit_present())
        skip();
    char why[256] = "";
    bool ok = false;
    build("cublas_linked.cu", 0);   /* the main corpus's case: a compile error */
    assert_false(res.ok);
    build("cublas_linked.cu", ALL);
    assert_true(res.ok);
    assert_int_equal(needed_and_judged(ALL, &ok, why, sizeof why), LIB(KBV_VENDOR_CUBLAS));
    assert_true(ok);   /* the allowlist admits it; the traced pass is what fails it */
    build("cublas_other_stream.cu", ALL);
    assert_true(res.ok);
    one_kernel("_Z7nothingv");
    assert_int_equal(needed_and_judged(ALL, &ok, why, sizeof why), LIB(KBV_VENDOR_CUBLAS));
    assert_true(ok);
    build("vendor_refused.cu", ALL);
    assert_true(res.ok);
    needed_and_judged(ALL, &ok, why, sizeof why);
    assert_false(ok);
    assert_non_null(strstr(why, "cublasLoggerConfigure"));
    assert_non_null(strstr(why, "refused even where cuBLAS is allowed"));
}

/* A candidate without libraries links none under the option, and its build
 * is another cache entry (the command differs), never the same one. */
static void plain_candidate(void **state)
{
    (void)state;
    if (!toolkit_present())
        skip();
    char why[256] = "", key[65];
    bool ok = false;
    build("honest_relu.cu", 0);
    assert_true(res.ok);
    snprintf(key, sizeof key, "%s", res.key);
    build("honest_relu.cu", ALL);
    assert_true(res.ok);
    assert_false(res.cached);
    assert_string_not_equal(key, res.key);
    assert_int_equal(needed_and_judged(0, &ok, why, sizeof why), 0);
    assert_true(ok);
    build("honest_relu.cu", ALL);
    assert_true(res.cached);
}

/* The nvcc-flags line may name an allowed library's link flag, not another's. */
static void flags_line_link_flags(void **state)
{
    (void)state;
    char path[512], text[8192];
    snprintf(path, sizeof path, "%s/flags.cu", dir);
    FILE *in = fopen(CHEATS "cublas_linked.cu", "r");
    assert_non_null(in);
    size_t n = fread(text + 64, 1, sizeof text - 65, in);
    fclose(in);
    text[64 + n] = '\0';
    const char *line = "// kbv: nvcc-flags=-lcudnn";
    memcpy(text + 64 - strlen(line) - 1, line, strlen(line));
    text[63] = '\n';
    FILE *out = fopen(path, "w");
    assert_non_null(out);
    fputs(text + 64 - strlen(line) - 1, out);
    fclose(out);
    kbv_compile_opts o = {.source = path, .arch = "90a", .vendor_libs = LIB(KBV_VENDOR_CUBLAS)};
    assert_int_equal(kbv_compile(&o, &res), KBV_OK);
    assert_false(res.ok);
    assert_non_null(strstr(res.log, "vendor library -lcudnn is not allowed"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flags_line_link_flags),
        cmocka_unit_test(cudnn_candidate),
        cmocka_unit_test(cublaslt_candidate),
        cmocka_unit_test(cublas_candidates),
        cmocka_unit_test(plain_candidate),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
