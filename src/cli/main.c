/* kbv: evaluate GPU kernels against KernelBench, honestly. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "kbv_build_config.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"list", kbv_cmd_list, "list the problems: shapes, FLOPs, bytes, speed-of-light time"},
    {"show", kbv_cmd_show, "print a problem's definition or its PyTorch rendering (--torch)"},
    {"dump", kbv_cmd_dump, "write a problem's inputs, params and float64 oracle outputs as .npy"},
    {"check", kbv_cmd_check, "evaluate one candidate file and print its verdicts"},
    {"eval", kbv_cmd_eval, "evaluate run directories of candidates into a results file"},
    {"merge", kbv_cmd_merge, "join results files (the shards of a run) into one, each sample once"},
    {"baseline", kbv_cmd_baseline, "measure and cache the baselines on this machine"},
    {"audit", kbv_cmd_audit, "find degenerate problems and weak gates; check the tf32 baseline"},
    {"prompt", kbv_cmd_prompt, "print the single-turn prompt that asks a model for a candidate"},
    {"generate", kbv_cmd_generate, "ask a model (OpenAI-compatible API) for candidates into a run"},
    {"report", kbv_cmd_report, "tables, figures and an HTML page from results files; --compare two runs"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "kbv %s: KernelBench-Verified, the evaluation harness for GPU kernels\n\n"
            "usage: kbv <command> [options]   (kbv <command> --help for its options)\n\n"
            "commands:\n",
            KBV_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\nDocumentation: docs/METHODOLOGY.md (protocols, metrics), docs/ABI.md (candidates).\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("kbv %s\n", KBV_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(argv[1], commands[i].name))
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "kbv: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
