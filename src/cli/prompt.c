/* kbv prompt: print the single-turn prompt kbv generate sends for a problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "cli/prompt_options.h"
#include "cli/vendor_option.h"

enum { OPT_CPU, OPT_KERNELBENCH, OPT_TEMPLATE, OPT_BLIND, OPT_NO_BLIND, OPT_GPU, OPT_PRECISION };

const kbv_cli_option kbv_prompt_cli_options[] = {
    {"--cpu", NULL, OPT_CPU,
     "ask for a C candidate for the CPU backend (default:\n"
     "CUDA C)"},
    {"--kernelbench", NULL, OPT_KERNELBENCH,
     "ask for KernelBench's own format (a Python ModelNew\n"
     "with load_inline CUDA kernels, written as\n"
     "level_L_problem_P_sample_S_kernel.py) with the paper's\n"
     "prompt as it was: template kernelbench, KernelBench's\n"
     "worked example (not with --cpu)"},
    {"--template", "NAME|FILE", OPT_TEMPLATE,
     "default: the paper's prompt adapted to kbv's ABI: the\n"
     "task, the ABI, a worked example and the reference,\n"
     "nothing about how candidates are tested (the paper's\n"
     "models saw none); informed: kbv's own task text with\n"
     "how candidates are judged (protocols, distributions,\n"
     "audits) and the target; or a FILE (a path, e.g.\n"
     "./mine.txt) with the placeholders docs/GENERATE.md\n"
     "lists (default: default; kernelbench with\n"
     "--kernelbench)"},
    {"--input-blind", NULL, OPT_BLIND,
     "hide the sizes and how inputs are drawn, as the\n"
     "paper's stripped prompts: no size constants,\n"
     "get_inputs() or get_init_inputs(); symbolic shapes in\n"
     "a forward() docstring (default on for L1/90 L1/100\n"
     "L3/35 L3/47)"},
    {"--no-input-blind", NULL, OPT_NO_BLIND, "show them even where input-blind is the default"},
    {"--gpu", "NAME", OPT_GPU,
     "the target, where a template names it ({gpu}: the\n"
     "informed one does); default:\n"
     "\"" KBV_PROMPT_DEFAULT_GPU "\""},
    {"--precision", "fp32|bf16", OPT_PRECISION,
     "the run's precision (kbv eval --precision): bf16 adds\n"
     "the paper's note after the reference, \"Note: The\n"
     "kernels should be optimized for BF16 (bfloat16)\n"
     "precision.\" ({precision_note}); default fp32, no note"},
    {NULL, NULL, 0, NULL},
};

void kbv_prompt_cli_apply(const kbv_cli_option *o, const char *value, kbv_prompt_options *opt)
{
    switch (o->id) {
    case OPT_CPU: opt->cpu = true; break;
    case OPT_KERNELBENCH: opt->kernelbench = true; break;
    case OPT_TEMPLATE: opt->template_name = value; break;
    case OPT_BLIND: opt->input_blind = KBV_BLIND_ON; break;
    case OPT_NO_BLIND: opt->input_blind = KBV_BLIND_OFF; break;
    case OPT_GPU: opt->gpu = value; break;
    case OPT_PRECISION: opt->precision = value; break;
    }
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv prompt KEY [--cpu|--kernelbench] [--template NAME|FILE]\n"
            "                      [--input-blind|--no-input-blind] [--gpu NAME]\n"
            "                      [--precision fp32|bf16] [--allow-vendor-libs[=LIST]]\n\n"
            "Prints the prompt for problem KEY (L1/19). By default it is the paper's prompt\n"
            "adapted to kbv: the task, the candidate ABI (docs/ABI.md without how candidates\n"
            "are judged), one worked example and the PyTorch reference. docs/GENERATE.md\n"
            "describes it.\n\n");
    kbv_cli_options_print(f, kbv_prompt_cli_options);
    kbv_vendor_option_help_prompt(f);
    kbv_cli_options_print(f, kbv_cli_help_option);
}

int kbv_cmd_prompt(int argc, char **argv)
{
    kbv_prompt_options opt = {.input_blind = KBV_BLIND_DEFAULT};
    const char *key = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const kbv_cli_option *o = kbv_cli_option_find(kbv_prompt_cli_options, a);
        int taken = kbv_vendor_option_take("kbv prompt", a, &opt.vendor_libs);
        if (taken < 0)
            return 2;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (taken) {
            continue;
        } else if (o && (!o->arg || i + 1 < argc)) {
            kbv_prompt_cli_apply(o, o->arg ? argv[++i] : NULL, &opt);
        } else if (a[0] != '-' && !key) {
            key = a;
        } else {
            fprintf(stderr, "kbv prompt: unexpected or incomplete argument '%s' (see kbv prompt "
                            "--help)\n", a);
            return 2;
        }
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!key) {
        fprintf(stderr, "kbv prompt: which problem? e.g. kbv prompt L1/19 (kbv list shows "
                        "them)\n");
        return 2;
    }
    const kbv_problem_def *def = kbv_problem_find(key);
    if (!def) {
        fprintf(stderr, "kbv prompt: no problem '%s' (kbv list shows them)\n", key);
        return 2;
    }
    kbv_precision precision;
    if (kbv_prompt_precision(&opt, &precision) != KBV_OK) {
        kbv_cli_error("kbv prompt", NULL);
        return 2;
    }
    char *prompt = NULL;
    if (kbv_prompt_build(def, &opt, &prompt) != KBV_OK) {
        kbv_cli_error("kbv prompt", NULL);
        return 1;
    }
    int lost = fputs(prompt, stdout) == EOF;
    if (lost)
        kbv_cli_stdout_error("kbv prompt");   /* now, while errno says why */
    free(prompt);
    return lost || kbv_cli_flush_stdout("kbv prompt");
}
