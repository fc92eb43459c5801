/* One candidate file, from its bytes to a record: read under the candidate
 * file rule, compiled, its baselines found, the protocols run. */
#include "eval/protocol.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "record/candidate_file.h"
#include "eval/busy.h"
#include "eval/compile.h"
#include "eval/phase.h"
#include "eval/sample.h"
#include "eval/precision.h"
#include "sandbox/spawn.h"

/* The first line of a compiler log that reports an error, for the reason. */
static void first_error_line(const char *log, char *buf, size_t cap)
{
    const char *line = log, *pick = NULL;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (!pick && len > 0 && (memmem(line, len, "error", 5) || memmem(line, len, "refused", 7)))
            pick = line;
        line = end ? end + 1 : NULL;
    }
    if (!pick)
        pick = log;
    const char *end = strchr(pick, '\n');
    size_t len = end ? (size_t)(end - pick) : strlen(pick);
    kbv_utf8_copy(buf, cap, pick, len);
}

bool kbv_path_is_generation_failure(const char *path)
{
    size_t n = strlen(path);
    return n > 12 && !strcmp(path + n - 12, ".failed.json");
}

/* A sample that failed before anything ran: not compiled, every protocol
 * failed with the same reason (the shape of a compile error's record). */
static void failed_before_running(kbv_record *rec, const char *reason)
{
    rec->compile.ok = false;
    kbv_record_set_log(rec, reason);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        snprintf(rec->proto[p].reason, sizeof rec->proto[p].reason, "%s", reason);
}

/* A sample kbv generate recorded as failed (no code in the model's answer):
 * it fails every protocol, with the recorded reason, and counts as tried. */
static void generation_failure(const kbv_candidate_file *file, kbv_record *rec)
{
    json_error_t jerr;
    json_t *doc = json_loadb(file->bytes, file->len, 0, &jerr);
    const char *why = doc ? json_string_value(json_object_get(doc, "reason")) : NULL;
    char reason[300];
    snprintf(reason, sizeof reason, "generation failed: %s",
             why ? why : doc ? "(no reason recorded)" : "unreadable .failed.json");
    failed_before_running(rec, reason);
    json_decref(doc);
}

kbv_status kbv_sample_evaluate(kbv_evaluator *ev, kbv_baseline_cache *cache,
                               const kbv_problem *def, const char *path, kbv_record *rec,
                               kbv_baseline base_out[KBV_MODE_COUNT])
{
    kbv_status st = KBV_OK;
    kbv_compile_result *cr = NULL;
    kbv_graph *g = NULL;
    kbv_candidate_file file = {0};
    kbv_phase_clock clock;
    kbv_phase_clock_start(&clock, rec, KBV_PHASE_NONE);
    kbv_busy_add(rec, KBV_BUSY_CANDIDATE, 0);   /* busy_s is measured from here: all zero */
    if (base_out)
        for (int m = 0; m < KBV_MODE_COUNT; m++) {
            memset(&base_out[m], 0, sizeof base_out[m]);
            base_out[m].std_mean_ms = base_out[m].std_sd_ms = NAN;
            base_out[m].strict_median_ms = base_out[m].strict_iqr_ms = NAN;
            base_out[m].peak_bytes = NAN;
        }
    kbv_problem_key(def, rec->problem, sizeof rec->problem);
    rec->level = def->level;
    rec->problem_id = def->id;
    snprintf(rec->device, sizeof rec->device, "%s", ev->device_name);
    snprintf(rec->size, sizeof rec->size, "%s", kbv_size_name(ev->opts.size));
    rec->seed = ev->opts.run_seed;
    rec->gate = ev->opts.gate;
    rec->precision = ev->opts.precision;
    rec->vendor_libs = ev->opts.vendor_libs;
    snprintf(rec->sandbox, sizeof rec->sandbox, "%s", kbv_sandbox_mode_get()->describe);
    snprintf(rec->params, sizeof rec->params, "%s",
             sample_is_python(path) ? "state_dict" : "arguments");
    /* the identity, and the candidate's own failures before any compiler
     * sees it: empty, binary, a link, gone... (record/candidate_file.h) */
    KBV_TRY_GOTO(kbv_candidate_file_read(path, &file), st, done);
    snprintf(rec->source_sha256, sizeof rec->source_sha256, "%s", file.identity);
    if (file.defect != KBV_CANDIDATE_OK) {
        char reason[sizeof rec->proto[0].reason];
        kbv_candidate_defect_reason(&file, reason, sizeof reason);
        failed_before_running(rec, reason);
        goto done;
    }
    if (kbv_path_is_generation_failure(path)) {
        generation_failure(&file, rec);
        goto done;
    }
    kbv_candidate_file_free(&file);   /* kbv_compile reads it again, under the same rule */

    cr = calloc(1, sizeof *cr);
    g = calloc(1, sizeof *g);
    if (!cr || !g)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "evaluating %s", path);
    kbv_compile_opts co = {.source = path, .arch = ev->arch[0] ? ev->arch : NULL,
                           .vendor_libs = ev->opts.vendor_libs};
    kbv_phase_enter(&clock, KBV_PHASE_COMPILE);
    KBV_TRY_GOTO(kbv_compile(&co, cr), st, done);
    kbv_phase_enter(&clock, KBV_PHASE_NONE);
    rec->compile.ok = cr->ok;
    rec->compile.cached = cr->cached;
    rec->compile.seconds = cr->seconds;
    kbv_record_set_log(rec, cr->log);
    if (!cr->ok) {
        char line[200];
        first_error_line(cr->log, line, sizeof line);
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            snprintf(rec->proto[p].reason, sizeof rec->proto[p].reason, "compile error: %s",
                     line[0] ? line : "(no compiler output)");
        goto done;
    }
    KBV_TRY_GOTO(kbv_graph_build(def, ev->opts.size, g), st, done);
    kbv_baseline base[KBV_MODE_COUNT];
    unsigned fresh = 0;
    kbv_phase_enter(&clock, KBV_PHASE_BASELINES);
    double baselines_t0 = kbv_monotonic_s();
    /* only the baselines this run's protocols are judged and reported against,
     * and strict's timing of them only when strict is evaluated */
    const bool with_strict = ev->opts.protocols >> KBV_PROTO_STRICT & 1u;
    KBV_TRY_GOTO(kbv_baselines_get(cache, ev->be,
                                   kbv_precision_timed_for(ev->opts.precision, ev->opts.protocols),
                                   with_strict, g, rec->problem, ev->opts.size, ev->opts.run_seed,
                                   false, base, &fresh),
                 st, done);
    /* measuring is device work throughout (the cache's one line written after it) */
    if (fresh)
        kbv_busy_add(rec, KBV_BUSY_BASELINES, kbv_monotonic_s() - baselines_t0);
    kbv_phase_enter(&clock, KBV_PHASE_NONE);
    if (base_out)
        memcpy(base_out, base, sizeof base);
    KBV_TRY_GOTO(kbv_protocol_run(ev, g, rec->problem, base, cr->so_path, rec), st, done);
done:
    rec->total_s = kbv_phase_clock_stop(&clock);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        if (!((ev->opts.protocols >> p) & 1u))
            kbv_proto_skip(&rec->proto[p], "not evaluated (kbv eval --protocols)");
    kbv_candidate_file_free(&file);
    free(cr);
    kbv_graph_free(g);
    free(g);
    return st;
}
