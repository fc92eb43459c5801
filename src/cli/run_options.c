#include "cli/run_options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/results.h"

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
    } else if (!strcmp(arg, "--precision")) {
        const char *name = argv[++*a];
        if (kbv_precision_parse(name, &o->precision) != KBV_OK) {
            kbv_clear_error();
            fprintf(stderr, "%s: --precision takes", cmd);
            for (int p = 0; p < KBV_PRECISION_COUNT; p++)
                fprintf(stderr, "%s%s", p == 0 ? " " : p + 1 == KBV_PRECISION_COUNT ? " or " : ", ",
                        kbv_precision_get((kbv_precision)p)->name);
            fprintf(stderr, ", got '%s'\n", name);
            return -1;
        }
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

int kbv_gate_option_take(const char *cmd, int argc, char **argv, int *a, kbv_gate *gate)
{
    if (strcmp(argv[*a], "--gate") || *a + 1 >= argc)
        return 0;
    const char *name = argv[++*a];
    if (kbv_gate_parse(name, gate) == KBV_OK)
        return 1;
    kbv_clear_error();
    fprintf(stderr, "%s: --gate takes", cmd);
    for (int g = 0; g < KBV_GATE_COUNT; g++)
        fprintf(stderr, "%s%s", g == 0 ? " " : g + 1 == KBV_GATE_COUNT ? " or " : ", ",
                kbv_gate_get((kbv_gate)g)->name);
    fprintf(stderr, ", got '%s'\n", name);
    return -1;
}

/* Lines of a table's help text, the first beside its name. */
static void print_entry(FILE *f, const char *name, const char *help)
{
    bool first = true;
    while (*help) {
        size_t len = strcspn(help, "\n");
        fprintf(f, "                     %-12s %.*s\n", first ? name : "", (int)len, help);
        first = false;
        help += len + (help[len] == '\n');
    }
}

void kbv_precision_print_help(FILE *f)
{
    fprintf(f, "  --precision P      the precision every tensor, baseline and tolerance of the\n"
               "                     run follows, recorded in every record:\n");
    for (int p = 0; p < KBV_PRECISION_COUNT; p++) {
        const kbv_precision_info *info = kbv_precision_get((kbv_precision)p);
        print_entry(f, info->name, info->help);
    }
}

void kbv_gate_print_help(FILE *f)
{
    fprintf(f, "  --gate G           the verified protocol's correctness gate, recorded in\n"
               "                     every record; under either, standard's gate is allclose\n"
               "                     1e-3 and verified needs standard's pass:\n");
    for (int g = 0; g < KBV_GATE_COUNT; g++) {
        const kbv_gate_info *info = kbv_gate_get((kbv_gate)g);
        print_entry(f, info->name, info->help);
    }
}

int kbv_protocols_parse(const char *cmd, const char *list, unsigned *mask)
{
    *mask = 0;
    const char *p = list;
    while (*p) {
        size_t len = strcspn(p, ",");
        bool known = false;
        if (len == 3 && !strncmp(p, "all", 3)) {
            *mask = (1u << KBV_PROTO_COUNT) - 1;
            known = true;
        }
        for (int k = 0; k < KBV_PROTO_COUNT && !known; k++) {
            const char *name = kbv_protocol_name((kbv_protocol)k);
            if (len == strlen(name) && !strncmp(p, name, len)) {
                *mask |= 1u << k;
                known = true;
            }
        }
        if (!known) {
            fprintf(stderr, "%s: --protocols takes standard, verified, strict or all, "
                            "comma-separated; got '%.*s'\n", cmd, (int)len, p);
            return 2;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    if (*mask == 0) {
        fprintf(stderr, "%s: --protocols needs at least one protocol\n", cmd);
        return 2;
    }
    return 0;
}
