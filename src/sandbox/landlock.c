#include "sandbox/landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The uapi as of ABI 6, spelled out here: the build machine's kernel headers
 * may be older than the kernel kbv runs on. */
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#define LL_CREATE_RULESET_VERSION (1u << 0)
#define LL_RULE_PATH_BENEATH 1

#define LL_FS_EXECUTE (1ull << 0)
#define LL_FS_WRITE_FILE (1ull << 1)
#define LL_FS_READ_FILE (1ull << 2)
#define LL_FS_READ_DIR (1ull << 3)
#define LL_FS_REMOVE_DIR (1ull << 4)
#define LL_FS_REMOVE_FILE (1ull << 5)
#define LL_FS_MAKE_CHAR (1ull << 6)
#define LL_FS_MAKE_DIR (1ull << 7)
#define LL_FS_MAKE_REG (1ull << 8)
#define LL_FS_MAKE_SOCK (1ull << 9)
#define LL_FS_MAKE_FIFO (1ull << 10)
#define LL_FS_MAKE_BLOCK (1ull << 11)
#define LL_FS_MAKE_SYM (1ull << 12)
#define LL_FS_REFER (1ull << 13)      /* ABI 2 */
#define LL_FS_TRUNCATE (1ull << 14)   /* ABI 3 */
#define LL_FS_IOCTL_DEV (1ull << 15)  /* ABI 5 */
#define LL_NET_BIND_TCP (1ull << 0)   /* ABI 4 */
#define LL_NET_CONNECT_TCP (1ull << 1)
#define LL_SCOPE_ABSTRACT_UNIX (1ull << 0)  /* ABI 6 */
#define LL_SCOPE_SIGNAL (1ull << 1)

typedef struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
} ll_ruleset_attr;

typedef struct __attribute__((packed)) ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} ll_path_beneath;

/* Rights that apply to a file rather than a directory. */
#define LL_FS_FILE_RIGHTS \
    (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

int kbv_landlock_abi(void)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
    return v > 0 ? (int)v : 0;
}

static uint64_t handled_fs(int abi)
{
    uint64_t fs = LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_READ_DIR |
                  LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR |
                  LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK |
                  LL_FS_MAKE_SYM;
    if (abi >= 2)
        fs |= LL_FS_REFER;
    if (abi >= 3)
        fs |= LL_FS_TRUNCATE;
    if (abi >= 5)
        fs |= LL_FS_IOCTL_DEV;
    return fs;
}

static uint64_t rights_of(unsigned access)
{
    uint64_t r = 0;
    if (access & KBV_ACCESS_READ)
        r |= LL_FS_READ_FILE | LL_FS_READ_DIR;
    if (access & KBV_ACCESS_EXEC)
        r |= LL_FS_EXECUTE;
    if (access & KBV_ACCESS_WRITE)
        r |= LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_DIR |
             LL_FS_MAKE_REG | LL_FS_MAKE_SYM | LL_FS_MAKE_FIFO | LL_FS_REFER | LL_FS_TRUNCATE;
    if (access & KBV_ACCESS_DEVICE)
        r |= LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV;
    return r;
}

static int add_rule(int ruleset, const char *path, uint64_t rights, uint64_t handled)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno;
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int err = errno;
        close(fd);
        return err;
    }
    if (!S_ISDIR(sb.st_mode))
        rights &= LL_FS_FILE_RIGHTS;
    ll_path_beneath pb = {.allowed_access = rights & handled, .parent_fd = fd};
    int err = 0;
    if (pb.allowed_access &&
        syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) != 0)
        err = errno;
    close(fd);
    return err;
}

int kbv_landlock_apply(const kbv_policy *p, int abi, bool in_jail, int *failed_index)
{
    *failed_index = -1;
    if (abi < 1)
        return ENOSYS;
    ll_ruleset_attr attr = {.handled_access_fs = handled_fs(abi)};
    size_t size = sizeof attr.handled_access_fs;
    if (abi >= 4) {
        attr.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT_TCP;
        size = offsetof(ll_ruleset_attr, scoped);
    }
    if (abi >= 6) {
        attr.scoped = LL_SCOPE_ABSTRACT_UNIX | LL_SCOPE_SIGNAL;
        size = sizeof attr;
    }
    int rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0);
    if (rs < 0)
        return errno;
    int err = 0;
    for (int i = 0; i < p->n && !err; i++) {
        const kbv_policy_entry *e = &p->v[i];
        if (e->kind != KBV_ENTRY_DIR && e->kind != KBV_ENTRY_FILE)
            continue;   /* links need no right; hiding is the jail's */
        err = add_rule(rs, e->path, rights_of(e->access), attr.handled_access_fs);
        if (err)
            *failed_index = i;
    }
    /* never writable: root inside may own /proc/sys's files */
    if (!err && p->proc)
        err = add_rule(rs, "/proc", rights_of(KBV_ACCESS_READ), attr.handled_access_fs);
    if (!err && p->proc && p->proc_task_writable)
        err = add_rule(rs, "/proc/self/task", rights_of(KBV_ACCESS_READ | KBV_ACCESS_WRITE),
                       attr.handled_access_fs);
    if (!err && p->sys)
        err = add_rule(rs, "/sys", rights_of(KBV_ACCESS_READ), attr.handled_access_fs);
    if (!err && in_jail && p->dev_shm)
        err = add_rule(rs, "/dev/shm", rights_of(KBV_ACCESS_READ | KBV_ACCESS_WRITE),
                       attr.handled_access_fs);
    if (!err && in_jail && p->tmp_bytes)
        err = add_rule(rs, "/tmp", rights_of(KBV_ACCESS_READ | KBV_ACCESS_WRITE),
                       attr.handled_access_fs);
    if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        err = errno;
    if (!err && syscall(SYS_landlock_restrict_self, rs, 0) != 0)
        err = errno;
    close(rs);
    return err;
}
