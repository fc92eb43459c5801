/* Prompts: the default template carries the task, the ABI rules, the worked
 * example (never the problem's own answer), the target and the reference;
 * input-blind references lose get_inputs() and gain shapes; user templates
 * substitute every placeholder once; data directories can be overridden. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen/input_blind.h"
#include "gen/prompt.h"

static char dir[64];

static int setup_all(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/kbv_test_prompt_XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown_all(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* not inlined: GCC 12 at -O3 takes the returned pointer for the address of
 * the local it was read from (-Wdangling-pointer) */
__attribute__((noinline)) static char *build(const char *key, kbv_prompt_options opt)
{
    const kbv_problem_def *def = kbv_problem_find(key);
    assert_non_null(def);
    char *prompt = NULL;
    kbv_status st = kbv_prompt_build(def, &opt, &prompt);
    if (st != KBV_OK)
        fail_msg("%s", kbv_last_error());
    assert_non_null(prompt);
    return prompt;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* The text after `marker` (the problem's own section of the default template). */
static const char *after(const char *text, const char *marker)
{
    const char *p = strstr(text, marker);
    assert_non_null(p);
    return p;
}

static void test_default_prompt_l1_19(void **state)
{
    (void)state;
    char *p = build("L1/19", (kbv_prompt_options){.input_blind = KBV_BLIND_DEFAULT});
    /* the task */
    assert_non_null(strstr(p, "CUDA C"));
    assert_non_null(strstr(p, "kbv_forward"));
    assert_non_null(strstr(p, "```cuda code block"));
    /* the ABI and its rules, without ABI.md's own ReLU answer */
    assert_non_null(strstr(p, "typedef struct kbv_tensor"));
    assert_non_null(strstr(p, "**One stream.**"));
    assert_non_null(strstr(p, "**Write every output element.**"));
    assert_non_null(strstr(p, "**Never write inputs or params.**"));
    assert_null(strstr(p, "## A complete example"));
    assert_null(strstr(p, "## Try it"));
    /* the worked example is another problem (L1/21), reference and answer */
    assert_non_null(strstr(p, "Problem L1/21 21_Sigmoid"));
    assert_non_null(strstr(p, "sigmoid_vec4"));
    assert_null(strstr(p, "relu_vec4"));
    /* the target and the reference */
    assert_non_null(strstr(p, KBV_PROMPT_DEFAULT_GPU));
    const char *mine = after(p, "# Your problem: L1/19 19_ReLU");
    assert_non_null(strstr(mine, "class Model(nn.Module):"));
    assert_non_null(strstr(mine, "torch.relu(x)"));
    assert_non_null(strstr(mine, "def get_inputs():"));
    assert_non_null(strstr(mine, "batch_size = 4096"));
    /* every placeholder was filled */
    assert_null(strstr(p, "{task}"));
    assert_null(strstr(p, "{reference}"));
    assert_null(strstr(p, "{example}"));
    free(p);
}

static void test_example_for_other_problems(void **state)
{
    (void)state;
    char *p = build("L1/21", (kbv_prompt_options){.input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "Problem L1/19 19_ReLU"));
    assert_non_null(strstr(p, "relu_vec4"));
    assert_null(strstr(p, "sigmoid_vec4"));
    free(p);
}

static void test_cpu_prompt(void **state)
{
    (void)state;
    char *p = build("L1/23", (kbv_prompt_options){.cpu = true, .input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "C (C11)"));
    assert_non_null(strstr(p, "```c code block"));
    assert_non_null(strstr(p, "ReLU on the CPU backend"));  /* the .c example */
    assert_null(strstr(p, "__global__"));
    assert_non_null(strstr(p, "Target: one CPU core"));
    assert_null(strstr(p, KBV_PROMPT_DEFAULT_GPU));
    free(p);
}

static void test_gpu_override(void **state)
{
    (void)state;
    char *p = build("L1/19", (kbv_prompt_options){.gpu = "NVIDIA B200 (sm_100a)"});
    assert_non_null(strstr(p, "Target: NVIDIA B200 (sm_100a)"));
    assert_null(strstr(p, KBV_PROMPT_DEFAULT_GPU));
    free(p);
}

static void test_input_blind(void **state)
{
    (void)state;
    char tmpl[128];
    snprintf(tmpl, sizeof tmpl, "%s/reference_only.txt", dir);
    write_file(tmpl, "{reference}");

    char *seen = build("L1/19", (kbv_prompt_options){.template_path = tmpl,
                                                     .input_blind = KBV_BLIND_OFF});
    assert_non_null(strstr(seen, "def get_inputs():"));
    assert_non_null(strstr(seen, "torch.rand(batch_size, dim)"));
    assert_null(strstr(seen, "Input-blind"));

    char *blind = build("L1/19", (kbv_prompt_options){.template_path = tmpl,
                                                      .input_blind = KBV_BLIND_ON});
    assert_null(strstr(blind, "get_inputs"));
    assert_null(strstr(blind, "torch.rand"));
    assert_null(strstr(blind, "batch_size = "));
    assert_null(strstr(blind, "dim = "));
    assert_non_null(strstr(blind, "class Model(nn.Module):"));
    assert_non_null(strstr(blind, "def get_init_inputs():"));
    /* the docstring sits right under forward() and gives the shapes */
    const char *fwd = after(blind, "    def forward(self, x):\n        \"\"\"Input-blind");
    assert_non_null(strstr(fwd, "x: float32 tensor of shape (4096, 393216)"));
    assert_non_null(strstr(fwd, "Returns:\n            float32 tensor of shape (4096, 393216)"));
    assert_non_null(strstr(fwd, "y = torch.relu(x)"));
    free(seen);
    free(blind);
}

static void test_input_blind_defaults(void **state)
{
    (void)state;
    assert_false(kbv_input_blind_default(kbv_problem_find("L1/19")));
    const int blind[][2] = {{1, 90}, {1, 100}, {3, 35}, {3, 47}};
    for (size_t i = 0; i < sizeof blind / sizeof blind[0]; i++) {
        kbv_problem_def def = {.level = blind[i][0], .id = blind[i][1], .name = "x"};
        assert_true(kbv_input_blind_default(&def));
        kbv_prompt_options opt = {.input_blind = KBV_BLIND_DEFAULT};
        assert_true(kbv_prompt_is_input_blind(&def, &opt));
        opt.input_blind = KBV_BLIND_OFF;
        assert_false(kbv_prompt_is_input_blind(&def, &opt));
    }
    kbv_problem_def other = {.level = 2, .id = 90, .name = "x"};
    assert_false(kbv_input_blind_default(&other));
}

static void test_user_template(void **state)
{
    (void)state;
    char tmpl[128];
    snprintf(tmpl, sizeof tmpl, "%s/user.txt", dir);
    write_file(tmpl, "key={problem_key} name={problem_name} gpu={gpu} {unknown} {task\n"
                     "{problem_key}{problem_key}\n");
    char *p = build("L1/23", (kbv_prompt_options){.template_path = tmpl, .gpu = "G"});
    assert_string_equal(p, "key=L1/23 name=23_Softmax gpu=G {unknown} {task\nL1/23L1/23\n");
    free(p);

    /* substituted text is not scanned again: ABI.md naming a placeholder stays literal */
    char docs[128], abi[160];
    snprintf(docs, sizeof docs, "%s/docs", dir);
    assert_int_equal(mkdir(docs, 0755), 0);
    snprintf(abi, sizeof abi, "%s/ABI.md", docs);
    write_file(abi, "# ABI\nwrite {problem_key} here\n## Try it\nhidden\n## Rules\nshown\n");
    setenv("KBV_DOCS_DIR", docs, 1);
    write_file(tmpl, "[{abi}]");
    p = build("L1/23", (kbv_prompt_options){.template_path = tmpl});
    unsetenv("KBV_DOCS_DIR");
    assert_string_equal(p, "[# ABI\nwrite {problem_key} here\n## Rules\nshown]");
    free(p);
}

static void test_missing_files(void **state)
{
    (void)state;
    const kbv_problem_def *def = kbv_problem_find("L1/19");
    char *p = NULL;
    kbv_prompt_options opt = {.template_path = "/nonexistent/kbv/template.txt"};
    assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_ERR_NOT_FOUND);
    assert_null(p);
    assert_non_null(strstr(kbv_last_error(), "/nonexistent/kbv/template.txt"));

    setenv("KBV_DOCS_DIR", "/nonexistent/kbv", 1);
    opt.template_path = NULL;
    assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_ERR_NOT_FOUND);
    unsetenv("KBV_DOCS_DIR");
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_prompt_l1_19),
        cmocka_unit_test(test_example_for_other_problems),
        cmocka_unit_test(test_cpu_prompt),
        cmocka_unit_test(test_gpu_override),
        cmocka_unit_test(test_input_blind),
        cmocka_unit_test(test_input_blind_defaults),
        cmocka_unit_test(test_user_template),
        cmocka_unit_test(test_missing_files),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
