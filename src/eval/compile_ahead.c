#include "eval/compile_ahead.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "eval/compile.h"

#define POOL_NICE KBV_COMPILE_NICE
#define POOL_NAME "kbv-compile"
/* How long kbv_compile_ahead_stop waits for the pool's report: stopping a
 * build takes one look at the cancel flag (50 ms) and a directory removal. */
#define STOP_WAIT_MS 10000

enum { MSG_REACHED = 1, MSG_STOP };

typedef struct pool_msg {
    int32_t type;
    int32_t job;
} pool_msg;

/* A builder's verdict, one byte on its pipe. */
enum { VERDICT_BUILT = 'b', VERDICT_FAILED = 'f', VERDICT_CACHED = 'c', VERDICT_LEFT = 'x' };

typedef struct builder {
    pid_t pid;
    int fd;            /* the read end of its verdict pipe; -1: slot free */
} builder;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Closes every descriptor above stderr except keep: a pool process must not
 * hold the results file, an MPI library's sockets or a worker's socket. */
static void close_all_but(int keep)
{
    if (keep > 3)
        close_range(3, (unsigned)keep - 1, 0);
    close_range((unsigned)keep + 1, ~0u, 0);
}

int kbv_compile_ahead_default_parallel(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* ---- a builder ---------------------------------------------------------- */

static volatile sig_atomic_t build_stopped;

static void on_stop(int sig)
{
    (void)sig;
    build_stopped = 1;
}

/* In a builder process: compiles one job's source exactly as an evaluator
 * would and reports how it went. Never returns. */
static void builder_main(const kbv_compile_ahead_opts *o, int job, int out_fd, pid_t pool)
{
    /* SIGTERM (from the pool, or as the pool's death signal) stops the build
     * cleanly: the compiler's group is killed and the build directory removed. */
    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTERM, &sa, NULL) != 0 || prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 ||
        getppid() != pool)
        _exit(1);
    close_all_but(out_fd);
    kbv_compile_opts co = {.source = o->sources[job], .arch = o->arch,
                           .vendor_libs = o->vendor_libs, .cancel = &build_stopped};
    kbv_compile_result *r = malloc(sizeof *r);
    char verdict = VERDICT_LEFT;
    if (r && kbv_compile(&co, r) == KBV_OK) {
        if (r->cached)
            verdict = VERDICT_CACHED;
        else if (r->ok)
            verdict = VERDICT_BUILT;
        else if (!build_stopped)
            verdict = VERDICT_FAILED;
    }
    while (write(out_fd, &verdict, 1) < 0 && errno == EINTR)
        ;
    _exit(0);
}

/* ---- the pool process ------------------------------------------------------ */

static int start_builder(const kbv_compile_ahead_opts *o, int job, builder *b)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -1;
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return -1;
    }
    if (pid == 0) {
        close(p[0]);
        builder_main(o, job, p[1], self);
    }
    close(p[1]);
    b->pid = pid;
    b->fd = p[0];
    return 0;
}

/* Reads a finished (or dead) builder's verdict into the counts. */
static void finish_builder(builder *b, kbv_compile_ahead_stats *stats)
{
    char verdict = VERDICT_LEFT;
    ssize_t r;
    while ((r = read(b->fd, &verdict, 1)) < 0 && errno == EINTR)
        ;
    if (r != 1)
        verdict = VERDICT_LEFT;   /* it died without a word */
    close(b->fd);
    b->fd = -1;
    while (waitpid(b->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    switch (verdict) {
    case VERDICT_BUILT: stats->built++; break;
    case VERDICT_FAILED: stats->failed++; break;
    case VERDICT_CACHED: stats->cached++; break;
    default: stats->left++; break;
    }
}

static void stop_builders(builder *b, int n)
{
    for (int i = 0; i < n; i++)
        if (b[i].fd >= 0)
            kill(b[i].pid, SIGTERM);
}

static int pool_main(const kbv_compile_ahead_opts *o, int sock)
{
    kbv_compile_ahead_stats stats = {0};
    double t0 = now_s();
    int parallel = o->parallel;
    builder *b = calloc((size_t)parallel, sizeof *b);
    struct pollfd *pfd = calloc((size_t)parallel + 1, sizeof *pfd);
    int *who = calloc((size_t)parallel + 1, sizeof *who);
    if (!b || !pfd || !who)
        return 1;
    for (int i = 0; i < parallel; i++)
        b[i].fd = -1;
    prctl(PR_SET_NAME, POOL_NAME);
    errno = 0;
    if (nice(POOL_NICE) == -1 && errno)
        errno = 0;   /* a pool at the normal priority still works */

    int next = 0, reached = -1, running = 0;
    bool stopping = false, starter_gone = false;
    for (;;) {
        for (int i = 0; i < parallel && !stopping && next < o->n; i++) {
            if (b[i].fd >= 0)
                continue;
            /* the next job not reached by an evaluator yet */
            while (next < o->n && (next <= reached || !o->sources[next])) {
                if (o->sources[next])
                    stats.passed++;
                next++;
            }
            if (next >= o->n)
                break;
            if (start_builder(o, next++, &b[i]) != 0)
                stats.left++;   /* no process to spare: the evaluator builds it */
            else
                running++;
        }
        if (stopping && running == 0)
            break;
        int n = 0;
        if (!starter_gone) {
            pfd[n] = (struct pollfd){.fd = sock, .events = POLLIN};
            who[n++] = -1;
        }
        for (int i = 0; i < parallel; i++)
            if (b[i].fd >= 0) {
                pfd[n] = (struct pollfd){.fd = b[i].fd, .events = POLLIN};
                who[n++] = i;
            }
        if (n == 0)
            break;
        if (poll(pfd, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (who[k] >= 0) {
                finish_builder(&b[who[k]], &stats);
                stats.seconds = now_s() - t0;
                running--;
                continue;
            }
            pool_msg m;
            ssize_t r = recv(sock, &m, sizeof m, MSG_DONTWAIT);
            if (r < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (r != (ssize_t)sizeof m) {
                /* every process that could talk to the pool is gone */
                starter_gone = stopping = true;
                stop_builders(b, parallel);
            } else if (m.type == MSG_REACHED && m.job > reached) {
                reached = m.job;
            } else if (m.type == MSG_STOP && !stopping) {
                stopping = true;
                stop_builders(b, parallel);
            }
        }
    }
    if (!starter_gone)
        send(sock, &stats, sizeof stats, MSG_NOSIGNAL);
    free(who);
    free(pfd);
    free(b);
    return 0;
}

/* ---- the starting process ----------------------------------------------- */

kbv_status kbv_compile_ahead_start(const kbv_compile_ahead_opts *o, kbv_compile_ahead *pool)
{
    *pool = KBV_COMPILE_AHEAD_NONE;
    if (o->parallel < 1 || o->n < 1)
        return KBV_OK;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
        return kbv_fail(KBV_ERR_IO, "compile-ahead: socketpair: %s", strerror(errno));
    fflush(stdout);
    fflush(stderr);
    pid_t self = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        int err = errno;
        close(sv[0]);
        close(sv[1]);
        return kbv_fail(KBV_ERR_IO, "compile-ahead: fork: %s", strerror(err));
    }
    if (pid == 0) {
        /* die with the run, whatever kills it */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self)
            _exit(1);
        close_all_but(sv[1]);
        _exit(pool_main(o, sv[1]));
    }
    close(sv[1]);
    pool->pid = pid;
    pool->fd = sv[0];
    return KBV_OK;
}

void kbv_compile_ahead_reached(const kbv_compile_ahead *pool, int i)
{
    if (pool->fd < 0)
        return;
    pool_msg m = {MSG_REACHED, i};
    /* a full socket only means the pool is busy: it learns of later jobs */
    send(pool->fd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void kbv_compile_ahead_stop(kbv_compile_ahead *pool, kbv_compile_ahead_stats *stats)
{
    kbv_compile_ahead_stats got = {0};
    if (pool->pid < 0)
        goto done;
    pool_msg m = {MSG_STOP, -1};
    bool answered = false;
    double deadline = now_s() + STOP_WAIT_MS / 1000.0;
    bool sent = false;
    while (!answered && now_s() < deadline) {
        if (!sent) {
            ssize_t w = send(pool->fd, &m, sizeof m, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (w == (ssize_t)sizeof m)
                sent = true;
            else if (errno != EAGAIN && errno != EINTR)
                break;   /* the pool is gone */
        }
        struct pollfd pfd = {.fd = pool->fd, .events = POLLIN};
        int left_ms = (int)((deadline - now_s()) * 1000.0) + 1;
        int pr = poll(&pfd, 1, sent ? left_ms : 10);
        if (pr < 0 && errno != EINTR)
            break;
        if (pr > 0) {
            ssize_t r = recv(pool->fd, &got, sizeof got, MSG_DONTWAIT);
            if (r == (ssize_t)sizeof got)
                answered = true;
            else if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR))
                break;
        }
    }
    if (!answered) {
        memset(&got, 0, sizeof got);
        kill(pool->pid, SIGKILL);   /* its builders stop their compilers on their own */
    }
    while (waitpid(pool->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    close(pool->fd);
    *pool = KBV_COMPILE_AHEAD_NONE;
done:
    if (stats)
        *stats = got;
}
