/* The CPU backend's device facts: its name as records give it, and its
 * last-level cache, which a cold trial's flush evicts. */
#include <string.h>

#include "cpu/cpu_backend.h"

kbv_status kbv_cpu_device_facts(kbv_device_facts *out)
{
    memset(out, 0, sizeof *out);
    out->device = -1;
    strcpy(out->name, "cpu");
    out->cache_bytes = kbv_cpu_llc_bytes();
    out->flush_bytes = kbv_cpu_flush_bytes();
    return KBV_OK;
}
