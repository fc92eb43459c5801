/* How every kbv command reports a failure: one line that names what failed
 * and why ("kbv eval: results file: cannot open /x/r.jsonl for appending: No
 * such file or directory") for errors the user can fix; the whole file:line
 * trace for internal ones and under kbv --debug (see kbv_error_text). */
#ifndef KBV_CLI_ERROR_H
#define KBV_CLI_ERROR_H

/* Prints the current error on stderr as "CMD: WHAT: <error>" (WHAT may be
 * NULL when the message says it all) and clears it. CMD is "kbv eval". */
void kbv_cli_error(const char *cmd, const char *what);

/* "CMD: cannot write to standard output: <why>" on stderr (a full disk, a
 * closed pipe). */
void kbv_cli_stdout_error(const char *cmd);

/* Flushes stdout: 0, or 1 after kbv_cli_stdout_error when anything written
 * to it was lost. */
int kbv_cli_flush_stdout(const char *cmd);

/* Takes the global options before the command (kbv --debug CMD ...) and
 * KBV_DEBUG from the environment. Returns how many arguments it took. */
int kbv_cli_global_options(int argc, char **argv);

#endif
