/* Baselines: the problem's own graph run eagerly on the harness backends,
 * timed and measured as the protocols time candidates, and cached per
 * device so a run measures each (problem, size, mode) once.
 *
 *   standard timing  3 warm-up runs and at least 100 ms of them, then the mean and
 *                    stddev of 100 timed runs (again if the SM clock was throttled)
 *   strict timing    30 trials with fresh inputs and a flushed cache: median and IQR
 *                    (only for a run that evaluates strict: strict_n 0 says it was
 *                    not measured, its median and IQR NaN in memory, 0 in the cache)
 *   memory           resident inputs and params (512-byte rounded) plus the
 *                    allocator's peak growth during one forward, as
 *                    torch.cuda.max_memory_allocated sees it
 *
 * The cache is JSONL, one measurement per line:
 *   <kbv_cache_dir()>/baselines/<device-name-slug>.jsonl
 * Only kbv's own processes write it, and every entry carries "mac", an
 * HMAC-SHA256 of its canonical content under the user's key (core/secret.h).
 * An entry is used only when its MAC verifies and its values are possible
 * (finite, positive times, sane counts); any other is set aside, counted, and
 * that baseline measured again. Of the entries of one key that are used, the
 * latest measured wins (the last line on a tie), so a replayed older line
 * cannot displace a newer measurement. */
#ifndef KBV_BASELINE_H
#define KBV_BASELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/secret.h"
#include "core/status.h"
#include "eval/device.h"
#include "exec/backend.h"
#include "graph/graph.h"

#define KBV_BASELINE_WARMUP 3
#define KBV_BASELINE_STD_RUNS 100
#define KBV_BASELINE_STRICT_TRIALS 30

typedef struct kbv_baseline {
    char problem[32];            /* "L1/19" */
    char size[8];                /* "full", "small" */
    kbv_mode mode;
    char device[128];
    double flops, min_bytes;     /* of the graph measured: a changed definition misses */
    double std_mean_ms, std_sd_ms;
    int std_n;
    double strict_median_ms, strict_iqr_ms;
    int strict_n;
    double peak_bytes;
    long long measured_at;       /* Unix time */
    /* The lowest SM clock sampled while timing, MHz (0: no clock, the CPU), and
     * whether it stayed throttled through every attempt (exec/clock_guard.h). */
    unsigned std_sm_mhz, strict_sm_mhz;
    bool std_throttled, strict_throttled;
} kbv_baseline;

const char *kbv_size_name(kbv_size s);           /* "full", "small" */
kbv_status kbv_size_parse(const char *s, kbv_size *out);

/* Measures one mode on be; the identity fields of out are left to the caller.
 * seed draws the inputs and params (base distribution). strict_timing: strict's
 * trials too; without them strict_n is 0 and its median and IQR NaN. */
kbv_status kbv_baseline_measure(kbv_backend *be, const kbv_graph *g, uint64_t seed,
                                bool strict_timing, kbv_baseline *out);

/* Whether b holds strict's timing (strict_n >= 1). */
bool kbv_baseline_has_strict(const kbv_baseline *b);

typedef struct kbv_baseline_cache {
    char path[1024];
    char device[128];            /* whose measurements these are */
    kbv_baseline *items;         /* the entries that verified, in file order */
    int n, cap;
    struct kbv_baseline_aside *aside;   /* the entries set aside, and where */
    int n_aside, cap_aside;
    int unverified;              /* entries set aside: no MAC, or one that does not verify */
    int invalid;                 /* entries set aside: MAC verified, values impossible */
    kbv_secret key;
} kbv_baseline_cache;

/* Loads the cache of one device (a missing file is empty), with the user's
 * key (created on first use). An entry set aside makes its key a miss until
 * a verified entry of that key follows it in the file (the re-measurement),
 * and only those not yet followed are counted. */
kbv_status kbv_baseline_cache_open(const char *device_name, kbv_baseline_cache *c);
/* One line for the user about the entries set aside, into buf; false (and
 * buf "") when there were none. */
bool kbv_baseline_cache_rejections(const kbv_baseline_cache *c, char *buf, size_t cap);
/* Whether a measurement holds possible values (what loading accepts). */
bool kbv_baseline_plausible(const kbv_baseline *b);
/* The latest measurement of (problem, size, mode) for this graph -- of those
 * with strict's timing when need_strict -- or NULL when there is none or an
 * entry set aside came after it. Its strict fields are as stored (0 when not
 * measured). */
const kbv_baseline *kbv_baseline_cache_find(const kbv_baseline_cache *c, const char *problem,
                                            const char *size, kbv_mode mode,
                                            const kbv_graph *g, bool need_strict);
/* Appends a measurement with its MAC (write + fsync) and keeps it in memory. */
kbv_status kbv_baseline_cache_put(kbv_baseline_cache *c, const kbv_baseline *b);
void kbv_baseline_cache_close(kbv_baseline_cache *c);

/* The baselines of one problem in the timed modes of `modes` (bit m: mode
 * m; fp32-strict, fp32, tf32, bf16 -- a precision's kbv_precision_modes
 * timed; other slots stay empty): from the cache, measuring and caching what
 * is missing, or everything when force. A mode that runs the same code as
 * an earlier one for this graph (kbv_mode_equivalent: every float32 mode on
 * the CPU, every float32 mode of an elementwise problem on a GPU) is that
 * one measurement, never a second one. with_strict: strict's timing too (a
 * run that evaluates strict; one that does not leaves it out, and its slots'
 * strict fields NaN, unless the cache has it). Bit m of *fresh is set when mode m
 * was measured now rather than found in the cache. */
kbv_status kbv_baselines_get(kbv_baseline_cache *c, kbv_backend *const be[KBV_MODE_COUNT],
                             unsigned modes, bool with_strict, const kbv_graph *g,
                             const char *problem, kbv_size size, uint64_t seed, bool force,
                             kbv_baseline out[KBV_MODE_COUNT], unsigned *fresh);

#endif
