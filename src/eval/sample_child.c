/* A sample's candidate process: starts, calls and stops of its runner, a
 * fault kept as the record's, what it printed kept for the record. */
#include "eval/sample.h"

#include <stdio.h>

#include "core/clock.h"
#include "graph/torch_render.h"

/* "crash: killed by SIGSEGV during D2", also kept as the record's fault. */
void note_child_fault(kbv_record *rec, const kbv_child_result *res, const char *when, char *buf,
                      size_t cap)
{
    const char *kind = kbv_child_fault_name(res->fault);
    /* the runner's reason is bounded by its protocol; keep room for "during ..." */
    snprintf(buf, cap, "%s: %.300s during %.64s", kind, res->reason, when);
    if (!rec->has_fault) {
        rec->has_fault = true;
        snprintf(rec->fault_kind, sizeof rec->fault_kind, "%s", kind);
        snprintf(rec->fault_reason, sizeof rec->fault_reason, "%.400s during %.64s", res->reason,
                 when);
    }
}

/* Waits for what the evaluator enqueued on the services backend before the
 * candidate runs: the end of a stretch of its device work. Fills and poison
 * wait for their own (eval/busy.h), so what is left is a fill's at most. */
static kbv_status services_sync(sample *s)
{
    sample_busy_enter(s, KBV_CHECK_FILLS);
    kbv_status st = s->svc->sync(s->svc);
    sample_busy_leave(s);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}

kbv_status sample_child_call(sample *s, int set, int n, bool flush, kbv_child_result *res)
{
    /* fills and poison were enqueued on the services backend */
    KBV_TRY(services_sync(s));
    KBV_TRY(kbv_child_call(s->child, set, n, flush, res));
    s->call_returned_s = kbv_monotonic_s();
    if (res->fault != KBV_FAULT_NONE)
        s->child_dead = true;
    s->l2_persisting += res->l2_persisting;
    sample_note_python(s, res);
    return KBV_OK;
}

kbv_status sample_child_prepare(sample *s, kbv_child_result *res)
{
    KBV_TRY(services_sync(s));
    KBV_TRY(kbv_child_prepare(s->child, res));
    if (res->fault != KBV_FAULT_NONE)
        s->child_dead = true;
    sample_note_python(s, res);
    return KBV_OK;
}

/* Stops the runner, keeping what it printed for the record. */
void sample_child_stop(sample *s)
{
    if (!s->child)
        return;
    size_t dropped = 0;
    const char *printed = kbv_child_output(s->child, &dropped);
    if (s->rec && (printed[0] || dropped))
        kbv_record_add_output(s->rec, printed, dropped);
    kbv_busy_add(s->rec, KBV_BUSY_CANDIDATE, kbv_child_device_ms(s->child) / 1e3);
    kbv_child_stop(s->child);
    s->child = NULL;
}

typedef struct kernel_offsets {
    int n;
    uint64_t offsets[KBV_PROTO_MAX_KERNELS];
} kernel_offsets;

static void note_kernel(const char *name, uint64_t value, void *ctx)
{
    (void)name;
    kernel_offsets *k = ctx;
    if (k->n < KBV_PROTO_MAX_KERNELS && value)
        k->offsets[k->n++] = value;
}

/* The next candidate processes, started while this one works: their start,
 * sandbox and CUDA context (and for a KernelBench-format candidate the
 * interpreter with torch) are then ready when a candidate needs one
 * (eval/ahead.h), as opts.start_ahead says; a runner that could not be
 * started ahead is started when needed instead. The next candidates are
 * guessed to be of this one's kind. */
static void start_next_ahead(sample *s)
{
    const kbv_eval_opts *o = &s->ev->opts;
    kbv_start_ahead how = o->start_ahead;
    bool wanted = how == KBV_START_AHEAD_ON || (how == KBV_START_AHEAD_AUTO && o->device >= 0);
    if (!wanted)
        return;
    int depth = o->start_ahead_depth;
    if (depth <= 0) {
        depth = kbv_ahead_default_depth(s->python);
        /* strict's hidden shapes each take a runner right after the candidate's
         * audits: kept started too, or the second would wait for a whole start */
        if (!s->python && sample_wants(s, KBV_PROTO_STRICT))
            depth += KBV_HIDDEN_SHAPES;
    }
    kbv_ahead_fill(&s->ev->ahead, o->runner, o->device, s->python, depth);
}

/* Starts (or restarts) the runner and prepares the candidate on the current params. */
kbv_status sample_child_start(sample *s, const char *so_path, kbv_child_result *res)
{
    sample_child_stop(s);
    /* what the runner needs of the built object: its kernels (for the traced
     * pass to know their launches) and the allowed vendor libraries it links
     * (initialised while paths can still be opened) */
    const kbv_symbols *syms = NULL;
    unsigned vendor_libs = 0;
    kernel_offsets k = {0};
    /* a KernelBench-format file: no object to read, its init inputs from kbv's definition */
    char python_init[KBV_PROTO_PYTHON_INIT_MAX];
    s->python = sample_is_python(so_path);
    if (s->python) {
        KBV_TRY(kbv_render_init_inputs(s->g, python_init, sizeof python_init));
    } else if (sample_symbols(s, so_path, &syms) == KBV_OK) {
        vendor_libs = s->ev->opts.vendor_libs & kbv_symbols_vendor_needed(syms);
        kbv_symbols_each_kernel(syms, note_kernel, &k);
    } else {
        kbv_clear_error();   /* unreadable: the binary allowlist says so */
    }
    kbv_child_spec spec = {
        .runner = s->ev->opts.runner,
        .candidate = so_path,
        .device = s->ev->opts.device,
        .arena = &s->arena,
        .layout = &s->layout,
        .start_timeout_s = s->ev->opts.start_timeout_s,
        .call_timeout_s = s->ev->opts.call_timeout_s,
        .flush_bytes = s->ev->flush_bytes,
        .vendor_libs = vendor_libs,
        .kernels = k.offsets,
        .n_kernels = k.n,
        .python_init = s->python ? python_init : NULL,
    };
    s->child_dead = false;
    KBV_TRY(services_sync(s));
    spec.ahead = kbv_ahead_take(&s->ev->ahead, s->python);   /* taken, whatever happens */
    KBV_TRY(kbv_child_start(&spec, &s->child, res));
    sample_note_python(s, res);
    start_next_ahead(s);
    if (res->fault != KBV_FAULT_NONE) {
        s->child_dead = true;
        return KBV_OK;
    }
    return sample_child_prepare(s, res);
}

/* child_start, its time charged to the load phase. */
kbv_status sample_load_child(sample *s, const char *so_path, kbv_child_result *res)
{
    kbv_phase was = kbv_phase_enter(&s->clock, KBV_PHASE_LOAD);
    kbv_status st = sample_child_start(s, so_path, res);
    kbv_phase_enter(&s->clock, was);
    return st == KBV_OK ? KBV_OK : kbv_relay_at(__FILE__, __LINE__, st);
}
