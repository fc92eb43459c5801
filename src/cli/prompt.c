/* kbv prompt: print the single-turn prompt kbv generate sends for a problem. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "gen/prompt.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: kbv prompt KEY [--cpu] [--template NAME|FILE]\n"
            "                      [--input-blind|--no-input-blind] [--gpu NAME]\n\n"
            "Prints the prompt for problem KEY (L1/19). By default it is the paper's prompt\n"
            "adapted to kbv: the task, the candidate ABI (docs/ABI.md without how candidates\n"
            "are judged), one worked example and the PyTorch reference. docs/GENERATE.md\n"
            "describes it.\n\n"
            "  --cpu              ask for a C candidate for the CPU backend (default: CUDA C)\n"
            "  --template NAME|FILE\n"
            "                     default: the paper's prompt (nothing about how candidates\n"
            "                     are tested); informed: with how they are judged and the\n"
            "                     target; or a FILE (a path, ./mine.txt) with the\n"
            "                     placeholders docs/GENERATE.md lists (default: default)\n"
            "  --input-blind      hide the sizes and how inputs are drawn, as the paper's\n"
            "                     stripped prompts: the class only, symbolic shapes in a\n"
            "                     forward() docstring (default on for L1/90 L1/100 L3/35 L3/47)\n"
            "  --no-input-blind   show them even where input-blind is the default\n"
            "  --gpu NAME         the target as the prompt names it\n"
            "                     (default: \"" KBV_PROMPT_DEFAULT_GPU "\")\n"
            "  --help             this text\n");
}

int kbv_cmd_prompt(int argc, char **argv)
{
    kbv_prompt_options opt = {.input_blind = KBV_BLIND_DEFAULT};
    const char *key = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--cpu")) {
            opt.cpu = true;
        } else if (!strcmp(a, "--input-blind")) {
            opt.input_blind = KBV_BLIND_ON;
        } else if (!strcmp(a, "--no-input-blind")) {
            opt.input_blind = KBV_BLIND_OFF;
        } else if (!strcmp(a, "--template") && i + 1 < argc) {
            opt.template_name = argv[++i];
        } else if (!strcmp(a, "--gpu") && i + 1 < argc) {
            opt.gpu = argv[++i];
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
