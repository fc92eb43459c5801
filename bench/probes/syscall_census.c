/* Which system calls does a program tree make once its seccomp filter is on?
 *
 * Traces COMMAND and every process and thread it starts (ptrace), and for
 * each program (by executable name) counts the system calls made before and
 * after the process installed a seccomp filter, with the paths it opened
 * before and after, and the calls that failed (with their errno). Used to derive and check kbv-runner's allowlist on a real GPU
 * machine, where no strace is installed:
 *
 *   syscall_census [-o FILE] -- kbv eval runs/x --out r.jsonl
 *
 * Built by hand (cc -O2 -o syscall_census syscall_census.c -lseccomp); not
 * part of kbv. x86-64 only. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_NR 512
#define MAX_PROGS 32
#define MAX_TASKS 65536
#define MAX_PATHS 256
#define SYS_SECCOMP_NR 317
#define SYS_PRCTL_NR 157
#define SYS_OPENAT_NR 257
#define SYS_OPEN_NR 2

typedef struct prog {
    char name[64];
    unsigned long before[MAX_NR], after[MAX_NR];
    char paths[MAX_PATHS][160];    /* "before: PATH (flags)" or "after: ..." */
    int n_paths;
    char failures[MAX_PATHS][192]; /* calls that returned an error: "openat PATH -> errno" */
    int n_failures;
} prog;

typedef struct task {
    bool used, in_syscall;
    long nr;                 /* the call in progress */
    char path[128];          /* its path argument, for open calls */
    int prog;                /* index in progs */
    pid_t tgid;
} task;

static prog progs[MAX_PROGS];
static int n_progs;
static task tasks[MAX_TASKS];
static bool filtered[MAX_TASKS];   /* by tgid: a seccomp filter is installed */

static int prog_of(const char *name)
{
    for (int i = 0; i < n_progs; i++)
        if (!strcmp(progs[i].name, name))
            return i;
    if (n_progs == MAX_PROGS)
        return MAX_PROGS - 1;
    snprintf(progs[n_progs].name, sizeof progs[n_progs].name, "%s", name);
    return n_progs++;
}

static int prog_of_pid(pid_t pid)
{
    char link[64], exe[512];
    snprintf(link, sizeof link, "/proc/%d/exe", pid);
    ssize_t n = readlink(link, exe, sizeof exe - 1);
    if (n <= 0)
        return prog_of("?");
    exe[n] = '\0';
    const char *base = strrchr(exe, '/');
    return prog_of(base ? base + 1 : exe);
}

static pid_t tgid_of(pid_t tid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "r");
    pid_t tgid = tid;
    if (!f)
        return tid;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Tgid: %d", &tgid) == 1)
            break;
    fclose(f);
    return tgid;
}

static task *task_of(pid_t tid)
{
    if (tid <= 0 || tid >= MAX_TASKS)
        return NULL;
    task *t = &tasks[tid];
    if (!t->used) {
        t->used = true;
        t->in_syscall = false;
        t->tgid = tgid_of(tid);
        t->prog = prog_of_pid(t->tgid);
    }
    return t;
}

static void read_string(pid_t pid, unsigned long addr, char *buf, size_t cap)
{
    struct iovec local = {buf, cap - 1}, remote = {(void *)addr, cap - 1};
    ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
    if (n <= 0) {
        snprintf(buf, cap, "?");
        return;
    }
    buf[n] = '\0';
    buf[strnlen(buf, (size_t)n)] = '\0';
}

static void note_path(prog *p, bool after, const char *path, unsigned long flags)
{
    char entry[160];
    snprintf(entry, sizeof entry, "%s: %s (flags 0%lo)", after ? "after" : "before", path, flags);
    for (int i = 0; i < p->n_paths; i++)
        if (!strcmp(p->paths[i], entry))
            return;
    if (p->n_paths < MAX_PATHS)
        snprintf(p->paths[p->n_paths++], sizeof p->paths[0], "%s", entry);
}

static void on_entry(pid_t tid, task *t)
{
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0)
        return;
    unsigned long nr = regs.orig_rax;
    t->nr = (long)nr;
    t->path[0] = '\0';
    if (nr >= MAX_NR)
        return;
    prog *p = &progs[t->prog];
    bool after = t->tgid > 0 && t->tgid < MAX_TASKS && filtered[t->tgid];
    (after ? p->after : p->before)[nr]++;
    if (nr == SYS_OPENAT_NR || nr == SYS_OPEN_NR) {
        char path[128];
        read_string(tid, nr == SYS_OPENAT_NR ? regs.rsi : regs.rdi, path, sizeof path);
        note_path(p, after, path, nr == SYS_OPENAT_NR ? regs.rdx : regs.rsi);
        snprintf(t->path, sizeof t->path, "%s", path);
    }
    if ((nr == SYS_SECCOMP_NR || (nr == SYS_PRCTL_NR && regs.rdi == 22)) && t->tgid > 0 &&
        t->tgid < MAX_TASKS)
        filtered[t->tgid] = true;   /* counted from the next call on */
}

/* At the exit stop: a call that failed is noted once per (call, path, errno). */
static void on_exit_stop(pid_t tid, task *t)
{
    struct user_regs_struct regs;
    if (t->nr < 0 || t->nr >= MAX_NR || ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0)
        return;
    long ret = (long)regs.rax;
    if (ret >= 0 || ret < -4095)
        return;
    prog *p = &progs[t->prog];
    char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, (int)t->nr);
    char entry[192];
    snprintf(entry, sizeof entry, "%s %s -> %s", name ? name : "?", t->path, strerror((int)-ret));
    free(name);
    for (int i = 0; i < p->n_failures; i++)
        if (!strcmp(p->failures[i], entry))
            return;
    if (p->n_failures < MAX_PATHS)
        snprintf(p->failures[p->n_failures++], sizeof p->failures[0], "%s", entry);
}

static void report(FILE *out)
{
    for (int i = 0; i < n_progs; i++) {
        prog *p = &progs[i];
        fprintf(out, "== %s\n-- after seccomp:", p->name);
        for (int nr = 0; nr < MAX_NR; nr++) {
            if (!p->after[nr])
                continue;
            char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
            fprintf(out, " %s(%lu)", name ? name : "?", p->after[nr]);
            free(name);
        }
        fprintf(out, "\n-- before only:");
        for (int nr = 0; nr < MAX_NR; nr++) {
            if (!p->before[nr] || p->after[nr])
                continue;
            char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_X86_64, nr);
            fprintf(out, " %s", name ? name : "?");
            free(name);
        }
        fprintf(out, "\n-- opened:\n");
        for (int k = 0; k < p->n_paths; k++)
            fprintf(out, "   %s\n", p->paths[k]);
        fprintf(out, "-- failed:\n");
        for (int k = 0; k < p->n_failures; k++)
            fprintf(out, "   %s\n", p->failures[k]);
    }
}

int main(int argc, char **argv)
{
    const char *out_path = NULL;
    int a = 1;
    if (a + 1 < argc && !strcmp(argv[a], "-o")) {
        out_path = argv[a + 1];
        a += 2;
    }
    if (a < argc && !strcmp(argv[a], "--"))
        a++;
    if (a >= argc) {
        fprintf(stderr, "usage: syscall_census [-o FILE] -- COMMAND [ARGS...]\n");
        return 2;
    }
    pid_t child = fork();
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, 0, 0);
        raise(SIGSTOP);
        execvp(argv[a], argv + a);
        _exit(127);
    }
    int ws;
    waitpid(child, &ws, 0);
    ptrace(PTRACE_SETOPTIONS, child, 0,
           PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
               PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
    ptrace(PTRACE_SYSCALL, child, 0, 0);
    int status = 0;
    for (;;) {
        pid_t tid = waitpid(-1, &ws, __WALL);
        if (tid < 0) {
            if (errno == EINTR)
                continue;
            break;   /* ECHILD: everything has exited */
        }
        if (WIFEXITED(ws) || WIFSIGNALED(ws)) {
            if (tid == child)
                status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            if (tid > 0 && tid < MAX_TASKS)
                tasks[tid].used = false;
            continue;
        }
        task *t = task_of(tid);
        int sig = 0;
        if (WIFSTOPPED(ws)) {
            int s = WSTOPSIG(ws);
            unsigned event = (unsigned)ws >> 16;
            if (s == (SIGTRAP | 0x80)) {
                if (t) {
                    t->in_syscall = !t->in_syscall;
                    if (t->in_syscall)
                        on_entry(tid, t);
                    else
                        on_exit_stop(tid, t);
                }
            } else if (event == PTRACE_EVENT_EXEC) {
                if (t) {
                    t->prog = prog_of_pid(tid);
                    t->in_syscall = true;   /* the exec's exit stop follows */
                }
            } else if (event != 0) {
                /* fork, clone: the new task starts stopped and is seen on its own */
            } else if (s != SIGSTOP && s != SIGTRAP) {
                sig = s;   /* pass real signals on */
            }
        }
        ptrace(PTRACE_SYSCALL, tid, 0, sig);
    }
    FILE *out = out_path ? fopen(out_path, "w") : stdout;
    report(out ? out : stdout);
    if (out && out != stdout)
        fclose(out);
    return status;
}
