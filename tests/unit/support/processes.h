/* Finding processes from the tests: confined programs run in PID
 * namespaces of their own, so the pids they could report mean nothing
 * outside; they are found by a marker argument instead. */
#ifndef KBV_TEST_PROCESSES_H
#define KBV_TEST_PROCESSES_H

#include <stdbool.h>

/* Whether a live (not zombie) process has `arg` among its arguments. */
bool kbv_test_process_with_arg(const char *arg);
/* Waits up to 2 s for every process with `arg` to be gone (SIGKILL lands
 * asynchronously). */
bool kbv_test_gone_soon(const char *arg);

#endif
