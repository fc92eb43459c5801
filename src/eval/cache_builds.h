/* Builds under way in the compile cache: what each holds while it lives,
 * and the sweep of what dead ones left.
 *
 * A build of entry <shard>/<key> holds the entry's lock, <key>.lock (so that
 * no other process compiles the same bytes meanwhile), and writes in a
 * private directory, <shard>/.tmp-<key's first 16 hex>-XXXXXX, which it
 * publishes with one rename. Both are flocks held from creation until
 * removal or publication, so a lock or directory nobody holds is one whose
 * build died without cleaning up (a run killed with SIGKILL mid-compile).
 * Each new build in a shard removes those first, and the cache's first build
 * in a process (eval/compile.c) those of every shard, so a killed run's
 * leftovers go with the rerun's first build. A process that locked a file or
 * directory in the moment a sweep took it for dead notices and makes
 * another, so nothing is ever held twice. */
#ifndef KBV_EVAL_CACHE_BUILDS_H
#define KBV_EVAL_CACHE_BUILDS_H

#include <limits.h>
#include <signal.h>

#include "core/status.h"

/* Waits until no other process holds the entry's lock at lock_path and takes
 * it. Returns its fd, or -1 when the build should go ahead without it: the
 * file system has no locks, the wait passed wait_s, or *cancel (if given)
 * became nonzero (entries are renamed into place, so an unlocked build is
 * still safe). */
int kbv_build_lock(const char *lock_path, double wait_s, const volatile sig_atomic_t *cancel);
/* Lets go of a lock kbv_build_lock took (fd -1: nothing), removing its file. */
void kbv_build_unlock(const char *lock_path, int fd);

typedef struct kbv_build_dir {
    char path[PATH_MAX];   /* "" once published or removed */
    int fd;                /* holds the flock; -1 when none */
} kbv_build_dir;

/* Removes the dead builds' leftovers in shard, then makes and locks a new
 * directory for key. d->path is "" and d->fd -1 on failure. */
kbv_status kbv_build_dir_make(const char *shard, const char *key, kbv_build_dir *d);

/* Renames the directory to entry (a directory that does not exist yet; an
 * existing one, published a moment earlier by another build of the same
 * bytes, leaves ours to kbv_build_dir_end). */
kbv_status kbv_build_dir_publish(kbv_build_dir *d, const char *entry);

/* Removes the directory if it was not published and lets go of its lock.
 * Safe on a kbv_build_dir that was never made (path "" and fd -1). */
kbv_status kbv_build_dir_end(kbv_build_dir *d);

/* Removes the directories and lock files of dead builds in shard; how many,
 * into *removed (may be NULL). Best effort: one that cannot be removed stays
 * for later. */
void kbv_build_sweep(const char *shard, int *removed);
/* ... in every shard (each directory) under root. */
void kbv_build_sweep_all(const char *root, int *removed);

#endif
