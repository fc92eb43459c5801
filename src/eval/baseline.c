#include "eval/baseline.h"

#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "core/clock.h"
#include "eval/compile.h"
#include "dist/draws.h"
#include "eval/verdict.h"
#include "exec/clock_guard.h"

#define ALLOC_ROUND 512
/* standard runs between SM clock samples (one NVML read is a few microseconds) */
#define CLOCK_SAMPLE_EVERY 10

/* ---- sizes ------------------------------------------------------------ */

const char *kbv_size_name(kbv_size s) { return s == KBV_SIZE_SMALL ? "small" : "full"; }

kbv_status kbv_size_parse(const char *s, kbv_size *out)
{
    if (s && !strcmp(s, "full"))
        *out = KBV_SIZE_FULL;
    else if (s && !strcmp(s, "small"))
        *out = KBV_SIZE_SMALL;
    else
        return kbv_fail(KBV_ERR_PARSE, "size '%s': expected full or small", s ? s : "");
    return KBV_OK;
}

/* ---- measuring -------------------------------------------------------- */


static size_t round_up(size_t n, size_t to) { return (n + to - 1) / to * to; }

/* Eager inputs and params of g in be's memory, drawn from the base
 * generators, and room for the outputs of a forward. */
typedef struct resident {
    kbv_tensor *in;           /* [n_inputs] */
    kbv_tensor *par;          /* [n_params] */
    kbv_tensor *out;          /* [n_outputs], empty between forwards */
    size_t bytes;             /* counted as the allocator counts them */
} resident;

static kbv_status tensor_for(kbv_backend *be, const kbv_value *v, kbv_dtype def_dtype,
                             bool python_scalar, kbv_tensor *t, size_t *bytes)
{
    kbv_value_tensor(v, t);
    t->dtype = kbv_storage_dtype(be, def_dtype, python_scalar);
    *bytes = (size_t)kbv_value_numel(v) * kbv_dtype_size(t->dtype);
    void *p = NULL;
    KBV_TRY(be->alloc(be, *bytes, &p));
    t->data = p;
    return KBV_OK;
}

static void resident_free(kbv_backend *be, const kbv_graph *g, resident *r)
{
    for (int i = 0; r->in && i < g->n_inputs; i++)
        if (r->in[i].data)
            be->release(be, r->in[i].data);
    for (int j = 0; r->par && j < g->n_params; j++)
        if (r->par[j].data)
            be->release(be, r->par[j].data);
    free(r->in);
    free(r->par);
    free(r->out);
    memset(r, 0, sizeof *r);
}

static kbv_status fill_inputs(kbv_backend *be, const kbv_graph *g, const kbv_draw *draw,
                              resident *r)
{
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_value *v = &g->values[i];
        KBV_TRY(be->fill(be, &g->def->inputs[v->def_index], v->def_index, draw, &r->in[i]));
    }
    return KBV_OK;
}

static kbv_status resident_make(kbv_backend *be, const kbv_graph *g, uint64_t seed, resident *r)
{
    kbv_status st = KBV_OK;
    memset(r, 0, sizeof *r);
    r->in = calloc((size_t)g->n_inputs + 1, sizeof *r->in);
    r->par = calloc((size_t)g->n_params + 1, sizeof *r->par);
    r->out = calloc((size_t)g->n_outputs + 1, sizeof *r->out);
    if (!r->in || !r->par || !r->out)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_NOMEM, "tensors of %d params", g->n_params);
    for (int i = 0; i < g->n_inputs; i++) {
        const kbv_value *v = &g->values[i];
        size_t bytes;
        const kbv_input_def *in = &g->def->inputs[v->def_index];
        KBV_TRY_GOTO(tensor_for(be, v, in->dtype, in->gen == KBV_GEN_SCALAR, &r->in[i], &bytes),
                     st, fail);
        r->bytes += round_up(bytes, ALLOC_ROUND);
    }
    for (int j = 0; j < g->n_params; j++) {
        const kbv_value *v = &g->values[g->n_inputs + j];
        size_t bytes;
        KBV_TRY_GOTO(tensor_for(be, v, g->def->params[v->def_index].dtype, false, &r->par[j],
                                &bytes),
                     st, fail);
        r->bytes += round_up(bytes, ALLOC_ROUND);
        kbv_draw pd = {KBV_DIST_BASE, kbv_seed_derive(seed, g->def->name, KBV_SEED_PARAMS, 0)};
        KBV_TRY_GOTO(be->fill_param(be, g, j, &pd, &r->par[j]), st, fail);
    }
    kbv_draw d = {KBV_DIST_BASE, kbv_seed_derive(seed, g->def->name, KBV_SEED_DRAW, 0)};
    KBV_TRY_GOTO(fill_inputs(be, g, &d, r), st, fail);
    return KBV_OK;
fail:
    resident_free(be, g, r);
    return st;
}

static void outputs_free(kbv_backend *be, const kbv_graph *g, kbv_tensor *out)
{
    for (int k = 0; k < g->n_outputs; k++)
        if (out[k].data)
            be->release(be, out[k].data);
    memset(out, 0, sizeof *out * (size_t)g->n_outputs);
}

/* One forward, timed on the backend's clock when ms is not NULL. */
static kbv_status forward(kbv_backend *be, const kbv_graph *g, const resident *r, double *ms)
{
    kbv_tensor *out = r->out;
    if (ms)
        KBV_TRY(be->timer_start(be));
    KBV_TRY(kbv_graph_run(g, be, r->in, r->par, out));
    kbv_status st = ms ? be->timer_stop(be, ms) : be->sync(be);
    outputs_free(be, g, out);
    if (st != KBV_OK)
        return kbv_relay_at(__FILE__, __LINE__, st);
    return KBV_OK;
}

bool kbv_baseline_has_strict(const kbv_baseline *b) { return b->strict_n >= 1; }

kbv_status kbv_baseline_measure(kbv_backend *be, const kbv_graph *g, uint64_t seed,
                                bool strict_timing, kbv_baseline *out)
{
    kbv_status st = KBV_OK;
    resident r;
    double std_ms[KBV_BASELINE_STD_RUNS], strict_ms[KBV_BASELINE_STRICT_TRIALS];
    KBV_TRY(resident_make(be, g, seed, &r));
    kbv_tensor *outs = r.out;

    /* memory: the allocator's growth over the resident tensors in one forward.
     * One forward runs first, so that what the backend keeps for its life
     * (cuBLAS's workspace) exists already and never counts -- the same for the
     * first problem of a run as for the hundredth, and as the anchors measured
     * PyTorch (growth beyond the resident model and inputs). */
    KBV_TRY_GOTO(kbv_graph_run(g, be, r.in, r.par, outs), st, done);
    st = be->sync(be);
    outputs_free(be, g, outs);
    if (st != KBV_OK)
        goto done;
    be->reset_peak(be);
    size_t before = be->mem.current;
    KBV_TRY_GOTO(kbv_graph_run(g, be, r.in, r.par, outs), st, done);
    st = be->sync(be);
    size_t growth = be->mem.peak > before ? be->mem.peak - before : 0;
    outputs_free(be, g, outs);
    if (st != KBV_OK)
        goto done;
    out->peak_bytes = (double)(r.bytes + growth);

    /* standard: warm cache, back-to-back runs, after a warm-up long enough for
     * the clock to leave idle; measured again while the clock ran throttled */
    double warm_start = kbv_monotonic_s();
    for (int i = 0; !kbv_warmup_enough(i, KBV_BASELINE_WARMUP,
                                       (kbv_monotonic_s() - warm_start) * 1e3); i++)
        KBV_TRY_GOTO(forward(be, g, &r, NULL), st, done);
    kbv_clock_guard clock;
    for (int attempt = 0; attempt < KBV_CLOCK_ATTEMPTS; attempt++) {
        if (attempt > 0) {
            kbv_clock_guard_recover();
            KBV_TRY_GOTO(forward(be, g, &r, NULL), st, done);
        }
        kbv_clock_guard_begin(&clock);
        for (int i = 0; i < KBV_BASELINE_STD_RUNS; i++) {
            if (i % CLOCK_SAMPLE_EVERY == 0)
                kbv_clock_guard_sample(&clock, be);
            KBV_TRY_GOTO(forward(be, g, &r, &std_ms[i]), st, done);
        }
        kbv_clock_guard_sample(&clock, be);
        if (!kbv_clock_guard_low(&clock))
            break;
    }
    out->std_sm_mhz = clock.min_mhz;
    out->std_throttled = kbv_clock_guard_low(&clock);
    kbv_time_stats ts;
    kbv_time_stats_of(std_ms, KBV_BASELINE_STD_RUNS, &ts);
    out->std_mean_ms = ts.mean;
    out->std_sd_ms = ts.sd;
    out->std_n = ts.n;

    /* strict: fresh inputs and a cold cache every trial; a trial timed on a
     * throttled clock is taken again after a pause */
    unsigned strict_min_mhz = 0;
    bool strict_throttled = false;
    const int trials = strict_timing ? KBV_BASELINE_STRICT_TRIALS : 0;
    for (int t = 0; t < trials; t++) {
        kbv_draw d = {KBV_DIST_BASE, kbv_seed_derive(seed, g->def->name, KBV_SEED_TRIAL,
                                                     (uint32_t)t)};
        for (int attempt = 0; attempt < KBV_CLOCK_ATTEMPTS; attempt++) {
            if (attempt > 0)
                kbv_clock_guard_recover();
            KBV_TRY_GOTO(fill_inputs(be, g, &d, &r), st, done);
            KBV_TRY_GOTO(be->sync(be), st, done);
            KBV_TRY_GOTO(be->flush_cache(be), st, done);
            kbv_clock_guard_begin(&clock);
            kbv_clock_guard_sample(&clock, be);
            KBV_TRY_GOTO(forward(be, g, &r, &strict_ms[t]), st, done);
            kbv_clock_guard_sample(&clock, be);
            if (!kbv_clock_guard_low(&clock))
                break;
        }
        if (clock.samples && (strict_min_mhz == 0 || clock.min_mhz < strict_min_mhz))
            strict_min_mhz = clock.min_mhz;
        strict_throttled |= kbv_clock_guard_low(&clock);
    }
    out->strict_sm_mhz = strict_min_mhz;
    out->strict_throttled = strict_throttled;
    if (trials > 0) {
        kbv_time_stats_of(strict_ms, trials, &ts);
        out->strict_median_ms = ts.median;
        out->strict_iqr_ms = ts.iqr;
        out->strict_n = ts.n;
    } else {
        out->strict_median_ms = out->strict_iqr_ms = NAN;
        out->strict_n = 0;
    }
    out->mode = be->mode;
    out->flops = kbv_graph_flops(g);
    out->min_bytes = kbv_graph_min_bytes(g);
    out->measured_at = (long long)time(NULL);
done:
    resident_free(be, g, &r);
    return st;
}

/* ---- the cache -------------------------------------------------------- */

/* What the MAC covers: every field, numbers exact (%a), in a fixed order,
 * under a tag that no other kind of MAC'd text shares. */
static int baseline_canonical(const kbv_baseline *b, char *buf, size_t cap)
{
    return snprintf(buf, cap,
                    "kbv baseline 2\nproblem %s\nsize %s\nmode %s\ndevice %s\nflops %a\n"
                    "min_bytes %a\nstd_mean_ms %a\nstd_sd_ms %a\nstd_n %d\nstrict_median_ms %a\n"
                    "strict_iqr_ms %a\nstrict_n %d\npeak_bytes %a\nmeasured_at %lld\n"
                    "std_sm_mhz %u\nstd_throttled %d\nstrict_sm_mhz %u\nstrict_throttled %d\n",
                    b->problem, b->size, kbv_mode_name(b->mode), b->device, b->flops,
                    b->min_bytes, b->std_mean_ms, b->std_sd_ms, b->std_n, b->strict_median_ms,
                    b->strict_iqr_ms, b->strict_n, b->peak_bytes, b->measured_at, b->std_sm_mhz,
                    (int)b->std_throttled, b->strict_sm_mhz, (int)b->strict_throttled);
}

#define CANONICAL_CAP 1024

static kbv_status baseline_mac(const kbv_secret *key, const kbv_baseline *b,
                               char hex[KBV_MAC_HEX_LEN + 1])
{
    char text[CANONICAL_CAP];
    int n = baseline_canonical(b, text, sizeof text);
    if (n < 0 || n >= (int)sizeof text)
        return kbv_fail(KBV_ERR_INVALID, "the baseline of %s does not fit its canonical form",
                        b->problem);
    KBV_TRY(kbv_mac(key, text, (size_t)n, hex));
    return KBV_OK;
}

static bool baseline_mac_verifies(const kbv_secret *key, const kbv_baseline *b, const char *hex)
{
    char text[CANONICAL_CAP];
    int n = baseline_canonical(b, text, sizeof text);
    return n >= 0 && n < (int)sizeof text && kbv_mac_verify(key, text, (size_t)n, hex);
}

#define MAX_BASELINE_MS 8.64e7     /* a day per forward is no baseline */
#define MAX_BASELINE_RUNS 1000000
#define MAX_BASELINE_BYTES 0x1p60
#define MAX_CLOCK_SKEW_S 86400

static bool in_range(double x, double lo, double hi) { return isfinite(x) && x >= lo && x <= hi; }

bool kbv_baseline_plausible(const kbv_baseline *b)
{
    long long latest = (long long)time(NULL) + MAX_CLOCK_SKEW_S;
    /* strict's timing, or none at all (a run without strict): stored as zeros */
    bool strict = b->strict_n == 0
                      ? b->strict_median_ms == 0 && b->strict_iqr_ms == 0
                      : in_range(b->strict_median_ms, 0, MAX_BASELINE_MS) &&
                            b->strict_median_ms > 0 &&
                            in_range(b->strict_iqr_ms, 0, MAX_BASELINE_MS) &&
                            b->strict_n >= 1 && b->strict_n <= MAX_BASELINE_RUNS;
    bool times = in_range(b->std_mean_ms, 0, MAX_BASELINE_MS) && b->std_mean_ms > 0 &&
                 in_range(b->std_sd_ms, 0, MAX_BASELINE_MS) && strict;
    bool counts = b->std_n >= 1 && b->std_n <= MAX_BASELINE_RUNS;
    bool sizes = in_range(b->peak_bytes, 0, MAX_BASELINE_BYTES) &&
                 in_range(b->flops, 0, DBL_MAX) && in_range(b->min_bytes, 0, DBL_MAX);
    return times && counts && sizes && b->measured_at > 0 && b->measured_at <= latest;
}

static json_t *baseline_to_json(const kbv_baseline *b, const char *mac)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:f, s:f, s:f, s:f, s:i, s:f, s:f, s:i, s:f, s:I, "
                     "s:I, s:b, s:I, s:b, s:s}",
                     "problem", b->problem, "size", b->size, "mode", kbv_mode_name(b->mode),
                     "device", b->device, "flops", b->flops, "min_bytes", b->min_bytes,
                     "std_mean_ms", b->std_mean_ms, "std_sd_ms", b->std_sd_ms, "std_n", b->std_n,
                     "strict_median_ms", b->strict_median_ms, "strict_iqr_ms", b->strict_iqr_ms,
                     "strict_n", b->strict_n, "peak_bytes", b->peak_bytes, "measured_at",
                     (json_int_t)b->measured_at, "std_sm_mhz", (json_int_t)b->std_sm_mhz,
                     "std_throttled", b->std_throttled, "strict_sm_mhz",
                     (json_int_t)b->strict_sm_mhz, "strict_throttled", b->strict_throttled,
                     "mac", mac);
}

/* The entry's fields (counts in range of an int), or false when o is no
 * baseline entry at all; *mac is its MAC, NULL when it has none. */
static bool baseline_from_json(json_t *o, kbv_baseline *b, const char **mac)
{
    const char *problem, *size, *mode, *device;
    json_int_t std_n, strict_n, at;
    memset(b, 0, sizeof *b);
    if (json_unpack(o, "{s:s, s:s, s:s, s:s, s:F, s:F, s:F, s:F, s:I, s:F, s:F, s:I, s:F, s:I}",
                    "problem", &problem, "size", &size, "mode", &mode, "device", &device,
                    "flops", &b->flops, "min_bytes", &b->min_bytes, "std_mean_ms",
                    &b->std_mean_ms, "std_sd_ms", &b->std_sd_ms, "std_n", &std_n,
                    "strict_median_ms", &b->strict_median_ms, "strict_iqr_ms", &b->strict_iqr_ms,
                    "strict_n", &strict_n, "peak_bytes", &b->peak_bytes, "measured_at", &at))
        return false;
    if (kbv_mode_parse(mode, &b->mode) != KBV_OK) {
        kbv_clear_error();
        return false;
    }
    snprintf(b->problem, sizeof b->problem, "%s", problem);
    snprintf(b->size, sizeof b->size, "%s", size);
    snprintf(b->device, sizeof b->device, "%s", device);
    /* out of an int's range: kept impossible rather than wrapped into range */
    b->std_n = std_n >= 0 && std_n <= INT_MAX ? (int)std_n : -1;
    b->strict_n = strict_n >= 0 && strict_n <= INT_MAX ? (int)strict_n : -1;
    b->measured_at = (long long)at;
    /* the clock fields, absent from entries of kbv baseline 1 (whose MAC then fails) */
    json_int_t std_mhz = 0, strict_mhz = 0;
    int std_thr = 0, strict_thr = 0;
    if (json_unpack(o, "{s?I, s?b, s?I, s?b}", "std_sm_mhz", &std_mhz, "std_throttled", &std_thr,
                    "strict_sm_mhz", &strict_mhz, "strict_throttled", &strict_thr) == 0) {
        b->std_sm_mhz = std_mhz >= 0 && std_mhz <= 1000000 ? (unsigned)std_mhz : 0;
        b->strict_sm_mhz = strict_mhz >= 0 && strict_mhz <= 1000000 ? (unsigned)strict_mhz : 0;
        b->std_throttled = std_thr;
        b->strict_throttled = strict_thr;
    }
    const json_t *m = json_object_get(o, "mac");
    *mac = json_is_string(m) ? json_string_value(m) : NULL;
    return true;
}

static kbv_status cache_push(kbv_baseline_cache *c, const kbv_baseline *b)
{
    if (c->n == c->cap) {
        int cap = c->cap ? 2 * c->cap : 64;
        kbv_baseline *items = realloc(c->items, (size_t)cap * sizeof *items);
        if (!items)
            return kbv_fail(KBV_ERR_NOMEM, "%d cached baselines", cap);
        c->items = items;
        c->cap = cap;
    }
    c->items[c->n++] = *b;
    return KBV_OK;
}

static bool same_count(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(fabs(a), 1.0); }

static bool same_key(const kbv_baseline *a, const kbv_baseline *b)
{
    return a->mode == b->mode && !strcmp(a->problem, b->problem) && !strcmp(a->size, b->size) &&
           same_count(a->flops, b->flops) && same_count(a->min_bytes, b->min_bytes);
}

/* An entry set aside while loading, and how many entries had verified before it. */
typedef struct kbv_baseline_aside {
    kbv_baseline entry;
    int verified_before;
    bool mac_ok;
} kbv_baseline_aside;

static kbv_status set_aside(kbv_baseline_cache *c, const kbv_baseline *b, bool mac_ok)
{
    if (c->n_aside == c->cap_aside) {
        int cap = c->cap_aside ? 2 * c->cap_aside : 16;
        kbv_baseline_aside *items = realloc(c->aside, (size_t)cap * sizeof *items);
        if (!items)
            return kbv_fail(KBV_ERR_NOMEM, "%d baseline entries set aside", cap);
        c->aside = items;
        c->cap_aside = cap;
    }
    c->aside[c->n_aside++] = (kbv_baseline_aside){.entry = *b, .verified_before = c->n,
                                                  .mac_ok = mac_ok};
    return KBV_OK;
}

/* Whether a verified entry of the key of aside a came after it. */
static bool measured_again(const kbv_baseline_cache *c, const kbv_baseline_aside *a)
{
    for (int k = a->verified_before; k < c->n; k++)
        if (same_key(&c->items[k], &a->entry))
            return true;
    return false;
}

static void count_set_aside(kbv_baseline_cache *c)
{
    for (int i = 0; i < c->n_aside; i++) {
        if (measured_again(c, &c->aside[i]))
            continue;
        if (c->aside[i].mac_ok)
            c->invalid++;
        else
            c->unverified++;
    }
}

/* One line of the file: kept when it verifies, set aside when it is an entry
 * of this device that does not; a torn or foreign line only costs a
 * re-measurement. */
static kbv_status take_line(kbv_baseline_cache *c, const char *line)
{
    json_error_t jerr;
    json_t *o = json_loads(line, 0, &jerr);
    kbv_baseline b;
    const char *mac = NULL;
    kbv_status st = KBV_OK;
    if (o && baseline_from_json(o, &b, &mac) && !strcmp(b.device, c->device)) {
        bool mac_ok = mac && baseline_mac_verifies(&c->key, &b, mac);
        st = mac_ok && kbv_baseline_plausible(&b) ? cache_push(c, &b) : set_aside(c, &b, mac_ok);
    }
    json_decref(o);
    return st;
}

kbv_status kbv_baseline_cache_open(const char *device_name, kbv_baseline_cache *c)
{
    kbv_status st = KBV_OK;
    FILE *f = NULL;
    char *line = NULL;
    size_t cap = 0;
    memset(c, 0, sizeof *c);
    snprintf(c->device, sizeof c->device, "%s", device_name);
    const char *root = kbv_cache_dir();
    if (!root)
        return kbv_relay_at(__FILE__, __LINE__, KBV_ERR_IO);
    char dir[1024], slug[128];
    snprintf(dir, sizeof dir, "%s/baselines", root);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return kbv_fail(KBV_ERR_IO, "cannot create %s: %s", dir, strerror(errno));
    kbv_device_slug(device_name, slug, sizeof slug);
    if (snprintf(c->path, sizeof c->path, "%s/%s.jsonl", dir, slug) >= (int)sizeof c->path)
        return kbv_fail(KBV_ERR_INVALID, "baseline cache path too long under %s", dir);
    char key_path[1024];
    KBV_TRY_GOTO(kbv_secret_path(key_path, sizeof key_path), st, done);
    KBV_TRY_GOTO(kbv_secret_check_outside(key_path, root), st, done);
    KBV_TRY_GOTO(kbv_secret_load_from(key_path, &c->key), st, done);

    f = fopen(c->path, "r");
    if (!f) {
        if (errno != ENOENT)
            KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot read %s: %s", c->path, strerror(errno));
        goto done;
    }
    while (getline(&line, &cap, f) >= 0)
        KBV_TRY_GOTO(take_line(c, line), st, done);
    count_set_aside(c);
done:
    free(line);
    if (f)
        fclose(f);
    if (st != KBV_OK)
        kbv_baseline_cache_close(c);
    return st;
}

bool kbv_baseline_cache_rejections(const kbv_baseline_cache *c, char *buf, size_t cap)
{
    int n = c->unverified + c->invalid;
    if (cap > 0)
        buf[0] = '\0';
    if (n == 0)
        return false;
    char why[160];
    if (c->invalid == 0)
        snprintf(why, sizeof why, "did not verify (forged, edited, written under another key "
                                  "or by an older kbv)");
    else if (c->unverified == 0)
        snprintf(why, sizeof why, "held impossible values");
    else
        snprintf(why, sizeof why, "did not verify (forged, edited, written under another key "
                                  "or by an older kbv) or held impossible values (%d)",
                 c->invalid);
    snprintf(buf, cap, "%d entr%s of the baseline cache %s %s: not used, measured again when "
             "needed", n, n == 1 ? "y" : "ies", c->path, why);
    return true;
}

const kbv_baseline *kbv_baseline_cache_find(const kbv_baseline_cache *c, const char *problem,
                                            const char *size, kbv_mode mode,
                                            const kbv_graph *g, bool need_strict)
{
    kbv_baseline want;
    memset(&want, 0, sizeof want);
    snprintf(want.problem, sizeof want.problem, "%s", problem);
    snprintf(want.size, sizeof want.size, "%s", size);
    want.mode = mode;
    want.flops = kbv_graph_flops(g);
    want.min_bytes = kbv_graph_min_bytes(g);
    int best = -1;
    for (int i = c->n - 1; i >= 0; i--)
        if (same_key(&c->items[i], &want) &&
            (!need_strict || kbv_baseline_has_strict(&c->items[i])) &&
            (best < 0 || c->items[i].measured_at > c->items[best].measured_at))
            best = i;
    if (best < 0)
        return NULL;
    /* an entry of this key that did not verify came after it: measure again */
    for (int k = 0; k < c->n_aside; k++)
        if (c->aside[k].verified_before > best && same_key(&c->aside[k].entry, &want))
            return NULL;
    return &c->items[best];
}

/* b as the cache holds it: strict's median and IQR 0 where it was not timed
 * (JSON has no NaN), so the line, its MAC and the entry in memory agree. */
static kbv_baseline stored_form(const kbv_baseline *b)
{
    kbv_baseline s = *b;
    if (!kbv_baseline_has_strict(&s)) {
        s.strict_n = 0;
        s.strict_median_ms = s.strict_iqr_ms = 0;
    }
    return s;
}

/* b as a run uses it: strict's median and IQR NaN where it was not timed. */
static kbv_baseline used_form(const kbv_baseline *b)
{
    kbv_baseline u = *b;
    if (!kbv_baseline_has_strict(&u))
        u.strict_median_ms = u.strict_iqr_ms = NAN;
    return u;
}

kbv_status kbv_baseline_cache_put(kbv_baseline_cache *c, const kbv_baseline *given)
{
    kbv_status st = KBV_OK;
    int fd = -1;
    char *text = NULL, mac[KBV_MAC_HEX_LEN + 1];
    json_t *o = NULL;
    const kbv_baseline stored = stored_form(given), *b = &stored;
    KBV_TRY(baseline_mac(&c->key, b, mac));
    o = baseline_to_json(b, mac);
    if (!o)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "cannot encode the baseline of %s as JSON",
                      b->problem);
    text = json_dumps(o, JSON_COMPACT);
    if (!text)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "serialising a baseline");
    size_t len = strlen(text);
    char *line = realloc(text, len + 2);
    if (!line)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "serialising a baseline");
    text = line;
    memcpy(text + len, "\n", 2);
    fd = open(c->path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot open %s: %s", c->path, strerror(errno));
    /* one write per line: concurrent kbv processes append whole lines */
    ssize_t w = write(fd, text, len + 1);
    if (w != (ssize_t)(len + 1) || fsync(fd))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s: %s", c->path,
                      w < 0 || errno ? strerror(errno) : "short write");
    KBV_TRY_GOTO(cache_push(c, b), st, done);
done:
    if (fd >= 0)
        close(fd);
    free(text);
    json_decref(o);
    return st;
}

void kbv_baseline_cache_close(kbv_baseline_cache *c)
{
    free(c->items);
    free(c->aside);
    kbv_secret_wipe(&c->key);
    memset(c, 0, sizeof *c);
}

kbv_status kbv_baselines_get(kbv_baseline_cache *c, kbv_backend *const be[KBV_MODE_COUNT],
                             unsigned modes, bool with_strict, const kbv_graph *g,
                             const char *problem, kbv_size size, uint64_t seed, bool force,
                             kbv_baseline out[KBV_MODE_COUNT], unsigned *fresh)
{
    static const kbv_mode timed[] = {KBV_MODE_FP32_STRICT, KBV_MODE_FP32, KBV_MODE_TF32,
                                     KBV_MODE_BF16};
    const char *size_name = kbv_size_name(size);
    *fresh = 0;
    memset(out, 0, sizeof *out * KBV_MODE_COUNT);
    for (int m = 0; m < KBV_MODE_COUNT; m++) {
        out[m].std_mean_ms = out[m].std_sd_ms = out[m].strict_median_ms = NAN;
        out[m].strict_iqr_ms = out[m].peak_bytes = NAN;
        out[m].mode = (kbv_mode)m;
    }
    /* a mode asked for that runs the same code as an earlier one not asked
     * for is that one's measurement: the earlier one is then measured too */
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++)
        if ((modes >> timed[i] & 1u) && be[timed[i]])   /* no backend: refused below */
            modes |= 1u << kbv_mode_equivalent(be[timed[i]], g, timed[i]);
    for (size_t i = 0; i < sizeof timed / sizeof timed[0]; i++) {
        kbv_mode m = timed[i];
        if (!(modes >> m & 1u))
            continue;
        if (!be[m])
            return kbv_fail(KBV_ERR_INTERNAL, "baselines: no %s backend", kbv_mode_name(m));
        /* a mode that runs the same code as an earlier one is that measurement
         * (timed modes go in order, so the earlier one is filled) */
        kbv_mode same = kbv_mode_equivalent(be[m], g, m);
        if (same != m) {
            out[m] = out[same];
            out[m].mode = m;
            *fresh |= (*fresh >> same & 1u) << m;
            continue;
        }
        const kbv_baseline *hit =
            force ? NULL : kbv_baseline_cache_find(c, problem, size_name, m, g, with_strict);
        if (hit) {
            out[m] = used_form(hit);
            continue;
        }
        kbv_baseline b;
        memset(&b, 0, sizeof b);
        KBV_TRY(kbv_baseline_measure(be[m], g, seed, with_strict, &b));
        snprintf(b.problem, sizeof b.problem, "%s", problem);
        snprintf(b.size, sizeof b.size, "%s", size_name);
        snprintf(b.device, sizeof b.device, "%s", c->device);
        KBV_TRY(kbv_baseline_cache_put(c, &b));
        out[m] = b;
        *fresh |= 1u << m;
    }
    return KBV_OK;
}
