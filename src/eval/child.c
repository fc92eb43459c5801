/* The evaluator's side of the candidate process (see child.h, child_proto.h). */
#include "eval/child.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/paths.h"
#include "wire/child_proto.h"
#include "sandbox/filter.h"
#include "sandbox/profiles.h"
#include "sandbox/spawn.h"
#include "sandbox/workdir.h"

extern char **environ;

#define EXIT_GRACE_S 2.0      /* for a runner to exit once asked or once its socket closed */
#define MAX_ENV 256
#define RUNNER_NOFILE 256     /* descriptors the runner may hold (the CUDA driver opens a few) */

struct kbv_child {
    pid_t pid;                /* also the process group; -1 once reaped */
    int sock;
    uint32_t seq;
    int n_sets;
    double call_timeout_s;
    kbv_child_fault fault;    /* sticky: once set, every request returns it */
    char reason[KBV_PROTO_REASON_MAX];
    char dir[PATH_MAX];       /* the runner's private working directory */
    int err_fd;               /* read end of the runner's stdout and stderr */
    char output[KBV_CHILD_OUTPUT_CAP];  /* what it printed, the head kept */
    size_t output_len;
    size_t output_dropped;    /* bytes beyond the cap */
    double device_ms;         /* the calls' times the runner reported, summed */
    int pass_fd;              /* sent with the next message (SCM_RIGHTS), then -1 */
    bool ahead;               /* started by kbv_child_start_ahead, not set up yet */
    bool spawning;            /* its spawn begun, not yet ended (pending) */
    kbv_spawn_pending pending;
    int device;               /* what it was started for (ahead: checked when taken) */
    bool python;              /* ahead: for a KernelBench-format candidate (checked too) */
};

static const char *const fault_names[] = {
    [KBV_FAULT_NONE] = "none",       [KBV_FAULT_LOAD] = "load",
    [KBV_FAULT_RETURNED] = "returned", [KBV_FAULT_CRASH] = "crash",
    [KBV_FAULT_TIMEOUT] = "timeout", [KBV_FAULT_CUDA] = "cuda",
    [KBV_FAULT_HARNESS] = "harness",  [KBV_FAULT_SANDBOX] = "sandbox",
};
_Static_assert(sizeof fault_names / sizeof fault_names[0] == KBV_FAULT_COUNT,
               "one name per fault");

const char *kbv_child_fault_name(kbv_child_fault f)
{
    if ((unsigned)f >= KBV_FAULT_COUNT)
        return "unknown";
    return fault_names[f];
}

/* ---- the runner's path ------------------------------------------------ */

static pthread_once_t runner_once = PTHREAD_ONCE_INIT;
static char runner_path[PATH_MAX];

static void runner_path_init(void)
{
    if (kbv_runner_locate(runner_path, sizeof runner_path) != KBV_OK) {
        kbv_clear_error();   /* too long: starting it fails and names the path */
        snprintf(runner_path, sizeof runner_path, "kbv-runner");
    }
}

const char *kbv_runner_path(void)
{
    pthread_once(&runner_once, runner_path_init);
    return runner_path;
}

/* ---- small helpers ---------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static void set_fault(kbv_child *c, kbv_child_fault f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fault(kbv_child *c, kbv_child_fault f, const char *fmt, ...)
{
    if (c->fault != KBV_FAULT_NONE)
        return;  /* the first fault is the one that explains */
    c->fault = f;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->reason, sizeof c->reason, fmt, ap);
    va_end(ap);
}

static void result_reset(kbv_child_result *res)
{
    res->fault = KBV_FAULT_NONE;
    res->reason[0] = '\0';
    res->n_times = 0;
    res->wall_ms = 0;
    res->l2_persisting = 0;
    memset(&res->trace, 0, sizeof res->trace);
    memset(&res->python, 0, sizeof res->python);
}

static void result_fault(const kbv_child *c, kbv_child_result *res)
{
    res->fault = c->fault;
    snprintf(res->reason, sizeof res->reason, "%s", c->reason);
}

/* "killed by SIGSEGV" / "exited with status N" */
static void describe_status(int ws, char *buf, size_t cap)
{
    if (WIFSIGNALED(ws)) {
        const char *abbrev = sigabbrev_np(WTERMSIG(ws));
        if (abbrev)
            snprintf(buf, cap, "killed by SIG%s", abbrev);
        else
            snprintf(buf, cap, "killed by signal %d", WTERMSIG(ws));
    } else if (WIFEXITED(ws)) {
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(ws));
    } else {
        snprintf(buf, cap, "stopped (wait status 0x%x)", ws);
    }
}

/* Has the runner exited? Leaves it unreaped, so its pid still names the
 * process group for a final kill. */
static bool has_exited(pid_t pid)
{
    siginfo_t si;
    si.si_pid = 0;
    if (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return errno == ECHILD;
    return si.si_pid == pid;
}

/* Waits up to grace_s for the runner to exit by itself, then kills its
 * process group (whatever the candidate left running in it goes too) and
 * reaps. Returns the wait status; *exited_itself says whether it had to be
 * killed. */
static int kill_and_reap(kbv_child *c, double grace_s, bool *exited_itself)
{
    int ws = 0;
    bool itself = false;
    if (c->pid <= 0) {
        if (exited_itself)
            *exited_itself = true;
        return 0;
    }
    double deadline = now_s() + grace_s;
    for (;;) {
        if (has_exited(c->pid)) {
            itself = true;
            break;
        }
        if (now_s() >= deadline)
            break;
        sleep_ms(2);
    }
    kill(-c->pid, SIGKILL);
    while (waitpid(c->pid, &ws, 0) < 0 && errno == EINTR)
        ;
    c->pid = -1;
    if (exited_itself)
        *exited_itself = itself;
    return ws;
}

/* The runner closed its socket (or it broke): it crashed or exited. */
static void runner_gone(kbv_child *c, const char *when)
{
    bool itself;
    int ws = kill_and_reap(c, EXIT_GRACE_S, &itself);
    char what[128];
    if (itself && WIFSIGNALED(ws) && WTERMSIG(ws) == SIGSYS) {
        /* the filter's SIGSYS with SIGSYS blocked: the kernel kills instead
         * of calling the handler (posix_spawn and system() block every
         * signal around their clone), so which call it was is not known */
        set_fault(c, KBV_FAULT_SANDBOX, "the candidate made a system call the sandbox forbids "
                  "(killed by SIGSYS, which it had blocked) %s", when);
        return;
    }
    if (itself)
        describe_status(ws, what, sizeof what);
    else
        snprintf(what, sizeof what, "closed its connection without exiting");
    set_fault(c, KBV_FAULT_CRASH, "%s %s", what, when);
}

/* ---- what the runner prints ------------------------------------------- */

/* Reads whatever the runner wrote to stdout and stderr, keeping the head. */
static void drain_output(kbv_child *c)
{
    if (c->err_fd < 0)
        return;
    for (;;) {
        char chunk[4096];
        ssize_t n = read(c->err_fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;   /* EAGAIN: nothing more now; 0: the runner is gone */
        size_t room = sizeof c->output - 1 - c->output_len;
        size_t keep = (size_t)n < room ? (size_t)n : room;
        memcpy(c->output + c->output_len, chunk, keep);
        c->output_len += keep;
        c->output[c->output_len] = '\0';
        c->output_dropped += (size_t)n - keep;
    }
}

double kbv_child_device_ms(const kbv_child *c)
{
    return c ? c->device_ms : 0;
}

const char *kbv_child_output(kbv_child *c, size_t *dropped)
{
    if (!c) {
        if (dropped)
            *dropped = 0;
        return "";
    }
    drain_output(c);
    if (dropped)
        *dropped = c->output_dropped;
    return c->output;
}

/* ---- one exchange ----------------------------------------------------- */

static const char *type_name(uint32_t type)
{
    switch (type) {
    case KBV_MSG_SETUP: return "during load";
    case KBV_MSG_PREPARE: return "in kbv_prepare";
    case KBV_MSG_CALL: return "in kbv_forward";
    case KBV_MSG_TRACE: return "in kbv_forward (traced)";
    case KBV_MSG_MEMORY: return "during a memory query";
    case KBV_MSG_EXIT: return "in kbv_finish";
    default: return "";
    }
}

/* Sends msg (whose header is filled here) and waits up to timeout_s for the
 * reply. Every failure becomes the child's fault; a fault already present
 * means no I/O at all. */
/* send(), with fd (when not -1) passed along as SCM_RIGHTS. */
static ssize_t send_with_fd(int sock, const void *msg, size_t len, int fd, int flags)
{
    if (fd < 0)
        return send(sock, msg, len, MSG_NOSIGNAL | flags);
    struct iovec iov = {.iov_base = (void *)msg, .iov_len = len};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    memset(&ctl, 0, sizeof ctl);
    struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
                        .msg_controllen = sizeof ctl.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    return sendmsg(sock, &mh, MSG_NOSIGNAL | flags);
}

/* Sends one message whose header is filled here (seq: the request's), before
 * the deadline; a runner that stops reading cannot hold the evaluator. On
 * failure the child has its fault and false is returned. */
static bool send_msg(kbv_child *c, void *msg, size_t len, uint32_t type, uint32_t seq,
                     uint32_t request_type, double deadline)
{
    kbv_proto_header *h = msg;
    h->magic = KBV_PROTO_MAGIC;
    h->version = KBV_PROTO_VERSION;
    h->type = type;
    h->seq = seq;
    for (;;) {
        ssize_t n = send_with_fd(c->sock, msg, len, c->pass_fd, MSG_DONTWAIT);
        if (n == (ssize_t)len) {
            c->pass_fd = -1;   /* sent with this message */
            return true;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            double left = deadline - now_s();
            if (left <= 0) {
                kill_and_reap(c, 0, NULL);
                set_fault(c, KBV_FAULT_TIMEOUT, "the runner took no message for a while %s",
                          type_name(request_type));
                return false;
            }
            struct pollfd pfd[2] = {{.fd = c->sock, .events = POLLOUT},
                                    {.fd = c->err_fd, .events = POLLIN}};
            if (poll(pfd, c->err_fd >= 0 ? 2 : 1, (int)(left * 1000.0) + 1) > 0 &&
                c->err_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)))
                drain_output(c);
            continue;
        }
        if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
            runner_gone(c, type_name(request_type));
            return false;
        }
        int err = n < 0 ? errno : EMSGSIZE;
        kill_and_reap(c, 0, NULL);
        set_fault(c, KBV_FAULT_HARNESS, "cannot send to the runner: %s", strerror(err));
        return false;
    }
}

static void await_reply(kbv_child *c, uint32_t type, double timeout_s, double deadline,
                        kbv_proto_reply *rep);


static void exchange(kbv_child *c, void *msg, size_t len, uint32_t type, double timeout_s,
                     kbv_proto_reply *rep)
{
    if (c->fault != KBV_FAULT_NONE)
        return;
    double deadline = now_s() + timeout_s;
    if (send_msg(c, msg, len, type, ++c->seq, type, deadline))
        await_reply(c, type, timeout_s, deadline, rep);
}

/* The setup and the tensor table after it, then the one reply. */
static void exchange_setup(kbv_child *c, kbv_proto_setup *setup, const kbv_proto_tensor *table,
                           int n_table, double timeout_s, kbv_proto_reply *rep)
{
    if (c->fault != KBV_FAULT_NONE)
        return;
    double deadline = now_s() + timeout_s;
    uint32_t seq = ++c->seq;
    if (!send_msg(c, setup, sizeof *setup, KBV_MSG_SETUP, seq, KBV_MSG_SETUP, deadline))
        return;
    kbv_proto_tensors *msg = calloc(1, sizeof *msg);
    if (!msg) {
        kill_and_reap(c, 0, NULL);
        set_fault(c, KBV_FAULT_HARNESS, "no memory for the tensor table");
        return;
    }
    bool sent = true;
    for (int first = 0; sent && first < n_table; first += KBV_PROTO_TENSORS_PER_MSG) {
        int count = n_table - first < KBV_PROTO_TENSORS_PER_MSG ? n_table - first
                                                                : KBV_PROTO_TENSORS_PER_MSG;
        memset(msg, 0, sizeof *msg);
        msg->first = first;
        msg->count = count;
        memcpy(msg->t, table + first, sizeof msg->t[0] * (size_t)count);
        sent = send_msg(c, msg, sizeof *msg, KBV_MSG_TENSORS, seq, KBV_MSG_SETUP, deadline);
    }
    free(msg);
    if (sent)
        await_reply(c, KBV_MSG_SETUP, timeout_s, deadline, rep);
}

/* Waits for the reply to request `type` until the deadline. */
static void await_reply(kbv_child *c, uint32_t type, double timeout_s, double deadline,
                        kbv_proto_reply *rep)
{
    for (;;) {
        double left = deadline - now_s();
        if (left <= 0) {
            kill_and_reap(c, 0, NULL);
            set_fault(c, KBV_FAULT_TIMEOUT, "no answer in %g s %s", timeout_s, type_name(type));
            return;
        }
        struct pollfd pfd[2] = {{.fd = c->sock, .events = POLLIN},
                                {.fd = c->err_fd, .events = POLLIN}};
        int pr = poll(pfd, c->err_fd >= 0 ? 2 : 1, (int)(left * 1000.0) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr < 0) {
            int err = errno;
            kill_and_reap(c, 0, NULL);
            set_fault(c, KBV_FAULT_HARNESS, "poll: %s", strerror(err));
            return;
        }
        if (c->err_fd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)))
            drain_output(c);
        if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        ssize_t n = recv(c->sock, rep, sizeof *rep, MSG_TRUNC);
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || (n < 0 && errno == ECONNRESET)) {
            runner_gone(c, type_name(type));
            return;
        }
        if (n < 0) {
            int err = errno;
            kill_and_reap(c, 0, NULL);
            set_fault(c, KBV_FAULT_HARNESS, "recv: %s", strerror(err));
            return;
        }
        if ((size_t)n != sizeof *rep || rep->h.magic != KBV_PROTO_MAGIC ||
            rep->h.version != KBV_PROTO_VERSION || rep->h.type != KBV_MSG_REPLY ||
            rep->h.seq != c->seq || rep->fault < 0 || rep->fault >= KBV_FAULT_COUNT ||
            rep->n_times < 0 || rep->n_times > KBV_CHILD_MAX_CALLS) {
            kill_and_reap(c, 0, NULL);
            set_fault(c, KBV_FAULT_HARNESS, "the runner sent a malformed reply (%zd bytes) %s",
                      n, type_name(type));
            return;
        }
        rep->reason[sizeof rep->reason - 1] = '\0';
        if (rep->sandbox_denied > 0) {
            /* the call never ran, but a candidate that tries it is not kept */
            char name[64], path[sizeof rep->sandbox_path + 8] = "";
            rep->sandbox_path[sizeof rep->sandbox_path - 1] = '\0';
            for (char *q = rep->sandbox_path; *q; q++)   /* the candidate's bytes: printable */
                if ((unsigned char)*q < 0x20 || (unsigned char)*q > 0x7e)
                    *q = '?';
            if (rep->sandbox_path[0])
                snprintf(path, sizeof path, " (%s)", rep->sandbox_path);
            kill_and_reap(c, 0, NULL);
            set_fault(c, KBV_FAULT_SANDBOX, "the candidate called %s%s, which the sandbox forbids "
                      "(%d forbidden call%s, none of them run)",
                      kbv_syscall_name(rep->sandbox_syscall, name, sizeof name), path,
                      rep->sandbox_denied, rep->sandbox_denied == 1 ? "" : "s");
            return;
        }
        if (rep->fault != KBV_FAULT_NONE)
            set_fault(c, (kbv_child_fault)rep->fault, "%s", rep->reason);
        return;
    }
}

/* ---- start ------------------------------------------------------------ */

static kbv_status tensor_to_wire(const kbv_tensor *t, kbv_proto_tensor *w, size_t arena_bytes)
{
    memset(w, 0, sizeof *w);
    if (t->ndim < 0 || t->ndim > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "tensor %s: ndim %d", t->name ? t->name : "?", t->ndim);
    w->offset = (uint64_t)(uintptr_t)t->data;
    if (w->offset >= arena_bytes)
        return kbv_fail(KBV_ERR_INVALID, "tensor %s: offset %llu outside the arena (%zu bytes)",
                        t->name ? t->name : "?", (unsigned long long)w->offset, arena_bytes);
    w->dtype = (int32_t)t->dtype;
    w->ndim = t->ndim;
    memcpy(w->shape, t->shape, sizeof w->shape);
    memcpy(w->stride, t->stride, sizeof w->stride);
    const char *name = t->name ? t->name : "";
    if (strlen(name) >= sizeof w->name)
        return kbv_fail(KBV_ERR_INVALID, "tensor name too long for the runner: %s", name);
    memcpy(w->name, name, strlen(name) + 1);
    return KBV_OK;
}

static kbv_status build_setup(const kbv_child_spec *spec, kbv_proto_setup *s)
{
    const kbv_child_layout *l = spec->layout;
    const kbv_arena *a = spec->arena;
    memset(s, 0, sizeof *s);
    int64_t total = (int64_t)l->n_sets * l->n_inputs + l->n_params + l->n_outputs;
    if (l->n_sets < 1 || l->n_sets > KBV_CHILD_MAX_SETS || l->n_inputs < 0 || l->n_params < 0 ||
        l->n_outputs < 1 || total > KBV_PROTO_SANE_TENSORS)
        return kbv_fail(KBV_ERR_INVALID, "child layout: %d sets, %d inputs, %d params, %d outputs",
                        l->n_sets, l->n_inputs, l->n_params, l->n_outputs);
    s->device = spec->device;
    s->parent_pid = (int32_t)getpid();
    s->arena_bytes = a->bytes;
    s->flush_bytes = spec->flush_bytes;
    s->vendor_libs = spec->vendor_libs;
    for (int i = 0; i < spec->n_kernels && i < KBV_PROTO_MAX_KERNELS; i++)
        s->kernels[s->n_kernels++] = spec->kernels[i];
    memcpy(s->ipc, a->ipc, sizeof s->ipc);
    if (spec->python_init &&
        snprintf(s->python_init, sizeof s->python_init, "%s", spec->python_init) >=
            (int)sizeof s->python_init)
        return kbv_fail(KBV_ERR_INVALID, "the init inputs exceed %d bytes",
                        KBV_PROTO_PYTHON_INIT_MAX);
    /* s->candidate: the copy in the runner's private directory (kbv_child_start) */
    s->n_inputs = l->n_inputs;
    s->n_params = l->n_params;
    s->n_outputs = l->n_outputs;
    s->n_sets = l->n_sets;
    return KBV_OK;
}

/* The tensor table that follows the setup: input sets, params, outputs. */
static kbv_status build_table(const kbv_child_spec *spec, kbv_proto_tensor **out, int *n)
{
    const kbv_child_layout *l = spec->layout;
    int n_in = l->n_sets * l->n_inputs;
    *n = n_in + l->n_params + l->n_outputs;
    kbv_proto_tensor *t = calloc((size_t)*n + 1, sizeof *t);
    if (!t)
        return kbv_fail(KBV_ERR_NOMEM, "tensor table of %d entries", *n);
    kbv_status st = KBV_OK;
    for (int i = 0; i < n_in && st == KBV_OK; i++)
        st = tensor_to_wire(&l->inputs[i], &t[i], spec->arena->bytes);
    for (int i = 0; i < l->n_params && st == KBV_OK; i++)
        st = tensor_to_wire(&l->params[i], &t[n_in + i], spec->arena->bytes);
    for (int i = 0; i < l->n_outputs && st == KBV_OK; i++)
        st = tensor_to_wire(&l->outputs[i], &t[n_in + l->n_params + i], spec->arena->bytes);
    if (st != KBV_OK) {
        free(t);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    *out = t;
    return KBV_OK;
}

static bool env_kept(const char *kv)
{
    static const char *const exact[] = {"PATH", "HOME", "LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES",
                                        "KBV_SANDBOX"};
    size_t len = strcspn(kv, "=");
    if (kv[len] != '=')
        return false;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (strlen(exact[i]) == len && strncmp(kv, exact[i], len) == 0)
            return true;
    return strncmp(kv, "CUDA_", 5) == 0;
}

/* Copies one file of the compile cache to `to` (created, read-only). */
static kbv_status copy_file(const char *from, const char *to)
{
    kbv_status st = KBV_OK;
    int in = -1, out = -1;
    in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return kbv_fail(KBV_ERR_IO, "cannot read %s: %s", from, strerror(errno));
    out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0500);
    if (out < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot write %s: %s", to, strerror(errno));
    char buf[1 << 16];
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading %s: %s", from, strerror(errno));
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s: %s", to, strerror(errno));
            off += w;
        }
    }
done:
    if (in >= 0)
        close(in);
    if (out >= 0 && close(out) != 0 && st == KBV_OK)
        st = kbv_fail(KBV_ERR_IO, "writing %s: %s", to, strerror(errno));
    return st;
}

/* A KernelBench-format file's extensions, built by the compile step beside
 * it (ext/<key>.so), into dir/ext. */
static kbv_status copy_extensions(const char *from, const char *dir)
{
    kbv_status st = KBV_OK;
    char src_dir[PATH_MAX], dst_dir[PATH_MAX], a[PATH_MAX + 256], b[PATH_MAX + 256];
    const char *slash = strrchr(from, '/');
    int n = slash ? (int)(slash - from) : 0;
    if (snprintf(src_dir, sizeof src_dir, "%.*s/ext", n, from) >= (int)sizeof src_dir ||
        snprintf(dst_dir, sizeof dst_dir, "%s/ext", dir) >= (int)sizeof dst_dir)
        return kbv_fail(KBV_ERR_INVALID, "path too long: %s", from);
    DIR *d = opendir(src_dir);
    if (!d)
        return KBV_OK;   /* a file that builds nothing */
    if (mkdir(dst_dir, 0700) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "mkdir %s: %s", dst_dir, strerror(errno));
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") || e->d_name[0] == '.')
            continue;
        snprintf(a, sizeof a, "%s/%s", src_dir, e->d_name);
        snprintf(b, sizeof b, "%s/%s", dst_dir, e->d_name);
        KBV_TRY_GOTO(copy_file(a, b), st, done);
    }
done:
    closedir(d);
    return st;
}

/* Copies the compiled candidate into the runner's private directory: the
 * runner sees that copy, never the compile cache it came from. A
 * KernelBench-format file keeps its name's extension (the runner hosts it)
 * and brings its built extensions. */
static kbv_status copy_candidate(const char *from, const char *dir, char *to, size_t cap)
{
    const bool python = kbv_proto_is_python_candidate(from);
    if (snprintf(to, cap, "%s/candidate.%s", dir, python ? "py" : "so") >= (int)cap)
        return kbv_fail(KBV_ERR_INVALID, "private directory path too long: %s", dir);
    KBV_TRY(copy_file(from, to));
    return python ? copy_extensions(from, dir) : KBV_OK;
}

/* Starts the runner confined: stdin /dev/null, stdout and stderr into the
 * capture pipe, the protocol socket on fd 3, the arena's descriptor (when
 * there is one) on fd 4, nothing else. */
static kbv_status spawn_runner(kbv_child *c, const char *runner, int device, int arena_fd,
                               int sock, int out_w, char *const envp[])
{
    kbv_status st = KBV_OK;
    kbv_policy policy = {0};
    KBV_TRY_GOTO(kbv_profile_runner(&policy, runner, c->dir, device >= 0), st, done);
    int fds[5] = {-1, out_w, out_w, sock, arena_fd};
    /* started ahead: it brings CUDA up (on a GPU) and the interpreter with
     * torch (for a KernelBench-format candidate) while it waits for its setup */
    char ordinal[16];
    snprintf(ordinal, sizeof ordinal, "%d", device);
    char *const argv_plain[] = {(char *)runner, NULL};
    char *const argv_warm[] = {(char *)runner, KBV_RUNNER_WARM_ARG, ordinal,
                               c->python ? KBV_RUNNER_WARM_PYTHON : NULL, NULL};
    char *const *argv = c->ahead ? argv_warm : argv_plain;
    kbv_spawn sp = {.path = runner, .argv = argv, .envp = envp, .policy = &policy,
                    .cwd = c->dir, .fds = fds, .n_fds = arena_fd >= 0 ? 5 : 4,
                    .own_group = true, .die_with_parent = true,
                    .limit_nofile = RUNNER_NOFILE};
    if (c->ahead) {
        /* it confines itself and execs while the evaluator goes on: ended
         * when it is taken (or stopped) */
        KBV_TRY_GOTO(kbv_sandbox_spawn_begin(&sp, &c->pending), st, done);
        c->spawning = true;
        c->pid = c->pending.pid;
    } else {
        KBV_TRY_GOTO(kbv_sandbox_spawn(&sp, &c->pid), st, done);
    }
    setpgid(c->pid, c->pid);  /* also here, so a kill(-pid) right away cannot miss */
done:
    kbv_policy_free(&policy);
    return st;
}

/* A spawn begun ahead, ended after its runner was killed (the staging
 * directory removed, the report pipe closed). */
static void spawn_abandon(kbv_child *c)
{
    if (!c->spawning)
        return;
    pid_t ignored;
    if (kbv_sandbox_spawn_end(&c->pending, &ignored) != KBV_OK)
        kbv_clear_error();
    c->spawning = false;
}

/* Kills and reaps its runner (if any), closes its descriptors, removes its
 * private directory, frees it. */
static void child_discard(kbv_child *c)
{
    if (!c)
        return;
    kill_and_reap(c, 0, NULL);
    spawn_abandon(c);
    if (c->sock >= 0)
        close(c->sock);
    if (c->err_fd >= 0)
        close(c->err_fd);
    if (c->dir[0])
        kbv_sandbox_remove_dir(c->dir);
    free(c);
}

/* A child with its private directory, no runner yet. */
static kbv_status child_new(int device, kbv_child **out)
{
    *out = NULL;
    kbv_child *c = calloc(1, sizeof *c);
    if (!c)
        return kbv_fail(KBV_ERR_NOMEM, "child state");
    c->pid = -1;
    c->sock = -1;
    c->err_fd = -1;
    c->pass_fd = -1;
    c->device = device;
    kbv_status st = kbv_sandbox_private_dir(c->dir, sizeof c->dir);
    if (st != KBV_OK) {
        free(c);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    *out = c;
    return KBV_OK;
}

/* The runner path as given (NULL: kbv_runner_path()), resolved. */
static kbv_status runner_resolve(const char *given, char runner[PATH_MAX])
{
    const char *arg = given ? given : kbv_runner_path();
    if (!realpath(arg, runner) || access(runner, X_OK) != 0)
        return kbv_fail(KBV_ERR_NOT_FOUND, "runner %s: %s (set KBV_RUNNER)", arg,
                        strerror(errno));
    return KBV_OK;
}

/* Starts c's runner: its socket and capture pipe made, the arena's
 * descriptor on fd 4 when arena_fd is not -1. */
static kbv_status child_spawn(kbv_child *c, const char *runner, int arena_fd)
{
    kbv_status st = KBV_OK;
    int sv[2] = {-1, -1}, op[2] = {-1, -1};
    const char *envp[MAX_ENV + 2];
    int n_env = 0;
    for (char **e = environ; *e && n_env < MAX_ENV; e++)
        if (env_kept(*e))
            envp[n_env++] = *e;
    envp[n_env++] = "CUDA_CACHE_DISABLE=1";   /* no JIT cache: the home is not there */
    envp[n_env] = NULL;

    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "socketpair: %s", strerror(errno));
    /* the runner's writes never block: what the pipe cannot take is dropped */
    if (pipe2(op, O_CLOEXEC) != 0 || fcntl(op[1], F_SETFL, O_NONBLOCK) != 0 ||
        fcntl(op[0], F_SETFL, O_NONBLOCK) != 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "pipe: %s", strerror(errno));
    KBV_TRY_GOTO(spawn_runner(c, runner, c->device, arena_fd, sv[1], op[1],
                              (char *const *)envp),
                 st, done);
    c->sock = sv[0];
    sv[0] = -1;
    c->err_fd = op[0];
    op[0] = -1;
done:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (op[i] >= 0)
            close(op[i]);
    }
    return st;
}

kbv_status kbv_child_start_ahead(const char *runner_given, int device, bool python,
                                 kbv_child **out)
{
    char runner[PATH_MAX];
    kbv_child *c = NULL;
    *out = NULL;
    KBV_TRY(runner_resolve(runner_given, runner));
    KBV_TRY(child_new(device, &c));
    c->ahead = true;
    c->python = python;
    kbv_status st = child_spawn(c, runner, -1);
    if (st != KBV_OK) {
        child_discard(c);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    *out = c;
    return KBV_OK;
}

/* spec's runner started ahead, when it can serve: for this device and this
 * kind of candidate (torch up in it or not), and still there. One that
 * cannot is stopped. */
static kbv_child *take_ahead(const kbv_child_spec *spec)
{
    kbv_child *a = spec->ahead;
    if (!a)
        return NULL;
    if (a->spawning) {
        /* it has long exec'd, as a rule: this returns at once */
        pid_t pid;
        kbv_status st = kbv_sandbox_spawn_end(&a->pending, &pid);
        a->spawning = false;
        if (st != KBV_OK) {
            kbv_clear_error();   /* a fresh one is started instead, and says why */
            a->pid = -1;         /* reaped by the end */
        }
    }
    if (a->ahead && a->device == spec->device &&
        a->python == kbv_proto_is_python_candidate(spec->candidate) && a->pid > 0 &&
        a->fault == KBV_FAULT_NONE && !has_exited(a->pid)) {
        a->ahead = false;
        return a;
    }
    child_discard(a);
    return NULL;
}

kbv_status kbv_child_start(const kbv_child_spec *spec, kbv_child **out, kbv_child_result *res)
{
    kbv_status st = KBV_OK;
    kbv_child *c = NULL;
    kbv_proto_setup *setup = NULL;
    kbv_proto_tensor *table = NULL;
    int n_table = 0;
    double t0 = now_s();
    char runner[PATH_MAX];

    *out = NULL;
    result_reset(res);
    if (!spec || !spec->candidate || !spec->arena || !spec->layout) {
        child_discard(spec ? spec->ahead : NULL);
        return kbv_fail(KBV_ERR_INVALID, "kbv_child_start: incomplete spec");
    }
    c = take_ahead(spec);
    if (spec->device < 0 && spec->arena->fd < 0)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_INVALID, "kbv_child_start: a CPU run needs a memfd arena");
    if (!c) {
        KBV_TRY_GOTO(runner_resolve(spec->runner, runner), st, fail);
        KBV_TRY_GOTO(child_new(spec->device, &c), st, fail);
    }
    setup = malloc(sizeof *setup);
    if (!setup)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_NOMEM, "child state");
    c->n_sets = spec->layout->n_sets;
    c->call_timeout_s = spec->call_timeout_s > 0 ? spec->call_timeout_s : 60.0;
    KBV_TRY_GOTO(build_setup(spec, setup), st, fail);
    KBV_TRY_GOTO(build_table(spec, &table, &n_table), st, fail);
    if (access(spec->candidate, R_OK) != 0) {
        /* like a candidate that does not load: a fault, not kbv's error */
        set_fault(c, KBV_FAULT_LOAD, "cannot read the candidate %s: %s", spec->candidate,
                  strerror(errno));
        result_fault(c, res);
        *out = c;
        c = NULL;
        goto fail;
    }
    KBV_TRY_GOTO(copy_candidate(spec->candidate, c->dir, setup->candidate,
                                sizeof setup->candidate), st, fail);
    if (c->pid > 0)
        c->pass_fd = spec->arena->fd;   /* started ahead: the arena goes with the setup */
    else
        KBV_TRY_GOTO(child_spawn(c, runner, spec->arena->fd), st, fail);

    kbv_proto_reply rep;
    double start_timeout = spec->start_timeout_s > 0 ? spec->start_timeout_s : 60.0;
    exchange_setup(c, setup, table, n_table, start_timeout, &rep);
    c->pass_fd = -1;
    if (c->fault != KBV_FAULT_NONE) {
        result_fault(c, res);
    } else {
        res->python = rep.python;
        res->python.torch_patched[sizeof res->python.torch_patched - 1] = '\0';
    }
    res->wall_ms = (now_s() - t0) * 1e3;
    *out = c;
    c = NULL;
fail:
    child_discard(c);
    free(setup);
    free(table);
    return st;
}

/* ---- requests --------------------------------------------------------- */

static void request(kbv_child *c, uint32_t type, int set, int n_calls, bool flush,
                    int noise_us, kbv_proto_reply *rep, kbv_child_result *res)
{
    double t0 = now_s();
    kbv_proto_request req;
    memset(&req, 0, sizeof req);
    req.set = set;
    req.n_calls = n_calls;
    req.flush = flush;
    req.noise_us = noise_us;
    rep->n_times = 0;
    rep->peak_bytes = 0;
    exchange(c, &req, sizeof req, type, c->call_timeout_s, rep);
    res->wall_ms = (now_s() - t0) * 1e3;
    if (c->fault != KBV_FAULT_NONE) {
        result_fault(c, res);
        return;
    }
    res->n_times = rep->n_times;
    memcpy(res->times_ms, rep->times_ms, sizeof res->times_ms[0] * (size_t)rep->n_times);
    for (int i = 0; i < rep->n_times; i++)
        c->device_ms += rep->times_ms[i];
    res->l2_persisting = rep->l2_persisting;
    res->python = rep->python;
    res->python.torch_patched[sizeof res->python.torch_patched - 1] = '\0';
    if (type == KBV_MSG_TRACE) {
        res->trace = rep->trace;
        kbv_child_trace *t = &res->trace;
        /* the runner's numbers bound what is read from them */
        if (t->n_names < 0 || t->n_names > KBV_TRACE_MAX_NAMES)
            t->n_names = 0;
        if (t->calls < 0 || t->calls > KBV_CHILD_MAX_CALLS)
            t->calls = 0;
        for (int i = 0; i < KBV_TRACE_MAX_NAMES; i++)
            t->names[i][KBV_TRACE_NAME_MAX - 1] = '\0';
        t->first_offender[KBV_TRACE_NAME_MAX - 1] = '\0';
    }
}

kbv_status kbv_child_prepare(kbv_child *c, kbv_child_result *res)
{
    result_reset(res);
    if (!c)
        return kbv_fail(KBV_ERR_INVALID, "kbv_child_prepare: no child");
    kbv_proto_reply rep;
    request(c, KBV_MSG_PREPARE, 0, 0, false, 0, &rep, res);
    return KBV_OK;
}

/* CALL and TRACE: n_calls calls on input set `set`. */
static kbv_status calls(kbv_child *c, uint32_t type, int set, int n_calls, bool flush,
                        int noise_us, kbv_child_result *res)
{
    result_reset(res);
    if (!c)
        return kbv_fail(KBV_ERR_INVALID, "kbv_child_call: no child");
    if (set < 0 || set >= c->n_sets)
        return kbv_fail(KBV_ERR_INVALID, "kbv_child_call: input set %d of %d", set, c->n_sets);
    if (n_calls < 1 || n_calls > KBV_CHILD_MAX_CALLS)
        return kbv_fail(KBV_ERR_INVALID, "kbv_child_call: %d calls (1..%d)", n_calls,
                        KBV_CHILD_MAX_CALLS);
    kbv_proto_reply rep;
    request(c, type, set, n_calls, flush, noise_us, &rep, res);
    if (res->fault == KBV_FAULT_NONE && res->n_times != n_calls) {
        kill_and_reap(c, 0, NULL);
        set_fault(c, KBV_FAULT_HARNESS, "the runner timed %d calls of %d", res->n_times, n_calls);
        result_fault(c, res);
    }
    return KBV_OK;
}

kbv_status kbv_child_call(kbv_child *c, int set, int n_calls, bool flush, kbv_child_result *res)
{
    return calls(c, KBV_MSG_CALL, set, n_calls, flush, 0, res);
}

kbv_status kbv_child_call_noisy(kbv_child *c, int set, int n_calls, int noise_us,
                                kbv_child_result *res)
{
    return calls(c, KBV_MSG_CALL, set, n_calls, false, noise_us < 0 ? 0 : noise_us, res);
}

kbv_status kbv_child_trace_calls(kbv_child *c, int set, int n_calls, kbv_child_result *res)
{
    return calls(c, KBV_MSG_TRACE, set, n_calls, false, 0, res);
}

kbv_status kbv_child_memory(kbv_child *c, size_t *peak_bytes, kbv_child_result *res)
{
    result_reset(res);
    *peak_bytes = 0;
    if (!c)
        return kbv_fail(KBV_ERR_INVALID, "kbv_child_memory: no child");
    kbv_proto_reply rep;
    request(c, KBV_MSG_MEMORY, 0, 0, false, 0, &rep, res);
    if (res->fault == KBV_FAULT_NONE)
        *peak_bytes = (size_t)rep.peak_bytes;
    return KBV_OK;
}

void kbv_child_stop(kbv_child *c)
{
    if (!c)
        return;
    if (c->pid > 0 && c->fault == KBV_FAULT_NONE && c->sock >= 0 && !c->ahead) {
        /* a healthy runner gets to call kbv_finish and exit by itself (one
         * started ahead and never set up has loaded nothing: no grace) */
        kbv_proto_request req;
        memset(&req, 0, sizeof req);
        req.h.magic = KBV_PROTO_MAGIC;
        req.h.version = KBV_PROTO_VERSION;
        req.h.type = KBV_MSG_EXIT;
        req.h.seq = ++c->seq;
        double grace = c->call_timeout_s < EXIT_GRACE_S ? EXIT_GRACE_S : c->call_timeout_s;
        if (send(c->sock, &req, sizeof req, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof req)
            kill_and_reap(c, grace, NULL);
    }
    kill_and_reap(c, 0, NULL);  /* faulted or unresponsive: no grace */
    spawn_abandon(c);
    if (c->sock >= 0)
        close(c->sock);
    if (c->err_fd >= 0)
        close(c->err_fd);
    if (c->dir[0])
        (void)kbv_sandbox_remove_dir(c->dir);  /* best effort: stop cannot fail */
    free(c);
}
