/* The prompt's options, shared by kbv prompt and kbv generate. */
#ifndef KBV_CLI_PROMPT_OPTIONS_H
#define KBV_CLI_PROMPT_OPTIONS_H

#include "cli/options.h"
#include "gen/prompt.h"

extern const kbv_cli_option kbv_prompt_cli_options[];

/* Sets what option o (an entry of kbv_prompt_cli_options) says; value is
 * NULL for a flag. */
void kbv_prompt_cli_apply(const kbv_cli_option *o, const char *value, kbv_prompt_options *opt);

#endif
