/* Timing on CLOCK_MONOTONIC and last-level cache eviction for cold trials. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu/cpu_backend.h"

#define KBV_DEFAULT_LLC_BYTES (64u << 20) /* assumed when neither sysconf nor sysfs know */

kbv_status kbv_cpu_timer_start(kbv_backend *be)
{
    kbv_cpu_impl *impl = be->impl;
    clock_gettime(CLOCK_MONOTONIC, &impl->timer_started);
    impl->timer_running = true;
    return KBV_OK;
}

kbv_status kbv_cpu_timer_stop(kbv_backend *be, double *ms)
{
    kbv_cpu_impl *impl = be->impl;
    if (!impl->timer_running)
        return kbv_fail(KBV_ERR_INVALID, "timer_stop without timer_start");
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    impl->timer_running = false;
    *ms = (double)(now.tv_sec - impl->timer_started.tv_sec) * 1e3 +
          (double)(now.tv_nsec - impl->timer_started.tv_nsec) * 1e-6;
    return KBV_OK;
}

/* The last-level cache in bytes from sysfs ("32768K"), 0 if unreadable. */
static size_t llc_from_sysfs(void)
{
    size_t best = 0;
    for (int index = 0; index < 8; index++) {
        char path[96];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        unsigned long long size = 0;
        char unit = 0;
        int got = fscanf(f, "%llu%c", &size, &unit);
        fclose(f);
        if (got < 1)
            continue;
        if (got == 2 && (unit == 'K' || unit == 'k'))
            size <<= 10;
        else if (got == 2 && (unit == 'M' || unit == 'm'))
            size <<= 20;
        if (size > best)
            best = (size_t)size;
    }
    return best;
}

size_t kbv_cpu_llc_bytes(void)
{
    long llc = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    size_t bytes = llc > 0 ? (size_t)llc : llc_from_sysfs();
    if (bytes == 0)
        bytes = KBV_DEFAULT_LLC_BYTES;
    return bytes;
}

size_t kbv_cpu_flush_bytes(void) { return 2 * kbv_cpu_llc_bytes(); }

/* Writes then reads a buffer of twice the last-level cache. The buffer is
 * the backend's own (not counted in its memory statistics) and kept. */
kbv_status kbv_cpu_flush_cache(kbv_backend *be)
{
    kbv_cpu_impl *impl = be->impl;
    if (!impl->flush_buf) {
        size_t bytes = kbv_cpu_flush_bytes();
        impl->flush_buf = calloc(1, bytes);
        if (!impl->flush_buf)
            return kbv_fail(KBV_ERR_NOMEM, "cache flush buffer of %zu bytes", bytes);
        impl->flush_bytes = bytes;
    }
    /* A value different from the last flush's, so every line is dirtied. */
    unsigned char value = (unsigned char)(impl->flush_buf[0] + 1);
    memset(impl->flush_buf, value, impl->flush_bytes);
    volatile unsigned char sink = 0;
    unsigned char acc = 0;
    for (size_t i = 0; i < impl->flush_bytes; i += 64)
        acc ^= impl->flush_buf[i];
    sink = acc;
    (void)sink;
    return KBV_OK;
}
