#include "sandbox/policy.h"
#include "kbv_build_config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_LINKS 16   /* symbolic links followed while resolving one path */

static kbv_status push(kbv_policy *p, const char *path, kbv_entry_kind kind, unsigned access,
                       const char *target)
{
    if (strlen(path) >= PATH_MAX || (target && strlen(target) >= PATH_MAX))
        return kbv_fail(KBV_ERR_INVALID, "sandbox path too long: %s", path);
    if (p->n == p->cap) {
        int cap = p->cap ? 2 * p->cap : 32;
        kbv_policy_entry *v = realloc(p->v, (size_t)cap * sizeof *v);
        if (!v)
            return kbv_fail(KBV_ERR_NOMEM, "sandbox policy of %d paths", cap);
        p->v = v;
        p->cap = cap;
    }
    kbv_policy_entry *e = &p->v[p->n++];
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    if (target)
        snprintf(e->target, sizeof e->target, "%s", target);
    e->kind = kind;
    e->access = access;
    return KBV_OK;
}

/* Joins dir and a relative link target into out, as the kernel would
 * resolve it (".." and "." handled textually: dir is already resolved). */
static kbv_status join_target(const char *dir, const char *target, char *out, size_t cap)
{
    char buf[PATH_MAX * 2];
    int n = target[0] == '/' ? snprintf(buf, sizeof buf, "%s", target)
                             : snprintf(buf, sizeof buf, "%s/%s", dir, target);
    if (n < 0 || (size_t)n >= sizeof buf)
        return kbv_fail(KBV_ERR_INVALID, "sandbox path too long: %s/%s", dir, target);
    /* normalise: components pushed onto out, ".." pops */
    size_t len = 0;
    out[0] = '\0';
    for (char *save = NULL, *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, "."))
            continue;
        if (!strcmp(c, "..")) {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--;
            out[len] = '\0';
            continue;
        }
        size_t cl = strlen(c);
        if (len + 1 + cl + 1 > cap)
            return kbv_fail(KBV_ERR_INVALID, "sandbox path too long: %s", buf);
        out[len++] = '/';
        memcpy(out + len, c, cl + 1);
        len += cl;
    }
    if (len == 0)
        snprintf(out, cap, "/");
    return KBV_OK;
}

/* Walks path component by component; every symbolic link met becomes a link
 * entry and the walk goes on from its target. The resolved path goes to
 * `resolved`. */
static kbv_status resolve(kbv_policy *p, const char *path, char *resolved, size_t cap, int depth)
{
    if (path[0] != '/')
        return kbv_fail(KBV_ERR_INVALID, "sandbox path is not absolute: %s", path);
    if (depth > MAX_LINKS)
        return kbv_fail(KBV_ERR_INVALID, "too many symbolic links resolving %s", path);
    char done[PATH_MAX] = "";
    size_t done_len = 0;
    const char *rest = path;
    while (*rest) {
        while (*rest == '/')
            rest++;
        if (!*rest)
            break;
        size_t cl = strcspn(rest, "/");
        char comp[NAME_MAX + 1];
        if (cl > NAME_MAX)
            return kbv_fail(KBV_ERR_INVALID, "path component too long in %s", path);
        memcpy(comp, rest, cl);
        comp[cl] = '\0';
        rest += cl;
        char next[PATH_MAX];
        KBV_TRY(join_target(done_len ? done : "/", comp, next, sizeof next));
        struct stat sb;
        if (lstat(next, &sb) != 0)
            return kbv_fail(KBV_ERR_NOT_FOUND, "%s: %s", next, strerror(errno));
        if (S_ISLNK(sb.st_mode)) {
            char target[PATH_MAX];
            ssize_t n = readlink(next, target, sizeof target - 1);
            if (n < 0)
                return kbv_fail(KBV_ERR_IO, "readlink %s: %s", next, strerror(errno));
            target[n] = '\0';
            KBV_TRY(push(p, next, KBV_ENTRY_LINK, 0, target));
            char joined[PATH_MAX];
            KBV_TRY(join_target(done_len ? done : "/", target, joined, sizeof joined));
            char again[PATH_MAX * 2];
            if (snprintf(again, sizeof again, "%s%s", joined, rest) >= (int)sizeof again)
                return kbv_fail(KBV_ERR_INVALID, "sandbox path too long: %s", path);
            return resolve(p, again, resolved, cap, depth + 1);
        }
        snprintf(done, sizeof done, "%s", next);
        done_len = strlen(done);
    }
    if (snprintf(resolved, cap, "%s", done_len ? done : "/") >= (int)cap)
        return kbv_fail(KBV_ERR_INVALID, "sandbox path too long: %s", path);
    return KBV_OK;
}

kbv_status kbv_policy_add(kbv_policy *p, const char *path, unsigned access)
{
    char real[PATH_MAX], absolute[PATH_MAX];
    if (path[0] != '/') {
        /* the jail mounts it at the same place: relative to where we are now */
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd))
            return kbv_fail(KBV_ERR_IO, "getcwd: %s", strerror(errno));
        if (snprintf(absolute, sizeof absolute, "%s/%s", cwd, path) >= (int)sizeof absolute)
            return kbv_fail(KBV_ERR_INVALID, "sandbox path too long: %s/%s", cwd, path);
        path = absolute;
    }
    KBV_TRY(resolve(p, path, real, sizeof real, 0));
    struct stat sb;
    if (stat(real, &sb) != 0)
        return kbv_fail(KBV_ERR_NOT_FOUND, "%s: %s", real, strerror(errno));
    KBV_TRY(push(p, real, S_ISDIR(sb.st_mode) ? KBV_ENTRY_DIR : KBV_ENTRY_FILE, access, NULL));
    return KBV_OK;
}

kbv_status kbv_policy_add_if_present(kbv_policy *p, const char *path, unsigned access)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return KBV_OK;
    /* a dangling link is skipped too: there is nothing to see through it */
    if (stat(path, &sb) != 0)
        return KBV_OK;
    KBV_TRY(kbv_policy_add(p, path, access));
    return KBV_OK;
}

kbv_status kbv_policy_hide(kbv_policy *p, const char *path)
{
    char real[PATH_MAX];
    if (!realpath(path, real))
        return KBV_OK;   /* nothing there to hide */
    struct stat sb;
    if (stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return KBV_OK;   /* files are hidden by their directory */
    KBV_TRY(push(p, real, KBV_ENTRY_HIDE, 0, NULL));
    return KBV_OK;
}

/* Each absolute directory of a ':'-separated list, where it exists. */
static kbv_status add_path_list(kbv_policy *p, const char *list, unsigned access)
{
    if (!list || !*list)
        return KBV_OK;
    char *copy = strdup(list);
    if (!copy)
        return kbv_fail(KBV_ERR_NOMEM, "path list %s", list);
    kbv_status st = KBV_OK;
    for (char *save = NULL, *d = strtok_r(copy, ":", &save); d && st == KBV_OK;
         d = strtok_r(NULL, ":", &save))
        if (d[0] == '/')
            st = kbv_policy_add_if_present(p, d, access);
    free(copy);
    return st;
}

kbv_status kbv_policy_add_system(kbv_policy *p)
{
    static const char *const trees[] = {"/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin",
                                        "/sbin"};
    static const char *const files[] = {"/etc/ld.so.cache", "/etc/ld.so.conf",
                                        "/etc/ld.so.conf.d", "/etc/localtime"};
    const unsigned ro = KBV_ACCESS_READ | KBV_ACCESS_EXEC;
    for (size_t i = 0; i < sizeof trees / sizeof trees[0]; i++)
        KBV_TRY(kbv_policy_add_if_present(p, trees[i], ro));
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        KBV_TRY(kbv_policy_add_if_present(p, files[i], KBV_ACCESS_READ));
    /* the libraries kbv itself was started with (a carried build, CUDA's) */
    KBV_TRY(add_path_list(p, getenv("LD_LIBRARY_PATH"), ro));
    /* the hosted interpreter's own trees (a virtual environment outside /usr) */
    KBV_TRY(add_path_list(p, KBV_PYTHON_TREES, ro));
    return KBV_OK;
}

kbv_status kbv_policy_add_devices(kbv_policy *p, bool gpu)
{
    static const char *const basic[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                        "/dev/urandom"};
    for (size_t i = 0; i < sizeof basic / sizeof basic[0]; i++)
        KBV_TRY(kbv_policy_add_if_present(p, basic[i], KBV_ACCESS_DEVICE));
    if (!gpu)
        return KBV_OK;
    DIR *d = opendir("/dev");
    if (!d)
        return kbv_fail(KBV_ERR_IO, "cannot list /dev: %s", strerror(errno));
    kbv_status st = KBV_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && st == KBV_OK) {
        if (strncmp(e->d_name, "nvidia", 6) != 0)
            continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        st = kbv_policy_add_if_present(p, path, KBV_ACCESS_DEVICE | KBV_ACCESS_READ);
    }
    closedir(d);
    return st;
}

static int cmp_entry(const void *a, const void *b)
{
    const kbv_policy_entry *x = a, *y = b;
    /* by path, with '/' sorting first, so a directory precedes its contents
     * and each of its contents precedes a sibling like "/usr-x" */
    const unsigned char *s = (const unsigned char *)x->path, *t = (const unsigned char *)y->path;
    while (*s && *s == *t) {
        s++;
        t++;
    }
    int cs = *s == '/' ? 1 : *s == '\0' ? 0 : *s + 1;
    int ct = *t == '/' ? 1 : *t == '\0' ? 0 : *t + 1;
    if (cs != ct)
        return cs - ct;
    return (int)x->kind - (int)y->kind;
}

void kbv_policy_finish(kbv_policy *p)
{
    if (p->n == 0)
        return;
    qsort(p->v, (size_t)p->n, sizeof *p->v, cmp_entry);
    int w = 0;
    for (int i = 0; i < p->n; i++) {
        if (w > 0 && !strcmp(p->v[w - 1].path, p->v[i].path)) {
            kbv_policy_entry *prev = &p->v[w - 1];
            /* the same path twice: a hide wins over exposure, else merge */
            if (p->v[i].kind == KBV_ENTRY_HIDE || prev->kind == KBV_ENTRY_HIDE)
                prev->kind = KBV_ENTRY_HIDE, prev->access = 0;
            else
                prev->access |= p->v[i].access;
            continue;
        }
        p->v[w++] = p->v[i];
    }
    p->n = w;
}

void kbv_policy_free(kbv_policy *p)
{
    free(p->v);
    memset(p, 0, sizeof *p);
}
