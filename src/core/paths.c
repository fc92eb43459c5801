#include "core/paths.h"

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kbv_build_config.h"

static pthread_once_t places_once = PTHREAD_ONCE_INIT;
static char program_dir[PATH_MAX];
static char share_dir[PATH_MAX];

static bool is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* dir/rel made absolute and clean when it exists (into out); false otherwise. */
static bool existing(const char *dir, const char *rel, char *out)
{
    char joined[PATH_MAX * 2];
    snprintf(joined, sizeof joined, "%s/%s", dir, rel);
    return realpath(joined, out) != NULL;
}

/* dir/rel with rel's leading "../" taken off dir, for a path that does not
 * exist (realpath cannot clean it). -1 when it does not fit. */
static int join(const char *dir, const char *rel, char *out, size_t cap)
{
    char base[PATH_MAX];
    snprintf(base, sizeof base, "%s", dir);
    while (!strncmp(rel, "../", 3)) {
        char *slash = strrchr(base, '/');
        if (!slash || slash == base)
            break;
        *slash = '\0';
        rel += 3;
    }
    int n = snprintf(out, cap, "%s/%s", base, rel);
    return n < 0 || (size_t)n >= cap ? -1 : n;
}

/* Whether the program is in a directory named bin: when kbv's files are
 * missing, it was installed, and the installed places are the ones to name. */
static bool in_bin(void)
{
    const char *base = strrchr(program_dir, '/');
    return !strcmp(base ? base + 1 : program_dir, "bin");
}

static void places_init(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = NULL;
    if (n > 0) {
        exe[n] = '\0';
        slash = strrchr(exe, '/');
    }
    if (slash) {
        *slash = '\0';
        snprintf(program_dir, sizeof program_dir, "%s", slash == exe ? "/" : exe);
    } else {
        snprintf(program_dir, sizeof program_dir, ".");
    }
    if ((existing(program_dir, KBV_SHARE_FROM_BUILD, share_dir) && is_dir(share_dir)) ||
        (existing(program_dir, KBV_SHARE_FROM_BIN, share_dir) && is_dir(share_dir)))
        return;
    if (join(program_dir, in_bin() ? KBV_SHARE_FROM_BIN : KBV_SHARE_FROM_BUILD, share_dir,
             sizeof share_dir) < 0)
        snprintf(share_dir, sizeof share_dir, "%s", KBV_SHARE_FROM_BUILD);
}

const char *kbv_program_dir(void)
{
    pthread_once(&places_once, places_init);
    return program_dir;
}

const char *kbv_share_dir(void)
{
    pthread_once(&places_once, places_init);
    return share_dir;
}

kbv_status kbv_data_path(const char *env, const char *sub, const char *file, char *buf,
                         size_t cap)
{
    const char *dir = getenv(env);
    int n = dir && *dir ? snprintf(buf, cap, "%s", dir)
                        : snprintf(buf, cap, "%s/%s", kbv_share_dir(), sub);
    if (n >= 0 && (size_t)n < cap && file)
        n += snprintf(buf + n, cap - (size_t)n, "/%s", file);
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "the path of %s/%s is too long (%s may set the "
                        "directory)", sub, file ? file : "", env);
    return KBV_OK;
}

kbv_status kbv_runner_locate(char *buf, size_t cap)
{
    const char *env = getenv("KBV_RUNNER");
    const char *dir = kbv_program_dir();
    char found[PATH_MAX];
    int n;
    if (env && *env)
        n = snprintf(buf, cap, "%s", env);
    else if (existing(dir, KBV_RUNNER_FROM_BUILD, found) ||
             existing(dir, KBV_RUNNER_FROM_BIN, found))
        n = snprintf(buf, cap, "%s", found);
    else
        n = join(dir, in_bin() ? KBV_RUNNER_FROM_BIN : KBV_RUNNER_FROM_BUILD, buf, cap);
    if (n < 0 || (size_t)n >= cap)
        return kbv_fail(KBV_ERR_INVALID, "the runner's path is too long (KBV_RUNNER may set it)");
    return KBV_OK;
}
