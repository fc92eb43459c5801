#include "cli/cli_error.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/status.h"

void kbv_cli_error(const char *cmd, const char *what)
{
    const char *text = kbv_error_text();
    if (!text[0])
        text = "failed, and no reason was recorded (a bug in kbv)";
    /* a trace starts on a line of its own, so its frames line up */
    const char *gap = strchr(text, '\n') ? "\n" : " ";
    if (what)
        fprintf(stderr, "%s: %s:%s%s\n", cmd, what, gap, text);
    else
        fprintf(stderr, "%s:%s%s\n", cmd, gap, text);
    kbv_clear_error();
}

void kbv_cli_stdout_error(const char *cmd)
{
    int err = errno;
    if (err)
        fprintf(stderr, "%s: cannot write to standard output: %s\n", cmd, strerror(err));
    else   /* an earlier write failed; its errno is gone */
        fprintf(stderr, "%s: cannot write to standard output: the output is incomplete\n", cmd);
}

int kbv_cli_flush_stdout(const char *cmd)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    kbv_cli_stdout_error(cmd);
    return 1;
}

int kbv_cli_global_options(int argc, char **argv)
{
    const char *env = getenv("KBV_DEBUG");
    bool debug = env && *env && strcmp(env, "0") != 0;
    int taken = 0;
    while (taken + 1 < argc && !strcmp(argv[taken + 1], "--debug")) {
        debug = true;
        taken++;
    }
    kbv_set_debug(debug);
    return taken;
}
