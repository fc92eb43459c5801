/* What a confined process may see of the file system: one list of paths,
 * each with its access, from which both confinements are derived -- the
 * namespace jail (sandbox/jail.h) bind-mounts each path at the same path in
 * an otherwise empty root, and Landlock (sandbox/landlock.h) grants the same
 * access beneath the same paths. Identity paths keep argv, LD_LIBRARY_PATH,
 * -I flags and compile-cache keys the same inside and out.
 *
 * Built in the trusted parent (allocation allowed); read in the child
 * between fork and exec (no allocation there). Paths are absolute and
 * resolved: a symbolic link on the way becomes a link entry (recreated in
 * the jail) plus an entry for its target. */
#ifndef KBV_SANDBOX_POLICY_H
#define KBV_SANDBOX_POLICY_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/status.h"

typedef enum kbv_access {
    KBV_ACCESS_READ = 1u << 0,    /* read files, list directories, map libraries */
    KBV_ACCESS_WRITE = 1u << 1,   /* create, write and remove beneath it */
    KBV_ACCESS_EXEC = 1u << 2,    /* execute programs beneath it */
    KBV_ACCESS_DEVICE = 1u << 3,  /* a device node: read, write and ioctl */
} kbv_access;

typedef enum kbv_entry_kind {
    KBV_ENTRY_DIR,       /* a directory, bound with everything below it */
    KBV_ENTRY_FILE,      /* one file (or device node) */
    KBV_ENTRY_LINK,      /* a symbolic link, recreated with the same target */
    KBV_ENTRY_HIDE,      /* an empty read-only directory mounted over this path */
} kbv_entry_kind;

typedef struct kbv_policy_entry {
    char path[PATH_MAX];
    char target[PATH_MAX];        /* KBV_ENTRY_LINK: what the link says */
    kbv_entry_kind kind;
    unsigned access;              /* kbv_access bits */
} kbv_policy_entry;

typedef struct kbv_policy {
    kbv_policy_entry *v;          /* sorted by path once kbv_policy_finish ran */
    int n, cap;
    bool proc;                    /* a /proc of the process's own PID namespace */
    bool proc_task_writable;      /* its own /proc/self/task/ writable: the CUDA driver names
                                     its threads there and fails to start if it cannot */
    bool sys;                     /* /sys, read-only (the CUDA driver reads its topology) */
    bool dev_shm;                 /* a private, empty /dev/shm */
    size_t tmp_bytes;             /* a private tmpfs of this size at /tmp (0: none) */
} kbv_policy;

/* Adds path (must exist) with the given access, resolving every symbolic
 * link on the way. A directory is bound whole; a file alone. */
kbv_status kbv_policy_add(kbv_policy *p, const char *path, unsigned access);
/* Like kbv_policy_add, silently skipping a path that does not exist. */
kbv_status kbv_policy_add_if_present(kbv_policy *p, const char *path, unsigned access);
/* Mounts an empty directory over path if some entry exposes it (the cache,
 * the results, the user's home when they lie inside a system tree). */
kbv_status kbv_policy_hide(kbv_policy *p, const char *path);

/* The system's programs and libraries, read-only: /usr, /lib*, /bin, /sbin,
 * the dynamic loader's cache and configuration, and every directory of
 * $LD_LIBRARY_PATH. */
kbv_status kbv_policy_add_system(kbv_policy *p);
/* /dev/null, zero, full, random and urandom; with gpu, every /dev/nvidia*
 * node and /dev/nvidia-caps. */
kbv_status kbv_policy_add_devices(kbv_policy *p, bool gpu);

/* Sorts the entries (parents before what lies beneath) and drops
 * duplicates, merging their access. Call once, before use. */
void kbv_policy_finish(kbv_policy *p);
void kbv_policy_free(kbv_policy *p);

#endif
