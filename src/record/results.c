#include "record/results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/vendor_libs.h"

#include <openssl/evp.h>

static const char *const proto_names[KBV_PROTO_COUNT] = {"standard", "verified", "strict"};
static const char *const phase_names[KBV_PHASE_COUNT] = {"compile", "load", "baselines",
                                                         "correctness", "timing", "audit"};
static const char *const busy_names[KBV_BUSY_COUNT] = {"candidate", "checks", "baselines"};
static const char *const check_names[KBV_CHECK_COUNT] = {"fills",      "poison", "hashes",
                                                         "references", "oracle", "comparisons"};

const char *kbv_protocol_name(kbv_protocol p)
{
    return (unsigned)p < KBV_PROTO_COUNT ? proto_names[p] : "?";
}

/* The one table of gates: the option, the record and --help all read it. */
static const kbv_gate_info gates[KBV_GATE_COUNT] = {
    [KBV_GATE_TEXT] = {"text", "as the paper's text says: allclose atol = rtol =\n"
                               "1e-3 on the 5 standard draws and on the hidden\n"
                               "configs (D1-D4, L1/100's H5) (default)"},
    [KBV_GATE_LEADERBOARD] =
        {"leaderboard",
         "as the paper's leaderboard code computed its\n"
         "published numbers (scripts/generate_leaderboard.py\n"
         "--use_hidden_eval --fp32_tolerance 1e-3, reading\n"
         "hidden runs stored at 1e-4): allclose atol = rtol =\n"
         "1e-4 on the 5 standard draws and, when all pass, on\n"
         "the hidden configs; a sample that failed standard\n"
         "draws at 1e-4 is promoted to correct, the hidden\n"
         "configs never judged, when no call crashed and the\n"
         "failed draws' max |diff| (rounded to 6 decimals,\n"
         "Python's max() over them in order, NaN included) is\n"
         "below 1e-3. 1e-2 for fp16/bf16 outputs, stored and\n"
         "promoted alike"},
};

const kbv_gate_info *kbv_gate_get(kbv_gate g)
{
    return &gates[(unsigned)g < KBV_GATE_COUNT ? g : KBV_GATE_TEXT];
}

kbv_status kbv_gate_parse(const char *name, kbv_gate *g)
{
    for (int i = 0; i < KBV_GATE_COUNT; i++)
        if (!strcmp(name, gates[i].name)) {
            *g = (kbv_gate)i;
            return KBV_OK;
        }
    return kbv_fail(KBV_ERR_PARSE, "gate '%s': expected text or leaderboard", name);
}

const char *kbv_phase_name(kbv_phase p)
{
    return p >= 0 && p < KBV_PHASE_COUNT ? phase_names[p] : "?";
}

const char *kbv_busy_name(kbv_busy b)
{
    return b >= 0 && b < KBV_BUSY_COUNT ? busy_names[b] : "?";
}

const char *kbv_check_work_name(kbv_check_work w)
{
    return w >= 0 && w < KBV_CHECK_COUNT ? check_names[w] : "?";
}

void kbv_record_init(kbv_record *rec)
{
    memset(rec, 0, sizeof *rec);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        kbv_proto_result *r = &rec->proto[p];
        r->t_kernel_ms = r->t_kernel_spread_ms = r->t_baseline_ms = r->speedup = NAN;
        r->mem_kernel_bytes = r->mem_baseline_bytes = r->sol_fraction = NAN;
        r->t_fp32_strict_ms = NAN;
    }
    rec->compile.seconds = NAN;
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        rec->phase_s[k] = NAN;
    rec->total_s = NAN;
    for (int k = 0; k < KBV_BUSY_COUNT; k++)
        rec->busy_s[k] = NAN;
    for (int k = 0; k < KBV_CHECK_COUNT; k++)
        rec->checks_s[k] = NAN;
}

void kbv_proto_skip(kbv_proto_result *p, const char *why)
{
    memset(p, 0, sizeof *p);
    p->t_kernel_ms = p->t_kernel_spread_ms = p->t_baseline_ms = p->speedup = NAN;
    p->mem_kernel_bytes = p->mem_baseline_bytes = p->sol_fraction = NAN;
    p->t_fp32_strict_ms = NAN;
    snprintf(p->reason, sizeof p->reason, "%s", why);
    p->skipped = true;
}

bool kbv_proto_has_flag(const kbv_proto_result *p, const char *flag)
{
    for (int i = 0; i < p->n_flags; i++)
        if (!strcmp(p->flags[i], flag))
            return true;
    return false;
}

void kbv_proto_add_flag(kbv_proto_result *p, const char *flag)
{
    if (kbv_proto_has_flag(p, flag) || p->n_flags >= KBV_RECORD_MAX_FLAGS)
        return;
    snprintf(p->flags[p->n_flags++], sizeof p->flags[0], "%s", flag);
}

/* ---- to JSON ---------------------------------------------------------- */

static json_t *real_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static json_t *bytes_or_null(double x)
{
    return isfinite(x) && x >= 0 ? json_integer((json_int_t)llround(x)) : json_null();
}

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when it is not one. */
static size_t utf8_seq(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (n == 0 || (n == 2 && p[0] < 0xC2) || (n == 4 && p[0] > 0xF4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] >= 0xA0)))
        return 0;   /* overlong, or a surrogate */
    if (n == 4 && ((p[0] == 0xF0 && p[1] < 0x90) || (p[0] == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

size_t kbv_utf8_copy(char *dst, size_t cap, const char *src, size_t max_bytes)
{
    size_t out = 0;
    const unsigned char *p = (const unsigned char *)src;
    while (*p && out + 1 < cap && (size_t)((const char *)p - src) < max_bytes) {
        size_t n = utf8_seq(p);
        if (n == 0) {   /* not UTF-8 (a Latin-1 path, a binary byte): keep the line readable */
            dst[out++] = '?';
            p++;
            continue;
        }
        if (out + n >= cap || (size_t)((const char *)p - src) + n > max_bytes)
            break;      /* never cut a character in half */
        memcpy(dst + out, p, n);
        out += n;
        p += n;
    }
    if (cap > 0)
        dst[out] = '\0';
    return out;
}

/* A JSON string of s, with bytes that are not UTF-8 replaced. */
static json_t *jstr(const char *s)
{
    json_t *j = json_string(s);
    if (j)
        return j;
    size_t len = strlen(s);
    char *clean = malloc(len + 1);
    if (!clean)
        return NULL;
    kbv_utf8_copy(clean, len + 1, s, len);
    j = json_string(clean);
    free(clean);
    return j;
}

static json_t *string_or_null(const char *s) { return s && *s ? jstr(s) : json_null(); }

/* text into dst (cap bytes with the NUL) from offset `at`, cut with a note
 * at a character boundary when it does not fit. */
static void bounded_copy(char *dst, size_t cap, size_t at, const char *text, const char *cut)
{
    size_t len = strlen(text), room = cap - 1 - at, cut_len = strlen(cut);
    if (len <= room) {
        kbv_utf8_copy(dst + at, cap - at, text, len);
        return;
    }
    if (room < cut_len)
        return;
    size_t n = kbv_utf8_copy(dst + at, cap - at, text, room - cut_len);
    memcpy(dst + at + n, cut, cut_len + 1);
}

void kbv_record_set_log(kbv_record *rec, const char *log)
{
    bounded_copy(rec->compile.log, sizeof rec->compile.log, 0, log,
                 "\n[... compiler output cut at 4 KiB]");
}

void kbv_record_add_output(kbv_record *rec, const char *text, size_t dropped)
{
    size_t at = strlen(rec->output);
    bounded_copy(rec->output, sizeof rec->output, at, text, "\n[... output cut at 4 KiB]");
    if (dropped) {
        char note[96];
        snprintf(note, sizeof note, "\n[... %zu more bytes not kept]", dropped);
        at = strlen(rec->output);
        if (at + strlen(note) < sizeof rec->output)
            memcpy(rec->output + at, note, strlen(note) + 1);
    }
}

kbv_status kbv_file_sha256(const char *path, char hex[65])
{
    kbv_status st = KBV_OK;
    unsigned char buf[1 << 16], md[EVP_MAX_MD_SIZE];
    unsigned int md_len = 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    FILE *f = fopen(path, "rb");
    if (!f)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    if (!ctx || !EVP_DigestInit_ex(ctx, EVP_sha256(), NULL))
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "SHA-256 context");
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        if (!EVP_DigestUpdate(ctx, buf, n))
            KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "SHA-256 of %s", path);
    if (ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading %s: %s", path, strerror(errno));
    if (!EVP_DigestFinal_ex(ctx, md, &md_len))
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "SHA-256 of %s", path);
    for (unsigned i = 0; i < md_len && i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    hex[64] = '\0';
done:
    if (f)
        fclose(f);
    EVP_MD_CTX_free(ctx);
    return st;
}

/* json_object_set_new that remembers a failure instead of checking each call. */
static void put(json_t *obj, const char *key, json_t *val, int *bad)
{
    if (!val || json_object_set_new(obj, key, val))
        *bad = 1;
}

static json_t *proto_to_json(const kbv_proto_result *r, kbv_protocol p, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "correct", json_boolean(r->correct), bad);
    put(o, "reason", string_or_null(r->reason), bad);
    put(o, "draws_passed", json_integer(r->draws_passed), bad);
    put(o, "draws_total", json_integer(r->draws_total), bad);
    put(o, "draws_skipped", json_integer(r->draws_skipped), bad);
    put(o, "t_kernel_ms", real_or_null(r->t_kernel_ms), bad);
    put(o, p == KBV_PROTO_STRICT ? "t_kernel_iqr_ms" : "t_kernel_sd_ms",
        real_or_null(r->t_kernel_spread_ms), bad);
    put(o, "t_baseline_ms", real_or_null(r->t_baseline_ms), bad);
    put(o, "speedup", real_or_null(r->speedup), bad);
    put(o, "mem_kernel_bytes", bytes_or_null(r->mem_kernel_bytes), bad);
    put(o, "mem_baseline_bytes", bytes_or_null(r->mem_baseline_bytes), bad);
    put(o, "sol_fraction", real_or_null(r->sol_fraction), bad);
    if (p == KBV_PROTO_STRICT)
        put(o, "t_fp32_strict_ms", real_or_null(r->t_fp32_strict_ms), bad);
    if (r->sm_mhz)
        put(o, "sm_mhz", json_integer(r->sm_mhz), bad);
    if (r->throttled)
        put(o, "throttled", json_true(), bad);
    json_t *flags = json_array();
    for (int i = 0; flags && i < r->n_flags; i++)
        if (json_array_append_new(flags, jstr(r->flags[i])))
            *bad = 1;
    put(o, "flags", flags, bad);
    if (r->advisory[0])
        put(o, "advisory", jstr(r->advisory), bad);
    if (r->skipped)
        put(o, "evaluated", json_false(), bad);
    return o;
}

static json_t *draw_to_json(const kbv_draw_record *d, int *bad)
{
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "dist", jstr(d->dist), bad);
    put(o, "std_pass", d->std_pass < 0 ? json_null() : json_boolean(d->std_pass), bad);
    put(o, "strict_pass", d->strict_pass < 0 ? json_null() : json_boolean(d->strict_pass), bad);
    put(o, "allclose_fail", json_integer(d->allclose_fail), bad);
    put(o, "max_abs_diff", real_or_null(d->max_abs_diff), bad);
    put(o, "rel_l2", real_or_null(d->rel_l2), bad);
    put(o, "budget_rel_l2", real_or_null(d->budget_rel_l2), bad);
    put(o, "max_err", real_or_null(d->max_err), bad);
    put(o, "budget_max_err", real_or_null(d->budget_max_err), bad);
    put(o, "unjudged", json_integer(d->unjudged), bad);
    put(o, "oracle_nonfinite", json_integer(d->oracle_nonfinite), bad);
    put(o, "poison_left", json_integer(d->poison_left), bad);
    if (d->first_bad_ndim >= 0) {
        json_t *idx = json_array();
        for (int i = 0; idx && i < d->first_bad_ndim; i++)
            if (json_array_append_new(idx, json_integer(d->first_bad[i])))
                *bad = 1;
        put(o, "first_bad", idx, bad);
    } else {
        put(o, "first_bad", json_null(), bad);
    }
    return o;
}

/* ["cublas", "cudnn"]: the vendor libraries the run allowed, [] for none. */
static json_t *vendor_libs_to_json(unsigned mask, int *bad)
{
    json_t *a = json_array();
    for (int l = 0; a && l < KBV_VENDOR_COUNT; l++)
        if ((mask >> l & 1u) &&
            json_array_append_new(a, json_string(kbv_vendor_get((kbv_vendor_lib)l)->name)))
            *bad = 1;
    return a;
}

/* A record without "vendor_libs" was written before runs could allow them: none. */
static kbv_status vendor_libs_from_json(const json_t *a, unsigned *mask)
{
    *mask = 0;
    if (!a)
        return KBV_OK;
    if (!json_is_array(a))
        return kbv_fail(KBV_ERR_PARSE, "results record whose vendor_libs is not a list");
    size_t i;
    const json_t *v;
    json_array_foreach(a, i, v) {
        const char *name = json_string_value(v);
        int found = -1;
        for (int l = 0; name && l < KBV_VENDOR_COUNT && found < 0; l++)
            if (!strcmp(name, kbv_vendor_get((kbv_vendor_lib)l)->name))
                found = l;
        if (found < 0)
            return kbv_fail(KBV_ERR_PARSE, "results record with an unknown vendor library");
        *mask |= 1u << found;
    }
    return KBV_OK;
}

kbv_status kbv_record_to_json(const kbv_record *rec, json_t **out)
{
    int bad = 0;
    json_t *o = json_object();
    if (!o)
        return kbv_fail(KBV_ERR_NOMEM, "building a results record");
    put(o, "schema", json_integer(KBV_RESULTS_SCHEMA), &bad);
    put(o, "model", jstr(rec->model), &bad);
    put(o, "problem", jstr(rec->problem), &bad);
    put(o, "level", json_integer(rec->level), &bad);
    put(o, "problem_id", json_integer(rec->problem_id), &bad);
    put(o, "sample", json_integer(rec->sample), &bad);
    put(o, "file", jstr(rec->file), &bad);
    put(o, "source_sha256", jstr(rec->source_sha256), &bad);
    put(o, "device", jstr(rec->device), &bad);
    put(o, "size", jstr(rec->size), &bad);
    put(o, "seed", json_integer((json_int_t)rec->seed), &bad);
    put(o, "gate", json_string(kbv_gate_get(rec->gate)->name), &bad);
    put(o, "precision", json_string(kbv_precision_get(rec->precision)->name), &bad);
    put(o, "vendor_libs", vendor_libs_to_json(rec->vendor_libs, &bad), &bad);

    json_t *c = json_object();
    if (c) {
        put(c, "ok", json_boolean(rec->compile.ok), &bad);
        put(c, "cached", json_boolean(rec->compile.cached), &bad);
        put(c, "seconds", real_or_null(rec->compile.seconds), &bad);
        put(c, "log", jstr(rec->compile.log), &bad);
    }
    put(o, "compile", c, &bad);

    json_t *protos = json_object();
    for (int p = 0; protos && p < KBV_PROTO_COUNT; p++)
        put(protos, proto_names[p], proto_to_json(&rec->proto[p], (kbv_protocol)p, &bad), &bad);
    put(o, "protocols", protos, &bad);

    json_t *draws = json_array();
    for (int i = 0; draws && i < rec->n_draws; i++)
        if (json_array_append_new(draws, draw_to_json(&rec->draws[i], &bad)))
            bad = 1;
    put(o, "draws", draws, &bad);
    if (rec->n_dropped > 0) {
        json_t *dropped = json_array();
        for (int i = 0; dropped && i < rec->n_dropped; i++)
            if (json_array_append_new(dropped, json_pack("{s:s, s:s}", "config",
                                                         rec->dropped[i].config, "reason",
                                                         rec->dropped[i].reason)))
                bad = 1;
        put(o, "configs_dropped", dropped, &bad);
    }

    if (rec->has_fault) {
        json_t *f = json_object();
        if (f) {
            put(f, "kind", jstr(rec->fault_kind), &bad);
            put(f, "reason", jstr(rec->fault_reason), &bad);
        }
        put(o, "fault", f, &bad);
    } else {
        put(o, "fault", json_null(), &bad);
    }
    put(o, "output", string_or_null(rec->output), &bad);
    put(o, "sandbox", string_or_null(rec->sandbox), &bad);
    if (rec->params[0])
        put(o, "params", jstr(rec->params), &bad);
    if (rec->has_phases) {
        json_t *ph = json_object();
        for (int k = 0; ph && k < KBV_PHASE_COUNT; k++)
            put(ph, phase_names[k], real_or_null(rec->phase_s[k]), &bad);
        if (ph)
            put(ph, "total", real_or_null(rec->total_s), &bad);
        put(o, "phase_s", ph, &bad);
    }
    if (rec->has_busy) {
        json_t *b = json_object();
        for (int k = 0; b && k < KBV_BUSY_COUNT; k++)
            put(b, busy_names[k], real_or_null(rec->busy_s[k]), &bad);
        put(o, "busy_s", b, &bad);
        json_t *c = json_object();
        for (int k = 0; c && k < KBV_CHECK_COUNT; k++)
            put(c, check_names[k], real_or_null(rec->checks_s[k]), &bad);
        put(o, "checks_s", c, &bad);
    }
    if (bad) {
        json_decref(o);
        /* json_string refuses invalid UTF-8: the likeliest cause here. */
        return kbv_fail(KBV_ERR_INVALID,
                        "cannot encode the record of %s sample %d as JSON (invalid UTF-8 in a "
                        "name, path or log?)", rec->problem, rec->sample);
    }
    *out = o;
    return KBV_OK;
}

/* ---- from JSON -------------------------------------------------------- */

static void get_str(const json_t *o, const char *key, char *dst, size_t cap)
{
    const json_t *v = json_object_get(o, key);
    snprintf(dst, cap, "%s", json_is_string(v) ? json_string_value(v) : "");
}

static double get_num(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
}

static long long get_int(const json_t *o, const char *key, long long dflt)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : dflt;
}

static void proto_from_json(const json_t *o, kbv_protocol p, kbv_proto_result *r)
{
    if (!json_is_object(o))
        return;
    r->correct = json_is_true(json_object_get(o, "correct"));
    get_str(o, "reason", r->reason, sizeof r->reason);
    r->draws_passed = (int)get_int(o, "draws_passed", 0);
    r->draws_total = (int)get_int(o, "draws_total", 0);
    r->draws_skipped = (int)get_int(o, "draws_skipped", 0);
    r->t_kernel_ms = get_num(o, "t_kernel_ms");
    r->t_kernel_spread_ms = get_num(o, p == KBV_PROTO_STRICT ? "t_kernel_iqr_ms" : "t_kernel_sd_ms");
    r->t_baseline_ms = get_num(o, "t_baseline_ms");
    r->speedup = get_num(o, "speedup");
    r->mem_kernel_bytes = get_num(o, "mem_kernel_bytes");
    r->mem_baseline_bytes = get_num(o, "mem_baseline_bytes");
    r->sol_fraction = get_num(o, "sol_fraction");
    r->t_fp32_strict_ms = get_num(o, "t_fp32_strict_ms");
    long long mhz = get_int(o, "sm_mhz", 0);
    r->sm_mhz = mhz > 0 && mhz < 1000000 ? (unsigned)mhz : 0;
    r->throttled = json_is_true(json_object_get(o, "throttled"));
    const json_t *flags = json_object_get(o, "flags");
    size_t i;
    const json_t *f;
    json_array_foreach(flags, i, f)
        if (json_is_string(f))
            kbv_proto_add_flag(r, json_string_value(f));
    get_str(o, "advisory", r->advisory, sizeof r->advisory);
    r->skipped = json_is_false(json_object_get(o, "evaluated"));
}

static void draw_from_json(const json_t *o, kbv_draw_record *d)
{
    get_str(o, "dist", d->dist, sizeof d->dist);
    const json_t *sp = json_object_get(o, "std_pass");
    d->std_pass = json_is_boolean(sp) ? json_is_true(sp) : -1;
    const json_t *xp = json_object_get(o, "strict_pass");
    d->strict_pass = json_is_boolean(xp) ? json_is_true(xp) : -1;
    d->allclose_fail = get_int(o, "allclose_fail", 0);
    d->unjudged = get_int(o, "unjudged", 0);
    d->oracle_nonfinite = get_int(o, "oracle_nonfinite", 0);
    d->poison_left = get_int(o, "poison_left", 0);
    d->max_abs_diff = get_num(o, "max_abs_diff");
    d->rel_l2 = get_num(o, "rel_l2");
    d->budget_rel_l2 = get_num(o, "budget_rel_l2");
    d->max_err = get_num(o, "max_err");
    d->budget_max_err = get_num(o, "budget_max_err");
    d->first_bad_ndim = -1;
    const json_t *fb = json_object_get(o, "first_bad");
    if (json_is_array(fb) && json_array_size(fb) <= KBV_MAX_DIMS) {
        d->first_bad_ndim = (int)json_array_size(fb);
        for (int i = 0; i < d->first_bad_ndim; i++)
            d->first_bad[i] = json_integer_value(json_array_get(fb, (size_t)i));
    }
}

static const char *const legacy_notes[KBV_LEGACY_COUNT] = {
    "written before kbv recorded the verified gate: read as the text's, the only gate then",
    "written before the sandbox: the candidate ran unconfined, so a forbidden system call did "
    "not fail it",
};

const char *kbv_legacy_note(int k)
{
    return k >= 0 && k < KBV_LEGACY_COUNT ? legacy_notes[k] : "?";
}

long long kbv_record_schema(const json_t *o)
{
    const json_t *v = json_object_get(o, "schema");
    return json_is_integer(v) ? (long long)json_integer_value(v) : -1;
}

kbv_status kbv_record_from_json(const json_t *o, kbv_record *rec)
{
    kbv_record_init(rec);
    if (!json_is_object(o))
        return kbv_fail(KBV_ERR_PARSE, "a results record must be a JSON object");
    long long schema = kbv_record_schema(o);
    if (schema > KBV_RESULTS_SCHEMA)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "results record of schema %lld, written by a newer "
                        "kbv (this one reads schemas up to %d)", schema, KBV_RESULTS_SCHEMA);
    if (schema != KBV_RESULTS_SCHEMA)
        return kbv_fail(KBV_ERR_PARSE, "results record of schema %lld (this kbv reads %d)",
                        schema, KBV_RESULTS_SCHEMA);
    if (!json_object_get(o, "gate"))
        rec->legacy |= KBV_LEGACY_NO_GATE;
    if (!json_object_get(o, "sandbox"))
        rec->legacy |= KBV_LEGACY_NO_SANDBOX;
    if (!json_is_string(json_object_get(o, "model")) ||
        !json_is_string(json_object_get(o, "problem")))
        return kbv_fail(KBV_ERR_PARSE, "results record without model or problem");
    get_str(o, "model", rec->model, sizeof rec->model);
    get_str(o, "problem", rec->problem, sizeof rec->problem);
    rec->level = (int)get_int(o, "level", 0);
    rec->problem_id = (int)get_int(o, "problem_id", 0);
    rec->sample = (int)get_int(o, "sample", 0);
    get_str(o, "file", rec->file, sizeof rec->file);
    get_str(o, "source_sha256", rec->source_sha256, sizeof rec->source_sha256);
    get_str(o, "device", rec->device, sizeof rec->device);
    get_str(o, "size", rec->size, sizeof rec->size);
    rec->seed = (uint64_t)get_int(o, "seed", 0);
    const json_t *gate = json_object_get(o, "gate");
    if (gate && (!json_is_string(gate) ||
                 kbv_gate_parse(json_string_value(gate), &rec->gate) != KBV_OK))
        return kbv_fail(KBV_ERR_PARSE, "results record with an unknown gate");
    const json_t *precision = json_object_get(o, "precision");
    if (precision && (!json_is_string(precision) ||
                      kbv_precision_parse(json_string_value(precision), &rec->precision) !=
                          KBV_OK))
        return kbv_fail(KBV_ERR_PARSE, "results record with an unknown precision");
    KBV_TRY(vendor_libs_from_json(json_object_get(o, "vendor_libs"), &rec->vendor_libs));
    const json_t *c = json_object_get(o, "compile");
    if (json_is_object(c)) {
        rec->compile.ok = json_is_true(json_object_get(c, "ok"));
        rec->compile.cached = json_is_true(json_object_get(c, "cached"));
        rec->compile.seconds = get_num(c, "seconds");
        get_str(c, "log", rec->compile.log, sizeof rec->compile.log);
    }
    const json_t *protos = json_object_get(o, "protocols");
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        proto_from_json(json_object_get(protos, proto_names[p]), (kbv_protocol)p, &rec->proto[p]);
    const json_t *draws = json_object_get(o, "draws");
    size_t i;
    const json_t *d;
    json_array_foreach(draws, i, d) {
        if (rec->n_draws >= KBV_RECORD_MAX_DRAWS)
            break;
        draw_from_json(d, &rec->draws[rec->n_draws++]);
    }
    json_array_foreach(json_object_get(o, "configs_dropped"), i, d) {
        if (rec->n_dropped >= KBV_RECORD_MAX_DROPPED)
            break;
        kbv_dropped_config *x = &rec->dropped[rec->n_dropped++];
        get_str(d, "config", x->config, sizeof x->config);
        get_str(d, "reason", x->reason, sizeof x->reason);
    }
    const json_t *f = json_object_get(o, "fault");
    if (json_is_object(f)) {
        rec->has_fault = true;
        get_str(f, "kind", rec->fault_kind, sizeof rec->fault_kind);
        get_str(f, "reason", rec->fault_reason, sizeof rec->fault_reason);
    }
    get_str(o, "output", rec->output, sizeof rec->output);
    get_str(o, "sandbox", rec->sandbox, sizeof rec->sandbox);
    get_str(o, "params", rec->params, sizeof rec->params);
    const json_t *ph = json_object_get(o, "phase_s");
    if (json_is_object(ph)) {
        rec->has_phases = true;
        for (int k = 0; k < KBV_PHASE_COUNT; k++)
            rec->phase_s[k] = get_num(ph, phase_names[k]);
        rec->total_s = get_num(ph, "total");
    }
    const json_t *busy = json_object_get(o, "busy_s");
    if (json_is_object(busy)) {
        rec->has_busy = true;
        for (int k = 0; k < KBV_BUSY_COUNT; k++)
            rec->busy_s[k] = get_num(busy, busy_names[k]);
    }
    const json_t *checks = json_object_get(o, "checks_s");   /* absent before it was measured */
    if (json_is_object(checks))
        for (int k = 0; k < KBV_CHECK_COUNT; k++)
            rec->checks_s[k] = get_num(checks, check_names[k]);
    return KBV_OK;
}

const char *kbv_record_table_name(const kbv_record *r, char *buf, size_t cap)
{
    if (r->precision == KBV_PRECISION_FP32)
        snprintf(buf, cap, "%s", r->model);
    else
        snprintf(buf, cap, "%.100s @%s", r->model, kbv_precision_get(r->precision)->name);
    return buf;
}

int kbv_record_table_cmp(const kbv_record *a, const kbv_record *b)
{
    int c = strcmp(a->model, b->model);
    if (c)
        return c;
    return (a->precision > b->precision) - (a->precision < b->precision);
}

bool kbv_record_same_job(const kbv_record *a, const kbv_record *b)
{
    return a->sample == b->sample && !strcmp(a->problem, b->problem) &&
           !strcmp(a->model, b->model) && !strcmp(a->source_sha256, b->source_sha256) &&
           !strcmp(a->size, b->size) && !strcmp(a->device, b->device) && a->gate == b->gate &&
           a->precision == b->precision && a->vendor_libs == b->vendor_libs;
}

/* ---- lists and files -------------------------------------------------- */

kbv_status kbv_record_list_push(kbv_record_list *list, const kbv_record *rec)
{
    if (list->n == list->cap) {
        int cap = list->cap ? list->cap * 2 : 16;
        kbv_record *items = realloc(list->items, (size_t)cap * sizeof *items);
        if (!items)
            return kbv_fail(KBV_ERR_NOMEM, "%d results records", cap);
        list->items = items;
        list->cap = cap;
    }
    list->items[list->n++] = *rec;
    return KBV_OK;
}

void kbv_record_list_free(kbv_record_list *list)
{
    free(list->items);
    memset(list, 0, sizeof *list);
}

/* ---- what a results file is ------------------------------------------- */

/* kbv writes "schema" first in every record (jansson keeps the insertion
 * order), so a record cut short anywhere still begins with a prefix of this. */
static const char record_start[] = "{\"schema\":";

typedef enum line_kind { LINE_BLANK, LINE_RECORD, LINE_NEWER, LINE_TORN, LINE_FOREIGN } line_kind;

/* The line's length without its line ending; 0 when it is blank. */
static size_t content_length(const char *line, size_t len)
{
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
        len--;
    for (size_t i = 0; i < len; i++)
        if (line[i] != ' ' && line[i] != '\t')
            return len;
    return 0;
}

static bool begins_like_a_record(const char *line, size_t len)
{
    size_t n = sizeof record_start - 1;
    return memcmp(line, record_start, len < n ? len : n) == 0;
}

/* What one line of a results file is; *rec is the record when it is one. A
 * line that is no record but begins like one was cut short by a killed run
 * (or is of another schema); any other was not written by kbv. */
static line_kind classify_line(const char *line, size_t len, kbv_record *rec, int *schema)
{
    size_t n = content_length(line, len);
    if (n == 0)
        return LINE_BLANK;
    json_error_t jerr;
    json_t *o = json_loadb(line, len, 0, &jerr);
    kbv_status st = o ? kbv_record_from_json(o, rec) : KBV_ERR_PARSE;
    if (schema)
        *schema = o ? (int)kbv_record_schema(o) : -1;
    json_decref(o);
    if (st == KBV_OK)
        return LINE_RECORD;
    kbv_clear_error();
    if (st == KBV_ERR_UNSUPPORTED)
        return LINE_NEWER;
    return begins_like_a_record(line, n) ? LINE_TORN : LINE_FOREIGN;
}

kbv_status kbv_records_load(const char *path, kbv_record_list *list)
{
    kbv_status st = KBV_OK;
    char *line = NULL;
    size_t cap = 0;
    kbv_record *rec = NULL;
    memset(list, 0, sizeof *list);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT)
            return KBV_OK;
        return kbv_fail(KBV_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    }
    rec = malloc(sizeof *rec);
    if (!rec)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "reading %s", path);
    int lineno = 0;
    ssize_t len;
    errno = 0;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        int schema = -1;
        line_kind kind = classify_line(line, (size_t)len, rec, &schema);
        if (kind == LINE_BLANK)
            continue;
        if (kind == LINE_RECORD) {
            KBV_TRY_GOTO(kbv_record_list_push(list, rec), st, done);
            continue;
        }
        if (list->malformed++ == 0)
            list->first_malformed_line = lineno;
        if (kind == LINE_NEWER) {
            if (list->newer++ == 0)
                list->first_newer_line = lineno;
            if (schema > list->newest_schema)
                list->newest_schema = schema;
        }
        if (kind == LINE_FOREIGN && list->foreign++ == 0)
            list->first_foreign_line = lineno;
    }
    if (ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading %s: %s", path, strerror(errno));
done:
    free(rec);
    free(line);
    fclose(f);
    if (st != KBV_OK)
        kbv_record_list_free(list);
    return st;
}

/* The first line of path that no kbv wrote (1-based), 0 when there is none. */
static kbv_status find_foreign_line(const char *path, int *first_foreign)
{
    kbv_status st = KBV_OK;
    char *line = NULL;
    size_t cap = 0;
    kbv_record *rec = malloc(sizeof *rec);
    *first_foreign = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "cannot read %s: %s", path, strerror(errno));
    if (!rec)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "reading %s", path);
    int lineno = 0;
    ssize_t len;
    errno = 0;
    while (*first_foreign == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (classify_line(line, (size_t)len, rec, NULL) == LINE_FOREIGN)
            *first_foreign = lineno;
    }
    if (ferror(f))
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "reading %s: %s", path, strerror(errno));
done:
    if (f)
        fclose(f);
    free(rec);
    free(line);
    return st;
}

/* ---- holding a results file ------------------------------------------- */

/* The pid holding a flock on the file, from /proc/locks; 0 when unknown. */
static int lock_holder(const struct stat *sb)
{
    FILE *f = fopen("/proc/locks", "re");
    if (!f)
        return 0;
    char line[256];
    int holder = 0;
    while (!holder && fgets(line, sizeof line, f)) {
        char kind[16];
        int pid;
        unsigned maj, min;
        unsigned long long ino;
        /* "1: FLOCK  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; waiters have "->" */
        if (strstr(line, "->") ||
            sscanf(line, "%*d: %15s %*s %*s %d %x:%x:%llu", kind, &pid, &maj, &min, &ino) != 5)
            continue;
        if (!strcmp(kind, "FLOCK") && maj == major(sb->st_dev) && min == minor(sb->st_dev) &&
            ino == (unsigned long long)sb->st_ino)
            holder = pid;
    }
    fclose(f);
    return holder;
}

#define LOCK_ATTEMPTS 10

/* Opens path for appending (created when missing) and takes its lock. The
 * lock belongs to the file, not to the name: when kbv merge renamed a new
 * file over the name meanwhile, the new one is taken instead. */
static kbv_status take_file(const char *path, kbv_results *r)
{
    for (int attempt = 1;; attempt++) {
        r->created = false;
        r->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
        if (r->fd < 0 && errno == ENOENT) {
            r->fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
            r->created = r->fd >= 0;
            if (r->fd < 0 && errno == EEXIST && attempt < LOCK_ATTEMPTS)
                continue;   /* another process made it first: take that one */
        }
        if (r->fd < 0)
            return kbv_fail(KBV_ERR_IO, "cannot write %s: %s", path, strerror(errno));
        struct stat held, named;
        if (fstat(r->fd, &held))
            return kbv_fail(KBV_ERR_IO, "stat %s: %s", path, strerror(errno));
        int locked;
        do
            locked = flock(r->fd, LOCK_EX | LOCK_NB);
        while (locked != 0 && errno == EINTR);
        if (locked != 0 && errno == EWOULDBLOCK) {
            int pid = lock_holder(&held);
            char who[32] = "";
            if (pid > 0)
                snprintf(who, sizeof who, " (pid %d)", pid);
            r->refused = true;
            return kbv_fail(KBV_ERR_IO, "%s is in use by another kbv process%s; wait for it or "
                            "choose another --out", path, who);
        }
        /* any other failure: a file system without locks, written unlocked as before */
        if (stat(path, &named) == 0 && named.st_dev == held.st_dev &&
            named.st_ino == held.st_ino)
            return KBV_OK;
        close(r->fd);
        r->fd = -1;
        if (attempt >= LOCK_ATTEMPTS)
            return kbv_fail(KBV_ERR_IO, "%s keeps being replaced while kbv opens it", path);
    }
}

static kbv_status refuse_foreign(kbv_results *r, int line)
{
    r->refused = true;
    return kbv_fail(KBV_ERR_INVALID, "%s is not a kbv results file (line %d is not a results "
                    "record); it is left as it is: choose another --out", r->path, line);
}

static kbv_status results_begin(const char *path, kbv_results *r)
{
    memset(r, 0, sizeof *r);
    r->fd = -1;
    if (snprintf(r->path, sizeof r->path, "%s", path) >= (int)sizeof r->path)
        return kbv_fail(KBV_ERR_INVALID, "results path too long: %s", path);
    return KBV_OK;
}

kbv_status kbv_results_claim(const char *path, kbv_results *r)
{
    kbv_status st = KBV_OK;
    int foreign = 0;
    KBV_TRY(results_begin(path, r));
    KBV_TRY_GOTO(take_file(path, r), st, fail);
    KBV_TRY_GOTO(find_foreign_line(path, &foreign), st, fail);
    if (foreign)
        KBV_TRY_GOTO(refuse_foreign(r, foreign), st, fail);
    return KBV_OK;
fail:
    kbv_results_close(r);
    return st;
}

/* write(2) all of buf, across partial writes and signals. */
static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

kbv_status kbv_results_open(const char *path, kbv_results *r)
{
    kbv_status st = KBV_OK;
    KBV_TRY(results_begin(path, r));
    KBV_TRY_GOTO(take_file(path, r), st, fail);
    /* read before the repair below: a file that is not kbv's stays untouched */
    KBV_TRY_GOTO(kbv_records_load(path, &r->done), st, fail);
    if (r->done.foreign)
        KBV_TRY_GOTO(refuse_foreign(r, r->done.first_foreign_line), st, fail);
    struct stat sb;
    if (fstat(r->fd, &sb))
        KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "stat %s: %s", path, strerror(errno));
    if (sb.st_size > 0) {
        char last = '\n';
        if (pread(r->fd, &last, 1, sb.st_size - 1) != 1)
            KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "reading %s: %s", path, strerror(errno));
        /* A run killed mid-write leaves a line without its newline: close it,
         * so the next record starts on a line of its own; loading skipped it. */
        if (last != '\n') {
            if (write_all(r->fd, "\n", 1) || fsync(r->fd))
                KBV_FAIL_GOTO(st, fail, KBV_ERR_IO, "repairing the torn last line of %s: %s",
                              path, strerror(errno));
            r->repaired = true;
        }
    }
    return KBV_OK;
fail:
    kbv_results_close(r);
    return st;
}

bool kbv_results_has(const kbv_results *r, const kbv_record *key)
{
    return kbv_results_has_protocols(r, key, 0);
}

bool kbv_results_has_protocols(const kbv_results *r, const kbv_record *key, unsigned protocols)
{
    for (int i = 0; i < r->done.n; i++) {
        const kbv_record *done = &r->done.items[i];
        if (!kbv_record_same_job(done, key))
            continue;
        bool covered = true;
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            if (((protocols >> p) & 1u) && done->proto[p].skipped)
                covered = false;
        if (covered)
            return true;
    }
    return false;
}

kbv_status kbv_results_append(kbv_results *r, const kbv_record *rec)
{
    kbv_status st = KBV_OK;
    json_t *o = NULL;
    char *text = NULL;
    KBV_TRY_GOTO(kbv_record_to_json(rec, &o), st, done);
    text = json_dumps(o, JSON_COMPACT);
    if (!text)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "serialising a results record");
    size_t len = strlen(text);
    off_t before = lseek(r->fd, 0, SEEK_END);
    if (before < 0)
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "seeking in %s: %s", r->path, strerror(errno));
    /* One write of the line and its newline keeps lines whole in the common case. */
    char *line = realloc(text, len + 2);
    if (!line)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "serialising a results record");
    text = line;
    text[len] = '\n';
    text[len + 1] = '\0';
    if (write_all(r->fd, text, len + 1) || fsync(r->fd)) {
        int err = errno;
        /* Cut back a partial line so the records before it stay intact. */
        if (ftruncate(r->fd, before) == 0)
            (void)fsync(r->fd);
        KBV_FAIL_GOTO(st, done, KBV_ERR_IO, "writing %s: %s (the records before this one are "
                      "intact; rerun to resume)", r->path, strerror(err));
    }
    KBV_TRY_GOTO(kbv_record_list_push(&r->done, rec), st, done);
done:
    free(text);
    json_decref(o);
    return st;
}

void kbv_results_close(kbv_results *r)
{
    if (r->fd >= 0)
        close(r->fd);   /* and with it the lock */
    r->fd = -1;
    kbv_record_list_free(&r->done);
}
