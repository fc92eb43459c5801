/* kbv: evaluate GPU kernels against KernelBench, honestly. */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

#include "cli/cli_error.h"
#include "cli/commands.h"
#include "core/paths.h"
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
    {"generate", kbv_cmd_generate, "ask a model (OpenAI-compatible or Anthropic API) for candidates"},
    {"report", kbv_cmd_report, "tables, figures and an HTML page from results files; --compare two runs"},
    {"judge", kbv_cmd_judge, "ask a model for a second opinion on evaluated candidates (the paper's judge)"},
};

static void usage(FILE *f)
{
    fprintf(f,
            "kbv %s: KernelBench-Verified, the evaluation harness for GPU kernels\n\n"
            "usage: kbv [--debug] <command> [options]\n"
            "       kbv help <command>    its options (the same as kbv <command> --help)\n\n"
            "commands:\n",
            KBV_VERSION);
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(f,
            "\noptions before the command:\n"
            "  --debug   an error prints where kbv found it and how it was relayed\n"
            "            (file:line), not just what went wrong; KBV_DEBUG=1 in the\n"
            "            environment does the same. Internal errors (out of memory, CUDA,\n"
            "            kbv's own processes) always do\n"
            "  --version this kbv's version\n\n"
            "documentation, in %s/docs:\n"
            "  ABI.md          what a candidate implements (the prompt includes it)\n"
            "  METHODOLOGY.md  every protocol, metric and column\n",
            kbv_share_dir());
}

static const command *find_command(const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (!strcmp(name, commands[i].name))
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    fprintf(stderr, "kbv: unknown command '%s' (kbv help lists the commands)\n", name);
    return 2;
}

/* kbv help [CMD]: the overview, or CMD --help. */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    if (argc > 2) {
        fprintf(stderr, "kbv help: one command at a time, e.g. kbv help eval\n");
        return 2;
    }
    const command *cmd = find_command(argv[1]);
    if (!cmd)
        return unknown_command(argv[1]);
    char flag[] = "--help";
    char *help_argv[] = {argv[1], flag, NULL};
    return cmd->run(2, help_argv);
}

/* Runs what the command line asks for; *who: "kbv CMD" once one is chosen. */
static int dispatch(int argc, char **argv, char *who, size_t who_cap)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h"))
        return help(1, argv + 1);
    if (!strcmp(name, "help"))
        return help(argc - 1, argv + 1);
    if (!strcmp(name, "--version")) {
        printf("kbv %s\n", KBV_VERSION);
        return 0;
    }
    if (name[0] == '-') {
        fprintf(stderr, "kbv: unknown option '%s' before the command (kbv help lists the "
                        "commands and options)\n", name);
        return 2;
    }
    const command *cmd = find_command(name);
    if (!cmd)
        return unknown_command(name);
    snprintf(who, who_cap, "kbv %s", cmd->name);
    return cmd->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    /* kbv holds the seeds and the expected outputs: no other process of the
     * user may read its memory through /proc or ptrace */
    (void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    int taken = kbv_cli_global_options(argc, argv);
    argv[taken] = argv[0];
    char who[32] = "kbv";
    int status = dispatch(argc - taken, argv + taken, who, sizeof who);
    /* text lost to a full disk or a closed pipe is a failure, for every
     * command that did not check for itself */
    if (status == 0)
        status = kbv_cli_flush_stdout(who);
    return status;
}
