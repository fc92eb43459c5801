/* Where kbv's own files are at run time. They are found from the running
 * program (/proc/self/exe), never from where it was built, so that an
 * installed copy and a moved or copied build tree both work:
 *   build tree  B/kbv   B/kbv-runner             B/share/kbv/{include,prompts,docs,examples}
 *   installed   P/bin/kbv  P/libexec/kbv/kbv-runner  P/share/kbv/{include,prompts,docs,examples}
 * (CMakeLists.txt makes both layouts.) Environment variables override each
 * place: KBV_RUNNER, KBV_INCLUDE_DIR, KBV_PROMPTS_DIR, KBV_DOCS_DIR,
 * KBV_EXAMPLES_DIR. */
#ifndef KBV_CORE_PATHS_H
#define KBV_CORE_PATHS_H

#include <stddef.h>

#include "core/status.h"

/* The directory of the running program ("." when /proc/self/exe cannot be
 * read). Found once. */
const char *kbv_program_dir(void);

/* kbv's share directory: share/kbv beside the program (a build tree), else
 * ../share/kbv above it (an installation). When neither exists, the
 * installed one for a program in a directory named bin, else the build
 * tree's, so that a missing file is reported where it was expected. Found
 * once. */
const char *kbv_share_dir(void);

/* $env when it is set, else kbv_share_dir()/sub; with "/file" appended when
 * file is not NULL. */
kbv_status kbv_data_path(const char *env, const char *sub, const char *file, char *buf,
                         size_t cap);

/* The candidate runner: $KBV_RUNNER, else kbv-runner beside the program (a
 * build tree), else ../libexec/kbv/kbv-runner (an installation); when none
 * exists, the one expected (as for kbv_share_dir). */
kbv_status kbv_runner_locate(char *buf, size_t cap);

#endif
