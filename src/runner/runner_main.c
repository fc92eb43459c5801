/* kbv-runner: the candidate process. Started by eval/child.c with the
 * protocol socket on fd 3 (and on CPU runs the arena memfd on fd 4); loads
 * one candidate and runs it on request until told to exit. Everything the
 * candidate does wrong is answered as a fault in a reply; if the candidate
 * kills this process, the evaluator sees the socket close. */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "runner/runner.h"
#include "runner/runner_python.h"
#include "runner/runner_vendor.h"
#include "runner/runner_sandbox.h"

/* Under AddressSanitizer the runner must die of a candidate's SIGSEGV like
 * any process would (the evaluator reports the signal), and CUDA needs the
 * shadow gap. The sanitizer runtime looks this function up by name. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0:"
           "detect_leaks=0:protect_shadow_gap=0";
}

static int dtype_size(int32_t dtype)
{
    switch (dtype) {
    case KBV_F32: case KBV_I32: return 4;
    case KBV_F64: case KBV_I64: return 8;
    case KBV_F16: case KBV_BF16: return 2;
    case KBV_BOOL: return 1;
    default: return 0;
    }
}

static void reason_set(char *reason, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reason_set(char *reason, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, RUNNER_REASON_CAP, fmt, ap);
    va_end(ap);
}

/* ---- env->alloc ------------------------------------------------------- */

static void *env_alloc(const kbv_env *env, size_t bytes)
{
    runner *r = env->opaque;
    if (r->n_scratch == r->cap_scratch) {
        int cap = r->cap_scratch ? 2 * r->cap_scratch : 64;
        scratch_block *grown = realloc(r->scratch, (size_t)cap * sizeof *grown);
        if (!grown)
            return NULL;
        r->scratch = grown;
        r->cap_scratch = cap;
    }
    void *p = r->dev->alloc(r, bytes ? bytes : 1);
    if (!p)
        return NULL;
    size_t counted = runner_round512(bytes ? bytes : 1);
    r->scratch[r->n_scratch++] = (scratch_block){p, counted};
    r->scratch_live += counted;
    if (r->scratch_live > r->scratch_peak)
        r->scratch_peak = r->scratch_live;
    return p;
}

static void env_release(const kbv_env *env, void *ptr)
{
    runner *r = env->opaque;
    if (!ptr)
        return;
    for (int i = 0; i < r->n_scratch; i++) {
        if (r->scratch[i].ptr == ptr) {
            r->scratch_live -= r->scratch[i].bytes;
            r->scratch[i] = r->scratch[--r->n_scratch];
            r->dev->release(r, ptr);
            return;
        }
    }
    /* not ours: ignored rather than handed to free() */
}

/* ---- setup ------------------------------------------------------------ */

static kbv_child_fault tensor_from_wire(runner *r, const kbv_proto_tensor *w, kbv_tensor *t,
                                        size_t *bytes, char *reason)
{
    int esize = dtype_size(w->dtype);
    if (esize == 0 || w->ndim < 0 || w->ndim > KBV_MAX_DIMS) {
        reason_set(reason, "setup: tensor %.64s has dtype %d, ndim %d", w->name, w->dtype,
                   w->ndim);
        return KBV_FAULT_HARNESS;
    }
    /* extent in elements: the farthest element any index can reach, plus one */
    uint64_t extent = 1;
    for (int d = 0; d < w->ndim; d++) {
        if (w->shape[d] < 0 || w->stride[d] < 0) {
            reason_set(reason, "setup: tensor %.64s has a negative shape or stride", w->name);
            return KBV_FAULT_HARNESS;
        }
        if (w->shape[d] == 0) {
            extent = 0;
            break;
        }
        extent += (uint64_t)(w->shape[d] - 1) * (uint64_t)w->stride[d];
    }
    uint64_t nbytes = extent * (uint64_t)esize;
    if (w->offset > r->setup.arena_bytes || nbytes > r->setup.arena_bytes - w->offset) {
        reason_set(reason, "setup: tensor %.64s (%llu bytes at %llu) exceeds the arena", w->name,
                   (unsigned long long)nbytes, (unsigned long long)w->offset);
        return KBV_FAULT_HARNESS;
    }
    memset(t, 0, sizeof *t);
    t->data = r->base + w->offset;
    t->dtype = (kbv_dtype)w->dtype;
    t->ndim = w->ndim;
    memcpy(t->shape, w->shape, sizeof t->shape);
    memcpy(t->stride, w->stride, sizeof t->stride);
    t->name = w->name;
    *bytes = runner_round512((size_t)nbytes);
    return KBV_FAULT_NONE;
}

/* Entries of the tensor table the setup announces. */
static int64_t table_size(const kbv_proto_setup *s)
{
    return (int64_t)s->n_sets * s->n_inputs + s->n_params + s->n_outputs;
}

/* Receives the tensor table that follows the setup, slice by slice. */
static kbv_child_fault receive_table(runner *r, char *reason)
{
    kbv_proto_setup *s = &r->setup;
    if (s->n_sets < 1 || s->n_sets > KBV_CHILD_MAX_SETS || s->n_inputs < 0 || s->n_params < 0 ||
        s->n_outputs < 0 || table_size(s) > KBV_PROTO_SANE_TENSORS) {
        reason_set(reason, "setup: bad tensor counts");
        return KBV_FAULT_HARNESS;
    }
    int64_t total = table_size(s);
    r->table = calloc((size_t)total + 1, sizeof *r->table);
    r->inputs = calloc((size_t)s->n_sets * (size_t)s->n_inputs + 1, sizeof *r->inputs);
    r->params = calloc((size_t)s->n_params + 1, sizeof *r->params);
    r->outputs = calloc((size_t)s->n_outputs + 1, sizeof *r->outputs);
    if (!r->table || !r->inputs || !r->params || !r->outputs) {
        reason_set(reason, "setup: no memory for %lld tensors", (long long)total);
        return KBV_FAULT_HARNESS;
    }
    static kbv_proto_tensors msg;  /* large; one at a time */
    for (int64_t have = 0; have < total;) {
        ssize_t n;
        while ((n = recv(KBV_PROTO_FD_SOCKET, &msg, sizeof msg, MSG_TRUNC)) < 0 && errno == EINTR)
            ;
        if (n != (ssize_t)sizeof msg || msg.h.magic != KBV_PROTO_MAGIC ||
            msg.h.version != KBV_PROTO_VERSION || msg.h.type != KBV_MSG_TENSORS ||
            msg.h.seq != s->h.seq || msg.first != have || msg.count < 1 ||
            msg.count > KBV_PROTO_TENSORS_PER_MSG || msg.count > total - have) {
            reason_set(reason, "setup: malformed tensor table message (%zd bytes) at entry %lld",
                       n, (long long)have);
            return KBV_FAULT_HARNESS;
        }
        memcpy(&r->table[have], msg.t, sizeof msg.t[0] * (size_t)msg.count);
        have += msg.count;
    }
    return KBV_FAULT_NONE;
}

static kbv_child_fault build_tensors(runner *r, char *reason)
{
    kbv_proto_setup *s = &r->setup;
    /* names must stay terminated whatever arrived */
    int64_t total = table_size(s);
    for (int64_t i = 0; i < total; i++)
        r->table[i].name[KBV_PROTO_NAME_MAX - 1] = '\0';

    kbv_child_fault f;
    size_t bytes;
    const kbv_proto_tensor *w = r->table;
    r->harness_bytes = 0;
    for (int set = 0; set < s->n_sets; set++) {
        for (int i = 0; i < s->n_inputs; i++) {
            f = tensor_from_wire(r, w++, &r->inputs[set * s->n_inputs + i], &bytes, reason);
            if (f)
                return f;
            if (set == 0)
                r->harness_bytes += bytes;
        }
    }
    for (int i = 0; i < s->n_params; i++) {
        if ((f = tensor_from_wire(r, w++, &r->params[i], &bytes, reason)))
            return f;
        r->harness_bytes += bytes;
    }
    for (int i = 0; i < s->n_outputs; i++) {
        if ((f = tensor_from_wire(r, w++, &r->outputs[i], &bytes, reason)))
            return f;
        r->harness_bytes += bytes;
    }
    return KBV_FAULT_NONE;
}

static kbv_child_fault load_candidate(runner *r, char *reason)
{
    /* nothing the candidate prints may reach the evaluator's stdout */
    fflush(stdout);
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        reason_set(reason, "cannot redirect stdout: %s", strerror(errno));
        return KBV_FAULT_HARNESS;
    }
    r->setup.candidate[KBV_PROTO_PATH_MAX - 1] = '\0';
    if (kbv_proto_is_python_candidate(r->setup.candidate))
        return runner_python_load(r, reason);   /* a KernelBench-format file */
    r->so = dlopen(r->setup.candidate, RTLD_NOW | RTLD_LOCAL);
    if (!r->so) {
        const char *err = dlerror();
        reason_set(reason, "dlopen failed: %s", err ? err : "unknown error");
        return KBV_FAULT_LOAD;
    }
    const int *abi = dlsym(r->so, "kbv_candidate_abi_version");
    if (!abi) {
        reason_set(reason, "not built against kbv/candidate.h (no kbv_candidate_abi_version)");
        return KBV_FAULT_LOAD;
    }
    if (*abi != KBV_ABI_VERSION) {
        reason_set(reason, "ABI version %d, this harness speaks %d", *abi, KBV_ABI_VERSION);
        return KBV_FAULT_LOAD;
    }
    /* function pointers through dlsym: POSIX guarantees the conversion */
    void *sym = dlsym(r->so, "kbv_forward");
    if (!sym) {
        reason_set(reason, "candidate does not export kbv_forward");
        return KBV_FAULT_LOAD;
    }
    memcpy(&r->forward, &sym, sizeof sym);
    if ((sym = dlsym(r->so, "kbv_prepare")))
        memcpy(&r->prepare, &sym, sizeof sym);
    if ((sym = dlsym(r->so, "kbv_finish")))
        memcpy(&r->finish, &sym, sizeof sym);
    return KBV_FAULT_NONE;
}

static kbv_child_fault setup(runner *r, char *reason)
{
    r->setup.candidate[KBV_PROTO_PATH_MAX - 1] = '\0';
    if (r->warm_python && !kbv_proto_is_python_candidate(r->setup.candidate)) {
        /* torch is loaded here: not the fresh process a C candidate gets */
        reason_set(reason, "setup: a runner started for a KernelBench-format candidate got %.200s",
                   r->setup.candidate);
        return KBV_FAULT_HARNESS;
    }
    r->dev = r->setup.device < 0 ? &runner_cpu : &runner_cuda;
    kbv_child_fault f = r->dev->init(r, reason);
    if (f)
        return f;
    if ((f = build_tensors(r, reason)))
        return f;
    r->env.abi_version = KBV_ABI_VERSION;
    r->env.device = r->setup.device;
    r->env.alloc = env_alloc;
    r->env.release = env_release;
    r->env.opaque = r;
    r->dev->track_begin(r);
    /* a KernelBench-format file: the interpreter and torch come up first,
     * like CUDA, kbv's own code before the candidate's */
    if (kbv_proto_is_python_candidate(r->setup.candidate)) {
        if ((f = runner_python_start(r, reason)))
            return f;
        /* torch calls cuBLAS and cuDNN for the candidate's PyTorch ops, as a
         * C candidate allowed them would, and they load parts of themselves
         * on first use: made ready in the load stage, as those are */
        r->setup.vendor_libs |= runner_vendor_loaded();
    }
    /* the allowlist goes on after CUDA is up and before the candidate loads,
     * and closes every path once it is loaded (KBV_SANDBOX=off: neither, for
     * debugging the harness itself) */
    if (runner_sandbox_before_load() != KBV_OK) {
        reason_set(reason, "sandbox: %s", kbv_last_error());
        return KBV_FAULT_HARNESS;
    }
    kbv_child_fault f2 = load_candidate(r, reason);
    /* still in the load stage: the trace learns the candidate's object, the
     * vendor libraries it may call get everything they would open later */
    if (f2 == KBV_FAULT_NONE)
        f2 = r->dev->loaded(r, reason);
    if (runner_sandbox_after_load(f2 == KBV_FAULT_NONE ? r->setup.vendor_libs : 0) != KBV_OK) {
        reason_set(reason, "sandbox: %s", kbv_last_error());
        return KBV_FAULT_HARNESS;
    }
    return f2;
}

/* ---- requests --------------------------------------------------------- */

static kbv_child_fault do_prepare(runner *r, char *reason)
{
    if (r->prepared && r->finish)
        r->finish(&r->env, r->state);
    r->state = NULL;
    r->prepared = true;
    if (!r->prepare)
        return KBV_FAULT_NONE;
    int ret = r->prepare(&r->env, r->params, r->setup.n_params, &r->state);
    kbv_child_fault f = r->dev->sync_check(r, "kbv_prepare", reason);
    if (ret != 0) {
        if (runner_python_error())   /* a KernelBench-format file: the error in words */
            reason_set(reason, "%s", runner_python_error());
        else
            reason_set(reason, "kbv_prepare returned %d", ret);
        return KBV_FAULT_RETURNED;
    }
    return f;
}

/* One call of kbv_forward on input set `set`, timed; what it left in the
 * persisting L2 counted (and undone) after the timed window. */
static kbv_child_fault one_call(runner *r, int set, kbv_proto_reply *rep)
{
    r->dev->timer_start(r);
    int ret = r->forward(&r->env, r->state, r->inputs + (size_t)set * (size_t)r->setup.n_inputs,
                         r->setup.n_inputs, r->params,
                         r->setup.n_params, r->outputs, r->setup.n_outputs);
    double ms = 0;
    kbv_child_fault f = r->dev->timer_stop(r, &ms, "kbv_forward", rep->reason);
    if (ret != 0) {
        if (runner_python_error())
            reason_set(rep->reason, "%s", runner_python_error());
        else
            reason_set(rep->reason, "kbv_forward returned %d", ret);
        return KBV_FAULT_RETURNED;
    }
    if (f)
        return f;
    if (r->dev->l2_check(r))
        rep->l2_persisting++;
    rep->times_ms[rep->n_times++] = ms;
    return KBV_FAULT_NONE;
}

static kbv_child_fault check_calls(runner *r, const kbv_proto_request *q, kbv_proto_reply *rep)
{
    if (q->set < 0 || q->set >= r->setup.n_sets || q->n_calls < 1 ||
        q->n_calls > KBV_CHILD_MAX_CALLS || q->noise_us < 0) {
        reason_set(rep->reason, "call request: set %d, %d calls", q->set, q->n_calls);
        return KBV_FAULT_HARNESS;
    }
    if (!r->prepared)
        return do_prepare(r, rep->reason);
    return KBV_FAULT_NONE;
}

static kbv_child_fault do_call(runner *r, const kbv_proto_request *q, kbv_proto_reply *rep)
{
    kbv_child_fault f = check_calls(r, q, rep);
    for (int i = 0; i < q->n_calls && !f; i++) {
        if (q->flush && (f = r->dev->flush(r, (unsigned)i, rep->reason)))
            return f;
        if (q->noise_us > 0)
            r->dev->noise(r, q->noise_us);
        f = one_call(r, q->set, rep);
    }
    return f;
}

/* The untimed traced pass: the same calls, each inside a marked window. */
static kbv_child_fault do_trace(runner *r, const kbv_proto_request *q, kbv_proto_reply *rep)
{
    kbv_child_fault f = check_calls(r, q, rep);
    if (f)
        return f;
    const bool traced = r->dev->trace_begin(r);
    for (int i = 0; i < q->n_calls && !f; i++) {
        if (traced)
            r->dev->trace_mark(r, i, false);
        f = one_call(r, q->set, rep);
        if (traced && !f)
            r->dev->trace_mark(r, i, true);
    }
    if (traced) {
        r->dev->trace_end(r, &rep->trace);
        for (int i = 0; i < rep->n_times; i++)
            rep->trace.event_ms += rep->times_ms[i];
    }
    return f;
}

static void send_reply(kbv_proto_reply *rep, uint32_t seq)
{
    runner_python_report(&rep->python);
    rep->sandbox_denied = runner_sandbox_denied(&rep->sandbox_syscall, rep->sandbox_path,
                                                sizeof rep->sandbox_path);
    rep->h.magic = KBV_PROTO_MAGIC;
    rep->h.version = KBV_PROTO_VERSION;
    rep->h.type = KBV_MSG_REPLY;
    rep->h.seq = seq;
    while (send(KBV_PROTO_FD_SOCKET, rep, sizeof *rep, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR)
            exit(0);  /* the evaluator is gone: nothing left to answer */
    }
}

static bool header_ok(const kbv_proto_header *h, ssize_t n, size_t expect)
{
    return n == (ssize_t)expect && h->magic == KBV_PROTO_MAGIC && h->version == KBV_PROTO_VERSION;
}

static void shutdown_runner(runner *r)
{
    if (r->prepared && r->finish)
        r->finish(&r->env, r->state);
    r->prepared = false;
    if (r->dev)
        r->dev->fini(r);
    free(r->scratch);
    free(r->table);
    free(r->inputs);
    free(r->params);
    free(r->outputs);
}

/* The setup message; a descriptor passed with it (a runner started ahead
 * gets its arena so) is moved to KBV_PROTO_FD_ARENA, where a runner started
 * for its candidate finds it from the start. */
static ssize_t recv_setup(kbv_proto_setup *setup)
{
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } ctl;
    ssize_t n;
    struct iovec iov = {.iov_base = setup, .iov_len = sizeof *setup};
    struct msghdr mh;
    do {
        memset(&mh, 0, sizeof mh);
        mh.msg_iov = &iov;
        mh.msg_iovlen = 1;
        mh.msg_control = ctl.buf;
        mh.msg_controllen = sizeof ctl.buf;
        n = recvmsg(KBV_PROTO_FD_SOCKET, &mh, MSG_TRUNC);
    } while (n < 0 && errno == EINTR);
    for (struct cmsghdr *cm = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL; cm; cm = CMSG_NXTHDR(&mh, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS ||
            cm->cmsg_len != CMSG_LEN(sizeof(int)))
            continue;
        int fd;
        memcpy(&fd, CMSG_DATA(cm), sizeof fd);
        if (fd != KBV_PROTO_FD_ARENA) {
            dup2(fd, KBV_PROTO_FD_ARENA);
            close(fd);
        }
    }
    return n;
}

/* A runner started ahead (KBV_RUNNER_WARM_ARG ORDINAL [KBV_RUNNER_WARM_PYTHON])
 * brings up, while it waits for its setup, CUDA on a GPU (ORDINAL >= 0)
 * and, for a KernelBench-format candidate, the interpreter with torch.
 * Failures are left for setup to find and report. */
static void warm_up(runner *r, int argc, char **argv)
{
    if ((argc != 3 && argc != 4) || strcmp(argv[1], KBV_RUNNER_WARM_ARG))
        return;
    int device = atoi(argv[2]);
    if (device >= 0 && runner_cuda.warm)
        runner_cuda.warm(device);
    if (argc == 4 && !strcmp(argv[3], KBV_RUNNER_WARM_PYTHON)) {
        r->warm_python = true;
        runner_python_warm();
    }
}

int main(int argc, char **argv)
{
    static runner r;  /* large (the setup message); zeroed */
    static kbv_proto_reply rep;

    /* the compile step's builder of a KernelBench-format file's extensions */
    if (argc == 5 && !strcmp(argv[1], "--build-extensions"))
        return runner_python_build(argv[2], argv[3], argv[4]);
    warm_up(&r, argc, argv);
    ssize_t n = recv_setup(&r.setup);
    if (!header_ok(&r.setup.h, n, sizeof r.setup) || r.setup.h.type != KBV_MSG_SETUP) {
        fprintf(stderr, "kbv-runner: expected a setup message on fd %d (got %zd bytes); this "
                "program is started by kbv\n", KBV_PROTO_FD_SOCKET, n);
        /* most likely a runner from another build: say so, if anyone listens */
        memset(&rep, 0, sizeof rep);
        rep.fault = KBV_FAULT_HARNESS;
        reason_set(rep.reason, "kbv-runner speaks protocol %u with %zu-byte setup messages; got "
                   "%zd bytes (version %u): runner and kbv are from different builds",
                   KBV_PROTO_VERSION, sizeof r.setup, n, n >= 8 ? r.setup.h.version : 0u);
        send_reply(&rep, n >= 16 ? r.setup.h.seq : 0);
        return 2;
    }
    /* in a PID namespace of its own the runner's parent is outside it (0) */
    if (getppid() != 0 && r.setup.parent_pid != (int32_t)getppid())
        return 3;  /* the evaluator died before we started: nobody to answer */

    memset(&rep, 0, sizeof rep);
    rep.fault = receive_table(&r, rep.reason);
    if (rep.fault == KBV_FAULT_NONE)
        rep.fault = setup(&r, rep.reason);
    send_reply(&rep, r.setup.h.seq);
    if (rep.fault != KBV_FAULT_NONE) {
        shutdown_runner(&r);
        return 0;
    }

    for (;;) {
        kbv_proto_request q;
        while ((n = recv(KBV_PROTO_FD_SOCKET, &q, sizeof q, MSG_TRUNC)) < 0 && errno == EINTR)
            ;
        if (n == 0)
            break;  /* the evaluator closed the connection */
        if (!header_ok(&q.h, n, sizeof q)) {
            memset(&rep, 0, sizeof rep);
            rep.fault = KBV_FAULT_HARNESS;
            reason_set(rep.reason, "kbv-runner got a malformed request (%zd bytes)", n);
            send_reply(&rep, n >= 16 ? q.h.seq : 0);
            shutdown_runner(&r);
            return 2;
        }
        memset(&rep, 0, sizeof rep);
        switch (q.h.type) {
        case KBV_MSG_PREPARE:
            rep.fault = do_prepare(&r, rep.reason);
            break;
        case KBV_MSG_CALL:
            rep.fault = do_call(&r, &q, &rep);
            break;
        case KBV_MSG_TRACE:
            rep.fault = do_trace(&r, &q, &rep);
            break;
        case KBV_MSG_MEMORY:
            rep.peak_bytes = r.harness_bytes + r.dev->peak_bytes(&r);
            break;
        case KBV_MSG_EXIT:
            shutdown_runner(&r);
            send_reply(&rep, q.h.seq);
            return 0;
        default:
            rep.fault = KBV_FAULT_HARNESS;
            reason_set(rep.reason, "unknown request type %u", q.h.type);
            break;
        }
        send_reply(&rep, q.h.seq);
    }
    shutdown_runner(&r);
    return 0;
}
