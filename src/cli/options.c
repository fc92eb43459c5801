/* Option tables (see options.h). */
#include "cli/options.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { HELP_COLUMN = 24 };

const kbv_cli_option kbv_cli_help_option[] = {
    {"--help", NULL, 0, "this text"},
    {NULL, NULL, 0, NULL},
};

const kbv_cli_option *kbv_cli_option_find(const kbv_cli_option *table, const char *arg)
{
    for (const kbv_cli_option *o = table; o->name; o++)
        if (!strcmp(o->name, arg))
            return o;
    return NULL;
}

void kbv_cli_options_print(FILE *f, const kbv_cli_option *table)
{
    for (const kbv_cli_option *o = table; o->name; o++) {
        int n = fprintf(f, "  %s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        if (n > HELP_COLUMN - 2) {
            fputc('\n', f);  /* a long name: its help starts on the next line */
            n = 0;
        }
        for (const char *line = o->help; *line;) {
            size_t len = strcspn(line, "\n");
            fprintf(f, "%*s%.*s\n", HELP_COLUMN - n, "", (int)len, line);
            n = 0;
            line += len + (line[len] == '\n');
        }
    }
}

bool kbv_cli_parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

bool kbv_cli_parse_double(const char *s, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}
