#include "exec/clock_guard.h"

#include <errno.h>
#include <time.h>

void kbv_clock_guard_begin(kbv_clock_guard *g) { *g = (kbv_clock_guard){0}; }

void kbv_clock_guard_sample(kbv_clock_guard *g, kbv_backend *be)
{
    unsigned mhz = 0, max_mhz = 0;
    if (!be->sm_clock || be->sm_clock(be, &mhz, &max_mhz) != KBV_OK || mhz == 0)
        return;
    if (g->samples == 0 || mhz < g->min_mhz)
        g->min_mhz = mhz;
    if (max_mhz > g->max_mhz)
        g->max_mhz = max_mhz;
    g->samples++;
}

bool kbv_clock_guard_low(const kbv_clock_guard *g)
{
    return g->samples > 0 && g->max_mhz > 0 &&
           (double)g->min_mhz < KBV_CLOCK_LOW_FRACTION * (double)g->max_mhz;
}

void kbv_clock_guard_recover(void)
{
    struct timespec ts = {0, KBV_CLOCK_RECOVERY_MS * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

bool kbv_warmup_enough(int runs, int min_runs, double elapsed_ms)
{
    return runs >= KBV_WARMUP_MAX_RUNS || (runs >= min_runs && elapsed_ms >= KBV_WARMUP_MIN_MS);
}
