/* Prompts: the default template is the paper's prompt adapted to kbv (its
 * task and instruction, the ABI rules, the worked example, never the
 * problem's own answer, and the reference) and says nothing about how
 * candidates are tested; the informed template adds that and the target;
 * input-blind references are the paper's stripped prompts (no sizes, no
 * get_inputs() or get_init_inputs(), symbolic shapes); templates are named
 * or given as files; user templates substitute every placeholder once; data
 * directories can be overridden. */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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
    const kbv_problem *def = kbv_problem_find(key);
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

/* What the default prompt must never say: how candidates are tested. */
static const char *const testing_words[] = {
    "How you are judged", "allclose", "distribution", "hidden", "audit", "protocol",
    "verified", "oracle", "tolerance", "other sizes", "fresh inputs", "D1", "1e-3", "x3",
    "judged",
};

static bool is_name_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Whole words only: a reference's own identifiers (L2/14's hidden_size) are
 * KernelBench's, not words about testing. */
static void assert_says_nothing_about_testing(const char *p)
{
    for (size_t i = 0; i < sizeof testing_words / sizeof testing_words[0]; i++) {
        const char *w = testing_words[i];
        size_t n = strlen(w);
        for (const char *hit = strstr(p, w); hit; hit = strstr(hit + 1, w))
            if ((hit == p || !is_name_char(hit[-1])) && !is_name_char(hit[n]))
                fail_msg("the default prompt says \"%s\"", w);
    }
}

static void test_default_prompt_l1_19(void **state)
{
    (void)state;
    char *p = build("L1/19", (kbv_prompt_options){.input_blind = KBV_BLIND_DEFAULT});
    /* the paper's problem statement and instruction, adapted to kbv's ABI */
    assert_true(!strncmp(p, "You write custom CUDA kernels to replace the pytorch operators in the "
                            "given architecture to get speedups.", 98));
    assert_non_null(strstr(p, "You are only limited by your imagination."));
    assert_non_null(strstr(p, "instead of a PyTorch module ModelNew"));
    assert_non_null(strstr(p, "Optimize the architecture named Model with custom CUDA kernels!"));
    assert_non_null(strstr(p, "one CUDA C source file that includes <kbv/candidate.h> and defines "
                              "kbv_forward"));
    assert_non_null(strstr(p, "```cuda code block"));
    assert_non_null(strstr(p, "NO testing code!"));
    /* the ABI and its rules, without ABI.md's own ReLU answer or how it judges */
    assert_non_null(strstr(p, "typedef struct kbv_tensor"));
    assert_non_null(strstr(p, "**One stream.**"));
    assert_non_null(strstr(p, "**Write every output element.**"));
    assert_non_null(strstr(p, "**Never write inputs or params.**"));
    assert_null(strstr(p, "## A complete example"));
    assert_null(strstr(p, "## Try it"));
    assert_says_nothing_about_testing(p);
    /* the worked example is another problem (L1/21), reference and answer */
    const char *ex = after(p, "Here's an example to show you the syntax of a kbv candidate");
    assert_non_null(strstr(ex, "torch.sigmoid(x)"));
    assert_non_null(strstr(ex, "sigmoid_vec4"));
    assert_null(strstr(p, "relu_vec4"));
    /* the reference, whole (not input-blind), last; no target: the paper named none */
    const char *mine = after(p, "You are given the following architecture:");
    assert_null(strstr(mine, "sigmoid"));
    assert_non_null(strstr(mine, "class Model(nn.Module):"));
    assert_non_null(strstr(mine, "torch.relu(x)"));
    assert_non_null(strstr(mine, "def get_inputs():"));
    assert_non_null(strstr(mine, "batch_size = 4096"));
    assert_null(strstr(p, KBV_PROMPT_DEFAULT_GPU));
    /* every placeholder was filled */
    assert_null(strstr(p, "{"
                          "kernels}"));
    assert_null(strstr(p, "{reference}"));
    assert_null(strstr(p, "{example_candidate}"));
    free(p);
}

static void test_default_prompt_says_nothing_about_testing(void **state)
{
    (void)state;
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem *def = kbv_problem_at(i);
        for (int cpu = 0; cpu < 2; cpu++) {
            kbv_prompt_options opt = {.cpu = cpu, .input_blind = KBV_BLIND_DEFAULT};
            char *p = NULL;
            assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_OK);
            assert_says_nothing_about_testing(p);
            free(p);
        }
    }
}

static void test_informed_template(void **state)
{
    (void)state;
    kbv_prompt_options opt = {.template_name = "informed", .input_blind = KBV_BLIND_DEFAULT};
    char *p = build("L1/19", opt);
    assert_string_equal(kbv_prompt_template_label(&opt), "informed");
    /* today's task, how candidates are judged, the target */
    assert_non_null(strstr(p, "for any input values and at other sizes too"));
    assert_non_null(strstr(p, "## How you are judged"));
    assert_non_null(strstr(p, "allclose(atol=rtol=1e-3)"));
    assert_non_null(strstr(p, "**One stream.**"));
    assert_null(strstr(p, "## A complete example"));
    assert_non_null(strstr(p, "Problem L1/21 21_Sigmoid"));
    assert_non_null(strstr(p, "sigmoid_vec4"));
    assert_non_null(strstr(p, "Target: " KBV_PROMPT_DEFAULT_GPU));
    const char *mine = after(p, "# Your problem: L1/19 19_ReLU");
    assert_non_null(strstr(mine, "torch.relu(x)"));
    assert_non_null(strstr(mine, "def get_inputs():"));
    assert_null(strstr(p, "{task}"));
    assert_null(strstr(p, "{judging}"));
    assert_null(strstr(p, "{example}"));
    free(p);
}

static void test_example_for_other_problems(void **state)
{
    (void)state;
    char *p = build("L1/21", (kbv_prompt_options){.input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "torch.relu(x)"));
    assert_non_null(strstr(p, "relu_vec4"));
    assert_null(strstr(p, "sigmoid_vec4"));
    free(p);
}

static void test_cpu_prompt(void **state)
{
    (void)state;
    char *p = build("L1/23", (kbv_prompt_options){.cpu = true, .input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "You write custom C code for kbv's CPU backend to replace"));
    assert_non_null(strstr(p, "one C11 source file"));
    assert_non_null(strstr(p, "```c code block"));
    assert_non_null(strstr(p, "ReLU on the CPU backend"));  /* the .c example */
    assert_non_null(strstr(p, "```c\n/* ReLU on the CPU backend. */"));
    assert_null(strstr(p, "__global__"));
    assert_null(strstr(p, "CUDA kernels"));
    free(p);

    p = build("L1/23", (kbv_prompt_options){.cpu = true, .template_name = "informed"});
    assert_non_null(strstr(p, "C (C11)"));
    assert_non_null(strstr(p, "Target: one CPU core"));
    assert_null(strstr(p, KBV_PROMPT_DEFAULT_GPU));
    free(p);
}

/* KernelBench's own format: the paper's prompt as it was, KernelBench's
 * worked example, nothing of kbv's ABI; not with --cpu. */
static void test_kernelbench_prompt(void **state)
{
    (void)state;
    kbv_prompt_options o = {.kernelbench = true, .input_blind = KBV_BLIND_DEFAULT};
    assert_string_equal(kbv_prompt_template_label(&o), "kernelbench");
    char *p = build("L1/19", o);
    assert_true(!strncmp(p, "You write custom CUDA kernels to replace the pytorch operators", 62));
    assert_non_null(strstr(p, "inline embedding custom CUDA operators in torch"));
    assert_non_null(strstr(p, "elementwise_add_cuda"));        /* KernelBench's example */
    assert_non_null(strstr(p, "load_inline("));
    assert_non_null(strstr(p, "class Model(nn.Module)"));
    assert_non_null(strstr(p, "Name your optimized output architecture ModelNew."));
    assert_non_null(strstr(p, "torch.relu(x)"));                 /* the problem's reference */
    assert_null(strstr(p, "kbv_forward"));
    assert_null(strstr(p, "kbv/candidate.h"));
    free(p);
    kbv_prompt_options both = {.kernelbench = true, .cpu = true};
    char *none = NULL;
    const kbv_problem *def = kbv_problem_find("L1/19");
    assert_int_equal(kbv_prompt_build(def, &both, &none), KBV_ERR_INVALID);
    assert_null(none);
}

static void test_gpu_override(void **state)
{
    (void)state;
    char *p = build("L1/19", (kbv_prompt_options){.gpu = "NVIDIA B200 (sm_100a)",
                                                  .template_name = "informed"});
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

    char *seen = build("L1/19", (kbv_prompt_options){.template_name = tmpl,
                                                     .input_blind = KBV_BLIND_OFF});
    assert_non_null(strstr(seen, "def get_inputs():"));
    assert_non_null(strstr(seen, "torch.rand(batch_size, dim)"));
    assert_non_null(strstr(seen, "at the full (catalog) size"));
    assert_null(strstr(seen, "symbolic"));

    /* as the paper's strip_test_config: the imports and the class, nothing after */
    char *blind = build("L1/19", (kbv_prompt_options){.template_name = tmpl,
                                                      .input_blind = KBV_BLIND_ON});
    assert_true(!strncmp(blind, "# KernelBench L1/19 19_ReLU.\nimport torch\n", 41));
    assert_null(strstr(blind, "get_inputs"));
    assert_null(strstr(blind, "get_init_inputs"));
    assert_null(strstr(blind, "torch.rand"));
    assert_null(strstr(blind, "batch_size = "));
    assert_null(strstr(blind, "dim = "));
    assert_null(strstr(blind, "4096"));
    assert_null(strstr(blind, "393216"));
    assert_non_null(strstr(blind, "class Model(nn.Module):"));
    /* the docstring sits right under forward() and gives symbolic shapes */
    const char *fwd = after(blind, "    def forward(self, x):\n        \"\"\"\n");
    assert_non_null(strstr(fwd, "Sizes are symbolic (batch_size, dim)"));
    assert_non_null(strstr(fwd, "Args:\n            x (torch.Tensor): shape (batch_size, dim), "
                                "float32.\n"));
    assert_non_null(strstr(fwd, "Returns:\n            torch.Tensor: shape (batch_size, dim), "
                                "float32.\n        \"\"\"\n        y = torch.relu(x)\n"));
    /* it ends with the class */
    size_t n = strlen(blind);
    assert_true(n > 17 && !strcmp(blind + n - 17, "\n        return y"));
    free(seen);
    free(blind);
}

/* The paper's own stripped prompts: L1/100's targets are +-1 (its
 * stripped_prompts/100_HingeLoss_prompt.py), L1/90 keeps its dim. */
static void test_input_blind_paper_problems(void **state)
{
    (void)state;
    char tmpl[128];
    snprintf(tmpl, sizeof tmpl, "%s/reference_only.txt", dir);
    write_file(tmpl, "{reference}");

    char *p = build("L1/100", (kbv_prompt_options){.template_name = tmpl,
                                                   .input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "predictions (torch.Tensor): shape (batch_size, batch_size), "
                              "float32."));
    assert_non_null(strstr(p, "targets (torch.Tensor): shape (batch_size,), values in {-1, +1}, "
                              "float32."));
    assert_non_null(strstr(p, "torch.Tensor: a scalar, shape (), float32."));
    assert_null(strstr(p, "integer"));
    assert_null(strstr(p, "randint"));
    assert_null(strstr(p, "32768"));
    free(p);

    p = build("L1/90", (kbv_prompt_options){.template_name = tmpl,
                                            .input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "def __init__(self, dim):"));
    assert_non_null(strstr(p, "x (torch.Tensor): shape (batch_size, input_size), float32."));
    assert_non_null(strstr(p, "torch.Tensor: shape (batch_size, input_size), float32."));
    assert_non_null(strstr(p, "torch.cumprod(x, dim=1)"));
    assert_null(strstr(p, "32768"));
    assert_null(strstr(p, "randn"));
    assert_null(strstr(p, "get_init_inputs"));
    free(p);

    /* an integer input gives its range; an output not shaped like an input, extent by extent */
    p = build("L1/95", (kbv_prompt_options){.template_name = tmpl, .input_blind = KBV_BLIND_ON});
    assert_non_null(strstr(p, "targets (torch.Tensor): shape (batch_size,), integers in "
                              "[0, num_classes), int64."));
    free(p);
    p = build("L1/47", (kbv_prompt_options){.template_name = tmpl, .input_blind = KBV_BLIND_ON});
    assert_non_null(strstr(p, "torch.Tensor: shape (batch_size, 1, dim2), float32."));
    free(p);
    /* L3/47 (NetVLAD, the paper's 16 clusters) reads its sizes off the tensors and the
     * constructor's arguments, never off the stripped module-level constants */
    p = build("L3/47", (kbv_prompt_options){.template_name = tmpl,
                                            .input_blind = KBV_BLIND_DEFAULT});
    assert_non_null(strstr(p, "def __init__(self, cluster_size, feature_size, ghost_clusters):"));
    assert_non_null(strstr(p, "x (torch.Tensor): shape (batch_size, num_features, feature_size), "
                              "float32."));
    assert_non_null(strstr(p, "torch.Tensor: shape (batch_size, 8192), float32."));
    assert_non_null(strstr(p, "x_flat = x.view(-1, x.size(2))"));
    assert_non_null(strstr(p, "assignment_soft.narrow(1, 0, 16)"));
    assert_non_null(strstr(p, "assignment_kept.reshape(-1, x.size(1), 16)"));
    assert_null(strstr(p, "2048"));
    assert_null(strstr(p, "num_features = "));
    assert_null(strstr(p, "get_init_inputs"));
    free(p);
}

static void test_input_blind_defaults(void **state)
{
    (void)state;
    assert_false(kbv_input_blind_default(kbv_problem_find("L1/19")));
    const int blind[][2] = {{1, 90}, {1, 100}, {3, 35}, {3, 47}};
    for (size_t i = 0; i < sizeof blind / sizeof blind[0]; i++) {
        kbv_problem def = {.level = blind[i][0], .id = blind[i][1], .name = "x"};
        assert_true(kbv_input_blind_default(&def));
        kbv_prompt_options opt = {.input_blind = KBV_BLIND_DEFAULT};
        assert_true(kbv_prompt_is_input_blind(&def, &opt));
        opt.input_blind = KBV_BLIND_OFF;
        assert_false(kbv_prompt_is_input_blind(&def, &opt));
    }
    kbv_problem other = {.level = 2, .id = 90, .name = "x"};
    assert_false(kbv_input_blind_default(&other));
}

static void test_user_template(void **state)
{
    (void)state;
    char tmpl[128];
    snprintf(tmpl, sizeof tmpl, "%s/user.txt", dir);
    write_file(tmpl, "key={problem_key} name={problem_name} gpu={gpu} {unknown} {task\n"
                     "{problem_key}{problem_key} {language}|{kernels}|{fence}\n");
    kbv_prompt_options opt = {.template_name = tmpl, .gpu = "G"};
    char *p = build("L1/23", opt);
    assert_string_equal(p, "key=L1/23 name=23_Softmax gpu=G {unknown} {task\nL1/23L1/23 "
                           "CUDA C|CUDA kernels|cuda\n");
    assert_string_equal(kbv_prompt_template_label(&opt), tmpl);
    free(p);

    /* substituted text is not scanned again: ABI.md naming a placeholder stays literal;
     * {abi} leaves the judging section out, {judging} is that section alone */
    char docs[128], abi[160];
    snprintf(docs, sizeof docs, "%s/docs", dir);
    assert_int_equal(mkdir(docs, 0755), 0);
    snprintf(abi, sizeof abi, "%s/ABI.md", docs);
    write_file(abi, "# ABI\nwrite {problem_key} here\n## Try it\nhidden\n## Rules\nshown\n"
                    "## How you are judged\nD1-D4\n## After\nlast\n");
    setenv("KBV_DOCS_DIR", docs, 1);
    write_file(tmpl, "[{abi}]({judging})");
    p = build("L1/23", (kbv_prompt_options){.template_name = tmpl});
    unsetenv("KBV_DOCS_DIR");
    assert_string_equal(p, "[# ABI\nwrite {problem_key} here\n## Rules\nshown\n## After\nlast]"
                           "(## How you are judged\nD1-D4)");
    free(p);
}

static void test_template_names(void **state)
{
    (void)state;
    const kbv_problem *def = kbv_problem_find("L1/19");
    kbv_prompt_options opt = {.input_blind = KBV_BLIND_DEFAULT};
    assert_string_equal(kbv_prompt_template_label(&opt), "default");
    char *by_default = build("L1/19", opt);
    opt.template_name = "default";
    char *named = build("L1/19", opt);
    assert_string_equal(by_default, named);
    free(by_default);
    free(named);

    /* a bare name is a bundled template; a path with a slash is a file */
    char *p = NULL;
    opt.template_name = "nosuch";
    assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_ERR_NOT_FOUND);
    assert_null(p);
    assert_non_null(strstr(kbv_last_error(), "no template 'nosuch'"));
    assert_non_null(strstr(kbv_last_error(), "./nosuch"));

    char prompts[128], file[192];
    snprintf(prompts, sizeof prompts, "%s/prompts", dir);
    assert_int_equal(mkdir(prompts, 0755), 0);
    snprintf(file, sizeof file, "%s/mine.txt", prompts);
    write_file(file, "mine: {problem_key}");
    setenv("KBV_PROMPTS_DIR", prompts, 1);
    opt.template_name = "mine";
    p = build("L1/19", opt);
    assert_string_equal(p, "mine: L1/19");
    free(p);
    opt.template_name = NULL;   /* the default is looked up there too */
    assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_ERR_NOT_FOUND);
    unsetenv("KBV_PROMPTS_DIR");
    assert_null(p);
    opt.template_name = file;
    p = build("L1/19", opt);
    assert_string_equal(p, "mine: L1/19");
    free(p);
}

static void test_missing_files(void **state)
{
    (void)state;
    const kbv_problem *def = kbv_problem_find("L1/19");
    char *p = NULL;
    kbv_prompt_options opt = {.template_name = "/nonexistent/kbv/template.txt"};
    assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_ERR_NOT_FOUND);
    assert_null(p);
    assert_non_null(strstr(kbv_last_error(), "/nonexistent/kbv/template.txt"));

    setenv("KBV_DOCS_DIR", "/nonexistent/kbv", 1);
    opt.template_name = NULL;
    assert_int_equal(kbv_prompt_build(def, &opt, &p), KBV_ERR_NOT_FOUND);
    unsetenv("KBV_DOCS_DIR");
    assert_null(p);
}

/* The paper's BF16 note (src/prompt_constructor.py): after the reference,
 * before the instruction, only for bf16; fp32 prompts are as before. */
static void test_precision_note(void **state)
{
    (void)state;
    static const char note[] =
        "```\n\nNote: The kernels should be optimized for BF16 (bfloat16) precision.\n\n";
    kbv_prompt_options fp32 = {.input_blind = KBV_BLIND_DEFAULT};
    kbv_prompt_options named = {.input_blind = KBV_BLIND_DEFAULT, .precision = "fp32"};
    kbv_prompt_options bf16 = {.input_blind = KBV_BLIND_DEFAULT, .precision = "bf16"};
    char *a = build("L1/19", fp32), *b = build("L1/19", named), *c = build("L1/19", bf16);
    assert_string_equal(a, b);
    assert_null(strstr(a, "Note: The kernels"));
    const char *at = strstr(c, note);
    assert_non_null(at);
    assert_null(strstr(at + strlen(note), "Note: The kernels"));
    assert_true(at > strstr(c, "You are given the following architecture:"));
    assert_true(!strncmp(at + strlen(note), "Optimize the architecture named Model", 37));
    assert_says_nothing_about_testing(c);
    /* apart from the note, the same prompt */
    size_t pre = (size_t)(at - c) + 4;
    assert_true(!strncmp(a, c, pre));
    assert_string_equal(a + pre, c + pre + strlen(note) - 5);  /* the note and its blank line */
    free(a);
    free(b);
    free(c);
    kbv_prompt_options informed = {.input_blind = KBV_BLIND_DEFAULT, .template_name = "informed",
                                   .precision = "bf16"};
    char *d = build("L1/19", informed);
    assert_non_null(strstr(d, note));
    free(d);
    kbv_prompt_options bad = {.input_blind = KBV_BLIND_DEFAULT, .precision = "fp16"};
    char *e = NULL;
    assert_int_equal(kbv_prompt_build(kbv_problem_find("L1/19"), &bad, &e), KBV_ERR_PARSE);
    kbv_clear_error();
    assert_null(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_prompt_l1_19),
        cmocka_unit_test(test_default_prompt_says_nothing_about_testing),
        cmocka_unit_test(test_informed_template),
        cmocka_unit_test(test_example_for_other_problems),
        cmocka_unit_test(test_cpu_prompt),
        cmocka_unit_test(test_kernelbench_prompt),
        cmocka_unit_test(test_gpu_override),
        cmocka_unit_test(test_input_blind),
        cmocka_unit_test(test_input_blind_paper_problems),
        cmocka_unit_test(test_input_blind_defaults),
        cmocka_unit_test(test_user_template),
        cmocka_unit_test(test_template_names),
        cmocka_unit_test(test_missing_files),
        cmocka_unit_test(test_precision_note),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
