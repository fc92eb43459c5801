/* The evaluator: the backends of one device its precision needs, created
 * once per run and reused for every sample, and the options that pick the
 * device and size. */
#include "eval/protocol.h"

#include <stdlib.h>
#include <string.h>

#include "eval/child.h"
#include "eval/configs.h"
#include "eval/device.h"
#include "eval/precision.h"
#include "sandbox/spawn.h"

kbv_status kbv_evaluator_create(const kbv_eval_opts *opts, kbv_evaluator **out)
{
    kbv_status st = KBV_OK;
    *out = NULL;
    /* no candidate runs where it cannot be confined: say so once, up front */
    KBV_TRY(kbv_sandbox_require());
    kbv_evaluator *ev = calloc(1, sizeof *ev);
    if (!ev)
        return kbv_fail(KBV_ERR_NOMEM, "evaluator");
    ev->opts = *opts;
    if (ev->opts.strict_trials < KBV_STRICT_MIN_TRIALS)
        ev->opts.strict_trials = KBV_STRICT_MIN_TRIALS;
    if (ev->opts.call_timeout_s <= 0)
        ev->opts.call_timeout_s = 60.0;
    if (ev->opts.start_timeout_s <= 0)
        ev->opts.start_timeout_s = 60.0;
    ev->opts.protocols &= KBV_PROTOCOLS_ALL;
    if (ev->opts.protocols == 0)
        ev->opts.protocols = KBV_PROTOCOLS_ALL;
    const unsigned needed = kbv_precision_modes_get(opts->precision)->backends;
    for (int m = 0; m < KBV_MODE_COUNT; m++) {
        if (!(needed >> m & 1u))
            continue;
        if (opts->device < 0)
            KBV_TRY_GOTO(kbv_cpu_backend_create((kbv_mode)m, &ev->be[m]), st, fail);
        else
            KBV_TRY_GOTO(kbv_cuda_backend_create(opts->device, (kbv_mode)m, &ev->be[m]), st,
                         fail);
    }
    kbv_device_facts facts;
    KBV_TRY_GOTO(kbv_device_facts_get(opts->device, &facts), st, fail);
    kbv_device_name_of(&facts, ev->device_name, sizeof ev->device_name);
    if (opts->device >= 0)
        kbv_device_arch_of(&facts, ev->arch, sizeof ev->arch);
    ev->flush_bytes = facts.flush_bytes;
    *out = ev;
    return KBV_OK;
fail:
    kbv_evaluator_destroy(ev);
    return st;
}

void kbv_evaluator_destroy(kbv_evaluator *ev)
{
    if (!ev)
        return;
    kbv_ahead_stop(&ev->ahead);
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        kbv_backend_destroy(ev->be[m]);
    kbv_config_cache_free(ev->configs);
    free(ev);
}

kbv_status kbv_start_ahead_parse(const char *s, kbv_start_ahead *out, int *depth)
{
    static const char *const names[] = {"auto", "on", "off"};
    *depth = 0;
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *out = (kbv_start_ahead)i;
            return KBV_OK;
        }
    char *end = NULL;
    long n = strtol(s, &end, 10);
    if (end != s && *end == '\0' && n >= 1 && n <= KBV_AHEAD_MAX) {
        *out = KBV_START_AHEAD_ON;
        *depth = (int)n;
        return KBV_OK;
    }
    return kbv_fail(KBV_ERR_PARSE, "--start-ahead '%s': expected auto, on, off or a number "
                    "from 1 to %d", s, KBV_AHEAD_MAX);
}

kbv_status kbv_eval_opts_resolve(const char *device, const char *size, kbv_eval_opts *o)
{
    if (!device)
        o->device = kbv_cuda_available() ? 0 : -1;
    else if (!strcmp(device, "cpu"))
        o->device = -1;
    else if (!strcmp(device, "cuda")) {
        if (!kbv_cuda_available())
            return kbv_fail(KBV_ERR_UNSUPPORTED, "--device cuda: no usable GPU (or this kbv was "
                                                 "built without CUDA)");
        o->device = 0;
    } else {
        return kbv_fail(KBV_ERR_PARSE, "device '%s': expected cpu or cuda", device);
    }
    if (size)
        KBV_TRY(kbv_size_parse(size, &o->size));
    else
        o->size = o->device >= 0 ? KBV_SIZE_FULL : KBV_SIZE_SMALL;
    return KBV_OK;
}
