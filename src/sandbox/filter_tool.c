/* The compilers' seccomp deny-list (see filter.h): built here in the parent
 * with libseccomp, exported as BPF, installed in the child with prctl. */
#include "sandbox/filter.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* Nothing a compiler does; each a way out of the sandbox or into the kernel. */
static const int denied[] = {
    SCMP_SYS(socket), SCMP_SYS(connect), SCMP_SYS(bind), SCMP_SYS(listen), SCMP_SYS(accept),
    SCMP_SYS(accept4), SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv),
    SCMP_SYS(process_vm_writev), SCMP_SYS(mount), SCMP_SYS(umount2), SCMP_SYS(pivot_root),
    SCMP_SYS(chroot), SCMP_SYS(unshare), SCMP_SYS(setns), SCMP_SYS(bpf),
    SCMP_SYS(perf_event_open), SCMP_SYS(userfaultfd), SCMP_SYS(io_uring_setup),
    SCMP_SYS(io_uring_enter), SCMP_SYS(io_uring_register), SCMP_SYS(keyctl), SCMP_SYS(add_key),
    SCMP_SYS(request_key), SCMP_SYS(init_module), SCMP_SYS(finit_module),
    SCMP_SYS(delete_module), SCMP_SYS(kexec_load), SCMP_SYS(kexec_file_load), SCMP_SYS(reboot),
    SCMP_SYS(swapon), SCMP_SYS(swapoff), SCMP_SYS(open_by_handle_at),
    SCMP_SYS(name_to_handle_at), SCMP_SYS(iopl), SCMP_SYS(ioperm), SCMP_SYS(quotactl),
    SCMP_SYS(acct), SCMP_SYS(settimeofday), SCMP_SYS(clock_settime), SCMP_SYS(adjtimex),
    SCMP_SYS(clock_adjtime), SCMP_SYS(syslog), SCMP_SYS(fanotify_init), SCMP_SYS(mknod),
    SCMP_SYS(mknodat), SCMP_SYS(sethostname), SCMP_SYS(setdomainname), SCMP_SYS(vhangup),
    SCMP_SYS(fsopen), SCMP_SYS(fsmount), SCMP_SYS(move_mount), SCMP_SYS(open_tree),
    SCMP_SYS(mount_setattr),
};

kbv_status kbv_filter_tool_build(kbv_bpf *out)
{
    kbv_status st = KBV_OK;
    int mfd = -1;
    memset(out, 0, sizeof *out);
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "seccomp_init failed");
    if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS) != 0 ||
        seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp attributes unsupported");
    for (size_t i = 0; i < sizeof denied / sizeof denied[0]; i++) {
        int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), denied[i], 0);
        if (rc < 0) {
            char name[64];
            KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp rule for %s: %s",
                          kbv_syscall_name(denied[i], name, sizeof name), strerror(-rc));
        }
    }
    int rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                              SCMP_A1_32(SCMP_CMP_EQ, TIOCSTI));
    if (rc < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp rule for ioctl: %s", strerror(-rc));
    /* libseccomp writes the program to a descriptor: read it back */
    mfd = memfd_create("kbv-filter", MFD_CLOEXEC);
    if (mfd < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "memfd_create: %s", strerror(errno));
    if ((rc = seccomp_export_bpf(ctx, mfd)) < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp_export_bpf: %s", strerror(-rc));
    struct stat sb;
    if (fstat(mfd, &sb) != 0 || sb.st_size <= 0 ||
        sb.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
        sb.st_size / (off_t)sizeof(struct sock_filter) > 65535)
        KBV_FAIL_GOTO(st, done, KBV_ERR_UNSUPPORTED, "seccomp exported a malformed filter");
    out->insns = malloc((size_t)sb.st_size);
    if (!out->insns)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "seccomp filter");
    if (pread(mfd, out->insns, (size_t)sb.st_size, 0) != sb.st_size) {
        kbv_bpf_free(out);
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading the exported seccomp filter");
    }
    out->len = (unsigned short)(sb.st_size / (off_t)sizeof(struct sock_filter));
done:
    if (mfd >= 0)
        close(mfd);
    seccomp_release(ctx);
    return st;
}

int kbv_filter_install_bpf(const kbv_bpf *f)
{
    struct sock_fprog prog = {.len = f->len, .filter = f->insns};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return errno;
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0)
        return errno;
    return 0;
}

void kbv_bpf_free(kbv_bpf *f)
{
    free(f->insns);
    f->insns = NULL;
    f->len = 0;
}
