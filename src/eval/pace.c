#include "eval/pace.h"

#include <math.h>
#include <string.h>

#include "core/clock.h"

void kbv_pace_start(kbv_pace *p, const char *protocols)
{
    memset(p, 0, sizeof *p);
    p->protocols = protocols;
    p->started = kbv_monotonic_s();
}

void kbv_pace_stop(kbv_pace *p)
{
    if (p->started > 0)
        p->wall_s = kbv_monotonic_s() - p->started;
}

static kbv_status lane_of(kbv_pace *p, int device, kbv_pace_lane **out)
{
    for (int i = 0; i < p->n_lanes; i++)
        if (p->lanes[i].device == device) {
            *out = &p->lanes[i];
            return KBV_OK;
        }
    if (p->n_lanes == KBV_PACE_MAX_LANES)
        return kbv_fail(KBV_ERR_INVALID, "the pace of more than %d devices", KBV_PACE_MAX_LANES);
    kbv_pace_lane *l = &p->lanes[p->n_lanes++];
    memset(l, 0, sizeof *l);
    l->device = device;
    l->devices = 1;
    *out = l;
    return KBV_OK;
}

kbv_status kbv_pace_worker(kbv_pace *p, int device)
{
    kbv_pace_lane *l = NULL;   /* set on KBV_OK */
    KBV_TRY(lane_of(p, device, &l));
    l->workers++;
    return KBV_OK;
}

/* NAN (an absent quantity) adds nothing. */
static double finite_or_0(double x) { return isfinite(x) ? x : 0; }

kbv_status kbv_pace_add(kbv_pace *p, int device, const kbv_record *rec)
{
    if (!rec->has_phases)
        return KBV_OK;
    kbv_pace_lane *l = NULL;   /* set on KBV_OK */
    KBV_TRY(lane_of(p, device, &l));
    l->samples++;
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        l->phase_s[k] += finite_or_0(rec->phase_s[k]);
    l->total_s += finite_or_0(rec->total_s);
    if (rec->has_busy) {
        for (int k = 0; k < KBV_BUSY_COUNT; k++)
            l->busy_s[k] += finite_or_0(rec->busy_s[k]);
        for (int k = 0; k < KBV_CHECK_COUNT; k++)
            l->checks_s[k] += finite_or_0(rec->checks_s[k]);
    }
    return KBV_OK;
}

void kbv_pace_total(const kbv_pace *p, kbv_pace_lane *out)
{
    memset(out, 0, sizeof *out);
    out->device = KBV_PACE_ANY_DEVICE;
    for (int i = 0; i < p->n_lanes; i++) {
        const kbv_pace_lane *l = &p->lanes[i];
        out->devices += l->devices;
        out->workers += l->workers;
        out->samples += l->samples;
        out->total_s += l->total_s;
        for (int k = 0; k < KBV_PHASE_COUNT; k++)
            out->phase_s[k] += l->phase_s[k];
        for (int k = 0; k < KBV_BUSY_COUNT; k++)
            out->busy_s[k] += l->busy_s[k];
        for (int k = 0; k < KBV_CHECK_COUNT; k++)
            out->checks_s[k] += l->checks_s[k];
    }
}

void kbv_pace_share_of(const kbv_pace *p, const kbv_pace_lane *lane, kbv_pace_share *out)
{
    memset(out, 0, sizeof *out);
    /* a lane no worker was counted for (records sent from elsewhere) had one */
    int workers = lane->workers > 0 ? lane->workers : lane->devices;
    out->wall_s = workers * p->wall_s;
    double w = out->wall_s > 0 ? out->wall_s : NAN;
    double in_phases = 0;
    for (int k = 0; k < KBV_PHASE_COUNT; k++) {
        out->phase[k] = lane->phase_s[k] / w;
        in_phases += lane->phase_s[k];
    }
    for (int k = 0; k < KBV_BUSY_COUNT; k++) {
        out->busy_of[k] = lane->busy_s[k] / w;
        out->busy += out->busy_of[k];
    }
    for (int k = 0; k < KBV_CHECK_COUNT; k++)
        out->checks_of[k] = lane->checks_s[k] / w;
    out->other = fmax(0, lane->total_s - in_phases) / w;
    out->idle = fmax(0, out->wall_s - lane->total_s) / w;
    double device_hours = lane->devices * p->wall_s / 3600.0;
    out->per_hour = device_hours > 0 ? lane->samples / device_hours : NAN;
}

static void device_words(int device, char *buf, size_t cap)
{
    if (device == KBV_PACE_ANY_DEVICE)
        snprintf(buf, cap, "all devices");
    else if (device < 0)
        snprintf(buf, cap, "CPU");
    else
        snprintf(buf, cap, "GPU %d", device);
}

static void print_lane(FILE *f, const kbv_pace *p, const kbv_pace_lane *l)
{
    kbv_pace_share sh;
    kbv_pace_share_of(p, l, &sh);
    char who[32];
    device_words(l->device, who, sizeof who);
    fprintf(f, "  %-11s %4d samples, busy %5.1f%% (", who, l->samples, 100 * sh.busy);
    for (int k = 0; k < KBV_BUSY_COUNT; k++)
        fprintf(f, "%s%s %.1f%%", k ? ", " : "", kbv_busy_name((kbv_busy)k),
                100 * sh.busy_of[k]);
    fprintf(f, "), %.0f evaluations per device-hour\n", sh.per_hour);
    fprintf(f, "  %-11s checks:", "");
    for (int k = 0; k < KBV_CHECK_COUNT; k++)
        fprintf(f, " %s %.1f%%", kbv_check_work_name((kbv_check_work)k), 100 * sh.checks_of[k]);
    fprintf(f, "\n");
    fprintf(f, "  %-11s wall:", "");
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        fprintf(f, " %s %.1f%%", kbv_phase_name((kbv_phase)k), 100 * sh.phase[k]);
    fprintf(f, " other %.1f%% idle %.1f%%\n", 100 * sh.other, 100 * sh.idle);
}

void kbv_pace_print(FILE *f, const kbv_pace *p)
{
    kbv_pace_lane all;
    kbv_pace_total(p, &all);
    if (all.samples == 0)
        return;
    fprintf(f, "\nPace of this run (%s; %.1f s wall, %d sample%s on %d device%s): the device "
               "busy, and where the wall time went\n",
            p->protocols ? p->protocols : "-", p->wall_s, all.samples,
            all.samples == 1 ? "" : "s", all.devices, all.devices == 1 ? "" : "s");
    for (int i = 0; i < p->n_lanes; i++)
        print_lane(f, p, &p->lanes[i]);
    if (p->n_lanes > 1)
        print_lane(f, p, &all);
}

static json_t *num(double x) { return isfinite(x) ? json_real(x) : json_null(); }

static int put(json_t *o, const char *key, json_t *v)
{
    return !v || json_object_set_new(o, key, v);
}

static json_t *lane_json(const kbv_pace *p, const kbv_pace_lane *l, int *bad)
{
    kbv_pace_share sh;
    kbv_pace_share_of(p, l, &sh);
    json_t *o = json_object(), *busy = json_object(), *phase = json_object(),
           *sec = json_object(), *checks = json_object(), *checks_sec = json_object();
    if (!o || !busy || !phase || !sec || !checks || !checks_sec) {
        json_decref(o);
        json_decref(busy);
        json_decref(phase);
        json_decref(sec);
        json_decref(checks);
        json_decref(checks_sec);
        *bad = 1;
        return NULL;
    }
    if (l->device == KBV_PACE_ANY_DEVICE)
        *bad |= put(o, "device", json_string("all"));
    else if (l->device < 0)
        *bad |= put(o, "device", json_string("cpu"));
    else
        *bad |= put(o, "device", json_integer(l->device));
    *bad |= put(o, "devices", json_integer(l->devices));
    *bad |= put(o, "workers", json_integer(l->workers));
    *bad |= put(o, "samples", json_integer(l->samples));
    *bad |= put(o, "wall_s", num(sh.wall_s));
    *bad |= put(o, "busy", num(sh.busy));
    for (int k = 0; k < KBV_BUSY_COUNT; k++) {
        *bad |= put(busy, kbv_busy_name((kbv_busy)k), num(sh.busy_of[k]));
        *bad |= put(sec, kbv_busy_name((kbv_busy)k), num(l->busy_s[k]));
    }
    *bad |= put(o, "busy_by", busy);
    *bad |= put(o, "busy_s", sec);
    for (int k = 0; k < KBV_CHECK_COUNT; k++) {
        *bad |= put(checks, kbv_check_work_name((kbv_check_work)k), num(sh.checks_of[k]));
        *bad |= put(checks_sec, kbv_check_work_name((kbv_check_work)k), num(l->checks_s[k]));
    }
    *bad |= put(o, "checks_by", checks);
    *bad |= put(o, "checks_s", checks_sec);
    for (int k = 0; k < KBV_PHASE_COUNT; k++)
        *bad |= put(phase, kbv_phase_name((kbv_phase)k), num(sh.phase[k]));
    *bad |= put(phase, "other", num(sh.other));
    *bad |= put(phase, "idle", num(sh.idle));
    *bad |= put(o, "wall_by", phase);
    *bad |= put(o, "evaluations_per_device_hour", num(sh.per_hour));
    return o;
}

kbv_status kbv_pace_json(const kbv_pace *p, json_t **out)
{
    int bad = 0;
    json_t *o = json_object(), *lanes = json_array();
    if (!o || !lanes) {
        json_decref(o);
        json_decref(lanes);
        return kbv_fail(KBV_ERR_NOMEM, "the pace summary");
    }
    bad |= put(o, "protocols", json_string(p->protocols ? p->protocols : ""));
    bad |= put(o, "wall_s", num(p->wall_s));
    for (int i = 0; i < p->n_lanes; i++) {
        json_t *l = lane_json(p, &p->lanes[i], &bad);
        if (l && json_array_append_new(lanes, l))
            bad = 1;
    }
    bad |= put(o, "per_device", lanes);
    kbv_pace_lane all;
    kbv_pace_total(p, &all);
    bad |= put(o, "total", lane_json(p, &all, &bad));
    if (bad) {
        json_decref(o);
        return kbv_fail(KBV_ERR_NOMEM, "the pace summary");
    }
    *out = o;
    return KBV_OK;
}
