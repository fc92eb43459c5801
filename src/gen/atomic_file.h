/* Files that appear whole or not at all: a killed run never leaves a
 * half-written candidate that resume would then skip. */
#ifndef KBV_GEN_ATOMIC_FILE_H
#define KBV_GEN_ATOMIC_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

/* Writes data to a hidden temporary file beside path, fsyncs it and renames
 * it over path. Safe from several threads at once. */
kbv_status kbv_write_file_atomic(const char *path, const char *data, size_t len);

/* mkdir -p. */
kbv_status kbv_make_dirs(const char *path);

bool kbv_file_exists(const char *path);

#endif
