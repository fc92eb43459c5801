#include "mpi/mpi_eval.h"

#include <errno.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "eval/workers.h"

enum {
    TAG_ALIVE = 1,     /* evaluating rank: a heartbeat */
    TAG_READY,         /* evaluating rank: evaluator up; JSON: device, size, arch, host */
    TAG_UNUSABLE,      /* evaluating rank: it cannot evaluate, and why */
    TAG_JOB,           /* rank 0: evaluate this (the caller's job text) */
    TAG_RESULT,        /* evaluating rank: the job's record, as JSON */
    TAG_FAILED,        /* evaluating rank: the job could not be evaluated, and why */
    TAG_STOP,          /* rank 0: no more jobs; end */
};

#define HEARTBEAT_S 2.0
#define DEFAULT_SILENCE_S 120.0
#define MIN_SILENCE_S (5 * HEARTBEAT_S)
/* Polling for messages backs off from the first to the second while idle. */
#define POLL_MIN_NS 200000L
#define POLL_MAX_NS 20000000L

/* Serialised: an evaluating rank's heartbeat thread and its main thread take
 * turns through mpi_lock. Without that thread level there is no heartbeat,
 * and rank 0 judges no rank by its silence. */
static bool heartbeats;
static pthread_mutex_t mpi_lock = PTHREAD_MUTEX_INITIALIZER;
/* The process that started this rank; when it is gone, so is the run. */
static pid_t launcher;

bool kbv_mpi_available(void)
{
    return true;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pause_ns(long ns)
{
    nanosleep(&(struct timespec){.tv_nsec = ns}, NULL);
}

static bool launcher_gone(void)
{
    return launcher > 1 && getppid() != launcher;
}

static kbv_status mpi_failed(int rc, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof msg, "MPI error %d", rc);
    return kbv_fail(KBV_ERR_IO, "%s: %s", what, msg);
}

static int send_text(int to, int tag, const char *text)
{
    pthread_mutex_lock(&mpi_lock);
    int rc = MPI_Send(text, text ? (int)strlen(text) : 0, MPI_CHAR, to, tag, MPI_COMM_WORLD);
    pthread_mutex_unlock(&mpi_lock);
    return rc;
}

/* Receives a pending message from `from` (or MPI_ANY_SOURCE): 1 and the
 * message (*text malloc'd, NUL-terminated); 0 none pending; -1 an MPI error
 * (*source says whose message, or -1). */
static int recv_pending(int from, int *source, int *tag, char **text)
{
    int flag = 0, count = 0, rc;
    MPI_Status st;
    *text = NULL;
    *source = -1;
    pthread_mutex_lock(&mpi_lock);
    rc = MPI_Iprobe(from, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
    if (rc != MPI_SUCCESS || !flag)
        goto done;
    *source = st.MPI_SOURCE;
    *tag = st.MPI_TAG;
    rc = MPI_Get_count(&st, MPI_CHAR, &count);
    if (rc != MPI_SUCCESS || count < 0 || !(*text = malloc((size_t)count + 1))) {
        rc = rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM;
        goto done;
    }
    rc = MPI_Recv(*text, count, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS)
        (*text)[count] = '\0';
done:
    pthread_mutex_unlock(&mpi_lock);
    if (rc != MPI_SUCCESS) {
        free(*text);
        *text = NULL;
        return -1;
    }
    return flag ? 1 : 0;
}

/* ---- start and end ------------------------------------------------------ */

kbv_status kbv_mpi_begin(uint64_t *seed, kbv_mpi_world *w)
{
    int provided = MPI_THREAD_SINGLE, rc;
    memset(w, 0, sizeof *w);
    /* kbv is not dumpable (nothing may read its memory), so Open MPI's
     * single-copy transfers between ranks (process_vm_readv) cannot work:
     * shared memory without them, unless the user chose otherwise */
    setenv("OMPI_MCA_btl_vader_single_copy_mechanism", "none", 0);
    setenv("OMPI_MCA_smsc", "^cma", 0);
    rc = MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
        return kbv_fail(KBV_ERR_IO, "MPI_Init_thread failed (error %d)", rc);
    heartbeats = provided >= MPI_THREAD_SERIALIZED;
    launcher = getppid();
    if ((rc = MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)) != MPI_SUCCESS)
        return mpi_failed(rc, "MPI_Comm_set_errhandler");
    MPI_Comm_rank(MPI_COMM_WORLD, &w->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &w->size);

    /* This node's ranks; rank 0, when here, evaluates nothing and is not counted. */
    MPI_Comm node;
    if ((rc = MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
                                  &node)) != MPI_SUCCESS)
        return mpi_failed(rc, "MPI_Comm_split_type");
    int node_rank = 0, node_size = 1, zero = 0, zero_here = MPI_UNDEFINED;
    MPI_Group world_group, node_group;
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Comm_group(node, &node_group);
    MPI_Group_translate_ranks(world_group, 1, &zero, node_group, &zero_here);
    MPI_Group_free(&world_group);
    MPI_Group_free(&node_group);
    MPI_Comm_free(&node);
    bool coordinator_here = zero_here != MPI_UNDEFINED;
    w->node_count = node_size - coordinator_here;
    w->node_index = node_rank - (coordinator_here && zero_here < node_rank);

    unsigned long long s = *seed;
    if ((rc = MPI_Bcast(&s, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD)) != MPI_SUCCESS)
        return mpi_failed(rc, "sharing the run seed");
    *seed = s;
    return KBV_OK;
}

void kbv_mpi_end(bool abort_all, int exit_code)
{
    fflush(stdout);
    fflush(stderr);
    if (abort_all)
        MPI_Abort(MPI_COMM_WORLD, exit_code ? exit_code : 1);
    else
        MPI_Finalize();
}

/* ---- rank 0 -------------------------------------------------------------- */

typedef enum rank_state {
    RANK_STARTING,
    RANK_IDLE,
    RANK_BUSY,
    RANK_UNUSED,      /* told to stop: it cannot evaluate, or not on the run's device */
    RANK_LOST,        /* dead or silent: never addressed again */
} rank_state;

typedef struct rank_slot {
    rank_state state;
    int job;
    double t0;        /* when the job was handed out */
    double heard;     /* its last message */
    char host[128];
} rank_slot;

typedef struct coordinator {
    const kbv_mpi_world *w;
    const kbv_mpi_coordinator_ops *ops;
    kbv_mpi_stats *stats;
    rank_slot *slots;
    kbv_mpi_device dev;
    bool planned;
    int n_jobs, next;
    char first_error[1024];
} coordinator;

static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

static void rank_name(const coordinator *c, int r, char *buf, size_t cap)
{
    if (c->slots[r].host[0])
        snprintf(buf, cap, "rank %d (%s)", r, c->slots[r].host);
    else
        snprintf(buf, cap, "rank %d", r);
}

/* A rank that died, fell silent or broke the protocol: its job is reported
 * and not recorded, and it is never addressed again. */
static void lose(coordinator *c, int r, const char *how)
{
    rank_slot *s = &c->slots[r];
    char name[200];
    rank_name(c, r, name, sizeof name);
    fprintf(stderr, "kbv eval: %s %s; it gets no more jobs\n", name, how);
    if (s->state == RANK_BUSY) {
        char why[512];
        snprintf(why, sizeof why, "harness failure: %s %s while evaluating it (not recorded; a "
                                  "rerun evaluates it)", name, how);
        c->ops->failed(c->ops->ctx, s->job, why);
    }
    s->state = RANK_LOST;
    c->stats->lost++;
}

static void unused(coordinator *c, int r)
{
    send_text(r, TAG_STOP, NULL);
    c->slots[r].state = RANK_UNUSED;
    c->stats->unused++;
}

static kbv_status handle_ready(coordinator *c, int r, const char *text)
{
    rank_slot *s = &c->slots[r];
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    const char *name = json_string_value(json_object_get(o, "device"));
    const char *size = json_string_value(json_object_get(o, "size"));
    const char *arch = json_string_value(json_object_get(o, "arch"));
    const char *host = json_string_value(json_object_get(o, "host"));
    kbv_status st = KBV_OK;
    if (host)
        snprintf(s->host, sizeof s->host, "%s", host);
    char who[200];
    rank_name(c, r, who, sizeof who);
    if (!name || !size || !arch) {
        json_decref(o);
        lose(c, r, "sent a malformed ready message");
        return KBV_OK;
    }
    if (!c->planned) {
        snprintf(c->dev.name, sizeof c->dev.name, "%s", name);
        snprintf(c->dev.size, sizeof c->dev.size, "%s", size);
        snprintf(c->dev.arch, sizeof c->dev.arch, "%s", arch);
        json_decref(o);
        KBV_TRY(c->ops->plan(c->ops->ctx, &c->dev, &c->n_jobs));
        c->planned = true;
        /* the plan may have taken a while: messages waiting meanwhile are not silence */
        double now = now_s();
        for (int k = 1; k < c->w->size; k++)
            c->slots[k].heard = now;
    } else if (strcmp(name, c->dev.name) || strcmp(size, c->dev.size)) {
        fprintf(stderr, "kbv eval: %s runs on '%s' (size %s), not '%s' (size %s) like the first "
                        "ready rank; it evaluates nothing\n", who, name, size, c->dev.name,
                c->dev.size);
        json_decref(o);
        unused(c, r);
        return st;
    } else {
        json_decref(o);
    }
    s->state = RANK_IDLE;
    c->stats->ready++;
    return st;
}

static kbv_status handle_result(coordinator *c, int r, const char *text)
{
    rank_slot *s = &c->slots[r];
    kbv_status st = KBV_OK;
    double seconds = now_s() - s->t0;
    json_error_t jerr;
    json_t *o = json_loads(text, 0, &jerr);
    kbv_record *rec = malloc(sizeof *rec);
    s->state = RANK_IDLE;
    if (!rec)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "receiving a record");
    if (!o || kbv_record_from_json(o, rec) != KBV_OK) {
        char who[200], why[1400];
        rank_name(c, r, who, sizeof who);
        snprintf(why, sizeof why, "%s sent a record that cannot be read: %s", who,
                 o ? kbv_error_text() : jerr.text);
        kbv_clear_error();
        c->ops->failed(c->ops->ctx, s->job, why);
        goto done;
    }
    KBV_TRY_GOTO(c->ops->record(c->ops->ctx, s->job, rec, seconds), st, done);
done:
    free(rec);
    json_decref(o);
    return st;
}

/* One message from rank r. */
static kbv_status handle(coordinator *c, int r, int tag, const char *text)
{
    rank_slot *s = &c->slots[r];
    if (s->state == RANK_LOST || s->state == RANK_UNUSED)
        return KBV_OK;   /* a rank given up on may still talk: it is not listened to */
    s->heard = now_s();
    if (tag == TAG_ALIVE)
        return KBV_OK;
    if (s->state == RANK_STARTING && tag == TAG_READY) {
        KBV_TRY(handle_ready(c, r, text));
    } else if (s->state == RANK_STARTING && tag == TAG_UNUSABLE) {
        char who[200];
        rank_name(c, r, who, sizeof who);
        fprintf(stderr, "kbv eval: %s cannot evaluate:\n%s\n", who, text);
        if (!c->first_error[0])
            snprintf(c->first_error, sizeof c->first_error, "%s", text);
        unused(c, r);
    } else if (s->state == RANK_BUSY && tag == TAG_RESULT) {
        KBV_TRY(handle_result(c, r, text));
    } else if (s->state == RANK_BUSY && tag == TAG_FAILED) {
        s->state = RANK_IDLE;
        c->ops->failed(c->ops->ctx, s->job, text);
    } else {
        char how[96];
        snprintf(how, sizeof how, "sent an unexpected message (tag %d)", tag);
        lose(c, r, how);
    }
    return KBV_OK;
}

static kbv_status dispatch(coordinator *c, int r)
{
    rank_slot *s = &c->slots[r];
    char *text = NULL;
    int job = c->next++;
    KBV_TRY(c->ops->job_text(c->ops->ctx, job, &text));
    s->state = RANK_BUSY;
    s->job = job;
    s->t0 = now_s();
    int rc = send_text(r, TAG_JOB, text);
    free(text);
    if (rc != MPI_SUCCESS) {
        lose(c, r, "could not be sent its job");
        return KBV_OK;
    }
    c->ops->dispatched(c->ops->ctx, job);
    return KBV_OK;
}

static double silence_limit(void)
{
    const char *env = getenv("KBV_MPI_SILENCE_S");
    char *end = NULL;
    double v = env ? strtod(env, &end) : 0;
    if (!env || end == env || *end || !(v > 0))
        return DEFAULT_SILENCE_S;
    return v < MIN_SILENCE_S ? MIN_SILENCE_S : v;
}

/* With no message pending: ranks whose last word is older than the limit. */
static void check_silence(coordinator *c, double limit)
{
    double now = now_s();
    for (int r = 1; r < c->w->size; r++) {
        rank_slot *s = &c->slots[r];
        if (s->state > RANK_BUSY || now - s->heard <= limit)
            continue;
        char how[96];
        snprintf(how, sizeof how, "has sent nothing for %.0f s (dead, stopped or cut off)",
                 now - s->heard);
        lose(c, r, how);
    }
}

/* The run stops early (how): every job in flight is reported, not recorded. */
static void abandon_jobs_in_flight(coordinator *c, const char *how)
{
    for (int r = 1; r < c->w->size; r++)
        if (c->slots[r].state == RANK_BUSY) {
            char why[512];
            snprintf(why, sizeof why, "not recorded: the run was stopped (%s) while rank %d "
                                      "evaluated it; a rerun evaluates it", how, r);
            c->ops->failed(c->ops->ctx, c->slots[r].job, why);
            c->slots[r].state = RANK_IDLE;
        }
}

static kbv_status run_loop(coordinator *c)
{
    double limit = silence_limit();
    long pause = POLL_MIN_NS;
    for (;;) {
        if (stop_signal || launcher_gone()) {
            c->stats->signal = stop_signal ? (int)stop_signal : SIGHUP;
            abandon_jobs_in_flight(c, stop_signal ? strsignal((int)stop_signal)
                                                  : "its launcher is gone");
            return KBV_OK;
        }
        int busy = 0, alive = 0;
        for (int r = 1; r < c->w->size; r++) {
            rank_slot *s = &c->slots[r];
            if (c->planned && s->state == RANK_IDLE && c->next < c->n_jobs)
                KBV_TRY(dispatch(c, r));
            busy += s->state == RANK_BUSY;
            alive += s->state <= RANK_BUSY;
        }
        if (c->planned && c->next >= c->n_jobs && busy == 0)
            return KBV_OK;
        if (alive == 0) {
            if (!c->planned)
                return kbv_fail(KBV_ERR_CHILD, "no rank could evaluate%s%s",
                                c->first_error[0] ? ":\n" : "", c->first_error);
            while (c->next < c->n_jobs)
                c->ops->failed(c->ops->ctx, c->next++, "harness failure: no rank left to "
                                                       "evaluate it");
            return KBV_OK;
        }
        int source, tag;
        char *text;
        int got = recv_pending(MPI_ANY_SOURCE, &source, &tag, &text);
        if (got == 0) {
            if (heartbeats)
                check_silence(c, limit);
            pause_ns(pause);
            pause = pause * 2 < POLL_MAX_NS ? pause * 2 : POLL_MAX_NS;
            continue;
        }
        pause = POLL_MIN_NS;
        if (got < 0) {
            /* whose message failed is known only once it was probed */
            if (source < 1 || source >= c->w->size || c->slots[source].state > RANK_BUSY)
                return kbv_fail(KBV_ERR_IO, "MPI: receiving a message failed (a rank died?)");
            lose(c, source, "could not be received from");
            continue;
        }
        kbv_status st = source >= 1 && source < c->w->size ? handle(c, source, tag, text)
                                                           : KBV_OK;
        free(text);
        KBV_TRY(st);
    }
}

kbv_status kbv_mpi_coordinate(const kbv_mpi_world *w, const kbv_mpi_coordinator_ops *ops,
                              kbv_mpi_stats *stats)
{
    memset(stats, 0, sizeof *stats);
    if (w->size < 2)
        return kbv_fail(KBV_ERR_INVALID, "--mpi needs 2 ranks or more: rank 0 hands out the "
                                         "jobs and evaluates none (this run has %d)", w->size);
    stats->ranks = w->size - 1;
    kbv_status st = KBV_OK;
    coordinator c = {.w = w, .ops = ops, .stats = stats};
    c.slots = calloc((size_t)w->size, sizeof *c.slots);
    if (!c.slots)
        return kbv_fail(KBV_ERR_NOMEM, "%d ranks", w->size);
    double now = now_s();
    for (int r = 1; r < w->size; r++)
        c.slots[r] = (rank_slot){.state = RANK_STARTING, .heard = now};
    /* mpirun sends SIGTERM to every rank when one dies or it is interrupted:
     * rank 0 then reports the jobs in flight before it goes */
    struct sigaction sa = {.sa_handler = on_stop_signal}, old[3];
    const int sigs[3] = {SIGTERM, SIGINT, SIGHUP};
    sigemptyset(&sa.sa_mask);
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &sa, &old[i]);
    st = run_loop(&c);
    if (st != KBV_OK) {
        abandon_jobs_in_flight(&c, "an error of rank 0's, below");
        kbv_relay_at(__FILE__, __LINE__, st);
    }
    /* the rest: stop (after an error, busy ones' work is abandoned) */
    for (int r = 1; r < w->size && !stats->signal; r++)
        if (c.slots[r].state <= RANK_BUSY)
            send_text(r, TAG_STOP, NULL);
    for (int i = 0; i < 3; i++)
        sigaction(sigs[i], &old[i], NULL);
    free(c.slots);
    return st;
}

/* ---- an evaluating rank ------------------------------------------------------ */

static atomic_bool beat_stop;

static void *heartbeat_main(void *arg)
{
    (void)arg;
    double last = 0;
    while (!atomic_load(&beat_stop)) {
        if (launcher_gone())
            _exit(1);   /* nobody is left to take this rank's results */
        if (now_s() - last >= HEARTBEAT_S) {
            send_text(0, TAG_ALIVE, NULL);
            last = now_s();
        }
        pause_ns(100 * 1000 * 1000L);
    }
    return NULL;
}

/* Waits for rank 0's next message; -1 on an MPI error. */
static int next_order(int *tag, char **text)
{
    long pause = POLL_MIN_NS;
    for (;;) {
        int source;
        int got = recv_pending(0, &source, tag, text);
        if (got != 0)
            return got;
        if (!heartbeats && launcher_gone())
            _exit(1);
        pause_ns(pause);
        pause = pause * 2 < POLL_MAX_NS ? pause * 2 : POLL_MAX_NS;
    }
}

/* The device this rank evaluates on, its evaluator and baseline cache; on
 * failure *why says what to tell rank 0. */
static kbv_status start_evaluator(const kbv_mpi_world *w, const char *device, const char *size,
                                  const kbv_eval_opts *eval, kbv_evaluator **ev,
                                  kbv_baseline_cache *cache, char *arch, size_t arch_cap)
{
    kbv_status st = KBV_OK;
    kbv_device_probe *probe = malloc(sizeof *probe);
    kbv_eval_opts eo = *eval;
    arch[0] = '\0';
    if (!probe)
        return kbv_fail(KBV_ERR_NOMEM, "device probe");
    KBV_TRY_GOTO(kbv_devices_probe(device, size, probe), st, done);
    eo.device = probe->opts.device;
    eo.size = probe->opts.size;
    if (eo.device >= 0) {
        if (w->node_index >= probe->n_gpus)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "this node has %d GPU%s for %d evaluating "
                          "ranks: rank %d has none (start at most one rank per GPU)",
                          probe->n_gpus, probe->n_gpus == 1 ? "" : "s", w->node_count, w->rank);
        snprintf(arch, arch_cap, "%s", probe->arch[w->node_index]);
        KBV_TRY_GOTO(kbv_visible_gpu_narrow(w->node_index), st, done);
        eo.device = 0;
    }
    KBV_TRY_GOTO(kbv_evaluator_create(&eo, ev), st, done);
    KBV_TRY_GOTO(kbv_baseline_cache_open((*ev)->device_name, cache), st, done);
    char why[1400];
    /* one rank per node says it: the cache is the node's (or shared by all) */
    if (w->node_index == 0 && kbv_baseline_cache_rejections(cache, why, sizeof why))
        fprintf(stderr, "kbv eval: rank %d: %s\n", w->rank, why);
done:
    free(probe);
    return st;
}

static char *ready_text(const kbv_evaluator *ev, const char *arch)
{
    char host[MPI_MAX_PROCESSOR_NAME] = "";
    int len = 0;
    MPI_Get_processor_name(host, &len);
    json_t *o = json_pack("{s:s, s:s, s:s, s:s}", "device", ev->device_name, "size",
                          kbv_size_name(ev->opts.size), "arch", arch, "host", host);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

/* Evaluates one job into the text to send back: the record's JSON (tag
 * TAG_RESULT) or why it could not be evaluated (TAG_FAILED). */
static char *evaluate_job(const kbv_mpi_evaluator_ops *ops, kbv_evaluator *ev,
                          kbv_baseline_cache *cache, const char *job, kbv_record *rec, int *tag)
{
    json_t *o = NULL;
    char *text = NULL;
    kbv_clear_error();
    if (ops->evaluate(ops->ctx, ev, cache, job, rec) == KBV_OK &&
        kbv_record_to_json(rec, &o) == KBV_OK && (text = json_dumps(o, JSON_COMPACT)) != NULL) {
        *tag = TAG_RESULT;
    } else {
        *tag = TAG_FAILED;
        text = strdup(kbv_error_text()[0] ? kbv_error_text() : "out of memory");
    }
    json_decref(o);
    return text;
}

kbv_status kbv_mpi_serve(const kbv_mpi_world *w, const char *device, const char *size,
                         const kbv_eval_opts *eval, const kbv_mpi_evaluator_ops *ops)
{
    kbv_status st = KBV_OK;
    kbv_evaluator *ev = NULL;
    kbv_baseline_cache cache;
    bool cache_open = false, beating = false, usable = false;
    char arch[16] = "", *text = NULL, *reply = NULL;
    pthread_t beat;
    kbv_record *rec = malloc(sizeof *rec);
    if (!rec)
        return kbv_fail(KBV_ERR_NOMEM, "a record");
    atomic_store(&beat_stop, false);
    if (heartbeats)
        beating = pthread_create(&beat, NULL, heartbeat_main, NULL) == 0;

    if (start_evaluator(w, device, size, eval, &ev, &cache, arch, sizeof arch) == KBV_OK) {
        cache_open = true;
        reply = ready_text(ev, arch);
        usable = reply != NULL;
    }
    if (!usable) {
        const char *why = kbv_error_text()[0] ? kbv_error_text() : "out of memory";
        if (send_text(0, TAG_UNUSABLE, why) != MPI_SUCCESS)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "MPI: rank %d could not reach rank 0", w->rank);
    } else if (send_text(0, TAG_READY, reply) != MPI_SUCCESS) {
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "MPI: rank %d could not reach rank 0", w->rank);
    }
    off_t known = -1;
    for (;;) {
        int tag = 0;
        free(text);
        free(reply);
        text = reply = NULL;
        if (next_order(&tag, &text) < 0)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "MPI: rank %d lost rank 0", w->rank);
        if (tag == TAG_STOP)
            break;
        if (tag != TAG_JOB || !usable)
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "MPI: rank %d got an unexpected message "
                          "(tag %d)", w->rank, tag);
        kbv_baseline_cache_refresh(&cache, &known);
        reply = evaluate_job(ops, ev, &cache, text, rec, &tag);
        if (!reply || send_text(0, tag, reply) != MPI_SUCCESS)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "MPI: rank %d could not send its result",
                          w->rank);
    }
done:
    if (beating) {
        atomic_store(&beat_stop, true);
        pthread_join(beat, NULL);
    }
    free(text);
    free(reply);
    if (cache_open)
        kbv_baseline_cache_close(&cache);
    kbv_evaluator_destroy(ev);
    free(rec);
    return st;
}
