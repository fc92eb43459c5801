/* Code block extraction: fences with languages, several blocks, no block,
 * unclosed fences, CRLF, reasoning before </think>, and the definition test
 * that tells a kbv_forward body from a declaration. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "gen/extract.h"

#define FORWARD_DEF                                                           \
    "int kbv_forward(const kbv_env *env, void *state,\n"                      \
    "                const kbv_tensor *inputs, int n_inputs,\n"               \
    "                const kbv_tensor *params, int n_params,\n"               \
    "                kbv_tensor *outputs, int n_outputs)\n"                   \
    "{\n    return 0;\n}\n"

static void extract_ok(const char *answer, kbv_extract_result *r)
{
    assert_int_equal(kbv_extract_code(answer, r), KBV_OK);
    assert_non_null(r->code);
}

static void test_cuda_fence(void **state)
{
    (void)state;
    kbv_extract_result r;
    extract_ok("Here is the kernel:\n\n```cuda\n#include <kbv/candidate.h>\n" FORWARD_DEF
               "```\n\nIt is fast.\n",
               &r);
    assert_string_equal(r.code, "#include <kbv/candidate.h>\n" FORWARD_DEF);
    assert_string_equal(r.language, "cuda");
    assert_int_equal(r.n_blocks, 1);
    assert_false(r.unclosed);
    kbv_extract_result_free(&r);
    assert_null(r.code);
}

static void test_accepted_languages(void **state)
{
    (void)state;
    const char *langs[] = {"cuda", "CUDA", "cu",  "cpp", "c++",
                           "c",    "cc",   "cxx", "",    "cuda title=k.cu"};
    const char *want[] = {"cuda", "cuda", "cu", "cpp", "c++", "c", "cc", "cxx", "", "cuda"};
    for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++) {
        char answer[1024];
        snprintf(answer, sizeof answer, "```%s\n" FORWARD_DEF "```\n", langs[i]);
        kbv_extract_result r;
        extract_ok(answer, &r);
        assert_string_equal(r.code, FORWARD_DEF);
        assert_string_equal(r.language, want[i]);
        kbv_extract_result_free(&r);
    }
}

static void test_other_language_rejected(void **state)
{
    (void)state;
    kbv_extract_result r;
    assert_int_equal(kbv_extract_code("```python\n" FORWARD_DEF "```\n", &r), KBV_OK);
    assert_null(r.code);
    assert_int_equal(r.n_blocks, 1);
    assert_int_equal(r.n_defining, 0);
    assert_non_null(strstr(r.reason, "none in C/C++/CUDA defining kbv_forward"));
    kbv_extract_result_free(&r);
}

static void test_last_defining_block_wins(void **state)
{
    (void)state;
    const char *answer =
        "First a draft:\n```cuda\n// draft\n" FORWARD_DEF "```\n"
        "The final version:\n```cuda\n// final\n" FORWARD_DEF "```\n"
        "Build it with:\n```bash\nnvcc -O3 k.cu\n```\n"
        "A declaration for reference:\n```c\nint kbv_forward(const kbv_env *env);\n```\n";
    kbv_extract_result r;
    extract_ok(answer, &r);
    assert_string_equal(r.code, "// final\n" FORWARD_DEF);
    assert_int_equal(r.n_blocks, 4);
    assert_int_equal(r.n_defining, 2);
    kbv_extract_result_free(&r);
}

static void test_no_block(void **state)
{
    (void)state;
    kbv_extract_result r;
    assert_int_equal(kbv_extract_code("I cannot write this kernel. " FORWARD_DEF, &r), KBV_OK);
    assert_null(r.code);
    assert_int_equal(r.n_blocks, 0);
    assert_string_equal(r.reason, "no code block in the answer");
    kbv_extract_result_free(&r);

    assert_int_equal(kbv_extract_code("", &r), KBV_OK);
    assert_null(r.code);
    assert_int_equal(kbv_extract_code("use `inline` code ```not a fence``` here", &r), KBV_OK);
    assert_null(r.code);
    assert_int_equal(r.n_blocks, 0);
}

static void test_blocks_without_forward(void **state)
{
    (void)state;
    kbv_extract_result r;
    assert_int_equal(kbv_extract_code("```cuda\n__global__ void k() {}\n```\n", &r), KBV_OK);
    assert_null(r.code);
    assert_int_equal(r.n_blocks, 1);
    assert_string_equal(r.reason, "1 code block, none in C/C++/CUDA defining kbv_forward");
}

static void test_unclosed_fence(void **state)
{
    (void)state;
    kbv_extract_result r;
    extract_ok("Here:\n```cuda\n" FORWARD_DEF "// trailing", &r);
    assert_true(r.unclosed);
    assert_string_equal(r.code, FORWARD_DEF "// trailing\n");
    kbv_extract_result_free(&r);

    /* a shorter fence does not close a longer one; a longer one does */
    extract_ok("````cuda\n" FORWARD_DEF "```\n// still inside\n`````\nafter\n", &r);
    assert_false(r.unclosed);
    assert_string_equal(r.code, FORWARD_DEF "```\n// still inside\n");
    kbv_extract_result_free(&r);
}

static void test_crlf(void **state)
{
    (void)state;
    kbv_extract_result r;
    extract_ok("Answer:\r\n```cuda\r\nint kbv_forward(void)\r\n{\r\n    return 0;\r\n}\r\n```\r\n",
               &r);
    assert_string_equal(r.code, "int kbv_forward(void)\n{\n    return 0;\n}\n");
    assert_null(strchr(r.code, '\r'));
    assert_false(r.unclosed);
    kbv_extract_result_free(&r);
}

static void test_tilde_and_indented_fences(void **state)
{
    (void)state;
    kbv_extract_result r;
    extract_ok("~~~cpp\n" FORWARD_DEF "~~~\n", &r);
    assert_string_equal(r.code, FORWARD_DEF);
    kbv_extract_result_free(&r);

    /* inside a list item: the fence's indentation is removed from each line */
    extract_ok("1. The file:\n   ```cuda\n   int kbv_forward(void)\n   {\n       return 0;\n   }\n"
               "   ```\n",
               &r);
    assert_string_equal(r.code, "int kbv_forward(void)\n{\n    return 0;\n}\n");
    kbv_extract_result_free(&r);
}

static void test_reasoning_dropped(void **state)
{
    (void)state;
    kbv_extract_result r;
    assert_int_equal(kbv_extract_code("<think>\n```cuda\n" FORWARD_DEF "```\n</think>\nNo code.",
                                      &r),
                     KBV_OK);
    assert_null(r.code);
    extract_ok("<think>draft ```cuda\n// draft\n" FORWARD_DEF "```\n</think>\n```cuda\n// answer\n"
               FORWARD_DEF "```\n",
               &r);
    assert_string_equal(r.code, "// answer\n" FORWARD_DEF);
    assert_int_equal(r.n_blocks, 1);
    kbv_extract_result_free(&r);
}

static void test_defines_forward(void **state)
{
    (void)state;
    const char *def = "KBV_EXPORT int kbv_forward(const kbv_env *env, int (*f)(int))\n{ }";
    const char *decl = "KBV_EXPORT int kbv_forward(const kbv_env *env);\nint x;";
    const char *other = "int my_kbv_forward(void) { } int kbv_forward_impl(void) { }";
    assert_true(kbv_extract_defines_forward(def, strlen(def)));
    assert_false(kbv_extract_defines_forward(decl, strlen(decl)));
    assert_false(kbv_extract_defines_forward(other, strlen(other)));
    assert_false(kbv_extract_defines_forward("kbv_forward(", 12));
}

/* KernelBench's format: the last python (or bare) block defining class ModelNew. */
static void test_kernelbench_blocks(void **state)
{
    (void)state;
    kbv_extract_result r;
    const char *answer =
        "Draft:\n```python\nclass Model(nn.Module):\n    pass\n```\n"
        "```cpp\n// class ModelNew(\n```\n"
        "Final:\n```python\nimport torch\nclass ModelNew(nn.Module):\n    pass\n```\n"
        "```\nprint(1)\n```\n";
    assert_int_equal(kbv_extract_code_kind(answer, KBV_EXTRACT_KERNELBENCH, &r), KBV_OK);
    assert_non_null(r.code);
    assert_string_equal(r.code, "import torch\nclass ModelNew(nn.Module):\n    pass\n");
    assert_string_equal(r.language, "python");
    assert_int_equal(r.n_blocks, 4);
    assert_int_equal(r.n_defining, 1);
    kbv_extract_result_free(&r);
    /* the same answer holds no kbv candidate */
    assert_int_equal(kbv_extract_code(answer, &r), KBV_OK);
    assert_null(r.code);
    assert_int_equal(kbv_extract_code_kind("```py\nx = 1\n```\n", KBV_EXTRACT_KERNELBENCH, &r),
                     KBV_OK);
    assert_null(r.code);
    assert_non_null(strstr(r.reason, "none in Python defining class ModelNew"));
    assert_true(kbv_extract_defines_modelnew("class ModelNew :\n", 16));
    assert_false(kbv_extract_defines_modelnew("  class ModelNew(", 17));
    assert_false(kbv_extract_defines_modelnew("class ModelNewer(", 17));
}

static void test_bad_arguments(void **state)
{
    (void)state;
    kbv_extract_result r;
    assert_int_equal(kbv_extract_code(NULL, &r), KBV_ERR_INVALID);
    assert_int_equal(kbv_extract_code("x", NULL), KBV_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuda_fence),
        cmocka_unit_test(test_accepted_languages),
        cmocka_unit_test(test_other_language_rejected),
        cmocka_unit_test(test_last_defining_block_wins),
        cmocka_unit_test(test_no_block),
        cmocka_unit_test(test_blocks_without_forward),
        cmocka_unit_test(test_unclosed_fence),
        cmocka_unit_test(test_crlf),
        cmocka_unit_test(test_tilde_and_indented_fences),
        cmocka_unit_test(test_reasoning_dropped),
        cmocka_unit_test(test_defines_forward),
        cmocka_unit_test(test_kernelbench_blocks),
        cmocka_unit_test(test_bad_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
