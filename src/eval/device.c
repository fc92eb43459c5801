/* Device facts by ordinal: the CPU's from its backend, a GPU's from the
 * CUDA backend (exec/backend.h), and the strings kbv derives from them. */
#include "eval/device.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>

kbv_status kbv_device_facts_get(int device, kbv_device_facts *f)
{
    if (device < 0)
        return kbv_cpu_device_facts(f);
    return kbv_cuda_device_facts(device, f);
}

void kbv_device_name_of(const kbv_device_facts *f, char *buf, size_t cap)
{
    if (f->device < 0)
        snprintf(buf, cap, "cpu");
    else
        snprintf(buf, cap, "%s / CUDA %d.%d", f->name, f->runtime_version / 1000,
                 (f->runtime_version % 1000) / 10);
}

void kbv_device_arch_of(const kbv_device_facts *f, char *buf, size_t cap)
{
    /* sm_90a and later: the architecture-specific features (wgmma, setmaxnreg) */
    snprintf(buf, cap, "%d%d%s", f->cc_major, f->cc_minor, f->cc_major >= 9 ? "a" : "");
}

kbv_status kbv_device_name(int device, char *buf, size_t cap)
{
    kbv_device_facts f;
    KBV_TRY(kbv_device_facts_get(device, &f));
    kbv_device_name_of(&f, buf, cap);
    return KBV_OK;
}

void kbv_device_slug(const char *name, char *slug, size_t cap)
{
    size_t n = 0;
    bool dash = false;
    for (const char *p = name; *p && n + 1 < cap; p++) {
        unsigned char ch = (unsigned char)*p;
        if (isalnum(ch)) {
            if (dash && n > 0 && n + 2 < cap)
                slug[n++] = '-';
            slug[n++] = (char)tolower(ch);
            dash = false;
        } else {
            dash = true;
        }
    }
    if (n == 0 && cap > 1)
        slug[n++] = 'x';
    if (cap > 0)
        slug[n] = '\0';
}
