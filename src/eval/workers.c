#include "eval/workers.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "eval/device.h"

/* ---- I/O helpers ------------------------------------------------------ */

static int write_all(int fd, const void *buf, size_t len, bool sock)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t w = sock ? send(fd, p, len, MSG_NOSIGNAL) : write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Reads exactly len bytes: 1 done, 0 end of file first, -1 error. */
static int read_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t r = read(fd, p, len);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            return 0;
        p += r;
        len -= (size_t)r;
    }
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* "killed by signal 9 (Killed)", "exited with status 3" */
static void describe_wait(int ws, char *buf, size_t cap)
{
    if (WIFSIGNALED(ws))
        snprintf(buf, cap, "killed by signal %d (%s)", WTERMSIG(ws), strsignal(WTERMSIG(ws)));
    else if (WIFEXITED(ws))
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(ws));
    else
        snprintf(buf, cap, "ended (wait status %d)", ws);
}

/* ---- the device probe ------------------------------------------------- */

static kbv_status probe_here(const char *device, const char *size, kbv_device_probe *p)
{
    memset(p, 0, sizeof *p);
    KBV_TRY(kbv_eval_opts_resolve(device, size, &p->opts));
    KBV_TRY(kbv_device_name(-1, p->cpu_name, sizeof p->cpu_name));
    if (p->opts.device < 0)
        return KBV_OK;
    KBV_TRY(kbv_cuda_device_count(&p->n_gpus));
    if (p->n_gpus > KBV_MAX_GPUS)
        p->n_gpus = KBV_MAX_GPUS;
    for (int d = 0; d < p->n_gpus; d++) {
        kbv_device_facts facts;
        KBV_TRY(kbv_device_facts_get(d, &facts));
        kbv_device_name_of(&facts, p->names[d], sizeof p->names[d]);
        kbv_device_arch_of(&facts, p->arch[d], sizeof p->arch[d]);
    }
    return KBV_OK;
}

typedef struct probe_reply {
    int status;
    char error[2048];
    kbv_device_probe probe;
} probe_reply;

kbv_status kbv_devices_probe(const char *device, const char *size, kbv_device_probe *out)
{
    /* The CPU backend never touches CUDA: no child needed. */
    if (device && !strcmp(device, "cpu"))
        return probe_here(device, size, out);
    kbv_status st = KBV_OK;
    probe_reply *reply = calloc(1, sizeof *reply);
    int fds[2] = {-1, -1};
    pid_t pid = -1;
    if (!reply)
        return kbv_fail(KBV_ERR_NOMEM, "device probe");
    if (pipe2(fds, O_CLOEXEC))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "pipe: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(fds[0]);
        reply->status = probe_here(device, size, &reply->probe);
        snprintf(reply->error, sizeof reply->error, "%s", kbv_error_text());
        _exit(write_all(fds[1], reply, sizeof *reply, false) ? 1 : 0);
    }
    close(fds[1]);
    fds[1] = -1;
    int got = read_all(fds[0], reply, sizeof *reply);
    int ws = 0;
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
        ;
    if (got != 1) {
        char how[96];
        describe_wait(ws, how, sizeof how);
        KBV_FAIL_GOTO(st, done, KBV_ERR_CHILD, "the device probe process %s without an answer",
                      how);
    }
    if (reply->status != KBV_OK) {
        /* what the child would have told the user (its trace only when
         * internal or under --debug), as this process's own failure */
        st = kbv_fail((kbv_status)reply->status, "%s", reply->error);
        goto done;
    }
    *out = reply->probe;
done:
    if (fds[0] >= 0)
        close(fds[0]);
    if (fds[1] >= 0)
        close(fds[1]);
    free(reply);
    return st;
}

kbv_status kbv_gpu_list_parse(const char *s, int n_visible, int *out, int cap, int *n)
{
    *n = 0;
    const char *p = s;
    if (!p || !*p)
        return kbv_fail(KBV_ERR_PARSE, "--gpus: an empty list (expected e.g. 0,1)");
    for (;;) {
        if (!isdigit((unsigned char)*p))
            return kbv_fail(KBV_ERR_PARSE, "--gpus '%s': expected device numbers such as 0,1,3",
                            s);
        int v = 0, digits = 0;
        while (isdigit((unsigned char)*p) && digits < 6) {
            v = v * 10 + (*p++ - '0');
            digits++;
        }
        if (*p != ',' && *p != '\0')
            return kbv_fail(KBV_ERR_PARSE, "--gpus '%s': expected device numbers such as 0,1,3",
                            s);
        if (v >= n_visible)
            return kbv_fail(KBV_ERR_INVALID, "--gpus '%s': there is no GPU %d (%d visible%s)", s,
                            v, n_visible, n_visible ? ", numbered from 0" : "");
        for (int i = 0; i < *n; i++)
            if (out[i] == v)
                return kbv_fail(KBV_ERR_INVALID, "--gpus '%s': GPU %d listed twice", s, v);
        if (*n == cap)
            return kbv_fail(KBV_ERR_INVALID, "--gpus '%s': more than %d devices", s, cap);
        out[(*n)++] = v;
        if (*p == '\0')
            return KBV_OK;
        p++;
    }
}

/* ---- messages between the parent and a worker ------------------------- */

enum {
    MSG_READY = 1,     /* worker: evaluator up; payload: its device name */
    MSG_INIT_FAILED,   /* worker: could not start; payload: why */
    MSG_JOB,           /* parent: evaluate job */
    MSG_RESULT,        /* worker: job's record as JSON */
    MSG_FAILED,        /* worker: job could not be evaluated; payload: why */
};

typedef struct msg_head {
    uint32_t type;
    int32_t job;
    uint32_t len;
} msg_head;

#define MSG_MAX_BYTES (64u << 20)

static int send_msg(int fd, uint32_t type, int32_t job, const char *payload, size_t len)
{
    if (len > MSG_MAX_BYTES)
        return -1;
    msg_head h = {type, job, (uint32_t)len};
    if (write_all(fd, &h, sizeof h, true))
        return -1;
    return len ? write_all(fd, payload, len, true) : 0;
}

/* 1: a whole message (*payload malloc'd, NUL-terminated); 0: end of file,
 * a torn message or a malformed one (the peer is gone or broken). */
static int recv_msg(int fd, msg_head *h, char **payload)
{
    *payload = NULL;
    if (read_all(fd, h, sizeof *h) != 1 || h->len > MSG_MAX_BYTES)
        return 0;
    char *buf = malloc((size_t)h->len + 1);
    if (!buf)
        return 0;
    if (h->len && read_all(fd, buf, h->len) != 1) {
        free(buf);
        return 0;
    }
    buf[h->len] = '\0';
    *payload = buf;
    return 1;
}

/* ---- a worker process --------------------------------------------------- */

kbv_status kbv_visible_gpu_narrow(int ordinal)
{
    char token[256];
    const char *list = getenv("CUDA_VISIBLE_DEVICES");
    if (!list || !*list) {
        snprintf(token, sizeof token, "%d", ordinal);
    } else {
        const char *p = list;
        for (int i = 0; i < ordinal && p; i++) {
            p = strchr(p, ',');
            if (p)
                p++;
        }
        if (!p)
            return kbv_fail(KBV_ERR_INVALID, "GPU %d is not in CUDA_VISIBLE_DEVICES=%s", ordinal,
                            list);
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof token)
            return kbv_fail(KBV_ERR_INVALID, "GPU %d of CUDA_VISIBLE_DEVICES=%s is unusable",
                            ordinal, list);
        memcpy(token, p, n);
        token[n] = '\0';
    }
    if (setenv("CUDA_VISIBLE_DEVICES", token, 1))
        return kbv_fail(KBV_ERR_IO, "setenv CUDA_VISIBLE_DEVICES: %s", strerror(errno));
    return KBV_OK;
}

/* Size of the baseline cache file when last loaded; -1 when unknown. */
static off_t file_size(const char *path)
{
    struct stat sb;
    return stat(path, &sb) ? -1 : sb.st_size;
}

void kbv_baseline_cache_refresh(kbv_baseline_cache *cache, off_t *known)
{
    off_t size = file_size(cache->path);
    if (size < 0 || size == *known)
        return;
    kbv_baseline_cache fresh;
    if (kbv_baseline_cache_open(cache->device, &fresh) != KBV_OK) {
        kbv_clear_error();   /* keep what is loaded; a miss measures again */
        return;
    }
    kbv_baseline_cache_close(cache);
    *cache = fresh;
    *known = size;
}

static int worker_loop(const kbv_workers_opts *o, const kbv_worker_ops *ops, int device, int fd)
{
    kbv_evaluator *ev = NULL;
    kbv_baseline_cache cache;
    bool cache_open = false;
    char *payload = NULL, *text = NULL;
    json_t *obj = NULL;
    kbv_record *rec = malloc(sizeof *rec);
    int code = 1;
    kbv_eval_opts eo = o->eval;
    eo.device = -1;
    kbv_status st = rec ? KBV_OK : kbv_fail(KBV_ERR_NOMEM, "worker record");
    if (st == KBV_OK && device >= 0) {
        st = kbv_visible_gpu_narrow(device);
        eo.device = 0;
    }
    if (st == KBV_OK)
        st = kbv_evaluator_create(&eo, &ev);
    if (st == KBV_OK) {
        st = kbv_baseline_cache_open(ev->device_name, &cache);
        cache_open = st == KBV_OK;
    }
    if (st != KBV_OK) {
        const char *why = kbv_error_text();
        send_msg(fd, MSG_INIT_FAILED, -1, why, strlen(why));
        goto done;
    }
    off_t known = file_size(cache.path);
    if (send_msg(fd, MSG_READY, -1, ev->device_name, strlen(ev->device_name)))
        goto done;
    for (;;) {
        msg_head h;
        free(payload);
        if (recv_msg(fd, &h, &payload) != 1 || h.type != MSG_JOB)
            break;   /* the parent closed the socket: no more work */
        kbv_baseline_cache_refresh(&cache, &known);
        kbv_clear_error();
        st = ops->evaluate(ops->ctx, ev, &cache, h.job, rec);
        int sent;
        if (st == KBV_OK && kbv_record_to_json(rec, &obj) == KBV_OK &&
            (text = json_dumps(obj, JSON_COMPACT)) != NULL) {
            sent = send_msg(fd, MSG_RESULT, h.job, text, strlen(text));
        } else {
            const char *why = kbv_error_text()[0] ? kbv_error_text() : "out of memory";
            sent = send_msg(fd, MSG_FAILED, h.job, why, strlen(why));
        }
        free(text);
        text = NULL;
        json_decref(obj);
        obj = NULL;
        if (sent)
            goto done;
    }
    code = 0;
done:
    free(payload);
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    free(rec);
    return code;
}

/* ---- the parent ------------------------------------------------------------ */

typedef enum slot_state { SLOT_OFF, SLOT_STARTING, SLOT_IDLE, SLOT_BUSY } slot_state;

typedef struct slot {
    slot_state state;
    pid_t pid;
    int fd;
    int device;
    int pos;                 /* the job's position in jobs[] while busy */
    double t0;
    int respawns;
} slot;

typedef struct pool {
    const kbv_workers_opts *o;
    const kbv_worker_ops *ops;
    const int *jobs;
    int n_jobs;
    slot *slots;
    int next;                /* next position of jobs[] never handed out */
    int *retry;              /* positions to hand out again, before next */
    int n_retry;
    unsigned char *attempts; /* per position: workers that died holding it */
    bool any_ready;
    char first_init_error[1024];
    kbv_workers_stats *stats;
    pid_t self;
} pool;

static void worker_name(const pool *pl, int i, char *buf, size_t cap)
{
    if (pl->slots[i].device >= 0)
        snprintf(buf, cap, "worker %d (GPU %d, pid %d)", i, pl->slots[i].device,
                 (int)pl->slots[i].pid);
    else
        snprintf(buf, cap, "worker %d (pid %d)", i, (int)pl->slots[i].pid);
}

static kbv_status spawn(pool *pl, int i)
{
    slot *s = &pl->slots[i];
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return kbv_fail(KBV_ERR_IO, "socketpair: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(sv[0]);
        close(sv[1]);
        return kbv_fail(KBV_ERR_IO, "fork: %s", strerror(err));
    }
    if (pid == 0) {
        /* Die with the parent, whatever kills it. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != pl->self)
            _exit(1);
        for (int k = 0; k < pl->o->n; k++)
            if (pl->slots[k].fd >= 0)
                close(pl->slots[k].fd);
        if (pl->o->results && pl->o->results->fd >= 0)
            close(pl->o->results->fd);   /* the parent's lock stays: it is the parent's file */
        close(sv[0]);
        _exit(worker_loop(pl->o, pl->ops, s->device, sv[1]));
    }
    close(sv[1]);
    s->fd = sv[0];
    s->pid = pid;
    s->state = SLOT_STARTING;
    pl->stats->started++;
    return KBV_OK;
}

/* Ends a worker (already dead or not) and reaps it; describes how it ended. */
static void reap(slot *s, bool kill_it, char *how, size_t cap)
{
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    if (kill_it)
        kill(s->pid, SIGKILL);
    int ws = 0;
    pid_t r;
    while ((r = waitpid(s->pid, &ws, 0)) < 0 && errno == EINTR)
        ;
    if (how) {
        if (r == s->pid)
            describe_wait(ws, how, cap);
        else
            snprintf(how, cap, "is gone");
    }
    s->state = SLOT_OFF;
}

static bool next_job(pool *pl, int *pos)
{
    if (pl->n_retry > 0) {
        *pos = pl->retry[0];
        memmove(pl->retry, pl->retry + 1, (size_t)(--pl->n_retry) * sizeof *pl->retry);
        return true;
    }
    if (pl->next < pl->n_jobs) {
        *pos = pl->next++;
        return true;
    }
    return false;
}

/* A worker ended without being told to (or broke the protocol). */
static kbv_status worker_lost(pool *pl, int i)
{
    slot *s = &pl->slots[i];
    slot_state was = s->state;
    char name[96], how[128];
    worker_name(pl, i, name, sizeof name);
    reap(s, true, how, sizeof how);
    int limit = pl->o->max_respawns > 0 ? pl->o->max_respawns : 3;
    if (was == SLOT_STARTING) {
        fprintf(stderr, "kbv: %s %s while starting\n", name, how);
        return KBV_OK;
    }
    if (was == SLOT_BUSY) {
        int job = pl->jobs[s->pos];
        pl->stats->deaths++;
        if (++pl->attempts[s->pos] < 2) {
            fprintf(stderr, "kbv: %s %s while evaluating %s; it goes to another worker\n",
                    name, how, pl->ops->describe(pl->ops->ctx, job));
            memmove(pl->retry + 1, pl->retry, (size_t)pl->n_retry * sizeof *pl->retry);
            pl->retry[0] = s->pos;
            pl->n_retry++;
            pl->stats->retried++;
        } else {
            char why[256];
            snprintf(why, sizeof why, "harness failure: the worker evaluating it died twice "
                                      "(last: %s)", how);
            fprintf(stderr, "kbv: %s %s while evaluating %s, its second try\n", name, how,
                    pl->ops->describe(pl->ops->ctx, job));
            pl->ops->failed(pl->ops->ctx, job, why);
        }
    } else {
        fprintf(stderr, "kbv: %s %s while idle\n", name, how);
    }
    if (s->respawns >= limit) {
        fprintf(stderr, "kbv: worker %d has been replaced %d times; not again\n", i, limit);
        return KBV_OK;
    }
    s->respawns++;
    KBV_TRY(spawn(pl, i));
    return KBV_OK;
}

/* One message from worker i; a worker that breaks the protocol is lost. */
static kbv_status handle(pool *pl, int i)
{
    kbv_status st = KBV_OK;
    slot *s = &pl->slots[i];
    msg_head h;
    char *payload = NULL;
    json_t *obj = NULL;
    kbv_record *rec = NULL;
    char name[96];
    worker_name(pl, i, name, sizeof name);
    if (recv_msg(s->fd, &h, &payload) != 1)
        return worker_lost(pl, i);
    if (s->state == SLOT_STARTING && h.type == MSG_READY) {
        if (strcmp(payload, pl->o->device_name)) {
            fprintf(stderr, "kbv: %s runs on '%s', not '%s' like the others; it is stopped\n",
                    name, payload, pl->o->device_name);
            reap(s, true, NULL, 0);
        } else {
            s->state = SLOT_IDLE;
            pl->any_ready = true;
        }
    } else if (s->state == SLOT_STARTING && h.type == MSG_INIT_FAILED) {
        fprintf(stderr, "kbv: %s could not start:\n%s\n", name, payload);
        if (!pl->first_init_error[0])
            snprintf(pl->first_init_error, sizeof pl->first_init_error, "%s", payload);
        reap(s, true, NULL, 0);
    } else if (s->state == SLOT_BUSY && (h.type == MSG_RESULT || h.type == MSG_FAILED) &&
               h.job == pl->jobs[s->pos]) {
        double seconds = now_s() - s->t0;
        s->state = SLOT_IDLE;
        if (h.type == MSG_FAILED) {
            pl->ops->failed(pl->ops->ctx, h.job, payload);
            goto done;
        }
        json_error_t jerr;
        rec = malloc(sizeof *rec);
        obj = json_loads(payload, 0, &jerr);
        if (!rec || !obj || kbv_record_from_json(obj, rec) != KBV_OK) {
            char why[1200];
            snprintf(why, sizeof why, "%s sent a record that cannot be read: %s", name,
                     obj ? kbv_error_text() : jerr.text);
            kbv_clear_error();
            pl->ops->failed(pl->ops->ctx, h.job, why);
            goto done;
        }
        KBV_TRY_GOTO(pl->ops->record(pl->ops->ctx, h.job, s->device, rec, seconds), st, done);
    } else {
        fprintf(stderr, "kbv: %s sent an unexpected message (type %u, job %d)\n", name,
                (unsigned)h.type, (int)h.job);
        st = worker_lost(pl, i);
    }
done:
    json_decref(obj);
    free(rec);
    free(payload);
    return st;
}

static bool dispatch(pool *pl, int i)
{
    slot *s = &pl->slots[i];
    int pos;
    if (s->state != SLOT_IDLE || !next_job(pl, &pos))
        return false;
    if (send_msg(s->fd, MSG_JOB, pl->jobs[pos], NULL, 0)) {
        /* the worker is gone: put the job back, its hang-up shows in poll */
        memmove(pl->retry + 1, pl->retry, (size_t)pl->n_retry * sizeof *pl->retry);
        pl->retry[0] = pos;
        pl->n_retry++;
        s->state = SLOT_BUSY;
        s->pos = -1;
        return false;
    }
    s->state = SLOT_BUSY;
    s->pos = pos;
    s->t0 = now_s();
    return true;
}

kbv_status kbv_workers_run(const kbv_workers_opts *o, const int *jobs, int n_jobs,
                           const kbv_worker_ops *ops, kbv_workers_stats *stats)
{
    kbv_status st = KBV_OK;
    memset(stats, 0, sizeof *stats);
    if (o->n < 1 || o->n > KBV_MAX_WORKERS)
        return kbv_fail(KBV_ERR_INVALID, "%d workers (1 to %d)", o->n, KBV_MAX_WORKERS);
    pool pl = {.o = o, .ops = ops, .jobs = jobs, .n_jobs = n_jobs, .stats = stats,
               .self = getpid()};
    struct pollfd *pfd = calloc((size_t)o->n, sizeof *pfd);
    int *who = calloc((size_t)o->n, sizeof *who);
    pl.slots = calloc((size_t)o->n, sizeof *pl.slots);
    pl.retry = calloc((size_t)n_jobs + 1, sizeof *pl.retry);
    pl.attempts = calloc((size_t)n_jobs + 1, 1);
    if (!pfd || !who || !pl.slots || !pl.retry || !pl.attempts)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "%d workers", o->n);
    for (int i = 0; i < o->n; i++) {
        pl.slots[i].fd = -1;
        pl.slots[i].device = o->devices[i];
    }
    for (int i = 0; i < o->n; i++)
        KBV_TRY_GOTO(spawn(&pl, i), st, done);

    for (;;) {
        int busy = 0, alive = 0, n = 0;
        for (int i = 0; i < o->n; i++)
            dispatch(&pl, i);
        for (int i = 0; i < o->n; i++) {
            slot_state ss = pl.slots[i].state;
            if (ss == SLOT_OFF)
                continue;
            alive++;
            busy += ss == SLOT_BUSY;
            pfd[n] = (struct pollfd){.fd = pl.slots[i].fd, .events = POLLIN};
            who[n++] = i;
        }
        bool pending = pl.n_retry > 0 || pl.next < n_jobs;
        if (!pending && busy == 0)
            break;
        if (alive == 0) {
            if (!pl.any_ready)
                KBV_FAIL_GOTO(st, done, KBV_ERR_CHILD, "no worker could start%s%s",
                              pl.first_init_error[0] ? ":\n" : "", pl.first_init_error);
            int pos;
            while (next_job(&pl, &pos))
                ops->failed(ops->ctx, jobs[pos], "harness failure: no worker left to evaluate "
                                                 "it");
            break;
        }
        if (poll(pfd, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "poll: %s", strerror(errno));
        }
        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            int i = who[k];
            if (pl.slots[i].state == SLOT_BUSY && pl.slots[i].pos < 0) {
                /* the job could not even be sent: no retry was used up */
                pl.slots[i].state = SLOT_IDLE;
            }
            KBV_TRY_GOTO(handle(&pl, i), st, done);
        }
    }
done:
    if (pl.slots)
        for (int i = 0; i < o->n; i++) {
            slot *s = &pl.slots[i];
            if (s->state == SLOT_OFF)
                continue;
            /* idle workers exit when their socket closes; busy ones only
             * remain after an error (their jobs are abandoned, unrecorded),
             * starting ones when the queue emptied first */
            reap(s, s->state != SLOT_IDLE, NULL, 0);
        }
    free(pl.attempts);
    free(pl.retry);
    free(pl.slots);
    free(who);
    free(pfd);
    return st;
}
