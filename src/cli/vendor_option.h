/* --allow-vendor-libs[=LIST]: the vendor libraries (core/vendor_libs.h) a
 * run lets its candidates call (kbv eval, kbv check), or a prompt tells the
 * model it may call (kbv prompt, kbv generate). One spelling, one parser,
 * one help text per use. */
#ifndef KBV_CLI_VENDOR_OPTION_H
#define KBV_CLI_VENDOR_OPTION_H

#include <stdio.h>

/* Takes arg when it is --allow-vendor-libs (all of them) or
 * --allow-vendor-libs=LIST into *mask. 1: taken; 0: not this option; -1: a
 * bad list, already reported as "CMD: ...". */
int kbv_vendor_option_take(const char *cmd, const char *arg, unsigned *mask);

/* The option's lines of --help: for a run (eval, check) or a prompt. */
void kbv_vendor_option_help_run(FILE *f);
void kbv_vendor_option_help_prompt(FILE *f);

#endif
