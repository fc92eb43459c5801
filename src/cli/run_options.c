#include "cli/run_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kbv_run_option_take(const char *cmd, int argc, char **argv, int *a, bool allow_timeout,
                        kbv_run_options *o)
{
    const char *arg = argv[*a];
    if (*a + 1 >= argc)
        return 0;  /* an option without its value: the caller reports it */
    if (!strcmp(arg, "--device")) {
        o->device = argv[++*a];
    } else if (!strcmp(arg, "--size")) {
        o->size = argv[++*a];
    } else if (!strcmp(arg, "--seed")) {
        o->seed = argv[++*a];
    } else if (allow_timeout && !strcmp(arg, "--timeout")) {
        char *end = NULL;
        errno = 0;
        o->timeout_s = strtod(argv[++*a], &end);
        if (errno || *end || !(o->timeout_s > 0)) {
            fprintf(stderr, "%s: --timeout needs a positive number of seconds, got '%s'\n", cmd,
                    argv[*a]);
            return -1;
        }
    } else {
        return 0;
    }
    return 1;
}

int kbv_run_options_check(const char *cmd, const kbv_run_options *o)
{
    if (o->device && strcmp(o->device, "cpu") && strcmp(o->device, "cuda")) {
        fprintf(stderr, "%s: --device must be cpu or cuda, got '%s'\n", cmd, o->device);
        return 2;
    }
    if (o->size && strcmp(o->size, "full") && strcmp(o->size, "small")) {
        fprintf(stderr, "%s: --size must be full or small, got '%s'\n", cmd, o->size);
        return 2;
    }
    return 0;
}
