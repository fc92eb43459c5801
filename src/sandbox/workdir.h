/* Private directories of confined processes: made fresh for each one, and
 * removed with everything in them afterwards -- without following a
 * symbolic link the confined process may have planted. */
#ifndef KBV_SANDBOX_WORKDIR_H
#define KBV_SANDBOX_WORKDIR_H

#include <stddef.h>

#include "core/status.h"

/* Creates <$TMPDIR or /tmp>/kbv-run-XXXXXX (mode 0700) into buf. */
kbv_status kbv_sandbox_private_dir(char *buf, size_t cap);

/* Removes path and everything below it, never following symbolic links.
 * A missing path is not an error. */
kbv_status kbv_sandbox_remove_dir(const char *path);

#endif
