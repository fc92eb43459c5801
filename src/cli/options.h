/* A command's options as one table: --help is printed from it and the
 * command line is parsed against it, so the two cannot drift apart. */
#ifndef KBV_CLI_OPTIONS_H
#define KBV_CLI_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

typedef struct kbv_cli_option {
    const char *name;   /* "--samples"; NULL ends a table */
    const char *arg;    /* its value in --help ("N"); NULL: a flag */
    int id;             /* the command's own code for it */
    const char *help;   /* lines separated by '\n' */
} kbv_cli_option;

/* A table of one: --help. */
extern const kbv_cli_option kbv_cli_help_option[];

/* The option called `arg` in table, or NULL. */
const kbv_cli_option *kbv_cli_option_find(const kbv_cli_option *table, const char *arg);

/* One entry per option: "  --name ARG" and its help from column 24 on. */
void kbv_cli_options_print(FILE *f, const kbv_cli_option *table);

/* Numbers as options take them: the whole text, within [lo, hi]. */
bool kbv_cli_parse_long(const char *s, long lo, long hi, long *out);
bool kbv_cli_parse_double(const char *s, double lo, double hi, double *out);

#endif
