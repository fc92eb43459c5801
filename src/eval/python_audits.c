/* Strict's audits of a KernelBench-format candidate, from what its runner
 * saw inside the candidate's interpreter (wire/child_proto.h,
 * kbv_child_python). The rest of kbv's checks -- outputs against kbv's own
 * references on kbv's inputs, input and parameter integrity, fresh inputs,
 * the traced pass -- apply to these candidates as to C ones. */
#include "eval/sample.h"

#include <stdio.h>
#include <string.h>

bool sample_is_python(const char *so_path)
{
    return so_path && kbv_proto_is_python_candidate(so_path);
}

void sample_note_python(sample *s, const kbv_child_result *res)
{
    kbv_child_python *seen = &s->python_seen;
    const kbv_child_python *now = &res->python;
    if (!s->python)
        return;
    if (now->calls > seen->calls)
        seen->calls = now->calls;
    if (now->calls_without_extension > seen->calls_without_extension)
        seen->calls_without_extension = now->calls_without_extension;
    if (now->threads_started > seen->threads_started)
        seen->threads_started = now->threads_started;
    seen->has_extension |= now->has_extension;
    if (!seen->torch_patched[0] && now->torch_patched[0])
        snprintf(seen->torch_patched, sizeof seen->torch_patched, "%s", now->torch_patched);
}

void protocol_python_audits(sample *s, kbv_proto_result *S)
{
    const kbv_child_python *seen = &s->python_seen;
    char why[KBV_REASON_CAP];
    if (!s->python)
        return;
    if (seen->torch_patched[0]) {
        snprintf(why, sizeof why, "torch patched: the candidate replaced %.90s (kbv times and "
                 "judges outside PyTorch; a candidate may not change it)", seen->torch_patched);
        kbv_proto_add_flag(S, "torch-patched");
        protocol_fail(S, why);
    }
    if (seen->calls == 0) {
        /* no call of forward came back: nothing ran to judge (its failure says why) */
    } else if (!seen->has_extension) {
        kbv_proto_add_flag(S, "no-custom-kernel");
        protocol_fail(S, "no custom kernel: ModelNew loads no compiled extension (load_inline or "
                         "load), so every call ran PyTorch's own ops");
    } else if (seen->calls_without_extension > 0) {
        snprintf(why, sizeof why, "no custom kernel: %d of %d calls of forward ran no function "
                 "of the candidate's compiled extension (PyTorch's own ops instead)",
                 seen->calls_without_extension, seen->calls);
        kbv_proto_add_flag(S, "no-custom-kernel");
        protocol_fail(S, why);
    }
    if (seen->threads_started > 0) {
        snprintf(why, sizeof why, "python thread: the candidate left %d Python thread%s running "
                 "(work beside the call escapes its timing)", seen->threads_started,
                 seen->threads_started == 1 ? "" : "s");
        kbv_proto_add_flag(S, "python-thread");
        protocol_fail(S, why);
    }
}
